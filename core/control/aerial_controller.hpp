// An aerial manipulator's controller (Kremer, Sanchez-Lopez & Voos 2022, §6): a multirotor flying base carrying an arm, under gravity. Computed torque on the whole
// model, τ = H ν + h with ν = ẍ_ref + Kv ė + Kp e (eqs. 82-87), then the base wrench allocated
// to the rotors (eqs. 68-70, 88-89: thrust k_t ω², drag torque k_p ω², thrust only along the
// base's z, so the wrench's x and y forces are lost: the platform is under-actuated), and every
// actuator behind a first-order lag G(s) = K/(1 + Ts) (eq. 72: rotor speeds, joint torques),
// saturated (rotors between 0 and max_rpm, joints at their effort limit).
//
// The lags are integrated exactly over each control period (x += (u - x)(1 - e^{-Δt/T})): the
// controller must run sampled (run.control_rate > 0), the forces held in between.
#pragma once

#include <vector>

#include "core/control/controller.hpp"

namespace grapple::core {

class AerialController final : public Controller {
 public:
  AerialController(const Model& model, const ControllerSpec& spec, const Eigen::VectorXd& q0);
  void update(ControlContext& ctx) override;
  bool reference(int k, double t, double& position) const override;

  // The reference at t: base position [m], attitude (w x y z), joint angles [rad], with rates.
  struct Reference {
    Vector3 p = Vector3::Zero(), dp = Vector3::Zero(), ddp = Vector3::Zero();
    Vector4 Q = Vector4(1, 0, 0, 0);
    Vector3 w = Vector3::Zero(), dw = Vector3::Zero();  // body rate of the reference attitude
    Eigen::VectorXd joints, djoints, ddjoints;
  };
  Reference at(double t) const;
  // The rotors' speeds now [rpm] and the wrench-to-thrust map (6 x rotors, base axes).
  const Eigen::VectorXd& rotorSpeeds() const { return speed_; }
  const Eigen::MatrixXd& allocation() const { return M_mot_; }

 private:
  ControllerSpec::Aerial spec_;
  std::vector<Vector3> position_, rpy_;    // the waypoints', resolved
  std::vector<int> joints_, joints_q_;     // 1-DOF joints (v and q indices)
  std::vector<int> prescribed_;            // base v_z, ω, joints: what the actuators can set
  Eigen::MatrixXd M_mot_, M_pinv_;         // rotor thrusts -> base wrench, and its pseudo-inverse
  double thrust_max_ = 0;                  // [N] per rotor at max_rpm
  Eigen::VectorXd speed_, joint_tau_;      // lagged actuator states
  double t_last_ = -1;                     // last call (negative: none yet)
  Eigen::VectorXd a_;                      // scratch: desired generalized accelerations
};

}  // namespace grapple::core
