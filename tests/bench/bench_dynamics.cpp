// Google Benchmark of the hot algorithms: forward dynamics, inverse dynamics, mass matrix,
// Coriolis matrix and the derivatives of the dynamics, on the MDA arm on its free-floating base
// (12 DOF) and on serial chains of 1..128 revolute joints on a floating base. Run:
// scripts/bench.sh (not part of ctest); the derivatives against their references in one run:
// grapple_bench --benchmark_filter=Deriv.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/derivatives.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/model/model_builder.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;
using Eigen::VectorXd;

namespace {

struct Fixture {
  Model model;
  std::unique_ptr<Data> data;
  std::unique_ptr<DynamicsDerivatives> der;
  VectorXd q, v, a, tau;
  explicit Fixture(Model m) : model(std::move(m)) {
    data = std::make_unique<Data>(model);
    if (!model.hasFlexibleBodies()) der = std::make_unique<DynamicsDerivatives>(model);
    std::mt19937 rng(1);
    std::normal_distribution<double> n(0.0, 1.0);
    q = randomConfiguration(model, rng);
    v = VectorXd::NullaryExpr(model.nv, [&] { return n(rng); });
    a = VectorXd::NullaryExpr(model.nv, [&] { return n(rng); });
    tau = VectorXd::NullaryExpr(model.nv, [&] { return n(rng); });
  }
};

Fixture& mda() {
  static Fixture f(loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml"));
  return f;
}

Fixture& chaser(FlexModel fm) {
  static std::map<int, std::unique_ptr<Fixture>> cache;
  auto& f = cache[static_cast<int>(fm)];
  if (!f) {
    ModelBuilder b = [] {
      const std::string path = std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/chaser.yaml";
      return readModelYaml(yaml::Reader(path), yaml::loadFile(path)["model"]);
    }();
    b.setFlexModel(fm);
    f = std::make_unique<Fixture>(b.build());
  }
  return *f;
}

Fixture& chain(int n) {
  static std::map<int, std::unique_ptr<Fixture>> cache;
  auto& f = cache[n];
  if (!f) f = std::make_unique<Fixture>(grapple::test::serialChain(n, BaseMode::kFloating));
  return *f;
}

template <typename Algo>
void run(benchmark::State& state, Fixture& f, Algo algo) {
  for (auto _ : state) {
    algo(f);
    benchmark::ClobberMemory();
  }
  state.counters["nv"] = f.model.nv;
}

const auto kFd = [](Fixture& f) { benchmark::DoNotOptimize(forwardDynamics(f.model, *f.data, f.q, f.v, f.tau).data()); };
const auto kId = [](Fixture& f) { benchmark::DoNotOptimize(inverseDynamics(f.model, *f.data, f.q, f.v, f.a).data()); };
const auto kH = [](Fixture& f) { benchmark::DoNotOptimize(massMatrix(f.model, *f.data, f.q).data()); };
const auto kC = [](Fixture& f) { benchmark::DoNotOptimize(coriolisMatrix(f.model, *f.data, f.q, f.v).data()); };

const auto kIdDeriv = [](Fixture& f) {
  inverseDynamicsDerivatives(f.model, *f.data, *f.der, f.q, f.v, f.a);
  benchmark::DoNotOptimize(f.der->dtau_dq.data());
};
const auto kFdDeriv = [](Fixture& f) {
  forwardDynamicsDerivatives(f.model, *f.data, *f.der, f.q, f.v, f.tau);
  benchmark::DoNotOptimize(f.der->ddq_dq.data());
};
// The same ∂q̈/∂q and ∂q̈/∂v by central differences: 4 nv forward dynamics (q moved through
// integrate(), as the tests do); ∂q̈/∂τ would take 2 nv more.
const auto kFdCentral = [](Fixture& f) {
  const Model& m = f.model;
  const double h = 1e-6;
  static VectorXd x;
  for (int k = 0; k < m.nv; ++k) {
    const VectorXd e = VectorXd::Unit(m.nv, k);
    x = forwardDynamics(m, *f.data, integrate(m, f.q, e, h), f.v, f.tau);
    f.der->ddq_dq.col(k) = (x - forwardDynamics(m, *f.data, integrate(m, f.q, e, -h), f.v, f.tau)) / (2 * h);
    f.v[k] += h;
    x = forwardDynamics(m, *f.data, f.q, f.v, f.tau);
    f.v[k] -= 2 * h;
    f.der->ddq_dv.col(k) = (x - forwardDynamics(m, *f.data, f.q, f.v, f.tau)) / (2 * h);
    f.v[k] += h;
  }
  benchmark::DoNotOptimize(f.der->ddq_dq.data());
};

void MDA_ForwardDynamics(benchmark::State& s) { run(s, mda(), kFd); }
void MDA_InverseDynamics(benchmark::State& s) { run(s, mda(), kId); }
void MDA_MassMatrix(benchmark::State& s) { run(s, mda(), kH); }
void MDA_CoriolisMatrix(benchmark::State& s) { run(s, mda(), kC); }
// The derivatives and their references, named to run together (--benchmark_filter=Deriv).
void Deriv_MDA_ForwardDynamics(benchmark::State& s) { run(s, mda(), kFd); }
void Deriv_MDA_InverseDynamics(benchmark::State& s) { run(s, mda(), kId); }
void Deriv_MDA_InverseDynamicsDerivatives(benchmark::State& s) { run(s, mda(), kIdDeriv); }
void Deriv_MDA_ForwardDynamicsDerivatives(benchmark::State& s) { run(s, mda(), kFdDeriv); }
void Deriv_MDA_ForwardDynamicsCentralDifferences(benchmark::State& s) { run(s, mda(), kFdCentral); }
void Deriv_Chain_ForwardDynamicsDerivatives(benchmark::State& s) {
  run(s, chain(static_cast<int>(s.range(0))), kFdDeriv);
}
void Chain_ForwardDynamics(benchmark::State& s) { run(s, chain(static_cast<int>(s.range(0))), kFd); }
void Chain_InverseDynamics(benchmark::State& s) { run(s, chain(static_cast<int>(s.range(0))), kId); }
void Chain_MassMatrix(benchmark::State& s) { run(s, chain(static_cast<int>(s.range(0))), kH); }
void Chain_CoriolisMatrix(benchmark::State& s) { run(s, chain(static_cast<int>(s.range(0))), kC); }

}  // namespace

void Chaser_ForwardDynamics(benchmark::State& s) { run(s, chaser(static_cast<FlexModel>(s.range(0))), kFd); }
void Chaser_InverseDynamics(benchmark::State& s) { run(s, chaser(static_cast<FlexModel>(s.range(0))), kId); }
void Chaser_MassMatrix(benchmark::State& s) { run(s, chaser(static_cast<FlexModel>(s.range(0))), kH); }

BENCHMARK(MDA_ForwardDynamics);
BENCHMARK(MDA_InverseDynamics);
BENCHMARK(MDA_MassMatrix);
BENCHMARK(MDA_CoriolisMatrix);
BENCHMARK(Deriv_MDA_ForwardDynamics);
BENCHMARK(Deriv_MDA_InverseDynamics);
BENCHMARK(Deriv_MDA_InverseDynamicsDerivatives);
BENCHMARK(Deriv_MDA_ForwardDynamicsDerivatives);
BENCHMARK(Deriv_MDA_ForwardDynamicsCentralDifferences);
BENCHMARK(Deriv_Chain_ForwardDynamicsDerivatives)->RangeMultiplier(4)->Range(1, 128);
BENCHMARK(Chain_ForwardDynamics)->RangeMultiplier(2)->Range(1, 128);
BENCHMARK(Chain_InverseDynamics)->RangeMultiplier(2)->Range(1, 128);
BENCHMARK(Chain_MassMatrix)->RangeMultiplier(2)->Range(1, 128);
BENCHMARK(Chain_CoriolisMatrix)->RangeMultiplier(2)->Range(1, 128);

// Argument: the flexible model (0 flex, 1 flex-M, 3 flex-MA, 4 flex-MR).
BENCHMARK(Chaser_ForwardDynamics)->Arg(0)->Arg(1)->Arg(3)->Arg(4);
BENCHMARK(Chaser_InverseDynamics)->Arg(0)->Arg(1);
BENCHMARK(Chaser_MassMatrix)->Arg(0)->Arg(1);

BENCHMARK_MAIN();
