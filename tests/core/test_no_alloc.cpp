// The recursions allocate nothing once Data is sized: every heap allocation of the process
// (malloc and friends, which operator new and Eigen both end in) is counted while they run.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <random>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "tests/support/random_model.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t s) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  return __libc_calloc(n, s);
}
void* realloc(void* p, std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  return __libc_realloc(p, n);
}
int posix_memalign(void** out, std::size_t align, std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  *out = __libc_memalign(align, n);
  return *out ? 0 : ENOMEM;
}
void* aligned_alloc(std::size_t align, std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  return __libc_memalign(align, n);
}
}

using namespace grapple::core;
using Eigen::VectorXd;

namespace {

// Allocations made by f.
template <typename F>
long allocationsOf(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

}  // namespace

class TestNoAlloc : public QObject {
  Q_OBJECT

 private slots:
  // The counter works: a vector allocates.
  void Counter_SeesAllocations() {
    QVERIFY(allocationsOf([] { std::vector<double> v(100); v[3] = 1; }) > 0);
    QVERIFY(allocationsOf([] { VectorXd x = VectorXd::Zero(50); x[1] = 2; }) > 0);
  }

  void Algorithms_DoNotAllocate() {
    std::mt19937 rng(17);
    std::vector<Model> models;
    models.push_back(loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml"));
    for (BaseMode mode : {BaseMode::kFixed, BaseMode::kFloating, BaseMode::kFlying}) {
      grapple::test::RandomTreeOptions o;
      o.links = 12;
      o.base = mode;
      models.push_back(grapple::test::randomTree(rng, o));
    }
    for (const Model& m : models) {
      Data d(m);
      const VectorXd q = randomConfiguration(m, rng);
      const VectorXd v = VectorXd::Random(m.nv), a = VectorXd::Random(m.nv), tau = VectorXd::Random(m.nv);
      const BodyWrenches fext(m.nbodies, Vector6::Ones());
      const int frame = static_cast<int>(m.frames.size()) - 1;
      double sink = 0;
      auto all = [&] {
        forwardKinematics(m, d, q);
        forwardKinematics(m, d, q, v);
        forwardKinematics(m, d, q, v, a);
        sink += inverseDynamics(m, d, q, v, a)[0];
        sink += inverseDynamics(m, d, q, v, a, &fext)[0];
        sink += nonlinearEffects(m, d, q, v)[0];
        sink += massMatrix(m, d, q)(0, 0);
        sink += coriolisMatrix(m, d, q, v)(0, 0);
        sink += forwardDynamics(m, d, q, v, tau)[0];
        sink += forwardDynamics(m, d, q, v, tau, &fext)[0];
        factorizeMassMatrix(m, d, q);
        sink += solveMassMatrix(m, d, tau)[0];
        sink += frameJacobian(m, d, frame, Vector3(0.1, 0.2, 0.3))(0, 0);
        sink += frameJacobian(m, d, frame, Vector3::Zero(), ReferenceFrame::kLocal)(0, 0);
        sink += centerOfMass(m, d, q)[0] + momentum(m, d, q, v)[0] + kineticEnergy(m, d, q, v);
        if (m.base_mode == BaseMode::kFloating) {
          sink += inverseDynamicsFloatingBase(m, d, q, v, a)[0];
          sink += baseReactionWrench(m, d)[0];
        }
      };
      all();  // warm-up
      const long n = allocationsOf(all);
      QVERIFY2(n == 0, qPrintable(QString("%1: %2 allocations").arg(QString::fromStdString(m.name)).arg(n)));
      QVERIFY(std::isfinite(sink));
    }
  }

  // Hybrid dynamics on its O(n) rigid path (the joint-path law calls it at every evaluation): a
  // free-floating arm with every joint driven. (The general recursions of flexible models still
  // allocate small temporaries: ~150 per call on the complete chaser.)
  void HybridDynamics_DoesNotAllocate() {
    for (const char* file : {"mda_deos.yaml"}) {
      const Model m = loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/" + file);
      Data d(m, m.hasFlexibleBodies());
      std::mt19937 rng(3);
      const VectorXd q = randomConfiguration(m, rng);
      const VectorXd v = VectorXd::Random(m.nv) * 0.1;
      VectorXd x = VectorXd::Random(m.nv);
      std::vector<int> prescribed;
      if (m.hasFlexibleBodies()) prescribed = {3, 4, 5};
      for (int b = 1; b < m.nbodies; ++b) {
        if (m.joint[b].nv == 1) prescribed.push_back(m.joint[b].idx_v);
      }
      std::sort(prescribed.begin(), prescribed.end());
      if (!m.hasFlexibleBodies()) x.head<6>().setZero();  // no force on the floating base
      double sink = 0;
      auto call = [&] { sink += hybridDynamics(m, d, q, v, x, prescribed)[prescribed.back()]; };
      call();
      const long n = allocationsOf(call);
      QVERIFY2(n == 0, qPrintable(QString("%1: %2 allocations").arg(file).arg(n)));
      QVERIFY(std::isfinite(sink));
    }
  }
};

QTEST_APPLESS_MAIN(TestNoAlloc)
#include "test_no_alloc.moc"
