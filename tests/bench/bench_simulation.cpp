// Whole scenarios, as `grapple-cli run` runs them (recording included, no output files): the
// counter sim_s_per_s is the real-time factor. The rigid mission scenario must run >= 500x real
// time, the complete flexible one >= 50x (issue 5).
#include <benchmark/benchmark.h>

#include <string>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"

using namespace grapple::core;

namespace {

void runScenario(benchmark::State& state, const char* file) {
  const LoadedScenario loaded = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/" + file);
  double simulated = 0;
  for (auto _ : state) {
    Simulation sim(loaded.scenario, loaded.model);
    sim.run();
    if (!sim.failure().empty()) state.SkipWithError(sim.failure().c_str());
    simulated += sim.time();
    benchmark::DoNotOptimize(sim.recorder().rows());
  }
  state.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}

void Scenario_CaptureRigid(benchmark::State& s) { runScenario(s, "capture_rigid.yaml"); }
void Scenario_CaptureFlexible(benchmark::State& s) { runScenario(s, "capture_flexible.yaml"); }
void Scenario_PlanarFreeVibration(benchmark::State& s) { runScenario(s, "planar_free_vibration.yaml"); }

}  // namespace

BENCHMARK(Scenario_CaptureRigid)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_CaptureFlexible)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_PlanarFreeVibration)->Unit(benchmark::kMillisecond)->UseRealTime();
