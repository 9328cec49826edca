#include "core/planning/quintic.hpp"

#include <algorithm>
#include <stdexcept>

namespace grapple::core {

QuinticPath::QuinticPath(Eigen::VectorXd start, Eigen::VectorXd goal, double duration)
    : start_(std::move(start)), delta_(goal - start_), duration_(duration) {
  if (!(duration > 0)) throw std::invalid_argument("QuinticPath: the duration must be > 0");
  if (goal.size() != start_.size()) throw std::invalid_argument("QuinticPath: sizes differ");
}

QuinticSample QuinticPath::at(double t) const {
  const double T = duration_;
  const double u = std::clamp(t / T, 0.0, 1.0);
  const double u2 = u * u, u3 = u2 * u;
  double s = u3 * (10 - 15 * u + 6 * u2);
  double ds = 30 * u2 * (1 - 2 * u + u2) / T;        // 30 u² (1 - u)² / T
  double dds = 60 * u * (1 - 3 * u + 2 * u2) / (T * T);  // 60 u (1 - u)(1 - 2u) / T²
  if (t <= 0 || t >= T) {
    ds = 0;
    dds = 0;
  }
  return {start_ + s * delta_, ds * delta_, dds * delta_};
}

}  // namespace grapple::core
