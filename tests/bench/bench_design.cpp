// Google Benchmark of the robust-control design (thesis §8.2.3): the exact H∞ norm of the
// weighted loop W T_w→a, and a whole structured synthesis (decentralized joints, the AOCS' free
// 3x3 rotation blocks) mono-model at q_m1 and multi-model on q_m1, q_m2 (eq. 8.12), on the rigid
// chaser. Run: scripts/bench.sh --benchmark_filter=Design.
#include <benchmark/benchmark.h>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/io/model_yaml.hpp"

using namespace grapple::core;

namespace {

Eigen::VectorXd configuration(const Model& m, const std::vector<double>& joints) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
  q[3] = 1;
  std::size_t k = 0;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) q[m.joint[b].idx_q] = joints[k++];
  }
  return q;
}

const Model& chaser() {
  static const Model m = loadModelFile(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml");
  return m;
}

void Design_HinfNorm(benchmark::State& state) {
  const Model& m = chaser();
  const Eigen::VectorXd q = configuration(m, {0, 0, 0, 0, 0, 0});
  const ClosedLoopGains g = thesisGains(m, q, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                        {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
  for (auto _ : state) benchmark::DoNotOptimize(evaluateController(m, q, g).upper);
}
BENCHMARK(Design_HinfNorm)->Unit(benchmark::kMicrosecond);

void Design_SynthesisMono(benchmark::State& state) {
  const Model& m = chaser();
  const std::vector<Eigen::VectorXd> qs{configuration(m, {0, 0, 0, 0, 0, 0})};
  for (auto _ : state) benchmark::DoNotOptimize(synthesize(m, qs, SynthesisStructure{}).gamma_soft);
}
BENCHMARK(Design_SynthesisMono)->Unit(benchmark::kMillisecond)->Iterations(1);

void Design_SynthesisMulti(benchmark::State& state) {
  const Model& m = chaser();
  const std::vector<Eigen::VectorXd> qs{configuration(m, {0, 0, 0, 0, 0, 0}),
                                        configuration(m, {2.21, 0.81, 1.27, 1.64, 2.83, 1.25})};
  for (auto _ : state) benchmark::DoNotOptimize(synthesize(m, qs, SynthesisStructure{}).gamma_soft);
}
BENCHMARK(Design_SynthesisMulti)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
