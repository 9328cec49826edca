// Google Benchmark of the robust-control design (thesis §8.2.3): the exact H∞ norm of the
// weighted loop W T_w→a, and a whole structured synthesis (decentralized joints, the AOCS' free
// 3x3 rotation blocks) mono-model at q_m1 and multi-model on q_m1, q_m2 (eq. 8.12), on the rigid
// chaser. Run: scripts/bench.sh --benchmark_filter=Design.
#include <benchmark/benchmark.h>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/io/model_yaml.hpp"
#include "tests/support/thesis_configurations.hpp"

using namespace grapple::core;

namespace {

using grapple::test::armConfiguration;
using grapple::test::kThesisQ1;
using grapple::test::kThesisQ2;

const Model& chaser() {
  static const Model m = loadModelFile(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml");
  return m;
}

void Design_HinfNorm(benchmark::State& state) {
  const Model& m = chaser();
  const Eigen::VectorXd q = armConfiguration(m, kThesisQ1);
  const ClosedLoopGains g = thesisGains(m, q, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                        {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
  for (auto _ : state) benchmark::DoNotOptimize(evaluateController(m, q, g).upper);
}
BENCHMARK(Design_HinfNorm)->Unit(benchmark::kMicrosecond);

void Design_SynthesisMono(benchmark::State& state) {
  const Model& m = chaser();
  const std::vector<Eigen::VectorXd> qs{armConfiguration(m, kThesisQ1)};
  for (auto _ : state) benchmark::DoNotOptimize(synthesize(m, qs, SynthesisStructure{}).gamma_soft);
}
BENCHMARK(Design_SynthesisMono)->Unit(benchmark::kMillisecond)->Iterations(1);

void Design_SynthesisMulti(benchmark::State& state) {
  const Model& m = chaser();
  const std::vector<Eigen::VectorXd> qs{armConfiguration(m, kThesisQ1),
                                        armConfiguration(m, kThesisQ2)};
  for (auto _ : state) benchmark::DoNotOptimize(synthesize(m, qs, SynthesisStructure{}).gamma_soft);
}
BENCHMARK(Design_SynthesisMulti)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
