// The stiff part of a flexible model's equations of motion, for the Rosenbrock-W integrator.
//
// The modal coordinates δ of a flexible body obey, in the extended equations of motion
// (thesis eq. 5.86, the modal rows of M_f [a; δ̈] + b + [0; Kδ + Dδ̇] = ...),
//   H(q) v̇ = τ − h(q, v) − E (K δ + D δ̇),   δ̇ = E ᵀ v  (E places the modal rows in v),
// and the stiffest modes (the traction modes of the arm segments, up to ~1000 rad/s) come from
// the linear term E (K δ + D δ̇). Its Jacobian, with H frozen at the step's start,
//   ∂v̇/∂δ = −H⁻¹ E K,  ∂v̇/∂δ̇ = −H⁻¹ E D,  ∂δ̇/∂v = Eᵀ,
// is the J of the W-method; everything else (Coriolis and centrifugal terms, the change of H with
// q, the controllers' feedback) is left to the explicit part. Solving (g I − J) u = r reduces to
// one symmetric positive definite system of size nv: with u_δ = (r_δ + Eᵀu_v)/g,
//   (g H + E (D + K/g) Eᵀ) u_v = H r_v − E K r_δ / g,
// and u = r/g in every other coordinate of the state.
#pragma once

#include <memory>

#include "core/dynamics/data.hpp"
#include "core/sim/ode.hpp"

namespace grapple::core {

class ModalStiffness : public StiffPart {
 public:
  // The state x holds q at x[iq..iq+nq) and v at x[iv..iv+nv) (other entries: non-stiff). The
  // model and the data (scratch for the mass matrix) must outlive this object; the model may
  // change between steps (a grasped payload).
  ModalStiffness(const Model& model, Data& data, int iq, int iv);
  ~ModalStiffness() override;

  void jacobian(double t, const Eigen::VectorXd& x) override;
  void factor(double g) override;
  void solve(Eigen::VectorXd& r) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace grapple::core
