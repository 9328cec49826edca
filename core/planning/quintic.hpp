// Rest-to-rest quintic (minimum-jerk) profile, the joint-space path of Saha's planar example
// (Saha 1996): f(t) = f1 + (f2 - f1) s(τ), s = 10τ³ - 15τ⁴ + 6τ⁵, τ = t/T,
// with zero rate and acceleration at both ends. Before 0 it holds f1, after T it holds f2.
#pragma once

#include <Eigen/Core>

namespace grapple::core {

// Rest-to-rest blends s(u) on u in [0, 1], s(0) = 0, s(1) = 1, with ds/du and d²s/du², all zero
// at both ends: the quintic s = 10u³ - 15u⁴ + 6u⁵ and the cycloid s = u - sin(2πu)/2π (the
// thesis' joint paths). Outside [0, 1] they hold their end values.
struct Blend {
  double s, ds, dds;
};
Blend quinticBlend(double u);
Blend cycloidalBlend(double u);
// The quintic h(u) = u - 6u³ + 8u⁴ - 3u⁵ with h'(0) = 1 and h(0), h''(0), h(1), h'(1), h''(1)
// zero (u clamped to [0, 1]): with the rest-to-rest s, f(t) = f1 + (f2 - f1) s(u) + T ḟ1 h(u),
// u = t/T, leaves f1 at the rate ḟ1 and comes to rest at f2 (the quintic Hermite basis).
Blend quinticLaunchBlend(double u);

struct QuinticSample {
  Eigen::VectorXd position, velocity, acceleration;
};

class QuinticPath {
 public:
  QuinticPath(Eigen::VectorXd start, Eigen::VectorXd goal, double duration);
  QuinticSample at(double t) const;
  double duration() const { return duration_; }

 private:
  Eigen::VectorXd start_, delta_;
  double duration_;
};

}  // namespace grapple::core
