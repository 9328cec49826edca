// Fixed-step integration of the equations of motion
//   q̇ = G(q) v (configurationRate),   v̇ = H⁻¹ (τ(t, q, v) - h(q, v) + Jᵀ f_ext)   (forwardDynamics).
// The quaternions of q are integrated as part of the state (no renormalization inside a run);
// kinematics read them normalized, so their norm drift, of the integrator's order, never changes
// the energy.
#pragma once

#include <functional>

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Generalized forces at time t and state (q, v), written into tau (size nv; zero on entry).
using ForceLaw = std::function<void(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                    Eigen::VectorXd& tau)>;

// Classical fourth-order Runge–Kutta (the thesis' integrator, §5.2.6.2), with its buffers sized
// once per model.
class Rk4 {
 public:
  explicit Rk4(const Model& model);

  // Advances (q, v) from t to t + dt under the force law (none: τ = 0) and the external wrenches
  // (constant over the step). Returns the work of τ over the step, ∫ τᵀ v dt, by the same
  // fourth-order quadrature as the state, so that energy balances can be checked to the
  // integrator's accuracy.
  double step(const Model& model, Data& data, double t, double dt, Eigen::VectorXd& q,
              Eigen::VectorXd& v, const ForceLaw& force = nullptr,
              const BodyWrenches* fext = nullptr);

 private:
  Eigen::VectorXd qs_, vs_, tau_;
  Eigen::VectorXd dq_[4], dv_[4];
};

}  // namespace grapple::core
