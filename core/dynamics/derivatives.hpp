// Analytical derivatives of the rigid-body dynamics, after Carpentier & Mansard, "Analytical
// Derivatives of Rigid Body Dynamics Algorithms" (RSS 2018), as Pinocchio computes them
// (computeRNEADerivatives, computeABADerivatives): one outward and one inward pass over the bodies
// in the inertial frame, then one walk to the base per velocity coordinate: O(n · depth), no
// finite differences.
//
// Convention (the one of integrate() in configuration.hpp): derivatives with respect to q are
// taken in the tangent space of the configuration, in the same v-space in which q moves:
//   ∂f/∂q · δ = d/dε f(integrate(q, ε δ, 1)) at ε = 0,
// so a free base varies by its body twist (X ← X exp(δ), δ = [δv; δω] in base components) and a
// spherical joint by a rotation vector in its body frame (Q ← Q ⊗ exp(δω)); every other joint
// coordinate varies additively. All derivatives are nv x nv matrices.
//
// The inverse dynamics τ = H(q) a + C(q, v) v + g(q) - Jᵀ f_ext (inverseDynamics): the external
// wrenches are held fixed in their bodies (at the body origins, body components), as
// inverseDynamics takes them. The forward dynamics q̈ = H⁻¹ (τ - h): by the implicit function
// theorem on τ = ID(q, v, q̈),
//   ∂q̈/∂q = -H⁻¹ ∂τ/∂q |_{a = q̈},   ∂q̈/∂v = -H⁻¹ ∂τ/∂v |_{a = q̈},   ∂q̈/∂τ = H⁻¹.
//
// The derivation (world frame, Plücker coordinates at the inertial origin; J_c the column of
// coordinate c, ov_i, oa_i the twist and spatial acceleration of body i, gravity included as the
// acceleration -g of the inertial frame, Y_i its inertia, of_i = Y_i oa_i + ov_i ×f Y_i ov_i the
// wrench it needs, f_i = Σ_{k in subtree(i)} of_k): moving coordinate c moves its subtree rigidly by
// J_c, except for what the subtree inherits from above c (the twist ov⁻ and acceleration oa⁻ of
// the frame that c moves relative to). This gives, for every body k below c,
//   ∂ov_k/∂q_c = J_c ×m ov_k + dV_c,                     dV_c = ov⁻ ×m J_c,
//   ∂oa_k/∂q_c = J_c ×m oa_k + dA_c + dV_c ×m ov_k,      dA_c = oa⁻ ×m J_c + ov⁻ ×m dV_c,
//   ∂oa_k/∂v_c = dAv_c - ov_k ×m J_c,                    dAv_c = ov⁻ ×m J_c + ov⁺ ×m J_c,
//   ∂of_k/∂q_c = J_c ×f of_k + Y_k dA_c + B_k dV_c,      ∂of_k/∂v_c = Y_k dAv_c + B_k J_c,
// with ov⁺ the twist of the joint's body (ov⁺ ×m J_c = ov⁻ ×m J_c for a 1-DOF joint) and B_k =
// (d/dt Y_k) + (Y_k ov_k) ×̄f = [0, -2p×; 0, İ_k - L×] for the body's momentum [p; L] (Pinocchio's
// doYcrb). With τ_r = J_rᵀ f_i, the rigid transport cancels in J_rᵀ f_i when c moves J_r too:
//   ∂τ_r/∂q_c = J_rᵀ (Ŷ dA_c + B̂ dV_c)   [+ J_rᵀ (J_c ×f f_j) when c lies below r],
//   ∂τ_r/∂v_c = J_rᵀ (Ŷ dAv_c + B̂ J_c),    ∂τ_r/∂a_c = J_rᵀ Ŷ J_c (the mass matrix),
// Ŷ, B̂ the composites over the subtree of the deeper of the two bodies, j the body of c. The
// universal and planar joints are chains of 1-DOF motions (their columns in order: each moves the
// later ones, so ov⁻ is the twist after the earlier columns); a spherical or free joint's columns
// all move together (ov⁻ is the parent's twist).
//
// Mimic joints: handled exactly, by the projection of mimic.hpp (∂τ/∂q = Gᵀ ∂τ_full/∂q_full G,
// the same for v and a, G constant). Flexible bodies: refused (std::invalid_argument naming the
// model): the modal coordinates' dynamics (deformed tips, M_f(δ)) are not differentiated here.
#pragma once

#include <memory>

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Results and workspace of the derivatives, sized once from the Model (like Data).
struct DynamicsDerivatives {
  explicit DynamicsDerivatives(const Model& model);

  // inverseDynamicsDerivatives: at (q, v, a)
  Eigen::MatrixXd dtau_dq;   // (nv x nv) ∂τ/∂q (tangent space, see above)
  Eigen::MatrixXd dtau_dv;   // (nv x nv) ∂τ/∂v
  Eigen::MatrixXd M;         // (nv x nv) ∂τ/∂a = H(q) (armature included)
  // forwardDynamicsDerivatives: at (q, v, τ), q̈ in Data::ddq
  Eigen::MatrixXd ddq_dq;    // (nv x nv) ∂q̈/∂q
  Eigen::MatrixXd ddq_dv;    // (nv x nv) ∂q̈/∂v
  Eigen::MatrixXd Minv;      // (nv x nv) ∂q̈/∂τ = H⁻¹

  // Workspace, inertial frame, at the inertial origin.
  std::vector<Vector6> ov, oa, of;     // (nbodies) twist, acceleration (gravity in), wrench
  std::vector<Inertia> oY;             // (nbodies) inertia, then its subtree's composite
  std::vector<Matrix3> B12, B22;       // (nbodies) right blocks of B, then composites
  Eigen::Matrix<double, 6, Eigen::Dynamic> J, dV, dA, dAv;  // (6 x nv) per coordinate
  Eigen::VectorXd scratch_c, scratch_r;  // (nv) for the inversion of M
  std::unique_ptr<DynamicsDerivatives> full;  // for the full model of a model with mimic joints
};

// ∂τ/∂q, ∂τ/∂v and ∂τ/∂a of inverseDynamics(model, data, q, v, a, fext), into der. Uses data's
// kinematic workspace (placements, twists, body wrenches) as inverseDynamics does. Throws
// std::invalid_argument on wrong sizes or a model with flexible bodies.
void inverseDynamicsDerivatives(const Model& model, Data& data, DynamicsDerivatives& der,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& a, const BodyWrenches* fext = nullptr);

// ∂q̈/∂q, ∂q̈/∂v and ∂q̈/∂τ of forwardDynamics(model, data, q, v, tau, fext), into der; q̈ is left
// in data.ddq (and der.dtau_dq, dtau_dv, M hold the inverse dynamics' derivatives at a = q̈).
// Beyond the O(n · depth) passes: H⁻¹ dense (Gauss–Jordan, H being positive definite) and two
// n x n products, O(n³) (at 12 DOF a fifth of the time; at 134, most of it).
// Throws as inverseDynamicsDerivatives.
void forwardDynamicsDerivatives(const Model& model, Data& data, DynamicsDerivatives& der,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const BodyWrenches* fext = nullptr);

}  // namespace grapple::core
