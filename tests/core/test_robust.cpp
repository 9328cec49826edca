// μ-analysis of the PD loops over joint ranges (core/analysis/robust, thesis §8.3): the μ bounds
// on matrices whose μ is known, the M-Δ form against the closed loop computed from the model's
// mass matrix, the certified boxes against brute-force sampling (10,000 configurations inside: no
// instability, no performance violation, while the limits contain both), the sampled lower bound
// below the upper one, and the shrink rule against the thesis' own Table 8.5 and 8.6 numbers.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/analysis/robust.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/math/decompositions.hpp"
#include "tests/support/thesis_configurations.hpp"

using namespace grapple::core;
using Complex = std::complex<double>;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
constexpr double kDeg = M_PI / 180;

// The planar 2-DoF arm (fixed base: D depends on joint 2 only) with a circulatory (non-symmetric)
// stiffness: stable for |θ2| below about 1 rad, unstable beyond (a flutter the Lyapunov
// argument of §8.3.3.1 does not exclude, Kp not being symmetric).
ClosedLoopGains flutterGains() {
  ClosedLoopGains g;
  g.Kp.resize(2, 2);
  g.Kp << 4, 4.5, -4.5, 4;
  g.Kd.resize(2, 2);
  g.Kd << 1, 0, 0, 1;
  g.actuated = {0, 1};
  g.template_omega = {0.7, 0.7};
  g.template_xi = {0.707, 0.707};
  return g;
}

std::vector<JointRange> planarLimits(const Model& m) {
  return {{1, -170 * kDeg, 170 * kDeg}, {m.nbodies - 1, -170 * kDeg, 170 * kDeg}};
}

}  // namespace

class TestRobust : public QObject {
  Q_OBJECT

