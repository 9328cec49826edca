// Data: everything computed for one state of a Model (mjData / pinocchio::Data). Sized once from
// the Model; the algorithms then write into it and never allocate. One Data per thread.
//
// Per-body quantities use the thesis' DeNOC names (spec/modeling.md §1.5):
//   A_{i,p}  twist propagation from the parent p to body i     -> X_parent[i] (applied, not formed)
//   P_i      joint-rate propagation (6 x nv_i)                 -> S[i]
//   t_i      twist [v; ω] of body i at its origin, in body i    -> t[i]
//   w_i      wrench from the parent on body i through joint i   -> w[i]
//   M̂_i     composite-body inertia (Alg. A.1)                  -> Ic[i]
//   M̄_i, φ_i, Δ_i  the articulated inertia and the UΔUᵀ factors (Alg. A.3)
// Accelerations a[i] are the time derivatives of the components of t_i in body i (the spatial
// acceleration). The thesis propagates the inertial derivative ṫ_i instead; the two differ by
// Ω_i t_i = [ω × v; 0], and for the base this choice makes the generalized acceleration simply
// the derivative of the base twist components (spec §1.2).
#pragma once

#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "core/math/cholesky6.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

// External wrenches, one per body: [f; n] applied to body i, at its origin, in body i components.
using BodyWrenches = std::vector<Vector6>;

struct Data {
  explicit Data(const Model& model);

  // Kinematics
  std::vector<Transform> X_parent;   // (nbodies) pose of body i in its parent (the inertial frame
                                     //   for body 0), joint motion included
  std::vector<Transform> X_world;    // (nbodies) pose of body i in the inertial frame
  std::vector<Matrix6> S;            // (nbodies) P_i in its leading nv_i columns, body i components
  std::vector<Vector6> t;            // (nbodies) twist of body i [m/s; rad/s]
  std::vector<Vector6> a;            // (nbodies) spatial acceleration of body i [m/s^2; rad/s^2]
  std::vector<Vector6> w;            // (nbodies) joint wrench on body i [N; N m]

  // Composite rigid bodies (mass matrix, floating-base inverse dynamics)
  std::vector<Inertia> Ic;           // (nbodies) M̂_i about body i's origin

  // UΔUᵀ factorization of the mass matrix (forward dynamics, Alg. A.3 / C.3)
  std::vector<Matrix6> Mbar;         // (nbodies) articulated inertia M̄_i
  std::vector<Matrix6> phi;          // (nbodies) φ_i = M̄_i P_i Δ_i^{-1}, leading nv_i columns
  std::vector<Eigen::LLT<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>>>
      Delta;                         // (nbodies) Cholesky factor of Δ_i = P_iᵀ M̄_i P_i (nv_i > 1)
  Cholesky6 Delta_base;              // Cholesky factor of Δ_0 = M̄_0 for a free base
  Eigen::VectorXd Delta_inv;         // (nv) 1/Δ_i for 1-DOF joints (at the joint's v index)
  std::vector<Vector6> eta;          // (nbodies) force accumulator of the upper-triangular sweep
  std::vector<Vector6> mu;           // (nbodies) motion accumulator of the lower-triangular sweep
  bool factorized = false;           // Mbar, phi, Delta hold the factors of the last q

  // Coriolis matrix workspace
  std::vector<Matrix6> Bc;           // (nbodies) composite Coriolis terms
  std::vector<Matrix6> Sdot;         // (nbodies) d/dt P_i in the inertial sense, body components

  // Results (each algorithm returns a const reference to one of these)
  Eigen::VectorXd tau;               // (nv) generalized forces of the inverse dynamics
  Eigen::VectorXd ddq;               // (nv) generalized accelerations of the forward dynamics
  Eigen::VectorXd h;                 // (nv) nonlinear effects C v + gravity - external
  Eigen::VectorXd x;                 // (nv) solution of the last mass-matrix solve
  Eigen::MatrixXd H;                 // (nv x nv) mass matrix
  Eigen::MatrixXd C;                 // (nv x nv) Coriolis/centrifugal matrix
  Eigen::MatrixXd J;                 // (6 x nv) last Jacobian
};

}  // namespace grapple::core
