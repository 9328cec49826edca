// The actuators' imperfections, acting on the truth and unknown to the controllers (the
// scenario's `actuators:`).
//
// At each control instant the forces the controllers command (held until the next instant) are
// degraded: the bus torque of the reaction wheels gets white noise (σ per axis) and is quantized
// (rounded to the command's quantum); with thrusters, each axis' impulse over the control period
// (force × T, and torque × T against the impulse bit × lever arm) below half the minimum impulse
// bit is not fired, one between half and the whole bit fires the bit (pulse-width modulation
// rounds to the nearest pulse it can make).
//
// At every evaluation the 1-DOF joints feel friction, Coulomb and viscous,
//   τ_f = -(F_c tanh(q̇ / w) + b q̇),
// the sign smoothed by tanh over the width w (below w it acts as a viscous friction F_c / w), so
// that adaptive integrators keep their steps; its power -τ_f·q̇ >= 0 is the energy it dissipates,
// counted with the modal damping's in the energy balance (W_diss).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "core/campaign/random.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

struct ActuatorsSpec {
  // Reaction wheels (a floating bus without thrusters). Defaults (ours): a 16-bit torque command
  // over the thesis' ±5 N m bus torque (Table 8.1): 1.5e-4 N m; noise 0.1 % of that range.
  struct Wheels {
    double noise = 5e-3;          // [N m] σ per axis, drawn at each control instant
    double quantization = 1.5e-4; // [N m] 0: none
  };
  std::optional<Wheels> wheels;
  // The bus' thrusters (chaser.thrusters). Default: of the order of a 1 N hydrazine thruster's
  // minimum impulse bit (data sheets give 0.01 to 0.05 N s).
  struct Thrusters {
    double minimum_impulse_bit = 0.01;  // [N s]
  };
  std::optional<Thrusters> thrusters;
  // Joint friction on every 1-DOF joint. Defaults (ours): 1 % of the thesis' 200 N m joint torque
  // (Table 8.1) as Coulomb friction, 1 N m s/rad viscous, the sign smoothed over 0.01 rad/s.
  struct Friction {
    double coulomb = 2;          // [N m or N]
    double viscous = 1;          // [N m s/rad or N s/m]
    double width = 0.01;         // [rad/s or m/s] of the smoothed sign
  };
  std::optional<Friction> friction;
  std::uint64_t seed = 1;
  bool any() const { return wheels || thrusters || friction; }
  bool sampled() const { return wheels || thrusters; }  // (these act at control instants)
};

class Actuators {
 public:
  // lever_arm: the thrusters' (chaser.thrusters), used with spec.thrusters.
  Actuators(const Model& model, const ActuatorsSpec& spec, double control_rate, double lever_arm);
  // The forces the controllers commanded at a control instant, as the actuators make them.
  void command(Eigen::VectorXd& tau);
  bool hasFriction() const { return spec_.friction.has_value(); }
  // Adds the joints' friction at the velocity v to tau_f (sized nv, zeroed by the caller); returns
  // its dissipated power -τ_f·v >= 0.
  double friction(const Eigen::VectorXd& v, Eigen::VectorXd& tau_f) const;

 private:
  ActuatorsSpec spec_;
  double period_ = 0, lever_arm_ = 1;
  std::vector<int> joints_;  // v indices of the 1-DOF joints
  campaign::RandomStream noise_;
};

}  // namespace grapple::core
