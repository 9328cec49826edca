// The commands of grapple-cli. Each returns the process exit code; a LoadError (bad model, state
// or scenario) becomes exit code 2 in main(), a UsageError too.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include <memory>
#include <utility>

#include "core/io/scenario_yaml.hpp"
#include "core/model/model.hpp"
#include "core/model/model_builder.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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
// "key=value" of --set.
std::pair<std::string, std::string> parseSet(const std::string& kv);

// grapple-cli probe's JSON for one state: `state` is the parsed state file (`state_path` names it in
// messages). Throws LoadError for a state that does not fit the model.
void writeProbeOfState(std::ostream& out, const core::Model& m, const std::string& model_path,
                       const YAML::Node& state, const std::string& state_path);

int runProbe(const std::vector<std::string>& args);
int runInfo(const std::vector<std::string>& args);
int runSummary(const std::vector<std::string>& args);
int runModes(const std::vector<std::string>& args);
int runScenario(const std::vector<std::string>& args);
int runValidate(const std::vector<std::string>& args);
int runVideo(const std::vector<std::string>& args);
int runCampaign(const std::vector<std::string>& args);
int runEnvelope(const std::vector<std::string>& args);
int runExport(const std::vector<std::string>& args);
int runDesign(const std::vector<std::string>& args);
int runRobust(const std::vector<std::string>& args);

// A finite number (UsageError naming `what` otherwise), and a list split at `sep`.
double parseNumber(const std::string& word, const std::string& what);
std::vector<std::string> splitList(const std::string& s, char sep);
// Controller N of the scenario, a capture controller (UsageError naming the file otherwise; `why`
// says what the command does with it).
const core::ControllerSpec& captureControllerSpec(const core::Scenario& scenario, const std::string& path, int controller,
                                                  const std::string& why);

}  // namespace grapple::cli
