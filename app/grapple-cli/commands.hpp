// The commands of grapple-cli. main.cpp declares the command line (CLI11: every subcommand, its
// options, their help and checks) and fills one of the argument structs below; the command then
// runs on it and returns the process exit code. A LoadError (bad model, state or scenario)
// becomes exit code 2 in main(), a UsageError too.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/robust.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/model/model.hpp"
#include "core/model/model_builder.hpp"
#include "core/sim/simulation.hpp"
#ifdef GRAPPLE_HAVE_VIDEO
#include "render/video.hpp"
#endif

namespace grapple::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --base fixed|floating|flying
core::BaseMode parseBaseMode(const std::string& word);
// --inertia refuse|repair
core::InertiaPolicy parseInertiaPolicy(const std::string& word);
// The built-in scenarios folder: $GRAPPLE_SCENARIO_DIR, else the one of the source tree.
std::string scenarioDir();
std::string defaultModelPath();
std::string defaultScenarioPath();

// The Simulation of a loaded scenario (its warnings printed); what only the initial state reveals
// becomes a LoadError against the file.
std::unique_ptr<core::Simulation> makeSimulation(const std::string& path, core::LoadedScenario loaded);

// grapple-cli probe's JSON for one state: `state` is the parsed state file (`state_path` names it in
// messages). Throws LoadError for a state that does not fit the model.
void writeProbeOfState(std::ostream& out, const core::Model& m, const std::string& model_path,
                       const YAML::Node& state, const std::string& state_path);

// A robot file and how to load it (info, modes, probe, export).
struct ModelArgs {
  std::string path;
  std::optional<core::BaseMode> base;  // the file's if empty
  core::InertiaPolicy inertia = core::InertiaPolicy::kRefuse;
};

// run and validate.
struct RunArgs {
  std::string scenario;  // default: defaultScenarioPath()
  std::string out;       // run: the folder of channels.csv and summary.json (none if empty)
  core::Overrides overrides;  // --set, --duration
  bool quiet = false;
};

struct SummaryArgs {
  std::string model;  // default: defaultModelPath()
  double duration = 30, dt = 1e-3;  // [s]
};

struct ModesArgs {
  ModelArgs model;
  bool json = false;
};

struct ProbeArgs {
  ModelArgs model;
  std::string state;
};

struct ExportArgs {
  ModelArgs model;
  std::string out;
};

struct EnvelopeArgs {
  std::string scenario;  // default: the built-in capture_rigid.yaml
  std::string out;
  core::Overrides overrides;
  int threads = 0;            // 0: the machine's cores
  std::vector<double> rates;  // [deg/s]; the standard grid's if empty
};

struct DesignArgs {
  std::string scenario;
  int controller = 0;
  std::vector<double> times;                    // [s] --configurations
  std::vector<std::vector<double>> joint_sets;  // [rad] --joints
  bool thesis = false;                          // --structure thesis
  int worst_case = 0;                           // samples; 0: none
  bool json = false;
  core::SynthesisOptions options;  // --restarts
  // --rolloff none|tune|W[,W...]: the joints' roll-off; not given: the file's joint_rolloff
  // (fixed) if any, else none.
  std::optional<core::SynthesisStructure::Rolloff> rolloff;
  std::vector<double> rolloff_omega;  // [rad/s]
};

struct RobustArgs {
  std::string scenario;
  int controller = 0;
  std::string iterative;  // "", "1-5" or "5-1"
  std::vector<std::pair<double, double>> limits;  // [rad] per joint; the model's if empty
  double configuration = 0;  // [s]
  bool design = false, json = false;
  core::RobustOptions options;  // --parameterization, --goal, --performance-level
};

// campaign run / merge / status / slurm.
struct CampaignArgs {
  std::string file;  // run, slurm: the campaign file; merge, status: its output folder
  std::string out;
  long first = 0, last = -1;   // --runs A-B (inclusive; -1: to the end)
  long shard = 0, shards = 1;  // --shard K/N: runs i with i % N == K
  int jobs = 0;                // 0: the machine's cores (slurm: 1)
  double timeout = 0;          // [s] per run, 0: none
  bool channels = false, quiet = false;
  std::string partition;  // slurm
  long array_size = 0;    // slurm; 0: min(runs, 1000)
  bool dry_run = false;   // slurm
};

#ifdef GRAPPLE_HAVE_VIDEO
struct VideoArgs {
  std::string scenario;  // default: defaultScenarioPath()
  std::string out;
  core::Overrides overrides;
  render::VideoOptions options;
  std::optional<double> frame;      // [s] one picture of this instant instead of a video
  std::optional<bool> time_label;   // default: on in videos, off in pictures
  bool quiet = false;
};
int runVideo(const VideoArgs& a);
#endif

int runProbe(const ProbeArgs& a);
int runInfo(const ModelArgs& a);
int runSummary(const SummaryArgs& a);
int runModes(const ModesArgs& a);
int runScenario(const RunArgs& a);
int runValidate(const RunArgs& a);
int runCampaignRun(const CampaignArgs& a);
int runCampaignMerge(const CampaignArgs& a, bool write);  // merge (write) or status
int runCampaignSlurm(const CampaignArgs& a);
int runEnvelope(const EnvelopeArgs& a);
int runExportUrdf(const ExportArgs& a);
int runDesign(const DesignArgs& a);
int runRobust(const RobustArgs& a);

// Controller N of the scenario, a capture controller (UsageError naming the file otherwise; `why`
// says what the command does with it).
const core::ControllerSpec& captureControllerSpec(const core::Scenario& scenario, const std::string& path, int controller,
                                                  const std::string& why);

}  // namespace grapple::cli
