#include "core/estimation/parting_test.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

// The regularized lower incomplete gamma function P(a, x) (Press et al., Numerical Recipes, 3rd
// ed., §6.2: the series below a + 1, the continued fraction for Q = 1 - P above, by Lentz's
// method).
double lowerGammaRegularized(double a, double x) {
  if (x <= 0) return 0;
  const double front = std::exp(-x + a * std::log(x) - std::lgamma(a));
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 1000 && std::abs(term) > 1e-17 * std::abs(sum); ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return front * sum;
  }
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int n = 1; n < 1000; ++n) {
    const double an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1) < 1e-16) break;
  }
  return 1 - front * h;
}

}  // namespace

double chiSquareCdf(int k, double x) {
  if (k < 1) throw std::invalid_argument("chiSquareCdf: k must be >= 1");
  return lowerGammaRegularized(0.5 * k, 0.5 * x);
}

double chiSquareQuantile(int k, double p) {
  if (k < 1 || !(p > 0 && p < 1)) throw std::invalid_argument("chiSquareQuantile: k >= 1 and 0 < p < 1 expected");
  double lo = 0, hi = k;
  while (chiSquareCdf(k, hi) < p) hi *= 2;
  for (int n = 0; n < 200 && hi - lo > 1e-15 * hi; ++n) {
    const double mid = 0.5 * (lo + hi);
    (chiSquareCdf(k, mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

PartingTest::PartingTest(const DebrisProperties& model, const DebrisFilterSettings& filter, double alpha,
                         double tolerance)
    : model_(model), filter_(filter), threshold_(chiSquareQuantile(3, 1 - alpha)), tolerance_(tolerance) {
  if (!(tolerance >= 0)) throw std::invalid_argument("parting test: the tolerance must be >= 0");
  // Each test predicts the estimate to the meeting, seconds ahead: in RK4 steps of 0.1 s rather
  // than the filter's 10 ms (ω h <= 0.1 up to 1 rad/s of tumbling, 5x the fastest scenario's: a
  // local error ~(ω h)⁵/120 ~ 1e-7, micrometres at the grasp point after a minute of prediction).
  filter_.step = std::max(filter_.step, 0.1);
}

void PartingTest::reset(const DebrisEstimate& at_plan, double meeting) {
  plan_ = at_plan;
  predictDebris(model_, filter_, plan_, std::max(meeting, at_plan.time));
}

PartingResult PartingTest::test(const DebrisEstimate& now) const {
  DebrisEstimate e = now;
  DebrisEstimate plan = plan_;
  if (e.time < plan.time) {
    predictDebris(model_, filter_, e, plan.time);
  } else {
    predictDebris(model_, filter_, plan, e.time);  // (past the meeting: compare now)
  }
  const Matrix3 R = quatToMatrix(e.state.Q_WB);
  Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();  // ∂(grasp point)/∂δx
  J.leftCols<3>().setIdentity();
  J.middleCols<3>(6) = -R * skew(model_.target_B);
  const Vector3 d = targetKinematics(model_, e.state).position - targetKinematics(model_, plan.state).position;
  const Matrix3 S = J * (plan.P - e.P) * J.transpose() + tolerance_ * tolerance_ * Matrix3::Identity();
  const Matrix3 sigma = J * e.P * J.transpose();
  PartingResult r;
  r.miss = d.norm();
  r.statistic = d.dot(S.ldlt().solve(d));
  r.threshold = threshold_;
  r.sigma = std::sqrt(std::max(0.0, Eigen::SelfAdjointEigenSolver<Matrix3>(sigma, Eigen::EigenvaluesOnly).eigenvalues()(2)));
  // (S not positive — no information since the plan and no tolerance — only when d is ~0.)
  r.inconsistent = std::isfinite(r.statistic) && r.statistic > threshold_;
  r.misses = r.miss > tolerance_ && std::pow(r.miss - tolerance_, 2) > threshold_ * r.sigma * r.sigma;
  return r;
}

}  // namespace grapple::core
