// When to replan a capture flown from an estimate: whether the plan's prediction of the debris and
// what the camera has measured since have parted.
//
// A plan is made at t0 from the estimate x̂(t0|t0), P(t0|t0), and the hand then follows that
// estimate's prediction x̂(t|t0) (the planner propagates the debris without further images) to
// meet the grasp point at t_m. The filter meanwhile applies new images: x̂(t|t). What matters is
// where each puts the grasp point at the meeting: d = g(x̂(t_m|t)) - g(x̂(t_m|t0)). For a
// consistent filter (linear-Gaussian approximation) x̂(t|t) - x̂(t|t0) is the sum of the filter's
// innovations since t0 weighted by its gains, zero-mean and uncorrelated with the error of
// x̂(t|t) (the innovations' orthogonality; Bar-Shalom, Li & Kirubarajan 2001, §5.2.5, and §5.4
// for χ² tests on innovations), hence
//   Cov d = J Φ (P(t|t0) - P(t|t)) Φᵀ Jᵀ = J (P(t_m|t0) - P(t_m|t)) Jᵀ
// (Φ from t to t_m, J the grasp point's Jacobian; the process noise from t to t_m cancels). Two
// tests, either of which makes the plan anew:
//   innovation  m = dᵀ (Cov d + ε² I)⁻¹ d > χ²₃(1 - α): the plan's prediction and the estimate
//               part by more than the images since the plan explain — a wrong model of the
//               debris (its inertia), an unmodelled torque, an overconfident filter. On a
//               consistent filter it fires with probability α (ε = 0) or less (ε > 0: partings
//               much smaller than ε are not worth a new plan);
//   miss        (|d| - ε)² > χ²₃(1 - α) λ_max(Σ), Σ = J P(t_m|t) Jᵀ: the current estimate says,
//               with confidence 1 - α, that the plan misses the grasp point by more than ε (the
//               truth lies in the estimate's 1 - α ellipsoid, which then does not reach the ball
//               of radius ε about the plan's grasp point: a test of level α of "the plan meets
//               within ε", conservative through λ_max). It fires also on a consistent filter when
//               the plan was made from an estimate too poor for the capture's tolerance.
#pragma once

#include "core/estimation/debris_filter.hpp"

namespace grapple::core {

// The p quantile of the χ² distribution with k degrees of freedom (0 < p < 1): the root of the
// regularized lower incomplete gamma function P(k/2, x/2) = p (series / continued fraction, then
// bisection to machine precision).
double chiSquareQuantile(int k, double p);
// P(k/2, x/2): the χ² distribution function.
double chiSquareCdf(int k, double x);

struct PartingResult {
  double miss = 0;       // [m] |d|: the plan's grasp point at the meeting from the estimate's
  double statistic = 0;  // m
  double threshold = 0;  // χ²₃(1 - α)
  double sigma = 0;      // [m] √λ_max(Σ)
  bool inconsistent = false, misses = false;  // which test fired
  bool parted() const { return inconsistent || misses; }
};

class PartingTest {
 public:
  // model: the debris as the planner knows it (the plan's prediction); filter: the process noise
  // of the predictions' covariances; alpha, tolerance: α and ε above.
  PartingTest(const DebrisProperties& model, const DebrisFilterSettings& filter, double alpha, double tolerance);
  // A plan made from this estimate (its time is the plan's start), meeting the grasp point at
  // `meeting` (absolute time, >= the estimate's).
  void reset(const DebrisEstimate& at_plan, double meeting);
  // The tests against the current estimate (predicted to the meeting, or not at all past it).
  PartingResult test(const DebrisEstimate& now) const;

 private:
  DebrisProperties model_;
  DebrisFilterSettings filter_;  // (its step: the tests' own, see the constructor)
  double threshold_, tolerance_;
  DebrisEstimate plan_;          // the plan's prediction at the meeting
};

}  // namespace grapple::core
