// grapple-cli: Grapple without a display, for scripts and batch runs.
#include <cstdlib>
#include <iostream>

#include "app/grapple-cli/commands.hpp"
#include "core/io/load_error.hpp"

namespace {

const char* kUsage = R"(usage: grapple-cli [COMMAND] [OPTIONS]

Commands:
  run [SCENARIO] [--out DIR] [--set KEY=VALUE]... [--duration S] [--quiet]
        Simulate a scenario (default: scenarios/capture_flexible.yaml) and print a summary. With
        --out, write DIR/channels.csv (every recorded channel, header "name [unit]") and
        DIR/summary.json (settings, metrics, events, wall time, real-time factor). --set changes
        one field of the file, e.g. --set run.integrator=rk4 --set debris.initial.rate_deg_s=[0,0,8];
        list entries by index: --set controllers[1].kd=2 --set debris.initial.rate_deg_s[1]=6.
        A progress bar shows on a terminal.
  validate [SCENARIO] [--set KEY=VALUE]...
        Check a scenario file (and its robot) without running it.
  summary [MODEL] [--duration S] [--dt S]
        Describe a robot and fly it: its joints follow a smooth path for S seconds (fixed-step
        RK4), driven open loop by inverse-dynamics torques; prints the base's reaction, momentum
        and energy balance, tracking error and speed. This is the default command, on the
        built-in chaser (scenarios/robots/mda_deos.yaml).
  info MODEL [--base fixed|floating|flying] [--inertia refuse|repair]
        The bodies, joints, frames and sizes of a robot.
  export urdf MODEL -o FILE.urdf [--base fixed|floating|flying] [--inertia refuse|repair]
        Write the robot as URDF (as ROS's urdfdom reads it): DH placements as origins, flexible
        bodies as their rigid equivalent, geometry kept; what URDF cannot say is a comment.
  probe --model MODEL --state STATE.json [--base fixed|floating|flying] [--inertia refuse|repair]
        Everything the dynamics computes for one state, as JSON: mass matrix, Coriolis matrix,
        forward and inverse dynamics, Jacobians, momentum, energy, centre of mass.
        (The state format is in the README.)
  modes MODEL [--json] [--base fixed|floating|flying] [--inertia refuse|repair]
        Natural frequencies of the flexible bodies: each alone (clamped-loaded segments,
        appendages) and coupled in the whole model linearized at its neutral configuration.
  video [SCENARIO] --out FILE.mp4 [--size WxH] [--fps F] [--speed X] [--start S] [--end S]
        [--camera scene|hand|base|debris] [--exaggeration K] [--msaa N] [--crf Q] [--show LIST]
        [--time-label on|off]
        [--set KEY=VALUE]... [--duration S] [--quiet]
        Simulate the scenario and render the run off-screen (no display needed) to an MP4 (H.264,
        encoded by ffmpeg): 1280x720 at 30 fps by default, X simulated seconds per second of video
        (default 1), from S to S. With --frame T and --out FILE.png: one picture of the instant T,
        at any size. --show: overlays, e.g. frames,ellipsoid,workspace,no-stars (paths, com,
        stars and earth are on by default); collision draws a robot's collision shapes instead of
        its visuals. --time-label: "t = 12.34 s" in the corner (default:
        on in videos, off in pictures).
  campaign run CAMPAIGN --out DIR [--jobs N] [--runs A-B] [--shard K/N] [--timeout S] [--channels]
        Run a campaign file (format in scenarios/campaigns/README.md): each run's dispersed
        scenario on this machine's cores, one process per run, into DIR/runs/NNNNNN/ (the scenario
        as run, summary.json, with --channels channels.csv). Runs already done are skipped, so a
        campaign stopped midway resumes. --runs / --shard run a slice (GNU parallel, Slurm).
  campaign merge DIR
        DIR/runs.csv (one row per run: dispersed values, outcome, every metric) and
        DIR/campaign.json (success rate with its Wilson 95 % interval, metric percentiles, failed
        runs and why); missing runs are listed, not fatal.
  campaign status DIR
        How many runs are done, failed, missing; the success rate so far.
  campaign slurm CAMPAIGN --out DIR [--partition P] [--array-size N] [--jobs J] [--dry-run]
        Write DIR/slurm/job.sh (an sbatch --array job: task K of N runs shard K/N, J processes each)
        and submit it; --dry-run prints it. DIR must be on a file system the nodes share.
  envelope [SCENARIO] --out DIR [--rates R1,R2,...] [--threads N] [--set KEY=VALUE]...
        Fly a capture scenario (default: scenarios/capture_rigid.yaml) over the grid of the
        debris' tumbling rates (0.5 to 8 deg/s), tumbling axes (its principal axes and three
        others) and two initial phases; print the success rate and write DIR/envelope.csv (one
        row per run: outcome, limiting constraint, worst values) and DIR/envelope.svg (the map).
  design SCENARIO --controller N [--configurations T1,T2,...] [--joints Q1;Q2;...]
        [--structure scenario|thesis] [--restarts K] [--worst-case N] [--json]
        Structured H-infinity synthesis (thesis Ch. 8) of the joint PD of capture controller N
        (index in the file's controllers, from 0) and of the bus attitude control: the smallest
        gains (gamma_soft, relative to the inertia-based bounds) with ||W T||inf <= 1 (gamma_hard)
        at the run's configurations at instants T (default 0; several: multi-model) or at the
        joint angles Q (comma-separated radians, configurations separated by ';'). --structure
        thesis: the AOCS as free 3x3 rotation blocks (eq. 8.1) instead of the file's kp, kd.
        Prints the gains, gamma_hard, gamma_soft and whether Kp and Kd are positive definite;
        --worst-case N: the designed controller's largest ||W T||inf over N configurations
        sampled in the joint limits (thesis Fig. 8.19).
  robust SCENARIO --controller N [--parameterization sigma2|sigma4] [--iterative 1-5|5-1]
        [--goal stability|performance] [--performance-level G] [--limits L1,U1;L2,U2;...]
        [--configuration T] [--design] [--json]
        mu-analysis (thesis §8.3) of the PD loops of capture controller N (law joint_pd, rigid
        chaser) linearized at the run's configuration at instant T (default 0): the joint ranges
        (within the model's limits, or --limits in degrees) where the loop is guaranteed stable,
        or keeps ||W T||inf <= G (--goal performance, default G = 1.1), from the mu upper bound
        of the LFT of the mass matrix in tan(theta/2) or tan(theta/4); all joints at once or one
        at a time (--iterative). --design: analyse the controller synthesized at that
        configuration (free 3x3 AOCS blocks) instead of the file's gains.
  help  This text.

MODEL is a .yaml robot (scenarios/robots/) or a .urdf file. A URDF link whose inertia no body can
have is refused; --inertia repair loads it with the nearest physical inertia (each repair printed).
SCENARIO is a scenario file (format in scenarios/README.md).
Exit codes: 0 success, 1 internal error, 2 bad input (the message names the file and line),
3 the simulation failed (diverged); the rows before the failure are still written.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string command = args.empty() ? "summary" : args.front();
  if (!args.empty()) args.erase(args.begin());
  try {
    if (command == "run") return grapple::cli::runScenario(args);
    if (command == "validate") return grapple::cli::runValidate(args);
    if (command == "summary") return grapple::cli::runSummary(args);
    if (command == "info") return grapple::cli::runInfo(args);
    if (command == "probe") return grapple::cli::runProbe(args);
    if (command == "modes") return grapple::cli::runModes(args);
    if (command == "campaign") return grapple::cli::runCampaign(args);
    if (command == "envelope") return grapple::cli::runEnvelope(args);
    if (command == "export") return grapple::cli::runExport(args);
    if (command == "design") return grapple::cli::runDesign(args);
    if (command == "robust") return grapple::cli::runRobust(args);
#ifdef GRAPPLE_HAVE_VIDEO
    if (command == "video") return grapple::cli::runVideo(args);
#else
    if (command == "video") throw grapple::cli::UsageError("this grapple-cli was built without rendering (GRAPPLE_BUILD_GUI=OFF)");
#endif
    if (command == "help" || command == "--help" || command == "-h") {
      std::cout << kUsage;
      return 0;
    }
    throw grapple::cli::UsageError("unknown command '" + command + "'");
  } catch (const grapple::core::LoadError& e) {
    std::cerr << "grapple-cli: " << e.what() << '\n';
    return 2;
  } catch (const grapple::cli::UsageError& e) {
    std::cerr << "grapple-cli: " << e.what() << "\n\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "grapple-cli: internal error: " << e.what() << '\n';
    return 1;
  }
}
