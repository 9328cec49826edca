#include "core/control/rate_filter.hpp"

#include <stdexcept>
#include <string>

namespace grapple::core {

FilteredPdGains filteredPdGains(double kp, double kd, double tau) {
  if (!(tau > 0)) return {kp, kd, INFINITY};
  if (!(kd * tau < 1)) {
    throw std::invalid_argument("rate filter: kd tau = " + std::to_string(kd * tau) +
                                " must be below 1 (a shorter time constant, or a smaller kd)");
  }
  return {kp * (1 - kd * tau), kd * (1 - kd * tau + kp * tau * tau), 1 / tau - kd};
}

const Eigen::VectorXd& RateFilter::filter(double t, const Eigen::VectorXd& x) {
  if (!active() || std::isnan(t_) || y_.size() != x.size()) {
    y_ = x;
  } else {
    const double a = std::exp(-std::max(0.0, t - t_) / tau_);
    y_ = a * y_ + (1 - a) * x;
  }
  t_ = t;
  return y_;
}

}  // namespace grapple::core
