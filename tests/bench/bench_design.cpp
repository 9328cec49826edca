// Google Benchmark of the robust-control design (thesis §8.2.3): the exact H∞ norm of the
// weighted loop W T_w→a, and a whole structured synthesis (decentralized joints, the AOCS' free
// 3x3 rotation blocks) mono-model at q_m1 and multi-model on q_m1, q_m2 (eq. 8.12), on the rigid
// chaser; and the μ-analysis (§8.3) of the thesis' multi-model gains: the σ2 and σ4 stability
// boxes within the Table 8.5 limits. Run: scripts/bench.sh --benchmark_filter=Design.
#include <benchmark/benchmark.h>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/robust.hpp"
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

// The σ2 (arg 2) or σ4 (arg 4) stability box of the thesis' multi-model gains (Table 8.2) and the
// AOCS at ω_b² D_bb, within the limits of Table 8.5, all joints at once.
void Design_MuStabilityBox(benchmark::State& state) {
  const Model& m = chaser();
  const Eigen::VectorXd q = armConfiguration(m, kThesisQ1);
  const ClosedLoopGains g = thesisGains(m, q, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                        {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
  const double deg = 3.14159265358979323846 / 180, lo[] = {-90, -45, 0, -180, -90, -180}, hi[] = {90, 180, 180, 45, 180, 180};
  std::vector<JointRange> limits;
  for (int b = 1, k = 0; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) limits.push_back({b, lo[k] * deg, hi[k] * deg}), ++k;
  }
  RobustOptions o;
  o.form = state.range(0) == 2 ? RotationParameter::kTan2 : RotationParameter::kTan4;
  for (auto _ : state) benchmark::DoNotOptimize(certifyBox(m, q, g, limits, o).final_sweep.upper_peak);
}
BENCHMARK(Design_MuStabilityBox)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
