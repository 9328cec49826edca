// The joint paths' servo skipped while the capture law replaces it: the same torques as running
// it. And the capture law's dynamics, computed the fast way (one outward pass for the mass matrix and the
// bias, one kinematic pass for the hand), against the straightforward dense computation: H from
// massMatrix, h from nonlinearEffects, the hand's acceleration from inverse dynamics, the block
// solution of the free coordinates by a dense factorization, on the rigid and on the complete
// flexible chaser at random states.
#include <QtTest>

#include <random>

#include "core/control/capture_controller.hpp"
#include "core/control/task_space.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/sim/simulation.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const std::string kSrc = GRAPPLE_SOURCE_DIR;

// The largest entry of |a - b|, relative to the largest of |b| (at least 1).
double relativeError(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// A state near q0: joints and modes moved a little, every rate small.
void nearState(const Model& m, const VectorXd& q0, std::mt19937& rng, VectorXd& q, VectorXd& v) {
  std::uniform_real_distribution<double> u(-1, 1);
  q = q0;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) q[m.joint[b].idx_q] += 0.1 * u(rng);
  }
  for (const FlexibleBody& f : m.flex) {
    for (int k = 0; k < f.nf; ++k) q[f.idx_q + k] = 1e-3 * u(rng);
  }
  v.resize(m.nv);
  for (int k = 0; k < m.nv; ++k) v[k] = 0.01 * u(rng);
}

// grasp_rigid.yaml with the chaser `robot`, the bus' torque unlimited (a law's exact torques are
// applied at any state): its model, two workspaces and its capture law, not yet updated.
const ControllerSpec& captureOf(const Scenario& s) {
  for (const ControllerSpec& c : s.controllers) {
    if (c.type == ControllerType::kCapture) return c;
  }
  throw std::runtime_error("the scenario has no capture controller");
}

struct GraspRigid {
  explicit GraspRigid(const QString& robot)
      : l(loadScenario(kSrc + "/scenarios/grasp_rigid.yaml",
                       {{"chaser.robot", robot.toStdString()},
                        {"chaser.attitude_control", "{kp: 0.1, kd: 0.6, torque_limit: 1.0e12}"}})),
        sim(l.scenario, l.model),
        m(sim.model()),
        data(m, m.hasFlexibleBodies()),
        dd(m, m.hasFlexibleBodies()),
        spec(captureOf(l.scenario)),
        capture(m, spec, l.scenario.chaser, l.scenario.debris.properties, m.frameId("tool"), sim.q()) {}
  LoadedScenario l;
  const Simulation sim;
  const Model& m;
  Data data, dd;
  const ControllerSpec& spec;
  CaptureController capture;
};

}  // namespace

class TestControlDynamics : public QObject {
  Q_OBJECT

 private slots:
  // massMatrixAndBias gives massMatrix's H and nonlinearEffects' h (one outward pass fewer on a
  // flexible model), with external wrenches, on the rigid and the flexible chaser.
  void MassMatrixAndBias_MatchesSeparateCalls() {
    std::mt19937 rng(7);
    for (const char* file : {"mda_deos.yaml", "chaser.yaml"}) {
      const Model m = loadModelYaml(kSrc + "/scenarios/robots/" + file);
      Data d(m, m.hasFlexibleBodies()), ref(m, m.hasFlexibleBodies());
      for (int k = 0; k < 3; ++k) {
        VectorXd q, v;
        nearState(m, randomConfiguration(m, rng), rng, q, v);
        v *= 10;
        BodyWrenches fext(m.nbodies);
        for (Vector6& f : fext) f = Vector6::Random();
        massMatrixAndBias(m, d, q, v, &fext);
        const MatrixXd H = massMatrix(m, ref, q);
        const VectorXd h = nonlinearEffects(m, ref, q, v, &fext);
        QVERIFY2(d.H == H, file);  // (the same arithmetic: the same numbers to the last bit)
        QVERIFY2(d.h == h, file);
      }
    }
  }

