#include "core/planning/quintic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace grapple::core {

Blend quinticBlend(double u) {
  if (u <= 0) return {0, 0, 0};
  if (u >= 1) return {1, 0, 0};
  const double u2 = u * u, u3 = u2 * u;
  return {u3 * (10 - 15 * u + 6 * u2),       // 10u³ - 15u⁴ + 6u⁵
          30 * u2 * (1 - 2 * u + u2),         // 30 u² (1 - u)²
          60 * u * (1 - 3 * u + 2 * u2)};     // 60 u (1 - u)(1 - 2u)
}

Blend quinticLaunchBlend(double u) {
  u = std::clamp(u, 0.0, 1.0);
  const double u2 = u * u;
  return {u * (1 - 6 * u2 + 8 * u2 * u - 3 * u2 * u2),  // u - 6u³ + 8u⁴ - 3u⁵
          1 - 18 * u2 + 32 * u2 * u - 15 * u2 * u2,      // 1 - 18u² + 32u³ - 15u⁴
          -36 * u + 96 * u2 - 60 * u2 * u};              // -36u + 96u² - 60u³
}

Blend cycloidalBlend(double u) {
  if (u <= 0) return {0, 0, 0};
  if (u >= 1) return {1, 0, 0};
  const double w = 2 * M_PI;
  return {u - std::sin(w * u) / w, 1 - std::cos(w * u), w * std::sin(w * u)};
}

QuinticPath::QuinticPath(Eigen::VectorXd start, Eigen::VectorXd goal, double duration)
    : start_(std::move(start)), delta_(goal - start_), duration_(duration) {
  if (!(duration > 0)) throw std::invalid_argument("QuinticPath: the duration must be > 0");
  if (goal.size() != start_.size()) throw std::invalid_argument("QuinticPath: sizes differ");
}

QuinticSample QuinticPath::at(double t) const {
  const double T = duration_;
  const Blend b = quinticBlend(t / T);
  return {start_ + b.s * delta_, (b.ds / T) * delta_, (b.dds / (T * T)) * delta_};
}

}  // namespace grapple::core