 private slots:
  // Matrices whose μ is known: a real scalar (μ = |m| if m is real, 0 if imaginary), a full
  // complex block (σ̄), a real rank-one matrix with real scalars (Σ|a_i b_i|, where the D-scaled
  // bound is exact), and random real matrices against the sampled exact lower bound
  // max |λ_real(M diag(δ))| over δ on the unit box's surface.
  void Bounds_KnownMatrices() {
    Eigen::MatrixXcd s(1, 1);
    s(0, 0) = 2;
    QVERIFY(std::abs(muUpperBound(s, 1, 0).mixed_bound - 2) < 1e-9);
    s(0, 0) = Complex(0, 2);
    const MuUpperBound im = muUpperBound(s, 1, 0);
    QVERIFY(std::abs(im.complex_bound - 2) < 1e-9);
    QVERIFY(im.mixed_bound < 0.05);  // the bisection's resolution, μ = 0
    std::mt19937 rng(5);
    std::normal_distribution<double> g;
    Eigen::MatrixXcd F(3, 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F(i, j) = Complex(g(rng), g(rng));
    QVERIFY(std::abs(muUpperBound(F, 0, 3).mixed_bound - F.jacobiSvd().singularValues()[0]) < 1e-9);
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd a(4), b(4);
      for (int i = 0; i < 4; ++i) a[i] = g(rng), b[i] = g(rng);
      const double exact = (a.cwiseProduct(b)).cwiseAbs().sum();
      const MuUpperBound r = muUpperBound((a * b.transpose()).cast<Complex>(), 4, 0);
      QVERIFY2(r.mixed_bound >= exact * (1 - 1e-9) && r.complex_bound <= exact * 1.01,
               qPrintable(QString("%1 %2 %3").arg(r.mixed_bound).arg(r.complex_bound).arg(exact)));
    }
    std::uniform_real_distribution<double> u(-1, 1);
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::MatrixXd M(4, 4);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) M(i, j) = g(rng);
      double lower = 0;
      for (int k = 0; k < 3000; ++k) {
        Eigen::VectorXd d(4);
        for (int i = 0; i < 4; ++i) d[i] = u(rng);
        d[k % 4] = k % 8 < 4 ? 1 : -1;
        const Eigen::VectorXcd ev = Eigen::EigenSolver<Eigen::MatrixXd>(M * d.asDiagonal()).eigenvalues();
        for (Eigen::Index i = 0; i < 4; ++i) {
          if (std::abs(ev[i].imag()) < 1e-12) lower = std::max(lower, std::abs(ev[i].real()));
        }
      }
      const MuUpperBound r = muUpperBound(M.cast<Complex>(), 4, 0);
      qInfo("random real 4x4: sampled %.4f <= D-G %.4f <= complex %.4f", lower, r.mixed_bound, r.complex_bound);
      QVERIFY(lower <= r.mixed_bound * (1 + 1e-9));
      QVERIFY(r.mixed_bound <= r.complex_bound * (1 + 1e-12));
    }
  }

  // F_u(M(jω), Δ(δ)) = W T_w→a(jω)/γ with T computed from the model's mass matrix at the
  // configuration of δ: the whole M-Δ form (all four blocks) against the closed loop itself.
  void Loop_MatchesModel() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    Data d(m);
    const Eigen::VectorXd q0 = grapple::test::armConfiguration(m, grapple::test::kThesisQ2);
    const ClosedLoopGains gains = thesisGains(m, q0, 0.0698, 0.707, {900, 900, 900, 300, 300, 1}, {800, 800, 800, 300, 300, 1},
                                              false, 0.698, 0.707);
    std::vector<JointRange> ranges;
    for (int b : massMatrixJoints(m, q0)) ranges.push_back({b, -1.0, 2.5});
    for (RotationParameter f : {RotationParameter::kTan2, RotationParameter::kTan4}) {
      RobustOptions o;
      o.form = f;
      o.goal = RobustGoal::kPerformance;
      o.performance_level = 1.3;
      const RobustLoop loop(m, q0, gains, ranges, o);
      std::mt19937 rng(2);
      std::uniform_real_distribution<double> u(-1, 1);
      for (double w : {0.05, 0.7, 9.0}) {
        Eigen::VectorXd delta(static_cast<Eigen::Index>(ranges.size()));
        for (Eigen::Index k = 0; k < delta.size(); ++k) delta[k] = u(rng);
        Eigen::VectorXcd dg(loop.deltaSize());
        for (Eigen::Index i = 0; i < dg.size(); ++i) dg[i] = delta[loop.param()[static_cast<std::size_t>(i)]];
        const Eigen::MatrixXcd viaLft = upperLft(loop.at(w), dg.asDiagonal().toDenseMatrix());
        const Eigen::MatrixXd D = massMatrix(m, d, loop.configuration(delta));
        const Complex s(0, w);
        const Eigen::MatrixXcd Z = D.cast<Complex>() * (s * s) + gains.Kd.cast<Complex>() * s + gains.Kp.cast<Complex>();
        const Eigen::MatrixXcd T = (s * s) * Z.partialPivLu().solve(D.cast<Complex>());
        Eigen::MatrixXcd WT(gains.actuated.size(), gains.actuated.size());
        for (std::size_t i = 0; i < gains.actuated.size(); ++i) {
          const double wi = gains.template_omega[i], xi = gains.template_xi[i];
          const Complex W = (s * s + 2 * xi * wi * s + wi * wi) / (s * s) / o.performance_level;
          for (std::size_t j = 0; j < gains.actuated.size(); ++j) WT(i, j) = W * T(gains.actuated[i], gains.actuated[j]);
        }
        const double err = (viaLft - WT).norm() / WT.norm();
        QVERIFY2(err < 1e-9, qPrintable(QString("omega %1: relative difference %2").arg(w).arg(err)));
      }
    }
  }

  // The flutter loop: the certified box holds no unstable
  // configuration among 10,000 sampled inside it, while the limits do hold some; the sampled
  // lower bound finds the instability and stays below the upper bound.
  void StabilityBox_BruteForce() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    const ClosedLoopGains g = flutterGains();
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    for (RotationParameter f : {RotationParameter::kTan2, RotationParameter::kTan4}) {
      RobustOptions o;
      o.form = f;
      const CertifiedBox c = certifyBox(m, q, g, planarLimits(m), o);
      QVERIFY(c.nominal_stable && c.certified);
      QCOMPARE(c.fixed, std::vector<int>{1});  // joint 1 does not change D (fixed base)
      const JointRange& r = c.box[1];
      qInfo("%s: mu in [%.3f, %.3f] (complex %.3f); joint 2 certified in [%.1f, %.1f] deg", f == RotationParameter::kTan2 ? "sigma2" : "sigma4",
            c.final_sweep.lower, c.final_sweep.upper_peak, c.final_sweep.complex_peak, r.lower / kDeg, r.upper / kDeg);
      QVERIFY(c.final_sweep.lower > 1);  // instability inside the limits
      QVERIFY(c.final_sweep.lower <= c.final_sweep.upper_peak);
      QVERIFY(r.lower < -0.05 && r.upper > 0.05);  // not empty
      Data d(m);
      std::mt19937 rng(9);
      std::uniform_real_distribution<double> inside(r.lower, r.upper), anywhere(-170 * kDeg, 170 * kDeg);
      int unstable_inside = 0, unstable_limits = 0;
      Eigen::VectorXd x = q;
      for (int k = 0; k < 10000; ++k) {
        x[1] = inside(rng);
        unstable_inside += !evaluateController(m, x, g).stable;
        x[1] = anywhere(rng);
        unstable_limits += !evaluateController(m, x, g).stable;
      }
      QCOMPARE(unstable_inside, 0);
      QVERIFY(unstable_limits > 1000);
    }
  }

  // Robust performance ‖W T‖∞ ≤ γ: no sampled configuration of the certified box violates it.
  void PerformanceBox_BruteForce() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    const ClosedLoopGains g = flutterGains();
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    RobustOptions o;
    o.goal = RobustGoal::kPerformance;
    o.performance_level = 1.6 * evaluateController(m, q, g).upper;
    const CertifiedBox c = certifyBox(m, q, g, planarLimits(m), o);
    const JointRange& r = c.box[1];
    qInfo("performance level %.3f: joint 2 certified in [%.1f, %.1f] deg, mu in [%.3f, %.3f]", o.performance_level,
          r.lower / kDeg, r.upper / kDeg, c.final_sweep.lower, c.final_sweep.upper_peak);
    QVERIFY(c.final_sweep.upper_peak < 1);
    QVERIFY(c.final_sweep.lower <= c.final_sweep.upper_peak);
    QVERIFY(r.upper > r.lower);
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> inside(r.lower, r.upper);
    Eigen::VectorXd x = q;
    double worst = 0;
    for (int k = 0; k < 10000; ++k) {
      x[1] = inside(rng);
      worst = std::max(worst, evaluateController(m, x, g).upper);
    }
    QVERIFY2(worst <= o.performance_level, qPrintable(QString("%1 > %2").arg(worst).arg(o.performance_level)));
    QVERIFY(c.certified);
    // A level the centre itself misses: no box, and the sampled lower bound says why.
    o.performance_level = 0.9 * evaluateController(m, q, g).upper;
    const CertifiedBox none = certifyBox(m, q, g, planarLimits(m), o);
    QVERIFY(!none.certified);
    QVERIFY(none.final_sweep.lower >= 1);
    QCOMPARE(none.box[1].lower, none.box[1].upper);
  }

  // The iterative procedure on the thesis' chaser (decentralized PD, AOCS blocks ω_b² D_bb): the
  // final box inside the limits, the bounds in order, joint 6 (it does not change D) kept whole.
  void Iterative_Chaser() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    const Eigen::VectorXd q = grapple::test::armConfiguration(m, grapple::test::kThesisQ1);
    const ClosedLoopGains g = thesisGains(m, q, 0.0698, 0.707, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, true, 0.698, 0.707);
    const double lo[] = {-90, -45, 0, -180, -90, -180}, hi[] = {90, 180, 180, 45, 180, 180};
    std::vector<JointRange> limits;
    for (int b = 1, k = 0; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1) limits.push_back({b, lo[k] * kDeg, hi[k] * kDeg}), ++k;
    }
    RobustOptions o;
    o.samples = 50;
    const CertifiedBox c = certifyBox(m, q, g, limits, o, {5, 4, 3, 2, 1});
    QCOMPARE(c.step_mu.size(), std::size_t{5});
    QCOMPARE(c.fixed, std::vector<int>{6});
    for (std::size_t k = 0; k < c.box.size(); ++k) {
      QVERIFY(c.box[k].lower >= c.limits[k].lower - 1e-12 && c.box[k].upper <= c.limits[k].upper + 1e-12);
      qInfo("joint %zu: [%.1f, %.1f] deg", k + 1, c.box[k].lower / kDeg, c.box[k].upper / kDeg);
    }
    QCOMPARE(c.box[5].lower, -175 * kDeg);
    QCOMPARE(c.final_sweep.lower, 0.0);  // PD gains: no instability anywhere (Lyapunov)
  }

  // The shrink rule against the thesis: Table 8.5's σ2 and σ4 stability rows from its own μ upper
  // bounds (1.39, 3.97) and Table 8.6's performance rows (2.22, 4.23), to the printed degree (±1.2°);
  // σ2 rows from the limits capped at ±175°, σ4 rows from ±180°.
  void ShrinkRule_ThesisTables() {
    struct Row {
      RotationParameter form;
      double mu;
      std::vector<double> lo, hi, min, max;
    };
    const std::vector<double> lo85{-90, -45, 0, -180, -90}, hi85{90, 180, 180, 45, 180};
    const std::vector<double> lo86{-90, -45, 0, -175, -90}, hi86{90, 175, 175, 45, 175};
    const std::vector<Row> rows{
        {RotationParameter::kTan2, 1.39, lo85, hi85, {-72, 141, 145, -174, 134}, {72, 174, 174, -141, 174}},
        {RotationParameter::kTan4, 3.97, lo85, hi85, {-24, 56, 82, -115, 27}, {24, 115, 127, -56, 100}},
        {RotationParameter::kTan2, 2.22, lo86, hi86, {-49, 161, 162, -173, 160}, {49, 173, 173, -161, 173}},
        {RotationParameter::kTan4, 4.23, lo85, hi85, {-22, 58, 84, -114, 29}, {22, 114, 127, -58, 99}},
    };
    for (const Row& row : rows) {
      std::vector<JointRange> limits;
      for (std::size_t k = 0; k < row.lo.size(); ++k) {
        limits.push_back(parameterRange({static_cast<int>(k + 1), row.lo[k] * kDeg, row.hi[k] * kDeg}, row.form));
      }
      const std::vector<JointRange> box = shrinkRanges(limits, row.mu, row.form);
      for (std::size_t k = 0; k < box.size(); ++k) {
        QVERIFY2(std::abs(box[k].lower / kDeg - row.min[k]) <= 1.2 && std::abs(box[k].upper / kDeg - row.max[k]) <= 1.2,
                 qPrintable(QString("mu %1 joint %2: [%3, %4]").arg(row.mu).arg(k + 1).arg(box[k].lower / kDeg).arg(box[k].upper / kDeg)));
      }
    }
    // The σ2 row reconstructed to 0.1° from μ = 1.39 and the limits: ±71.5°, [141.4, 174.2].
    const std::vector<JointRange> b = shrinkRanges({parameterRange({1, -90 * kDeg, 90 * kDeg}, RotationParameter::kTan2),
                                                    parameterRange({2, -45 * kDeg, 180 * kDeg}, RotationParameter::kTan2)},
                                                   1.39, RotationParameter::kTan2);
    QVERIFY(std::abs(b[0].upper / kDeg - 71.5) < 0.1 && std::abs(b[1].lower / kDeg - 141.4) < 0.1 && std::abs(b[1].upper / kDeg - 174.2) < 0.1);
  }

  void BadInput() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    const ClosedLoopGains g = flutterGains();
    RobustOptions o;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobustLoop(m, q, g, {{2, -3.2, 0}}, o));  // beyond ±180° in σ2
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobustLoop(m, q, g, {{2, 1, 0}}, o));     // empty
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobustLoop(m, Eigen::VectorXd::Zero(5), g, {{2, 0, 1}}, o));
    const Model flex = loadModelFile(kSource + "/scenarios/robots/planar_2dof_flex.yaml");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobustLoop(flex, Eigen::VectorXd::Zero(flex.nq), g, {{2, 0, 1}}, o));
    Eigen::MatrixXcd nan = Eigen::MatrixXcd::Constant(2, 2, Complex(NAN, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, muUpperBound(nan, 2, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, muUpperBound(Eigen::MatrixXcd::Identity(2, 2), 3, 0));
    int calls = 0;
    o.progress = [&](double) { return ++calls < 3; };
    QVERIFY_THROWS_EXCEPTION(RobustCancelled, certifyBox(m, q, g, planarLimits(m), o));
  }
};

QTEST_APPLESS_MAIN(TestRobust)
#include "test_robust.moc"
