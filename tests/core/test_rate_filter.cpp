// The filtered rate term of the PD laws (control/rate_filter): the compensated gains give the
// closed loop the designed poles and the third pole p = 1/τ - kd, checked on the roots of the
// loop's characteristic polynomial found numerically (companion matrix); the sampled filter's
// output variance on white noise against (1 - a)/(1 + a); a sampled double integrator under the
// filtered law against the continuous closed loop's response (matrix exponential); the filter's
// timing rules (same instant: held; after a gap: restarted).
#include <QtTest>

#include <algorithm>
#include <complex>
#include <vector>

#include <Eigen/Eigenvalues>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/campaign/random.hpp"
#include "core/control/rate_filter.hpp"

using namespace grapple::core;

namespace {

// The roots of c3 s³ + c2 s² + c1 s + c0 (c3 ≠ 0), sorted by real part then imaginary part.
std::vector<std::complex<double>> roots(double c3, double c2, double c1, double c0) {
  Eigen::Matrix3d C = Eigen::Matrix3d::Zero();
  C(0, 0) = -c2 / c3;
  C(0, 1) = -c1 / c3;
  C(0, 2) = -c0 / c3;
  C(1, 0) = C(2, 1) = 1;
  const Eigen::Vector3cd ev = Eigen::EigenSolver<Eigen::Matrix3d>(C).eigenvalues();
  std::vector<std::complex<double>> r(ev.data(), ev.data() + 3);
  std::sort(r.begin(), r.end(), [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
  return r;
}

}  // namespace

class TestRateFilter : public QObject {
  Q_OBJECT

 private slots:
  // The loop ë = -kp' e - kd' ė_f, τ ė_f' + ė_f = ė has the characteristic polynomial
  // τ s³ + s² + (kd' + kp' τ) s + kp': its roots are those of s² + kd s + kp and -p.
  void Gains_KeepTheDesignedPoles() {
    struct Case {
      double kp, kd, tau;
    };
    for (const Case c : {Case{0.1, 0.6, 0.5}, Case{0.487, 0.987, 0.2}, Case{4, 4, 0.1}, Case{16, 2, 0.3}, Case{1, 0.5, 1.5}}) {
      const FilteredPdGains g = filteredPdGains(c.kp, c.kd, c.tau);
      const auto got = roots(c.tau, 1, g.kd + g.kp * c.tau, g.kp);
      // Expected: s² + kd s + kp's pair (closed form) and -p. (A double root, kd² = 4 kp, is
      // found to about √ε: the tolerance.)
      const std::complex<double> disc = std::sqrt(std::complex<double>(c.kd * c.kd - 4 * c.kp));
      std::vector<std::complex<double>> want = {(-c.kd - disc) / 2.0, (-c.kd + disc) / 2.0, -(1 / c.tau - c.kd)};
      std::sort(want.begin(), want.end(), [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
      QCOMPARE(g.pole, 1 / c.tau - c.kd);
      for (int k = 0; k < 3; ++k) {
        QVERIFY2(std::abs(got[static_cast<std::size_t>(k)] - want[static_cast<std::size_t>(k)]) < 1e-6 * (1 + std::abs(want[static_cast<std::size_t>(k)])),
                 qPrintable(QString("kp %1 kd %2 tau %3: root %4").arg(c.kp).arg(c.kd).arg(c.tau).arg(k)));
      }
    }
    // No filter: the gains unchanged, bit for bit; kd τ >= 1: refused.
    const FilteredPdGains none = filteredPdGains(0.1, 0.6, 0);
    QCOMPARE(none.kp, 0.1);
    QCOMPARE(none.kd, 0.6);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, filteredPdGains(4, 4, 0.25));
  }

  // White noise of unit variance sampled every h: the output's variance is (1 - a)/(1 + a).
  void Filter_WhiteNoiseVariance() {
    const double h = 0.02, tau = 0.5, a = std::exp(-h / tau);
    RateFilter f(tau);
    campaign::RandomStream rng(7, 0, 0);
    Eigen::VectorXd x(1);
    double s2 = 0;
    const int n = 200000, skip = 1000;
    for (int k = 0; k < n + skip; ++k) {
      x[0] = rng.normal();
      const double y = f.filter(k * h, x)[0];
      if (k >= skip) s2 += y * y;
    }
    const double var = s2 / n, want = (1 - a) / (1 + a);
    // The samples are correlated over τ/h = 25 steps: some 4000 independent ones, 2.2 % σ.
    QVERIFY2(std::abs(var / want - 1) < 0.07, qPrintable(QString("%1 vs %2").arg(var).arg(want)));
  }

  // A double integrator sampled at 50 Hz (exact between samples under the held input) under the
  // filtered law follows the continuous closed loop [e, ė, ė_f] from the same start.
  void SampledLoop_FollowsTheContinuousLoop() {
    const double kp = 0.487, kd = 0.987, tau = 0.2, h = 0.02;
    const FilteredPdGains g = filteredPdGains(kp, kd, tau);
    Eigen::Matrix3d A;
    A << 0, 1, 0, -g.kp, 0, -g.kd, 0, 1 / tau, -1 / tau;
    RateFilter f(tau);
    Eigen::VectorXd rate(1);
    double e = 1, de = 0, worst = 0;
    for (int k = 0; k <= 1000; ++k) {  // 20 s
      const double t = k * h;
      const Eigen::Vector3d cont = (A * t).exp() * Eigen::Vector3d(1, 0, 0);
      worst = std::max(worst, std::abs(e - cont[0]));
      rate[0] = de;
      const double u = -g.kp * e - g.kd * f.filter(t, rate)[0];
      e += de * h + u * h * h / 2;
      de += u * h;
    }
    QVERIFY2(worst < 0.01, qPrintable(QString::number(worst)));  // sampling: O(h) of a unit step
  }

  // The same instant again: the output held; after a gap of many τ: the input passes.
  void Filter_Timing() {
    RateFilter f(0.1);
    Eigen::VectorXd x(2);
    x << 1, -2;
    QCOMPARE(f.filter(0, x), x);  // the first sample passes
    x << 3, 4;
    const Eigen::VectorXd y = f.filter(0.02, x);
    const double a = std::exp(-0.2);
    QVERIFY(std::abs(y[0] - (a * 1 + (1 - a) * 3)) < 1e-15 && std::abs(y[1] - (a * -2 + (1 - a) * 4)) < 1e-15);
    QCOMPARE(f.filter(0.02, Eigen::VectorXd::Constant(2, 100.0)), y);
    QVERIFY((f.filter(10, x) - x).norm() < 1e-12);
    QCOMPARE(RateFilter().filter(5, x), x);  // inactive: the input
  }
};

QTEST_APPLESS_MAIN(TestRateFilter)
#include "test_rate_filter.moc"
