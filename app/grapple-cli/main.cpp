// grapple-cli: Grapple without a display, for scripts and batch runs. Its command line is declared
// here, once (CLI11): every subcommand with its options, their help (`grapple-cli COMMAND --help`)
// and their checks; the commands (commands.hpp) then run on the arguments parsed.
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "app/grapple-cli/commands.hpp"
#include "core/io/load_error.hpp"

namespace grapple::cli {
namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;

const char* kFooter = R"(MODEL is a .yaml robot (scenarios/robots/) or a .urdf file. A URDF link whose inertia no body can
have is refused; --inertia repair loads it with the nearest physical inertia (each repair printed).
SCENARIO is a scenario file (format in scenarios/README.md).
Exit codes: 0 success, 1 internal error, 2 bad input (the message names the file and line),
3 the simulation failed (diverged); the rows before the failure are still written.)";

std::vector<std::string> splitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// The number `word` spells, whole and finite; nullopt otherwise.
std::optional<double> toNumber(const std::string& word) {
  std::size_t used = 0;
  double x = NAN;
  try {
    x = std::stod(word, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != word.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// The same, or a UsageError naming `what`.
double parseNumber(const std::string& word, const std::string& what) {
  if (const std::optional<double> x = toNumber(word)) return *x;
  throw UsageError(what + ": '" + word + "' is not a number");
}

// A non-negative integer, the whole word.
long parseCount(const std::string& word, const std::string& what) {
  char* end = nullptr;
  const long x = std::strtol(word.c_str(), &end, 10);
  if (word.empty() || *end != '\0' || x < 0) throw UsageError(what + ": expected a non-negative integer, got '" + word + "'");
  return x;
}

// Numbers checked as text, before CLI11 converts them (CLI11 names the option in the message).
const CLI::Validator kFinite(
    [](std::string& s) { return toNumber(s) ? std::string() : "expected a number, got '" + s + "'"; }, "");
const CLI::Validator kPositive(
    [](std::string& s) {
      const std::optional<double> x = toNumber(s);
      return x && *x > 0 ? std::string() : "expected a positive number, got '" + s + "'";
    },
    "");

// An option whose value is one of `words`, stored as the matching value.
template <class T>
CLI::Option* addChoice(CLI::App* cmd, const std::string& name, T& target, std::vector<std::pair<std::string, T>> words,
                       const std::string& help) {
  std::string list;
  for (std::size_t k = 0; k < words.size(); ++k) list += (k ? k + 1 == words.size() ? " or " : ", " : "") + words[k].first;
  std::string type;
  for (const auto& w : words) type += (type.empty() ? "" : "|") + w.first;
  return cmd
      ->add_option_function<std::string>(
          name,
          [&target, words, name, list](const std::string& word) {
            for (const auto& [w, value] : words) {
              if (w == word) {
                target = value;
                return;
              }
            }
            throw UsageError(name + ": " + list + " expected, got '" + word + "'");
          },
          help)
      ->type_name(type);
}

// --set KEY=VALUE (repeatable) and --duration S: the scenario's values changed, in command-line order.
void addOverrides(CLI::App* cmd, core::Overrides& overrides, bool duration = true) {
  cmd->add_option_function<std::string>(
         "--set",
         [&overrides](const std::string& kv) {
           try {
             overrides.push_back(core::parseOverride(kv));
           } catch (const std::invalid_argument& e) {
             throw UsageError(std::string("--set ") + e.what());
           }
         },
         "Change one field of the scenario (repeatable), e.g.\n"
         "run.integrator=rk4 or debris.initial.rate_deg_s=[0,0,8];\n"
         "list entries by index: controllers[1].kd=2 or\n"
         "debris.initial.rate_deg_s[1]=6")
      ->type_name("KEY=VALUE")
      ->trigger_on_parse();
  if (duration) {
    cmd->add_option_function<std::string>(
           "--duration", [&overrides](const std::string& s) { overrides.emplace_back("run.duration", s); },
           "The run's duration (as --set run.duration=S)")
        ->type_name("S")
        ->trigger_on_parse();
  }
}

// A positional argument (its name says what it is: no type in the help).
CLI::Option* positional(CLI::App* cmd, const std::string& name, std::string& target, const std::string& help) {
  return cmd->add_option(name, target, help)->type_name("");
}

// --base and --inertia: how a robot file is loaded.
void addLoading(CLI::App* cmd, ModelArgs& m) {
  cmd->add_option_function<std::string>(
         "--base", [&m](const std::string& w) { m.base = parseBaseMode(w); }, "The base: fixed, floating or flying (default: the file's)")
      ->type_name("fixed|floating|flying");
  cmd->add_option_function<std::string>(
         "--inertia", [&m](const std::string& w) { m.inertia = parseInertiaPolicy(w); },
         "A URDF link whose inertia no body can have: refuse it\n(default) or repair it to the nearest physical inertia")
      ->type_name("refuse|repair");
}

void addModel(CLI::App* cmd, ModelArgs& m) {
  positional(cmd, "MODEL", m.path, "The robot (.yaml or .urdf)")->required();
  addLoading(cmd, m);
}

// A capture controller of the scenario, by index (design, robust).
void addController(CLI::App* cmd, int& controller) {
  cmd->add_option("--controller", controller, "The capture controller: its index in the file's controllers, from 0")
      ->type_name("N")
      ->required()
      ->check(CLI::NonNegativeNumber);
}

// Numbers separated by `sep`.
std::vector<double> numbers(const std::string& list, char sep, const std::string& what) {
  std::vector<double> out;
  for (const std::string& x : splitList(list, sep)) out.push_back(parseNumber(x, what));
  return out;
}

#ifdef GRAPPLE_HAVE_VIDEO
// --show: a comma-separated list of overlays; "no-X" hides X.
void parseShow(const std::string& list, render::SceneOptions& scene) {
  for (std::string item : splitList(list, ',')) {
    const bool on = item.rfind("no-", 0) != 0;
    if (!on) item = item.substr(3);
    bool* flag = item == "frames" ? &scene.frames : item == "velocities" ? &scene.velocities
               : item == "momentum" ? &scene.momentum : item == "com" ? &scene.com
               : item == "paths" ? &scene.paths : item == "stars" ? &scene.stars
               : item == "earth" ? &scene.earth : item == "ellipsoid" ? &scene.ellipsoid
               : item == "workspace" ? &scene.workspace : item == "collision" ? &scene.collision
               : nullptr;
    if (flag == nullptr) {
      throw UsageError("--show: unknown overlay '" + item + "' (frames, velocities, momentum, com, paths, "
                       "stars, earth, ellipsoid, workspace, collision; no-X hides X)");
    }
    *flag = on;
  }
}

void addVideo(CLI::App& app, VideoArgs& a, CLI::App*& cmd) {
  cmd = app.add_subcommand("video", R"(Simulate the scenario and render the run off-screen (no display needed) to an MP4 (H.264,
encoded by ffmpeg): 1280x720 at 30 fps by default, X simulated seconds per second of video
(default 1), from S to S. With --frame T and --out FILE.png: one picture of the instant T,
at any size. --show: overlays, e.g. frames,ellipsoid,workspace,no-stars (paths, com,
stars and earth are on by default); collision draws a robot's collision shapes instead of
its visuals. --time-label: "t = 12.34 s" in the corner (default:
on in videos, off in pictures).)");
  a.scenario = defaultScenarioPath();
  positional(cmd, "SCENARIO", a.scenario, "The scenario (default: the built-in capture_flexible.yaml)");
  cmd->add_option("--out", a.out, "The video (FILE.mp4), or the picture (FILE.png) with --frame")->type_name("FILE")->required();
  render::VideoOptions& o = a.options;
  cmd->add_option_function<std::string>(
         "--size",
         [&o](const std::string& s) {
           int w = 0, h = 0;
           char tail = 0;
           if (std::sscanf(s.c_str(), "%dx%d%c", &w, &h, &tail) != 2) throw UsageError("--size expects WIDTHxHEIGHT, got '" + s + "'");
           o.width = w;
           o.height = h;
         },
         "Pixels (default 1280x720)")
      ->type_name("WxH");
  cmd->add_option("--fps", o.fps, "Frames per second of video (default 30)")->type_name("F")->check(kFinite);
  cmd->add_option("--speed", o.speed, "Simulated seconds per second of video (default 1)")->type_name("X")->check(kFinite);
  cmd->add_option("--start", o.start, "[s] simulated time of the first frame (default 0)")->type_name("S")->check(kFinite);
  cmd->add_option("--end", o.end, "[s] simulated time of the last frame (default: the run's end)")->type_name("S")->check(kFinite);
  cmd->add_option_function<double>(
         "--frame", [&a](double t) { a.frame = t; }, "[s] one picture of this instant instead of a video")
      ->type_name("T")
      ->check(kFinite);
  cmd->add_option_function<std::string>(
         "--camera",
         [&o](const std::string& c) {
           const auto preset = render::cameraPresetFromName(c);
           if (!preset) throw UsageError("--camera expects scene, hand, base or debris, got '" + c + "'");
           o.camera = *preset;
         },
         "The camera (default scene)")
      ->type_name("scene|hand|base|debris");
  cmd->add_option("--exaggeration", o.exaggeration, "Of the flexible deformation (default 1)")->type_name("K")->check(kFinite);
  cmd->add_option("--msaa", o.samples, "Multisampling (default 0; costs about 4x the frame time)")->type_name("N");
  cmd->add_option("--crf", o.crf, "x264 quality (0 lossless .. 51; default 20)")->type_name("Q");
  cmd->add_option_function<std::string>(
         "--show", [&o](const std::string& list) { parseShow(list, o.scene); },
         "Overlays: frames, velocities, momentum, com, paths, stars,\nearth, ellipsoid, workspace, collision; no-X hides X")
      ->type_name("LIST");
  addChoice<std::optional<bool>>(cmd, "--time-label", a.time_label, {{"on", true}, {"off", false}},
                                 "\"t = 12.34 s\" in the corner (default: on in videos, off in pictures)");
  addOverrides(cmd, a.overrides);
  cmd->add_flag("-q,--quiet", a.quiet, "No progress, no summary");
}
#endif

// Usage errors name the option, e.g. "--out needs a value (DIR)" rather than CLI11's
// "--out: 1 required DIR missing".
std::string messageOf(const CLI::ParseError& e) {
  const std::string m = e.what();
  const std::size_t at = m.find(": 1 required ");
  const std::string missing = " missing";
  if (at != std::string::npos && m.size() > at + 13 + missing.size() && m.compare(m.size() - missing.size(), missing.size(), missing) == 0) {
    return m.substr(0, at) + " needs a value (" + m.substr(at + 13, m.size() - missing.size() - at - 13) + ")";
  }
  return m;
}

// The subcommands the user named ("campaign run").
std::string commandPath(const CLI::App& app) {
  std::string path;
  for (const CLI::App* c = &app; !c->get_subcommands().empty();) {
    c = c->get_subcommands().front();
    path += " " + c->get_name();
  }
  return path;
}

int run(int argc, char** argv) {
  CLI::App app("grapple-cli: Grapple without a display, for scripts and batch runs.\n"
               "Without a command: summary, on the built-in chaser.",
               "grapple-cli");
  app.footer(kFooter);
  app.require_subcommand(0, 1);
  // An option given twice takes its last value (as the hand-written parsers did).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.get_formatter()->column_width(26);
  // The command named, run once the whole line is parsed.
  std::function<int()> command;
  auto on = [&command](CLI::App* cmd, std::function<int()> f) { cmd->callback([&command, f] { command = f; }); };

  RunArgs run_args;
  run_args.scenario = defaultScenarioPath();
  CLI::App* run = app.add_subcommand("run", R"(Simulate a scenario (default: scenarios/capture_flexible.yaml) and print a summary. With
--out, write DIR/channels.csv (every recorded channel, header "name [unit]") and
DIR/summary.json (settings, metrics, events, wall time, real-time factor). --set changes
one field of the file. A progress bar shows on a terminal.)");
  positional(run, "SCENARIO", run_args.scenario, "The scenario (default: the built-in capture_flexible.yaml)");
  run->add_option("--out", run_args.out, "Write DIR/channels.csv and DIR/summary.json")->type_name("DIR");
  addOverrides(run, run_args.overrides);
  run->add_flag("-q,--quiet", run_args.quiet, "No progress bar, no summary");
  on(run, [&] { return runScenario(run_args); });

  RunArgs validate_args;
  validate_args.scenario = defaultScenarioPath();
  CLI::App* validate = app.add_subcommand("validate", "Check a scenario file (and its robot) without running it.");
  positional(validate, "SCENARIO", validate_args.scenario, "The scenario (default: the built-in capture_flexible.yaml)");
  addOverrides(validate, validate_args.overrides);
  on(validate, [&] { return runValidate(validate_args); });

  SummaryArgs summary_args;
  summary_args.model = defaultModelPath();
  CLI::App* summary = app.add_subcommand("summary", R"(Describe a robot and fly it: its joints follow a smooth path for S seconds (fixed-step
RK4), driven open loop by inverse-dynamics torques; prints the base's reaction, momentum
and energy balance, tracking error and speed. This is the default command, on the
built-in chaser (scenarios/robots/mda_deos.yaml).)");
  positional(summary, "MODEL", summary_args.model, "The robot (default: the built-in mda_deos.yaml)");
  summary->add_option("--duration", summary_args.duration, "[s] of flight (default 30)")->type_name("S")->check(kPositive);
  summary->add_option("--dt", summary_args.dt, "[s] RK4 step (default 0.001)")->type_name("S")->check(kPositive);
  on(summary, [&] { return runSummary(summary_args); });

  ModelArgs info_args;
  CLI::App* info = app.add_subcommand("info", "The bodies, joints, frames and sizes of a robot.");
  addModel(info, info_args);
  on(info, [&] { return runInfo(info_args); });

  ExportArgs export_args;
  CLI::App* exporter = app.add_subcommand("export", "Write a robot in another format.");
  exporter->require_subcommand(1);
  CLI::App* urdf = exporter->add_subcommand("urdf", R"(Write the robot as URDF (as ROS's urdfdom reads it): DH placements as origins, flexible
bodies as their rigid equivalent, geometry kept; what URDF cannot say is a comment.)");
  addModel(urdf, export_args.model);
  urdf->add_option("-o,--out", export_args.out, "The URDF file written")->type_name("FILE.urdf")->required();
  on(urdf, [&] { return runExportUrdf(export_args); });

  ProbeArgs probe_args;
  CLI::App* probe = app.add_subcommand("probe", R"(Everything the dynamics computes for one state, as JSON: mass matrix, Coriolis matrix,
forward and inverse dynamics, Jacobians, momentum, energy, centre of mass.
(The state format is in the README.))");
  probe->add_option("--model", probe_args.model.path, "The robot (.yaml or .urdf)")->type_name("MODEL")->required();
  probe->add_option("--state", probe_args.state, "The state (JSON)")->type_name("STATE.json")->required();
  addLoading(probe, probe_args.model);
  on(probe, [&] { return runProbe(probe_args); });

  ModesArgs modes_args;
  CLI::App* modes = app.add_subcommand("modes", R"(Natural frequencies of the flexible bodies: each alone (clamped-loaded segments,
appendages) and coupled in the whole model linearized at its neutral configuration.)");
  addModel(modes, modes_args.model);
  modes->add_flag("--json", modes_args.json, "As JSON");
  on(modes, [&] { return runModes(modes_args); });

#ifdef GRAPPLE_HAVE_VIDEO
  VideoArgs video_args;
  CLI::App* video = nullptr;
  addVideo(app, video_args, video);
  on(video, [&] { return runVideo(video_args); });
#else
  CLI::App* video = app.add_subcommand("video", "Not in this build (GRAPPLE_BUILD_GUI=OFF: no rendering).");
  video->allow_extras();
  on(video, []() -> int { throw UsageError("this grapple-cli was built without rendering (GRAPPLE_BUILD_GUI=OFF)"); });
#endif

  CLI::App* campaign = app.add_subcommand("campaign", "Thousands of dispersed runs of a scenario (format in scenarios/campaigns/README.md).");
  campaign->require_subcommand(1);
  CampaignArgs campaign_args;
  CLI::App* crun = campaign->add_subcommand("run", R"(Run a campaign file: each run's dispersed scenario on this machine's cores, one process
per run, into DIR/runs/NNNNNN/ (the scenario as run, summary.json, with --channels
channels.csv). Runs already done are skipped, so a campaign stopped midway resumes.
--runs / --shard run a slice (GNU parallel, Slurm).)");
  positional(crun, "CAMPAIGN", campaign_args.file, "The campaign file")->required();
  crun->add_option("--out", campaign_args.out, "The campaign's folder")->type_name("DIR")->required();
  crun->add_option("-j,--jobs", campaign_args.jobs, "Processes at a time (default: the machine's cores)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  crun->add_option_function<std::string>(
          "--runs",
          [&campaign_args](const std::string& v) {
            const auto dash = v.find('-');
            if (dash == std::string::npos) throw UsageError("--runs expects A-B, got '" + v + "'");
            campaign_args.first = parseCount(v.substr(0, dash), "--runs");
            campaign_args.last = parseCount(v.substr(dash + 1), "--runs");
            if (campaign_args.last < campaign_args.first) throw UsageError("--runs " + v + ": B is before A");
          },
          "Only runs A to B (inclusive, from 0)")
      ->type_name("A-B");
  crun->add_option_function<std::string>(
          "--shard",
          [&campaign_args](const std::string& v) {
            const auto slash = v.find('/');
            if (slash == std::string::npos) throw UsageError("--shard expects K/N, got '" + v + "'");
            campaign_args.shard = parseCount(v.substr(0, slash), "--shard");
            campaign_args.shards = parseCount(v.substr(slash + 1), "--shard");
            if (campaign_args.shards < 1 || campaign_args.shard >= campaign_args.shards) {
              throw UsageError("--shard " + v + ": expected 0 <= K < N");
            }
          },
          "Only the runs i with i % N == K")
      ->type_name("K/N");
  crun->add_option("--timeout", campaign_args.timeout, "[s] a run longer than this is stopped and recorded as failed")
      ->type_name("S")
      ->check(kPositive);
  crun->add_flag("--channels", campaign_args.channels, "Also write each run's channels.csv");
  crun->add_flag("-q,--quiet", campaign_args.quiet, "No progress");
  on(crun, [&] { return runCampaignRun(campaign_args); });

  for (const bool write : {true, false}) {
    CLI::App* c = write ? campaign->add_subcommand("merge", R"(DIR/runs.csv (one row per run: dispersed values, outcome, every metric) and
DIR/campaign.json (success rate with its Wilson 95 % interval, metric percentiles, failed
runs and why); missing runs are listed, not fatal.)")
                        : campaign->add_subcommand("status", "How many runs are done, failed, missing; the success rate so far.");
    auto* dir = positional(c, "DIR", campaign_args.file, "The campaign's folder");
    c->add_option("--out", campaign_args.out, "The campaign's folder (as DIR)")->type_name("DIR")->excludes(dir);
    c->add_flag("-q,--quiet", campaign_args.quiet, "Print nothing");
    on(c, [&, write] { return runCampaignMerge(campaign_args, write); });
  }

  CLI::App* slurm = campaign->add_subcommand("slurm", R"(Write DIR/slurm/job.sh (an sbatch --array job: task K of N runs shard K/N, J processes each)
and submit it; --dry-run prints it. DIR must be on a file system the nodes share.)");
  positional(slurm, "CAMPAIGN", campaign_args.file, "The campaign file")->required();
  slurm->add_option("--out", campaign_args.out, "The campaign's folder (on a file system the nodes share)")->type_name("DIR")->required();
  slurm->add_option("--partition", campaign_args.partition, "The Slurm partition (default: the cluster's)")->type_name("P");
  slurm->add_option("--array-size", campaign_args.array_size, "Array tasks (default: the runs, at most 1000)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  slurm->add_option("-j,--jobs", campaign_args.jobs, "Processes per task (default 1)")->type_name("J")->check(CLI::PositiveNumber);
  slurm->add_flag("--dry-run", campaign_args.dry_run, "Print the job script; write and submit nothing");
  on(slurm, [&] { return runCampaignSlurm(campaign_args); });

  EnvelopeArgs envelope_args;
  envelope_args.scenario = scenarioDir() + "/capture_rigid.yaml";
  CLI::App* envelope = app.add_subcommand("envelope", R"(Fly a capture scenario (default: scenarios/capture_rigid.yaml) over the grid of the
debris' tumbling rates (0.5 to 8 deg/s), tumbling axes (its principal axes and three
others) and two initial phases; print the success rate and write DIR/envelope.csv (one
row per run: outcome, limiting constraint, worst values) and DIR/envelope.svg (the map).)");
  positional(envelope, "SCENARIO", envelope_args.scenario, "The scenario (default: the built-in capture_rigid.yaml)");
  envelope->add_option("--out", envelope_args.out, "Write DIR/envelope.csv and DIR/envelope.svg")->type_name("DIR")->required();
  envelope->add_option_function<std::string>(
              "--rates",
              [&envelope_args](const std::string& list) {
                for (double r : numbers(list, ',', "--rates")) {
                  if (!(r > 0)) throw UsageError("--rates: each rate must be > 0 deg/s");
                  envelope_args.rates.push_back(r);
                }
              },
              "[deg/s] the tumbling rates (default 0.5 to 8)")
      ->type_name("R1,R2,...");
  envelope->add_option("--threads", envelope_args.threads, "Runs at a time (default: the machine's cores)")
      ->type_name("N")
      ->check(CLI::Range(1, 256));
  addOverrides(envelope, envelope_args.overrides, false);
  on(envelope, [&] { return runEnvelope(envelope_args); });

  DesignArgs design_args;
  CLI::App* design = app.add_subcommand("design", R"(Structured H-infinity synthesis (thesis Ch. 8) of the joint PD of capture controller N
(index in the file's controllers, from 0) and of the bus attitude control: the smallest
gains (gamma_soft, relative to the inertia-based bounds) with ||W T||inf <= 1 (gamma_hard)
at the run's configurations at instants T (default 0; several: multi-model) or at the
joint angles Q (comma-separated radians, configurations separated by ';'). --structure
thesis: the AOCS as free 3x3 rotation blocks (eq. 8.1) instead of the file's kp, kd.
--rolloff: a first-order low-pass on each joint's torque, tuned or fixed (default: the
file's joint_rolloff); with it W T exceeds 1 at high frequency, so ask --hard-level G > 1
(the templates exceeded by that factor). Prints the gains, gamma_hard, gamma_soft and whether Kp and Kd are
positive definite;
--worst-case N: the designed controller's largest ||W T||inf over N configurations
sampled in the joint limits (thesis Fig. 8.19).)");
  positional(design, "SCENARIO", design_args.scenario, "The scenario")->required();
  addController(design, design_args.controller);
  design->add_option_function<std::string>(
            "--configurations",
            [&design_args](const std::string& list) {
              for (double t : numbers(list, ',', "--configurations")) design_args.times.push_back(t);
            },
            "[s] the run's configurations at these instants (default 0)")
      ->type_name("T1,T2,...");
  design->add_option_function<std::string>(
            "--joints",
            [&design_args](const std::string& sets) {
              for (const std::string& set : splitList(sets, ';')) design_args.joint_sets.push_back(numbers(set, ',', "--joints"));
            },
            "[rad] configurations by their joint angles")
      ->type_name("Q1;Q2;...");
  addChoice<bool>(design, "--structure", design_args.thesis, {{"scenario", false}, {"thesis", true}},
                  "The file's loops (default), or the thesis' free 3x3 AOCS blocks");
  design->add_option_function<std::string>(
            "--rolloff",
            [&design_args](const std::string& word) {
              using R = grapple::core::SynthesisStructure::Rolloff;
              design_args.rolloff_omega.clear();
              if (word == "none") {
                design_args.rolloff = R::kNone;
              } else if (word == "tune") {
                design_args.rolloff = R::kTuned;
              } else {
                design_args.rolloff = R::kFixed;
                design_args.rolloff_omega = numbers(word, ',', "--rolloff");
              }
            },
            "A first-order roll-off on each joint's torque (thesis §8.2.4.2): none, tune (its bandwidths tuned "
            "with the gains) or fixed bandwidths [rad/s] (one, or one per joint); default: the file's joint_rolloff")
      ->type_name("none|tune|W,...");
  design->add_option("--hard-level", design_args.options.hard_level,
                     "The hard goal ||W T||inf <= G (default 1, the templates; a roll-off needs G > 1)")
      ->type_name("G")
      ->check(CLI::PositiveNumber);
  design->add_option("--restarts", design_args.options.restarts, "Extra starts of the solver (default 2)")
      ->type_name("K")
      ->check(CLI::Range(0, 100));
  design->add_option("--worst-case", design_args.worst_case, "The largest ||W T||inf over N configurations in the joint limits")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  design->add_flag("--json", design_args.json, "As JSON");
  on(design, [&] { return runDesign(design_args); });

  RobustArgs robust_args;
  CLI::App* robust = app.add_subcommand("robust", R"(mu-analysis (thesis §8.3) of the PD loops of capture controller N (law joint_pd, rigid
chaser) linearized at the run's configuration at instant T (default 0): the joint ranges
(within the model's limits, or --limits in degrees) where the loop is guaranteed stable,
or keeps ||W T||inf <= G (--goal performance, default G = 1.1), from the mu upper bound
of the LFT of the mass matrix in tan(theta/2) or tan(theta/4); all joints at once or one
at a time (--iterative). --design: analyse the controller synthesized at that
configuration (free 3x3 AOCS blocks) instead of the file's gains.)");
  positional(robust, "SCENARIO", robust_args.scenario, "The scenario")->required();
  addController(robust, robust_args.controller);
  addChoice<core::RotationParameter>(robust, "--parameterization", robust_args.options.form,
                                     {{"sigma2", core::RotationParameter::kTan2}, {"sigma4", core::RotationParameter::kTan4}},
                                     "The rotation parameter: tan(theta/2) (default) or tan(theta/4)");
  addChoice<std::string>(robust, "--iterative", robust_args.iterative, {{"1-5", "1-5"}, {"5-1", "5-1"}},
                         "One joint at a time, in this order (default: all at once)");
  addChoice<core::RobustGoal>(robust, "--goal", robust_args.options.goal,
                              {{"stability", core::RobustGoal::kStability}, {"performance", core::RobustGoal::kPerformance}},
                              "Robust stability (default) or ||W T||inf <= G");
  robust->add_option_function<std::string>(
            "--performance-level",
            [&robust_args](const std::string& g) {
              robust_args.options.performance_level = parseNumber(g, "--performance-level");
              if (!(robust_args.options.performance_level >= 1)) {
                throw UsageError("--performance-level: a number >= 1 expected (||W T||inf >= 1 for every PD)");
              }
            },
            "G of --goal performance (default 1.1)")
      ->type_name("G");
  robust->add_option_function<std::string>(
            "--limits",
            [&robust_args](const std::string& sets) {
              for (const std::string& pair : splitList(sets, ';')) {
                const std::vector<std::string> lh = splitList(pair, ',');
                if (lh.size() != 2) throw UsageError("--limits: LOWER,UPPER in degrees per joint, joints separated by ';'");
                robust_args.limits.emplace_back(parseNumber(lh[0], "--limits") * kDeg, parseNumber(lh[1], "--limits") * kDeg);
              }
            },
            "[deg] the joint ranges analysed (default: the model's limits)")
      ->type_name("L1,U1;L2,U2;...");
  robust->add_option("--configuration", robust_args.configuration, "[s] the run's configuration at this instant (default 0)")
      ->type_name("T")
      ->check(kFinite);
  robust->add_flag("--design", robust_args.design, "Analyse the controller synthesized at the configuration instead");
  robust->add_flag("--json", robust_args.json, "As JSON");
  on(robust, [&] { return runRobust(robust_args); });

  on(app.add_subcommand("help", "This text."), [&] {
    std::cout << app.get_formatter()->make_help(&app, "grapple-cli", CLI::AppFormatMode::Normal);
    return 0;
  });

  try {
    // The first words name the command ("campaign run"); one CLI11 does not know is named as such.
    std::string named;
    const CLI::App* level = &app;
    for (int k = 1; k < argc && argv[k][0] != '-' && (level == &app || level->get_require_subcommand_min() > 0); ++k) {
      named += (named.empty() ? "" : " ") + std::string(argv[k]);
      try {
        level = level->get_subcommand(argv[k]);
      } catch (const CLI::OptionNotFound&) {
        throw UsageError("unknown command '" + named + "'");
      }
    }
    app.parse(argc, argv);
    return command ? command() : runSummary(summary_args);
  } catch (const UsageError& e) {
    const std::string named = commandPath(app);
    std::cerr << "grapple-cli: " << e.what() << "\nRun 'grapple-cli" << (named.empty() ? "" : named) << " --help' for the "
              << (named.empty() ? "commands" : "options") << ".\n";
    return 2;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    const std::string command = commandPath(app);
    std::cerr << "grapple-cli" << command << ": " << messageOf(e) << "\nRun 'grapple-cli" << command
              << " --help' for the options.\n";
    return 2;
  }
}

}  // namespace
}  // namespace grapple::cli

int main(int argc, char** argv) {
  try {
    return grapple::cli::run(argc, argv);
  } catch (const grapple::core::LoadError& e) {
    std::cerr << "grapple-cli: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "grapple-cli: internal error: " << e.what() << '\n';
    return 1;
  }
}
