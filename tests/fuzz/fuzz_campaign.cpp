// libFuzzer target: a campaign file (grapple-cli campaign run) through its reader — the keys, the
// grid's axes and the dispersions against the base scenario (a built-in one, relative paths
// starting at scenarios/campaigns/), run 0 drawn and loaded — then what each run does before it
// simulates: runs 0, 1 and the last drawn, written as the run's scenario text, that text read
// back, and the Simulation built from it with the effective values of the keys it varies. The
// reader may refuse with LoadError ("file:line: message"). A run's own refusal (its scenario
// refused, a Simulation that cannot be built) is recorded by grapple-cli as that run failing, so
// any std::exception there is the expected answer; anything thrown while drawing or writing a run
// (outside that, where the CLI has no handler) is a defect.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/campaign/campaign.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/yaml_util.hpp"
#include "core/sim/simulation.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

const std::string kPath = GRAPPLE_SOURCE_DIR "/scenarios/campaigns/fuzz.yaml";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace grapple;
  using namespace grapple::core::campaign;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Campaign c;
  bool loaded = false;
  fuzz::expectOnlyLoadErrors([&] {
    c = loadCampaignDocument(kPath, core::yaml::loadString(text, kPath));
    loaded = true;
  });
  if (!loaded) return 0;
  for (long run : {0L, 1L, c.runs - 1}) {
    if (run < 0 || run >= c.runs) continue;
    RunValues v;
    std::string scenario;
    try {  // grapple-cli's runOne: outside its handler
      v = drawRun(c, run);
      scenarioDocument(c, v);
      scenario = scenarioText(c, v);
      valueCells(v);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz: drawing or writing run %ld threw: %s\n", run, e.what());
      std::abort();
    }
    try {  // inside it: the run fails with the reason
      core::LoadedScenario s = core::loadScenarioText(scenario, c.scenario_path);
      core::Simulation sim(std::move(s.scenario), std::move(s.model));
      for (const auto& [key, x] : v.assigned) effectiveValue(sim, key);
    } catch (const std::exception&) {
    }
  }
  return 0;
}