  // Kinematics with accelerations on the flexible chaser (the motion half of the recursion): the
  // body accelerations and poses inverse dynamics computes; and on the path to the hand only, the
  // same numbers to the last bit for its bodies, the others untouched.
  void FlexibleKinematicsWithAcceleration_MatchesInverseDynamics() {
    const Model m = loadModelYaml(kSrc + "/scenarios/robots/chaser.yaml");
    Data d(m, true), ref(m, true);
    std::mt19937 rng(9);
    for (int k = 0; k < 3; ++k) {
      VectorXd q, v;
      nearState(m, randomConfiguration(m, rng), rng, q, v);
      const VectorXd a = VectorXd::Random(m.nv);
      inverseDynamics(m, ref, q, v, a);
      forwardKinematics(m, ref, q);  // (the poses)
      forwardKinematics(m, d, q, v, a);
      auto same = [&](int i) {
        return relativeError(d.a[i], ref.a[i]) < 1e-14 && relativeError(d.t[i], ref.t[i]) < 1e-14 &&
               relativeError(d.X_world[i].R, ref.X_world[i].R) < 1e-14 &&
               relativeError(d.X_world[i].p, ref.X_world[i].p) < 1e-14;
      };
      for (int i = 0; i < m.nbodies; ++i) QVERIFY(same(i));
      // Only the path to the hand: its bodies the same, the others left as they were.
      Data dp(m, true);
      const int hand = m.frames[static_cast<std::size_t>(m.frameId("tool"))].body;
      forwardKinematicsToBody(m, dp, q, v, a, hand);
      std::vector<char> on_path(static_cast<std::size_t>(m.nbodies), 0);
      for (int b = hand; b >= 0; b = m.parent[b]) on_path[static_cast<std::size_t>(b)] = 1;
      const Data fresh(m, true);
      int path = 0;
      for (int i = 0; i < m.nbodies; ++i) {
        const Data& expected = on_path[static_cast<std::size_t>(i)] ? d : fresh;
        QVERIFY(dp.a[i] == expected.a[i] && dp.t[i] == expected.t[i] && dp.X_world[i].R == expected.X_world[i].R &&
                dp.X_world[i].p == expected.X_world[i].p);
        path += on_path[static_cast<std::size_t>(i)];
      }
      QVERIFY(path > 1 && path < m.nbodies);
    }
  }

  // The damped pseudo-inverse skips its SVD when a Cholesky factorization certifies σ above the
  // threshold: the same result to the last bit as with the SVD (forced by asking for σ), for σ on
  // both sides of the threshold and within 10⁻⁹ of it, and for wide (3 x 6, 5 x 6) and square A.
  void DampedPseudoInverse_CertificateGivesTheSvdsResult() {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(-1, 1);
    const double eps = 0.05, damping = 0.05;
    int skipped = 0, damped = 0;
    for (int rows : {3, 5, 6}) {
      for (double ratio : {0.3, 0.9, 1 - 1e-9, 1.0, 1 + 1e-9, 1.001, 1.5, 40.0}) {
        // A = U diag(σ) Vᵀ with σ_min = ratio ε
        const Eigen::JacobiSVD<MatrixXd> uv(MatrixXd::NullaryExpr(rows, 6, [&] { return u(rng); }),
                                            Eigen::ComputeFullU | Eigen::ComputeFullV);
        VectorXd s(rows);
        for (int k = 0; k < rows; ++k) s[k] = 2.0 + k;
        s[rows - 1] = ratio * eps;
        const MatrixXd A = uv.matrixU() * s.asDiagonal() * uv.matrixV().leftCols(rows).transpose();
        PseudoInverseWork w1, w2;
        MatrixXd fast, svd;
        double sigma = 0;
        dampedPseudoInverse(A, damping, eps, w1, fast);
        dampedPseudoInverse(A, damping, eps, w2, svd, &sigma);
        QVERIFY2(fast == svd, qPrintable(QString("%1 rows, sigma/eps %2").arg(rows).arg(ratio)));
        skipped += w1.certificate.positiveDefinite();
        damped += sigma < eps;
      }
    }
    QVERIFY(skipped >= 6 && damped >= 6);  // both paths taken
  }

