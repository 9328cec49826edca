// The thesis' linearized closed loop (core/analysis/closed_loop): exact cases and an independent
// check of the poles.
#include <QtTest>

#include <cmath>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "core/analysis/closed_loop.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/analysis/modal.hpp"
#include "core/io/model_yaml.hpp"

using namespace grapple::core;

namespace {
const std::string kSource = GRAPPLE_SOURCE_DIR;
}

class TestClosedLoop : public QObject {
  Q_OBJECT

 private slots:
  // Centralized gains Kp = ω², Kd = 2ξω premultiplied by D(q0) decouple a rigid fixed-base arm
  // exactly: every joint is s² + 2ξωs + ω² (poles of damping ξ at |λ| = ω), T = 1/W, so
  // ‖W T‖ = 1 at every frequency (the notes' statement, §3.6).
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
#include "test_closed_loop.moc"
