#include "core/control/actuators.hpp"

#include <cmath>
#include <stdexcept>

namespace grapple::core {
namespace {

constexpr std::uint32_t kWheelNoise = 50;  // the stream of the wheels' noise

// An impulse as the thrusters make it: none below half the bit, the bit below the bit.
double impulse(double J, double bit) {
  const double a = std::abs(J);
  if (a < 0.5 * bit) return 0;
  return a < bit ? std::copysign(bit, J) : J;
}

}  // namespace

Actuators::Actuators(const Model& model, const ActuatorsSpec& spec, double control_rate, double lever_arm)
    : spec_(spec), lever_arm_(lever_arm), noise_(spec.seed, 0, kWheelNoise) {
  if (spec_.sampled() && !(control_rate > 0)) {
    throw std::invalid_argument("actuators: the wheels' noise and the thrusters' impulse bit act at control "
                                "instants: set run.control_rate > 0");
  }
  if ((spec_.wheels || spec_.thrusters) && model.base_mode != BaseMode::kFloating) {
    throw std::invalid_argument("actuators: wheels and thrusters act on a floating bus");
  }
  if (spec_.wheels && !(spec_.wheels->noise >= 0 && spec_.wheels->quantization >= 0)) {
    throw std::invalid_argument("actuators.wheels: noise and quantization >= 0 expected");
  }
  if (spec_.thrusters && !(spec_.thrusters->minimum_impulse_bit >= 0 && lever_arm_ > 0)) {
    throw std::invalid_argument("actuators.thrusters: minimum_impulse_bit >= 0 expected");
  }
  if (spec_.friction && !(spec_.friction->coulomb >= 0 && spec_.friction->viscous >= 0 && spec_.friction->width > 0)) {
    throw std::invalid_argument("actuators.friction: coulomb, viscous >= 0 and width > 0 expected");
  }
  period_ = control_rate > 0 ? 1 / control_rate : 0;
  for (int i = 1; i < model.nbodies; ++i) {
    if (model.joint[i].nv == 1) joints_.push_back(model.joint[i].idx_v);
  }
}

void Actuators::command(Eigen::VectorXd& tau) {
  if (spec_.wheels) {
    const auto& w = *spec_.wheels;
    for (int k = 3; k < 6; ++k) {
      const double n = tau[k] + w.noise * noise_.normal();
      tau[k] = w.quantization > 0 ? w.quantization * std::round(n / w.quantization) : n;
    }
  }
  if (spec_.thrusters) {
    const double bit = spec_.thrusters->minimum_impulse_bit;
    for (int k = 0; k < 3; ++k) tau[k] = impulse(tau[k] * period_, bit) / period_;
    for (int k = 3; k < 6; ++k) tau[k] = impulse(tau[k] * period_, bit * lever_arm_) / period_;
  }
}

double Actuators::friction(const Eigen::VectorXd& v, Eigen::VectorXd& tau_f) const {
  const auto& f = *spec_.friction;
  double power = 0;
  for (int iv : joints_) {
    const double t = -(f.coulomb * std::tanh(v[iv] / f.width) + f.viscous * v[iv]);
    tau_f[iv] += t;
    power -= t * v[iv];
  }
  return power;
}

}  // namespace grapple::core
