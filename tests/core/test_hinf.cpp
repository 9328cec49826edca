// The H∞ norm (core/analysis/hinf) against SLICOT's AB13DD (the routine under Matlab's norm(sys,
// inf)), closed forms, and dense frequency grids; the thesis' weighted loop W T_w→a in state space
// (weightedSensitivity) against the loop's frequency response computed from the full model.
#include <QtTest>

#include <cmath>
#include <complex>
#include <random>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/hinf.hpp"
#include "core/analysis/modal.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/math/decompositions.hpp"
#include "tests/support/slicot.hpp"

using namespace grapple::core;
using grapple::test::slicotNorm;
using grapple::test::SlicotNorm;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

// A random stable system: A with eigenvalues of random real parts in [-2, -0.01] (some lightly
// damped), random B, C, D.
StateSpace randomSystem(std::mt19937& rng, int n, int m, int p) {
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0.01, 2.0);
  Eigen::MatrixXd X(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) X(i, j) = g(rng);
  const Eigen::VectorXcd ev = Eigen::EigenSolver<Eigen::MatrixXd>(X).eigenvalues();
  double shift = -INFINITY;
  for (Eigen::Index k = 0; k < ev.size(); ++k) shift = std::max(shift, ev[k].real());
  StateSpace s;
  s.A = X - (shift + u(rng)) * Eigen::MatrixXd::Identity(n, n);
  s.B.resize(n, m);
  s.C.resize(p, n);
  s.D.resize(p, m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) s.B(i, j) = g(rng);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < n; ++j) s.C(i, j) = g(rng);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < m; ++j) s.D(i, j) = 0.3 * g(rng);
  return s;
}

double gridMaximum(const StateSpace& s, double lo, double hi, int points) {
  double best = 0;
  for (int k = 0; k < points; ++k) best = std::max(best, sigmaMax(s, lo * std::pow(hi / lo, k / (points - 1.0))));
  return best;
}

}  // namespace

class TestHinf : public QObject {
  Q_OBJECT

 private slots:
  // Closed forms: 1/(s + a) peaks at ω = 0 with 1/a; the second-order ω0²/(s² + 2ζω0 s + ω0²)
  // peaks at ω0 √(1 - 2ζ²) with 1 / (2ζ √(1 - ζ²)).
  void ClosedForms() {
    StateSpace s{Eigen::MatrixXd::Constant(1, 1, -0.5), Eigen::MatrixXd::Ones(1, 1), Eigen::MatrixXd::Ones(1, 1),
                 Eigen::MatrixXd::Zero(1, 1)};
    HinfNorm h = hinfNorm(s, 1e-9);
    QVERIFY(h.stable);
    QVERIFY(std::abs(h.lower - 2) < 1e-8 && h.lower <= h.upper && h.upper <= 2 * (1 + 2.1e-9));
    QCOMPARE(h.omega_peak, 0.0);
    const double w0 = 3, z = 0.05;
    s.A = (Eigen::Matrix2d() << 0, 1, -w0 * w0, -2 * z * w0).finished();
    s.B = Eigen::MatrixXd::Zero(2, 1);
    s.B(1, 0) = w0 * w0;
    s.C = Eigen::MatrixXd::Zero(1, 2);
    s.C(0, 0) = 1;
    h = hinfNorm(s, 1e-9);
    const double peak = 1 / (2 * z * std::sqrt(1 - z * z)), where = w0 * std::sqrt(1 - 2 * z * z);
    qInfo("second order: %.12f (exact %.12f) at %.9f rad/s (exact %.9f), %d Hamiltonian steps", h.upper, peak,
          h.omega_peak, where, h.iterations);
    QVERIFY(std::abs(h.upper - peak) < 3e-9 * peak);
    QVERIFY(std::abs(h.omega_peak - where) < 1e-3);
    // Unstable: infinite.
    s.A(1, 1) = 0.1;
    h = hinfNorm(s);
    QVERIFY(!h.stable && std::isinf(h.upper));
  }