  // The capture law (resolved acceleration, bus attitude held: grasp_rigid.yaml's) against the
  // same law computed densely from its equations (see CaptureController): torques and accelerations.
  void CaptureLaw_MatchesDenseComputation_data() {
    QTest::addColumn<QString>("robot");
    QTest::newRow("rigid") << "robots/mda_deos.yaml";
    QTest::newRow("flexible") << "robots/chaser.yaml";
  }
  void CaptureLaw_MatchesDenseComputation() {
    QFETCH(QString, robot);
    GraspRigid g(robot);
    const LoadedScenario& l = g.l;
    const Simulation& sim = g.sim;
    const Model& m = g.m;
    Data &data = g.data, &dd = g.dd;
    const ControllerSpec* spec = &g.spec;
    const int ee = m.frameId("tool");
    CaptureController& capture = g.capture;
    VectorXd tau = VectorXd::Zero(m.nv);
    const DebrisState debris = l.scenario.debris.initial;
    const VectorXd q0 = sim.q();
    VectorXd q = q0, v = sim.v();
    ControlContext ctx{m, data, 0.0, q, v, nullptr, tau};
    ctx.debris = &debris;
    capture.update(ctx);  // plans from the initial state (its joints: the posture)
    QCOMPARE(capture.phase(), CaptureController::Phase::kTracking);

    // The coordinates: the joints and the bus' rotation prescribed, the rest free.
    std::vector<int> joints, joints_q, prescribed{3, 4, 5}, free;
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1) {
        joints.push_back(m.joint[b].idx_v);
        joints_q.push_back(m.joint[b].idx_q);
      }
    }
    prescribed.insert(prescribed.end(), joints.begin(), joints.end());
    for (int k = 0; k < m.nv; ++k) {
      if (std::find(prescribed.begin(), prescribed.end(), k) == prescribed.end()) free.push_back(k);
    }
    const auto nj = static_cast<Eigen::Index>(joints.size());
    const ChaserSpec::AttitudeControl& att = *l.scenario.chaser.attitude_control;
    const ControllerSpec::Capture& c = spec->capture;
    std::mt19937 rng(21);
    double worst_tau = 0, worst_ddq = 0;
    for (int trial = 0; trial < 4; ++trial) {
      nearState(m, q0, rng, q, v);
      ctx.t = 0.5 + trial;
      tau.setZero();
      capture.update(ctx);

      // Dense: H, h; the bus' angular acceleration α = -kp e - kd ω.
      const MatrixXd H = massMatrix(m, dd, q);
      const VectorXd h = nonlinearEffects(m, dd, q, v);
      const Vector4 Qe = quatMultiply(quatConjugate(Vector4(q0.segment<4>(3).normalized())), Vector4(q.segment<4>(3)));
      const Vector3 e = 2 * (Qe[0] < 0 ? -1.0 : 1.0) * Qe.tail<3>();
      VectorXd x = VectorXd::Zero(m.nv);
      x.segment<3>(3) = -att.kp * e - att.kd * v.segment<3>(3);
      // The free coordinates with the joints at rest, and their reaction to the joints.
      const Eigen::LDLT<MatrixXd> ldlt(MatrixXd(H(free, free)));
      const MatrixXd react = ldlt.solve(MatrixXd(H(free, joints)));
      VectorXd ddq0 = x;
      const VectorXd free0 = ldlt.solve(VectorXd(-h(free) - H(free, prescribed) * x(prescribed)));
      ddq0(free) = free0;
      // The rigid-equivalent hand: its position, velocity, acceleration b, Jacobian.
      VectorXd qr = q, vr = v, ar = ddq0;
      for (const FlexibleBody& f : m.flex) {
        qr.segment(f.idx_q, f.nf).setZero();
        vr.segment(f.idx_v, f.nf).setZero();
        ar.segment(f.idx_v, f.nf).setZero();
      }
      inverseDynamics(m, dd, qr, vr, ar);  // (the body accelerations)
      forwardKinematics(m, dd, qr, vr);     // (the poses; the accelerations kept)
      const Vector3 b = pointAccelerationWorld(m, dd, ee).head<3>();
      const Vector3 r = framePose(m, dd, ee).p, rd = pointVelocityWorld(m, dd, ee).head<3>();
      MatrixXd J = frameJacobian(m, dd, ee).topRows<3>();
      for (const FlexibleBody& f : m.flex) J.middleCols(f.idx_v, f.nf).setZero();
      const MatrixXd A = J(Eigen::all, joints) - J(Eigen::all, free) * react;
      // Resolved acceleration with the posture pull.
      const PointKinematics ref = capture.plan()->at(ctx.t - capture.planStart());
      const Vector3 a_des = ref.acceleration + spec->kd * (ref.velocity - rd) + spec->kp * (ref.position - r);
      VectorXd qm(nj), vm(nj), posture(nj);
      for (Eigen::Index k = 0; k < nj; ++k) {
        qm[k] = q[joints_q[static_cast<std::size_t>(k)]];
        vm[k] = v[joints[static_cast<std::size_t>(k)]];
        posture[k] = q0[joints_q[static_cast<std::size_t>(k)]];
      }
      const VectorXd pull = -c.posture_kd * vm - c.posture_kp * (qm - posture);
      const MatrixXd Apinv = dampedPseudoInverse(A, c.damping, c.singular_threshold);
      const VectorXd ddqm = Apinv * (a_des - b) + pull - Apinv * (A * pull);
      VectorXd ddq = ddq0;
      ddq(joints) = ddqm;
      const VectorXd reaction = react * ddqm;
      ddq(free) -= reaction;
      const VectorXd tau_full = H * ddq + h;
      const double tau_scale = tau_full.cwiseAbs().maxCoeff();
      for (int k : prescribed) worst_tau = std::max(worst_tau, std::abs(tau[k] - tau_full[k]) / tau_scale);
      worst_ddq = std::max(worst_ddq, relativeError(*ctx.ddq, ddq));
    }
    qInfo("%s: largest torque difference %.2e (relative to the largest torque), acceleration %.2e",
          qPrintable(robot), worst_tau, worst_ddq);
    QVERIFY(worst_tau < 1e-11);
    QVERIFY(worst_ddq < 1e-11);
  }

  // The law after the grasp (CaptureController::postCapture) against its equations with the mass
  // matrix inverted densely: each joint -I_j (post_kd q̇_j + post_kp (q_j - q_j at the grasp)) with
  // I_j = 1 / (H⁻¹)_jj, the bus -kd H_ωω ω (its limit unbounded here).
  void PostCaptureLaw_MatchesDenseComputation_data() { CaptureLaw_MatchesDenseComputation_data(); }
  void PostCaptureLaw_MatchesDenseComputation() {
    QFETCH(QString, robot);
    GraspRigid g(robot);
    const Model& m = g.m;
    const VectorXd q0 = g.sim.q();
    VectorXd q = q0, v = g.sim.v(), tau = VectorXd::Zero(m.nv);
    ControlContext ctx{m, g.data, 0.0, q, v, nullptr, tau};
    const DebrisState debris = g.l.scenario.debris.initial;
    ctx.debris = &debris;
    g.capture.update(ctx);
    g.capture.attach(q0);
    std::mt19937 rng(5);
    double worst = 0;
    for (int trial = 0; trial < 4; ++trial) {
      nearState(m, q0, rng, q, v);
      ctx.t = 0.5 + trial;
      tau.setZero();
      g.capture.update(ctx);
      const MatrixXd H = massMatrix(m, g.dd, q);
      const MatrixXd Hinv = H.inverse();
      VectorXd expected = VectorXd::Zero(m.nv);
      for (int b = 1; b < m.nbodies; ++b) {
        if (m.joint[b].nv != 1) continue;
        const int i = m.joint[b].idx_v, iq = m.joint[b].idx_q;
        expected[i] = -(g.spec.capture.post_kd * v[i] + g.spec.capture.post_kp * (q[iq] - q0[iq])) / Hinv(i, i);
      }
      expected.segment<3>(3) = -g.l.scenario.chaser.attitude_control->kd * H.block<3, 3>(3, 3) * v.segment<3>(3);
      worst = std::max(worst, (tau - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff());
    }
    qInfo("%s: largest torque difference %.2e (relative to the largest torque)", qPrintable(robot), worst);
    QVERIFY(worst < 1e-10);
  }

  // The simulation (updateControllers) skips the joint paths' servo while the capture law replaces
  // its torques (Controller::replacesJointServo), but not at an instant the law may make a plan, which starts
  // from the acceleration the forces before it give, the servo's among them; and the skipped servo
  // still takes each sample into its rate filters (Controller::skipped). Two sets of the realistic
  // rigid mission's controllers (rate filters on the joints' and the bus' rates) on one closed
  // loop (explicit Euler at the control period, the debris in free tumble), one set run whole,
  // the other with the skip (the rates they see noisy): the same torques at every sample, bit for
  // bit, through the unfold,
  // the wait, the plan's start and its tracking; and the servo was skipped.
  void JointServoSkipped_SameTorques() {
    const LoadedScenario l = loadScenario(kSrc + "/scenarios/capture_rigid_realistic.yaml");
    const Scenario& sc = l.scenario;
    const Model& m = l.model;
    const Simulation start(sc, m);
    VectorXd q = start.q(), v = start.v();
    const int ee = m.frameId(sc.run.end_effector);
    auto whole = makeControllers(m, sc, q, ee), skipping = makeControllers(m, sc, q, ee);
    DebrisTrajectory debris(sc.debris.properties, start.debris());
    Data d(m), d_whole(m), d_skipping(m);
    VectorXd tau_whole(m.nv), tau_skipping(m.nv), v_seen(m.nv);
    const double h = 1 / sc.run.control_rate;
    int skipped = 0, planned_at = -1;
    for (int k = 0; k * h < 56; ++k) {
      const double t = k * h;
      const DebrisState now = debris.state(t);
      tau_whole.setZero();
      tau_skipping.setZero();
      // (the rates seen with a deterministic noise, as from the chaser's sensors: a filter that
      // missed samples would then differ)
      for (int i = 0; i < m.nv; ++i) v_seen[i] = v[i] + 1e-6 * std::sin(1.7 * k + 0.9 * i);
      ControlContext a{m, d_whole, t, q, v_seen, nullptr, tau_whole};
      ControlContext b{m, d_skipping, t, q, v_seen, nullptr, tau_skipping};
      a.debris = b.debris = &now;
      updateControllers(whole, a, false);
      skipped += updateControllers(skipping, b);
      if (tau_whole != tau_skipping) QFAIL(qPrintable(QString("torques differ at t = %1 s").arg(t)));
      const auto* capture = dynamic_cast<const CaptureController*>(whole.back().get());
      if (planned_at < 0 && capture->plans() > 0) planned_at = k;
      const VectorXd& a_now = forwardDynamics(m, d, q, v, tau_whole);
      q = integrate(m, q, v, h);
      v += h * a_now;
    }
    qInfo("servo skipped at %d of %d samples; the plan made at t = %.2f s", skipped, static_cast<int>(56 / h), planned_at * h);
    QVERIFY(planned_at > 0 && planned_at * h > sc.controllers.back().start);
    QVERIFY(skipped > 0.9 * (56 - sc.controllers.back().start) / h);
  }
};

QTEST_APPLESS_MAIN(TestControlDynamics)
#include "test_control_dynamics.moc"
