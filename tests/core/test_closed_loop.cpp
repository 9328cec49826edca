// The thesis' linearized closed loop (core/analysis/closed_loop): exact cases and an independent
// check of the poles.
#include <QtTest>

#include <cmath>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/scenario_loops.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/analysis/modal.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"

using namespace grapple::core;

namespace {
const std::string kSource = GRAPPLE_SOURCE_DIR;
}

class TestClosedLoop : public QObject {
  Q_OBJECT

 private slots:
  // Centralized gains Kp = ω², Kd = 2ξω premultiplied by D(q0) decouple a rigid fixed-base arm
  // exactly: every joint is s² + 2ξωs + ω² (poles of damping ξ at |λ| = ω), T = 1/W, so
  // ‖W T‖ = 1 at every frequency (thesis §8.2.3's centralized structure).
  void Centralized_DecouplesExactly() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    Eigen::VectorXd q0 = Eigen::VectorXd::Zero(m.nq);
    q0[1] = 0.7;
    const double w = 0.698, xi = 0.707;
    const ClosedLoopGains g = thesisGains(m, q0, 0, 0, {w * w, w * w}, {2 * xi * w, 2 * xi * w}, true, w, xi);
    const ClosedLoopAnalysis a = analyzeClosedLoop(m, q0, g);
    QVERIFY(a.stable);
    QCOMPARE(static_cast<int>(a.poles.size()), 2 * m.nv);
    for (std::size_t k = 0; k < a.poles.size(); ++k) {
      QVERIFY(std::abs(a.frequency[k] - w) < 1e-9);
      QVERIFY(std::abs(a.damping[k] - xi) < 1e-9);
    }
    double worst = 0;
    for (double s : a.weighted) worst = std::max(worst, std::abs(s - 1));
    qInfo("centralized, planar arm: |sigma_max(W T) - 1| <= %.1e over %zu frequencies; gamma_hard %.12f", worst,
          a.weighted.size(), a.gamma_hard);
    QVERIFY(worst < 1e-9);
    for (Eigen::Index i = 0; i < a.sensitivity.rows(); ++i) {
      for (Eigen::Index k = 0; k < a.sensitivity.cols(); ++k) QVERIFY(std::abs(a.sensitivity(i, k) - a.bound(i, k)) < 1e-9);
    }
  }

  // The free-floating chaser with flexible arm and arrays, the AOCS on the base and the thesis'
  // decentralized gains (Table 8.2, multi-model): every pole λ is a root of det(D λ² + C λ + K)
  // (checked by the smallest singular value of that matrix), and a collocated PD with positive
  // gains keeps the passive structure stable.
  void FlexibleChaser_PolesAreRootsOfTheDynamics() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    Eigen::VectorXd q0 = Eigen::VectorXd::Zero(m.nq);
    q0[3] = 1;
    const ClosedLoopGains g = thesisGains(m, q0, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                          {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
    const ClosedLoopAnalysis a = analyzeClosedLoop(m, q0, g, 1e-3, 1e3, 60);
    Data d(m, true);
    const Eigen::MatrixXd D = massMatrix(m, d, q0);
    const Eigen::MatrixXd K = stiffnessMatrix(m) + g.Kp, C = dampingMatrix(m) + g.Kd;
    double worst = 0;
    for (const auto& p : a.poles) {
      const Eigen::MatrixXcd Z = D.cast<std::complex<double>>() * (p * p) + C.cast<std::complex<double>>() * p + K.cast<std::complex<double>>();
      const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXcd>(Z).singularValues();
      worst = std::max(worst, s[s.size() - 1] / s[0]);
    }
    double slowest = INFINITY, least_damped = INFINITY;
    for (std::size_t k = 0; k < a.poles.size(); ++k) {
      if (a.frequency[k] > 1e-9) {
        slowest = std::min(slowest, a.frequency[k]);
        least_damped = std::min(least_damped, a.damping[k]);
      }
    }
    qInfo("flexible chaser, decentralized Table 8.2 gains: %zu poles, stable %d, slowest %.4f rad/s, least damped %.4f; "
          "gamma_hard %.3f; max sigma_min/sigma_max of the dynamics at the poles %.1e",
          a.poles.size(), a.stable, slowest, least_damped, a.gamma_hard, worst);
    QVERIFY(a.stable);
    QVERIFY(worst < 1e-8);
    QCOMPARE(a.sensitivity.rows(), 12);  // 6 base + 6 joint channels
  }

  // A scenario's PD loops (core/analysis/scenario_loops) on the rigid capture: the controller in
  // charge by start time, and the gains assembled from the mass matrix and the file's numbers as
  // the thesis writes them (§8.2.3): the bus rotation H_ωω (kp, kd), the joint path as
  // D_mm(q) diag(kp), the capture's joint_pd decentralized with Table 8.2's multi-model gains or
  // centralized D_mm(q) diag(16), diag(8); templates W_b on the bus, W_m on the joints.
  void ScenarioLoops_AssembledAsTheThesisWrites() {
    LoadedScenario loaded = loadScenario(kSource + "/scenarios/capture_rigid.yaml");
    Scenario& s = loaded.scenario;
    const Model& m = loaded.model;
    QCOMPARE(s.controllers.size(), std::size_t(2));
    QVERIFY(jointPdControllerAt(s, 0) == &s.controllers[0]);
    QVERIFY(jointPdControllerAt(s, 50) == &s.controllers[0]);  // the capture's law is not joint_pd
    s.controllers[1].capture.law = CaptureLaw::kJointPd;
    QVERIFY(jointPdControllerAt(s, 39.9) == &s.controllers[0]);
    QVERIFY(jointPdControllerAt(s, 40) == &s.controllers[1]);

    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[3] = 1;  // the base's unit quaternion (as FlexibleChaser_PolesAreRootsOfTheDynamics)
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1) q[m.joint[b].idx_q] = 0.3 * b - 0.7;
    }
    Data d(m);
    const Eigen::MatrixXd D = massMatrix(m, d, q);
    const std::vector<int> bus{3, 4, 5}, joints{6, 7, 8, 9, 10, 11};
    QCOMPARE(m.nv, 12);
    const double kp_bus = 0.1, kd_bus = 0.6;  // the file's attitude_control
    auto check = [&](const ScenarioLoops& l, const Eigen::MatrixXd& Kp_joints, const Eigen::MatrixXd& Kd_joints) {
      Eigen::MatrixXd Kp = Eigen::MatrixXd::Zero(12, 12), Kd = Kp;
      Kp(bus, bus) = kp_bus * D(bus, bus);
      Kd(bus, bus) = kd_bus * D(bus, bus);
      Kp(joints, joints) = Kp_joints;
      Kd(joints, joints) = Kd_joints;
      QVERIFY((l.gains.Kp - Kp).norm() <= 1e-12 * Kp.norm());
      QVERIFY((l.gains.Kd - Kd).norm() <= 1e-12 * Kd.norm());
      QCOMPARE(l.gains.actuated, (std::vector<int>{3, 4, 5, 6, 7, 8, 9, 10, 11}));
      for (std::size_t k = 0; k < l.gains.actuated.size(); ++k) {
        QCOMPARE(l.gains.template_omega[k], k < 3 ? 0.0698 : 0.698);
        QCOMPARE(l.gains.template_xi[k], 0.707);
      }
    };
    // The joint path: kp 0.487, kd 0.987 on all six joints, as D_mm(q) diag(kp), diag(kd).
    std::optional<ScenarioLoops> l = scenarioLoops(s, m, q, jointPdControllerAt(s, 0));
    QVERIFY(l.has_value());
    QCOMPARE(l->description, std::string("bus attitude PD + joint path PD (as D(q) diag(kp), diag(kd))"));
    check(*l, 0.487 * D(joints, joints), 0.987 * D(joints, joints));
    // joint_pd, decentralized: the thesis' Table 8.2 ("Multi").
    const Eigen::VectorXd table_kp = (Eigen::VectorXd(6) << 3803, 7246, 5575, 373, 3967, 0.006).finished();
    const Eigen::VectorXd table_kd = (Eigen::VectorXd(6) << 1973, 2507, 1822, 1222, 898, 0.03).finished();
    l = scenarioLoops(s, m, q, &s.controllers[1]);
    QCOMPARE(l->description, std::string("bus attitude PD + capture joint PD (decentralized)"));
    check(*l, table_kp.asDiagonal(), table_kd.asDiagonal());
    // centralized: ω = 4 rad/s critically damped, premultiplied by D_mm(q).
    s.controllers[1].capture.arm_pd = ArmPd::kCentralized;
    l = scenarioLoops(s, m, q, &s.controllers[1]);
    QCOMPARE(l->description, std::string("bus attitude PD + capture joint PD (centralized)"));
    check(*l, 16 * D(joints, joints), 8 * D(joints, joints));
    // No loop: no attitude control and no arm PD; a configuration of the wrong size throws.
    s.chaser.attitude_control.reset();
    QVERIFY(!scenarioLoops(s, m, q, nullptr).has_value());
    QVERIFY(scenarioLoops(s, m, q, &s.controllers[1]).has_value());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, scenarioLoops(s, m, Eigen::VectorXd::Zero(3), nullptr));
  }

  void BadInput() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    const Eigen::VectorXd q0 = Eigen::VectorXd::Zero(m.nq);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, thesisGains(m, q0, 0, 0, {1}, {1, 1}, false, 1, 0.7));
    ClosedLoopGains g = thesisGains(m, q0, 0, 0, {1, 1}, {1, 1}, false, 1, 0.7);
    g.Kp.resize(1, 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, analyzeClosedLoop(m, q0, g));
  }
};

QTEST_APPLESS_MAIN(TestClosedLoop)
#include "core/math/decompositions.hpp"
#include "test_closed_loop.moc"