  // 200 random stable systems (1 to 12 states, 1 to 4 inputs and outputs): the norm matches
  // AB13DD to the tolerance, and no point of a dense grid exceeds it.
  void RandomSystems_MatchSlicotAndBoundTheGrid() {
    std::mt19937 rng(20);
    double worst = 0, worst_grid = -1;
    for (int trial = 0; trial < 200; ++trial) {
      const int n = 1 + trial % 12, m = 1 + (trial / 12) % 4, p = 1 + (trial / 3) % 4;
      const StateSpace s = randomSystem(rng, n, m, p);
      const HinfNorm h = hinfNorm(s, 1e-8);
      const SlicotNorm ref = slicotNorm(s);
      QCOMPARE(ref.info, 0);
      QVERIFY(h.stable);
      QVERIFY(h.lower <= h.upper && h.upper <= h.lower * (1 + 2.01e-8));
      const double err = std::abs(h.upper - ref.gamma) / ref.gamma;
      worst = std::max(worst, err);
      if (err > 1e-6) qWarning("trial %d (n %d m %d p %d): %.12g vs AB13DD %.12g", trial, n, m, p, h.upper, ref.gamma);
      QVERIFY(err < 1e-6);
      const double grid = gridMaximum(s, 1e-3, 1e3, 400);
      worst_grid = std::max(worst_grid, grid / h.upper - 1);
      QVERIFY(grid <= h.upper * (1 + 1e-12));
    }
    qInfo("200 random systems: largest relative difference to AB13DD %.2e; grid maximum / norm - 1 <= %.2e", worst,
          worst_grid);
  }

  // The thesis' loop on the rigid and on the flexible chaser (AOCS + decentralized Table 8.2
  // "Multi" gains at q = 0): the state-space W T matches the full-model frequency response of
  // analyzeClosedLoop at every grid point (the condensation of the free bus translation included),
  // its norm matches AB13DD and bounds a 2000-point grid.
  void ChaserLoop_MatchesFullModelAndSlicot() {
    for (const char* robot : {"mda_deos.yaml", "chaser.yaml"}) {
      const Model m = loadModelFile(kSource + "/scenarios/robots/" + robot);
      Eigen::VectorXd q0 = Eigen::VectorXd::Zero(m.nq);
      q0[3] = 1;
      ClosedLoopGains g = thesisGains(m, q0, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                      {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
      const ClosedLoopAnalysis a = analyzeClosedLoop(m, q0, g, 1e-3, 1e3, 200);
      Data d(m, m.hasFlexibleBodies());
      const Eigen::MatrixXd D = massMatrix(m, d, q0);
      const StateSpace s = weightedSensitivity(D, stiffnessMatrix(m), dampingMatrix(m), g);
      double worst = 0;
      for (std::size_t k = 0; k < a.omega.size(); ++k) {
        worst = std::max(worst, std::abs(sigmaMax(s, a.omega[k]) - a.weighted[k]) / a.weighted[k]);
      }
      const HinfNorm h = hinfNorm(s, 1e-8);
      const SlicotNorm ref = slicotNorm(s);
      const double grid = gridMaximum(s, 1e-4, 1e4, 2000);
      qInfo("%s: %ld states; |sigma_ss - sigma_full| / sigma <= %.1e; norm %.10f at %.5g rad/s (%d steps), AB13DD "
            "%.10f at %.5g rad/s; grid maximum %.10f; analyzeClosedLoop gamma_hard %.10f",
            robot, static_cast<long>(s.A.rows()), worst, h.upper, h.omega_peak, h.iterations, ref.gamma, ref.omega, grid,
            a.gamma_hard);
      QVERIFY(worst < 1e-8);
      QCOMPARE(ref.info, 0);
      QVERIFY(std::abs(h.upper - ref.gamma) < 1e-6 * ref.gamma);
      QVERIFY(grid <= h.upper * (1 + 1e-12));
      QVERIFY(a.gamma_grid <= a.gamma_hard * (1 + 1e-12));
      QVERIFY(std::abs(a.gamma_hard - h.upper) < 3e-6 * h.upper);
    }
  }

  void BadInput() {
    StateSpace s{Eigen::MatrixXd::Constant(1, 1, -1), Eigen::MatrixXd::Ones(2, 1), Eigen::MatrixXd::Ones(1, 1),
                 Eigen::MatrixXd::Zero(1, 1)};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hinfNorm(s));
    s.B.resize(1, 1);
    s.B(0, 0) = NAN;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hinfNorm(s));
    s.B(0, 0) = 1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hinfNorm(s, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hinfNorm(s, NAN));
  }
};

QTEST_APPLESS_MAIN(TestHinf)
#include "test_hinf.moc"
