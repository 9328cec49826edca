// libFuzzer target: a scenario file through the loader as `grapple-cli run` reads it — the YAML,
// its `--set` overrides, the validation of every field against the robot (a robot file of
// scenarios/robots/ or one embedded), and the Simulation built from it (initial state). A
// scenario that loads must also survive being saved: scenarioToYaml's text loads again (the
// editor's save).
//
// Input: the scenario text; each line "#set KEY=VALUE" (a YAML comment, so the seeds stay valid
// scenarios) is also applied as `--set KEY=VALUE`, in order.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/io/scenario_yaml.hpp"
#include "core/io/yaml_util.hpp"
#include "core/sim/simulation.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

// Relative robot files ("robots/mda_deos.yaml") resolve against the built-in scenarios.
const std::string kPath = GRAPPLE_SOURCE_DIR "/scenarios/fuzz.yaml";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace grapple;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expectOnlyLoadErrors([&] {
    YAML::Node doc = core::yaml::loadString(text, kPath);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("#set ", 0) != 0) continue;
      const std::string kv = line.substr(5);
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) continue;  // the CLI refuses it before loading
      core::applyOverride(doc, kv.substr(0, eq), kv.substr(eq + 1), kPath);
    }
    core::LoadedScenario loaded = core::loadScenarioDocument(kPath, doc);
    fuzz::exerciseModel(loaded.model);
    const std::string saved = core::scenarioToYaml(loaded.scenario);
    try {
      core::loadScenarioText(saved, kPath);
    } catch (const core::LoadError& e) {
      std::fprintf(stderr, "fuzz: a loaded scenario, saved, does not load again: %s\n--- saved:\n%s\n",
                   e.what(), saved.c_str());
      std::abort();
    }
    try {
      core::Simulation sim(std::move(loaded.scenario), std::move(loaded.model));
    } catch (const std::invalid_argument&) {
      // grapple-cli reports it against the file (makeSimulation).
    }
  });
  return 0;
}
