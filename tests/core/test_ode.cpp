// The integrators against closed-form solutions: order of accuracy, tolerance control, exact end
// times.
#include <QtTest>

#include <cmath>

#include "core/math/decompositions.hpp"
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

// The stiff part of a linear system x' = A x (+ anything) with a given J, solved densely.
class DenseStiff : public StiffPart {
 public:
  explicit DenseStiff(Eigen::MatrixXd J) : J_(std::move(J)) {}
  void jacobian(double, const VectorXd&) override { ++jacobians; }
  void factor(double g) override {
    lu_.compute(g * Eigen::MatrixXd::Identity(J_.rows(), J_.cols()) - J_);
  }
  void solve(VectorXd& r) override { r = lu_.solve(r); }
  int jacobians = 0;

 private:
  Eigen::MatrixXd J_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

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
  void Adaptive_MeetsToleranceAndEndTimes_data() {
    QTest::addColumn<int>("method");
    QTest::newRow("dopri5") << static_cast<int>(AdaptiveMethod::kDormandPrince54);
    QTest::newRow("rk43") << static_cast<int>(AdaptiveMethod::kRk43);
  }
  void Adaptive_MeetsToleranceAndEndTimes() {
    QFETCH(int, method);
    long previous = 0;
    for (double tol : {1e-6, 1e-9, 1e-12}) {
      AdaptiveOptions o;
      o.method = static_cast<AdaptiveMethod>(method);
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

  // The two pairs' orders: the step h ~ tol^(1/(q+1)) of an embedded estimate of order q, so over a fixed interval the work grows like tol^(-1/5) for
  // Dormand–Prince (q = 4) and tol^(-1/4) for RK4(3) (q = 3): measured on the oscillator.
  void Adaptive_WorkGrowsWithTheEstimatorsOrder() {
    for (const auto& method_order : {std::pair{AdaptiveMethod::kDormandPrince54, 4}, std::pair{AdaptiveMethod::kRk43, 3}}) {
      const AdaptiveMethod method = method_order.first;  // (named, not a structured binding: the lambda captures it)
      const int q = method_order.second;
      auto steps = [&](double tol) {
        AdaptiveOptions o;
        o.method = method;
        o.rtol = tol;
        o.atol = tol;
        AdaptiveRk rk(o);
        VectorXd x = exact(0);
        rk.advance(kSystem, 0, 20.0, x);
        return static_cast<double>(rk.stats().accepted);
      };
      const double slope = std::log(steps(1e-10) / steps(1e-8)) / std::log(100.0);
      qInfo("order %d estimator: steps grow like tol^-%.3f (expected 1/%d = %.3f)", q, slope, q + 1, 1.0 / (q + 1));
      QVERIFY(std::abs(slope - 1.0 / (q + 1)) < 0.03);
    }
  }

  // A fast undamped mode (ω = 1000 rad/s) with an amplitude below atol beside a slow motion, as
  // the stiff traction modes of a flexible arm: accuracy does not limit the step, stability does,
  // |hω| <= 1.0 for Dormand–Prince against 2.83 for RK4(3), so RK4(3) needs fewer evaluations
  // (about 3x here; why the flexible scenarios use it). Both stay accurate on the slow motion.
  // (With the fast amplitude above atol, accuracy rules and Dormand–Prince's order wins.)
  void Rk43_BeatsDopriOnFastUndampedModes() {
    const double w_fast = 1000.0;
    const OdeFunction two_modes = [&](double, const VectorXd& x, VectorXd& dx) {
      dx.resize(4);
      dx << x[1], -x[0], x[3], -w_fast * w_fast * x[2];
    };
    long evaluations[2];
    for (int k = 0; k < 2; ++k) {
      AdaptiveOptions o;
      o.method = k == 0 ? AdaptiveMethod::kDormandPrince54 : AdaptiveMethod::kRk43;
      o.rtol = 1e-6;
      o.atol = 1e-8;
      AdaptiveRk rk(o);
      VectorXd x(4);
      x << 1, 0, 1e-9, 0;
      rk.advance(two_modes, 0, 5.0, x);
      evaluations[k] = rk.stats().evaluations;
      QVERIFY(std::abs(x[0] - std::cos(5.0)) < 1e-4);
      QVERIFY(std::abs(x[2]) < 1e-6);  // the fast mode stays bounded
    }
    qInfo("evaluations over 5 s: dopri5 %ld, rk43 %ld", evaluations[0], evaluations[1]);
    QVERIFY(evaluations[1] < evaluations[0]);
  }

  // ROS34PW2 is of order 3 whatever J is (a W-method): fixed steps (tolerances that never reject,
  // h_max = h) on the oscillator and decay, with the exact Jacobian, none, and a wrong one.
  void RosenbrockW_IsThirdOrderForAnyJacobian() {
    Eigen::MatrixXd exact_J(3, 3);
    exact_J << 0, 1, 0, -kOmega * kOmega, 0, 0, 0, 0, -kLambda;
    Eigen::MatrixXd wrong = exact_J;
    wrong(1, 0) *= 0.5;
    wrong(0, 2) = 2.0;
    const Eigen::MatrixXd none = Eigen::MatrixXd::Zero(3, 3);
    const Eigen::MatrixXd* jacobians[] = {&exact_J, &none, &wrong};
    for (const Eigen::MatrixXd* J : jacobians) {
      auto error = [&](double h) {
        AdaptiveOptions o;
        o.rtol = o.atol = 1e10;
        o.h_initial = h;
        o.h_max = 1.5 * h;  // each advance() below is one step
        RosenbrockW ros(o);
        DenseStiff stiff(*J);
        VectorXd x = exact(0);
        const long n = std::lround(2.0 / h);
        for (long k = 0; k < n; ++k) ros.advance(kSystem, stiff, k * h, (k + 1) * h, x);
        if (ros.stats().accepted != n || stiff.jacobians != n) return -1.0;
        return (x - exact(2.0)).norm();
      };
      const double e1 = error(0.01), e2 = error(0.005);
      qInfo("h 0.01: error %.2e, h 0.005: %.2e, order %.3f", e1, e2, std::log2(e1 / e2));
      QVERIFY(e1 > 0 && e2 > 0);
      QVERIFY2(std::abs(std::log2(e1 / e2) - 3) < 0.15, qPrintable(QString::number(std::log2(e1 / e2))));
    }
  }

  // The stiff case of Rk43_BeatsDopriOnFastUndampedModes, with J of the fast mode: the
  // Rosenbrock-W steps follow the slow motion (|hω| ~ 10, RK4(3) is stable to 2.83) and it stays accurate on it, in a
  // fraction of RK4(3)'s evaluations; the fast mode decays (L-stability) instead of ringing.
  void RosenbrockW_StepsPastAStiffMode() {
    const double w_fast = 1000.0;
    const OdeFunction two_modes = [&](double, const VectorXd& x, VectorXd& dx) {
      dx.resize(4);
      dx << x[1], -x[0], x[3], -w_fast * w_fast * x[2];
    };
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(4, 4);
    J(2, 3) = 1;
    J(3, 2) = -w_fast * w_fast;
    AdaptiveOptions o;
    o.rtol = 1e-6;
    o.atol = 1e-8;
    RosenbrockW ros(o);
    DenseStiff stiff(J);
    VectorXd x(4);
    x << 1, 0, 1e-9, 0;
    ros.advance(two_modes, stiff, 0, 5.0, x);
    o.method = AdaptiveMethod::kRk43;
    AdaptiveRk rk(o);
    VectorXd y(4);
    y << 1, 0, 1e-9, 0;
    rk.advance(two_modes, 0, 5.0, y);
    qInfo("evaluations over 5 s: rk43 %ld, ros34pw2 %ld (%ld steps, mean %.2e s: |h w_fast| = %.0f)",
          rk.stats().evaluations, ros.stats().evaluations, ros.stats().accepted, 5.0 / ros.stats().accepted,
          w_fast * 5.0 / ros.stats().accepted);
    QVERIFY(std::abs(x[0] - std::cos(5.0)) < 1e-4);
    QVERIFY(std::abs(x[1] + std::sin(5.0)) < 1e-4);
    QVERIFY(std::abs(x[2]) < 1e-9);
    QVERIFY(5.0 / ros.stats().accepted > 3 * 2.83 / w_fast);
    QVERIFY(ros.stats().evaluations * 4 < rk.stats().evaluations);
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
