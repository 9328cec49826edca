// Forward dynamics in O(n): the thesis' recursive UΔUᵀ factorization of the mass matrix (Alg. A.3
// ForDyn, Alg. C.3 ForDynSpace, after Saha and Mohan & Saha), generalized from a star of chains to
// any tree and to multi-DOF joints. It solves H q̈ = τ - h without forming or inverting H:
//   upper sweep (leaves -> base): M̄_i = M_i + Σ_c A_{c,i}ᵀ (M̄_c - φ_c φ̄_cᵀ) A_{c,i},
//     φ̄_i = M̄_i P_i, Δ_i = P_iᵀ φ̄_i, φ_i = φ̄_i Δ_i⁻¹, X̂_i = b_i - P_iᵀ η_i, X̄_i = Δ_i⁻¹ X̂_i
//   lower sweep (base -> leaves): X_i = X̄_i - φ_iᵀ A_{i,p} μ_p, μ_i = P_i X_i + A_{i,p} μ_p.
// Only the nv_i x nv_i blocks Δ_i are factored (Cholesky); for a free base Δ_0 is 6 x 6.
// In forwardDynamics the bias wrenches of Newton–Euler ride in the same accumulator as η, so the
// whole algorithm is three passes over the bodies, like Featherstone's articulated-body algorithm.
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

// q̈ = H⁻¹ (τ - h(q, v) + Jᵀ f_ext). For a free base τ's first six entries are the base actuator
// wrench (zero for a floating base). Result in data.ddq; data.a then holds the body accelerations.
const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                       const BodyWrenches* fext = nullptr);

// The factors M̄_i, φ_i, Δ_i of H(q) = U Δ Uᵀ, kept in data for solveMassMatrix.
void factorizeMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q);
// x = H⁻¹ b with the factors of the last factorizeMassMatrix (or forwardDynamics), in O(n); on
// a flexible model any other algorithm run since on the same data spoils them (std::logic_error).
// Result in data.x.
const Eigen::VectorXd& solveMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& b);

}  // namespace grapple::core
