// Rest-to-rest quintic (minimum-jerk) profile, the joint-space path of Saha's planar example
// (spec/other_papers.md §3.4): f(t) = f1 + (f2 - f1) s(τ), s = 10τ³ - 15τ⁴ + 6τ⁵, τ = t/T,
// with zero rate and acceleration at both ends. Before 0 it holds f1, after T it holds f2.
#pragma once

#include <Eigen/Core>

namespace grapple::core {

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
