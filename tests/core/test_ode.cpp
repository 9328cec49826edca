// The integrators against closed-form solutions: order of accuracy, tolerance control, exact end
// times.
#include <QtTest>

#include <cmath>

#include "core/sim/ode.hpp"

using namespace grapple::core;
using Eigen::VectorXd;

namespace {

// A harmonic oscillator x'' = -ω² x and a decaying mode y' = -λ y.
const double kOmega = 3.0, kLambda = 0.7;
const OdeFunction kSystem = [](double, const VectorXd& x, VectorXd& dx) {
  dx.resize(3);
  dx << x[1], -kOmega * kOmega * x[0], -kLambda * x[2];
};
VectorXd exact(double t) {
  VectorXd x(3);
  x << std::cos(kOmega * t), -kOmega * std::sin(kOmega * t), std::exp(-kLambda * t);
  return x;
}

}  // namespace

class TestOde : public QObject {
  Q_OBJECT

 private slots:
  void Rk4_IsFourthOrder() {
    auto error = [](double h) {
      Rk4Solver rk;
      VectorXd x = exact(0);
      const int n = static_cast<int>(std::lround(2.0 / h));
      for (int k = 0; k < n; ++k) rk.step(kSystem, k * h, h, x);
      return (x - exact(2.0)).norm();
    };
    const double e1 = error(0.01), e2 = error(0.005);
    QVERIFY2(std::abs(std::log2(e1 / e2) - 4) < 0.1, qPrintable(QString::number(std::log2(e1 / e2))));
  }

  // The adaptive solver meets its tolerance, ends exactly at the requested times, and works
  // harder when asked for more.
  void Dopri_MeetsToleranceAndEndTimes() {
    long previous = 0;
    for (double tol : {1e-6, 1e-9, 1e-12}) {
      AdaptiveOptions o;
      o.rtol = tol;
      o.atol = tol * 1e-3;
      AdaptiveRk dp(o);
      VectorXd x = exact(0);
      double t = 0;
      for (int k = 1; k <= 100; ++k) {  // samples at 50 Hz over 2 s
        dp.advance(kSystem, t, k * 0.02, x);
        t = k * 0.02;
      }
      const double err = (x - exact(2.0)).norm();
      qInfo("rtol %.0e: error %.2e after %ld accepted, %ld rejected steps", tol, err,
            dp.stats().accepted, dp.stats().rejected);
      QVERIFY(err < 100 * tol);
      QVERIFY(dp.stats().evaluations > previous);
      previous = dp.stats().evaluations;
    }
  }

  // A step that meets a sudden fast transient is rejected and retried smaller.
  void Dopri_RejectsAndShrinksOnTransients() {
    const OdeFunction stiffish = [](double, const VectorXd& x, VectorXd& dx) {
      dx = VectorXd::Constant(1, -500.0 * (x[0] - 1.0));
    };
    AdaptiveOptions o;
    o.h_initial = 0.1;
    AdaptiveRk dp(o);
    VectorXd x = VectorXd::Zero(1);
    dp.advance(stiffish, 0, 0.1, x);
    QVERIFY(dp.stats().rejected > 0);
    QVERIFY2(std::abs(x[0] - (1 - std::exp(-50.0))) < 1e-8, qPrintable(QString::number(x[0] - 1, 'g', 17)));
  }

  void Dopri_ReportsNonFiniteStates() {
    const OdeFunction blowup = [](double, const VectorXd& x, VectorXd& dx) {
      dx = VectorXd::Constant(1, x[0] * x[0]);  // x(t) = 1/(1 - t): infinite at t = 1
    };
    AdaptiveRk dp;
    VectorXd x = VectorXd::Ones(1);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, dp.advance(blowup, 0, 2, x));
  }
};

QTEST_APPLESS_MAIN(TestOde)
#include "test_ode.moc"
