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
#include "core/dynamics/derivatives.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/control/capture_controller.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"
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
        massMatrixAndBias(m, d, q, v, &fext);
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

  // The general (flexible) recursions the integrator and the controllers call, on the complete
  // flexible chaser.
  void FlexibleRecursions_DoNotAllocate() {
    const Model m = loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/chaser.yaml");
    Data d(m, true);
    std::mt19937 rng(5);
    const VectorXd q = randomConfiguration(m, rng);
    const VectorXd v = VectorXd::Random(m.nv) * 0.1, a = VectorXd::Random(m.nv), tau = VectorXd::Random(m.nv);
    const BodyWrenches fext(m.nbodies, Vector6::Ones());
    const int frame = m.frameId("tool");
    double sink = 0;
    auto all = [&] {
      forwardKinematics(m, d, q);
      forwardKinematics(m, d, q, v);
      sink += inverseDynamics(m, d, q, v, a, &fext)[0];
      sink += nonlinearEffects(m, d, q, v)[0];
      sink += massMatrix(m, d, q)(0, 0);
      massMatrixAndBias(m, d, q, v, &fext);
      forwardKinematics(m, d, q, v, a);
      sink += forwardDynamics(m, d, q, v, tau, &fext)[0];
      sink += solveMassMatrix(m, d, tau)[0];
      sink += frameJacobian(m, d, frame, Vector3(0.1, 0.2, 0.3))(0, 0);
    };
    all();
    const long n = allocationsOf(all);
    QVERIFY2(n == 0, qPrintable(QString("%1 allocations").arg(n)));
    QVERIFY(std::isfinite(sink));
  }

  // Hybrid dynamics (the joint-path law calls it at every control instant): on its O(n) rigid path,
  // a free-floating arm with every joint driven, and on the dense one, the complete flexible
  // chaser with its joints and bus attitude driven.
  void HybridDynamics_DoesNotAllocate() {
    for (const char* file : {"mda_deos.yaml", "chaser.yaml"}) {
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

  // The derivatives of the dynamics, once their DynamicsDerivatives is sized: on the rigid chaser
  // and on a random tree with mimic joints (the projected path).
  void Derivatives_DoNotAllocate() {
    std::mt19937 rng(11);
    grapple::test::RandomTreeOptions o;
    o.links = 10;
    o.mimic_fraction = 0.4;
    for (const Model& m : {loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml"),
                           grapple::test::randomTree(rng, o)}) {
      Data d(m);
      DynamicsDerivatives der(m);
      const VectorXd q = randomConfiguration(m, rng);
      const VectorXd v = VectorXd::Random(m.nv), a = VectorXd::Random(m.nv), tau = VectorXd::Random(m.nv);
      const BodyWrenches fext(m.nbodies, Vector6::Ones());
      double sink = 0;
      auto call = [&] {
        inverseDynamicsDerivatives(m, d, der, q, v, a, &fext);
        sink += der.dtau_dq(0, 0);
        forwardDynamicsDerivatives(m, d, der, q, v, tau);
        sink += der.ddq_dq(0, 0);
      };
      call();
      const long n = allocationsOf(call);
      QVERIFY2(n == 0, qPrintable(QString("%1: %2 allocations").arg(QString::fromStdString(m.name)).arg(n)));
      QVERIFY(std::isfinite(sink));
    }
  }

  // The controllers' per-call path (they run at every control instant): the capture law in each of
  // its phases and the joint-path servo, on the rigid and on the complete flexible chaser, with
  // the bus attitude held (grasp_rigid.yaml's settings). Once a first call has sized their
  // scratch, a call allocates nothing.
  void Controllers_DoNotAllocatePerCall_data() {
    QTest::addColumn<QString>("robot");
    QTest::addColumn<QString>("mission");
    QTest::newRow("rigid") << "robots/mda_deos.yaml" << "capture_rigid.yaml";
    QTest::newRow("flexible") << "robots/chaser.yaml" << "capture_flexible.yaml";
  }
  void Controllers_DoNotAllocatePerCall() {
    QFETCH(QString, robot);
    QFETCH(QString, mission);
    const std::string src = GRAPPLE_SOURCE_DIR;
    // grasp_rigid.yaml's capture, with an abort monitor (its clearance check included) whose
    // thresholds this state, frozen, does not cross.
    const std::string capture_spec =
        "[{type: capture, start: 0, matching: position_velocity_acceleration, w_u: 100, w_1: 1, kp: 4, kd: 4, "
        "tolerance: 0.01, speed_tolerance: 0.01, hold: 1, post_kp: 0.01, post_kd: 0.2, "
        "abort: {plan_error: 1.0, saturation_time: 100, bus_attitude_deg: 90, clearance: -10, retries: 2}}]";
    LoadedScenario l = loadScenario(src + "/scenarios/grasp_rigid.yaml",
                                    {{"chaser.robot", robot.toStdString()}, {"controllers", capture_spec}});
    const Simulation sim(l.scenario, l.model);  // the initial state
    const Model& m = sim.model();
    Data data(m, m.hasFlexibleBodies());
    const ControllerSpec* spec = nullptr;
    for (const ControllerSpec& c : l.scenario.controllers) if (c.type == ControllerType::kCapture) spec = &c;
    QVERIFY(spec != nullptr);
    CaptureController capture(m, *spec, l.scenario.chaser, l.scenario.debris.properties, m.frameId("tool"), sim.q());
    VectorXd tau = VectorXd::Zero(m.nv);
    const DebrisState debris = l.scenario.debris.initial;
    const VectorXd v = VectorXd::Constant(m.nv, 0.01);
    ControlContext ctx{m, data, 0.0, sim.q(), v, nullptr, tau};
    ctx.debris = &debris;
    auto call = [&] {
      tau.setZero();
      capture.update(ctx);
    };
    call();  // plans
    QCOMPARE(capture.phase(), CaptureController::Phase::kTracking);
    ctx.t = 0.5;
    call();
    long n = allocationsOf(call);
    QVERIFY2(n == 0, qPrintable(QString("capture law, tracking: %1 allocations").arg(n)));
    QCOMPARE(capture.phase(), CaptureController::Phase::kTracking);  // (not aborted)
    capture.attach(sim.q());
    call();
    n = allocationsOf(call);
    QVERIFY2(n == 0, qPrintable(QString("capture law, after the grasp: %1 allocations").arg(n)));
    // The joint-path servo of a joint_trajectory controller (computed torque, bus held).
    LoadedScenario u = loadScenario(src + "/scenarios/" + mission.toStdString());
    const Simulation unfold(u.scenario, u.model);
    const Model& mu = unfold.model();
    Data du(mu, mu.hasFlexibleBodies());
    const auto controllers = makeControllers(mu, u.scenario, unfold.q(), endEffectorFrame(mu, u.scenario));
    VectorXd tau_u = VectorXd::Zero(mu.nv);
    const VectorXd vu = VectorXd::Zero(mu.nv);  // (at rest)
    ControlContext cu{mu, du, 10.0, unfold.q(), vu, nullptr, tau_u};
    auto servo = [&] {
      tau_u.setZero();
      controllers.front()->update(cu);
    };
    servo();
    n = allocationsOf(servo);
    QVERIFY2(n == 0, qPrintable(QString("joint servo: %1 allocations").arg(n)));
    QVERIFY(tau.allFinite() && tau_u.allFinite());
  }
};

QTEST_APPLESS_MAIN(TestNoAlloc)
#include "test_no_alloc.moc"
