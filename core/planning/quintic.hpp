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
