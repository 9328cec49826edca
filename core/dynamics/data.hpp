// Data: everything computed for one state of a Model (mjData / pinocchio::Data). Sized once from
// the Model; the algorithms then write into it and never allocate. One Data per thread.
//
// Per-body quantities use the thesis' DeNOC names:
//   A_{i,p}  twist propagation from the parent p to body i     -> X_parent[i] (applied, not formed)
//   P_i      joint-rate propagation (6 x nv_i)                 -> S[i]
//   t_i      twist [v; ω] of body i at its origin, in body i    -> t[i]
//   w_i      wrench from the parent on body i through joint i   -> w[i]
//   M̂_i     composite-body inertia (Alg. A.1)                  -> Ic[i]
//   M̄_i, φ_i, Δ_i  the articulated inertia and the UΔUᵀ factors (Alg. A.3)
// Accelerations a[i] are the time derivatives of the components of t_i in body i (the spatial
// acceleration). The thesis propagates the inertial derivative ṫ_i instead; the two differ by
// Ω_i t_i = [ω × v; 0], and for the base this choice makes the generalized acceleration simply
// the derivative of the base twist components (the thesis' eq. 4.14 convention).
#pragma once

#include <array>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "core/math/block_solve6.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

// Extended vectors and matrices of the flexible path: a body's twist and modal rates, up to
// 6 + kMaxModes entries, without heap allocation.
constexpr int kMaxExt = 6 + kMaxModes;
using ExtVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxExt, 1>;
using ExtMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxExt, kMaxExt>;
using TipMatrix = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, kMaxModes>;

// Per-body workspace of the general (flexible) recursions; see dynamics/flexible.hpp.
struct FlexWork {
  Transform X_PE;       // deformed tip frame E in the body frame
  TipMatrix S_E;        // (6 x nf) tip motion per δ̇, E components
  Vector6 c_E = Vector6::Zero();   // Ṡ_E δ̇, E components
  Vector6 t_E = Vector6::Zero();   // twist of E, E components
  Vector6 a_E = Vector6::Zero();   // spatial acceleration of E (from the parent's a and δ̈)
  Transform X_EB;       // for a body at its parent's tip: its pose in that tip frame
  ExtMatrix M;          // extended inertia: M_f(δ), then composite or articulated
  ExtVector w;          // extended wrench accumulator
  ExtMatrix phibar;     // M̄ P (m x d)
  ExtMatrix Delta;      // Δ = Pᵀ M̄ P, factored in place: its Cholesky factor L (lower triangle)
  ExtVector Delta_inv;  // 1 / L_kk
  ExtVector xhat;       // (d)
  ExtVector mu;         // (m) extended acceleration from q̈ alone
};

// External wrenches, one per body: [f; n] applied to body i, at its origin, in body i components.
using BodyWrenches = std::vector<Vector6>;

struct Data {
  // general: also size the workspace of the general (flexible) recursions, which models with
  // flexible bodies always use (and tests use to compare both paths on rigid models).
  explicit Data(const Model& model, bool general = false);

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

  // The mass matrix of rigid trees (massMatrix): its entries off the diagonal blocks are taken
  // in the root body's frame.
  std::vector<Transform> X_root;     // (nbodies) pose of body i in body 0
  Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor>
      S_root;                        // (6 x nv) each joint's P_i at body 0's origin, body 0
                                     //   components (the root's own columns unused)
  std::vector<std::array<int, 2>> ancestor_runs;  // [first v index, count]: the coordinates of the
                                     //   joints of body i's ancestors but the root, merged into
                                     //   contiguous runs; body i's are ancestor_runs[k] for
  std::vector<int> ancestor_runs_begin;  // ancestor_runs_begin[i] <= k < [i + 1] (nbodies + 1)

  // UΔUᵀ factorization of the mass matrix (forward dynamics, Alg. A.3 / C.3)
  std::vector<Matrix6> Mbar;         // (nbodies) articulated inertia M̄_i
  std::vector<Matrix6> phi;          // (nbodies) φ_i = M̄_i P_i Δ_i^{-1}, leading nv_i columns
  std::vector<Eigen::LLT<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>>>
      Delta;                         // (nbodies) Cholesky factor of Δ_i = P_iᵀ M̄_i P_i (nv_i > 1)
  BlockSolve6 Delta_base;            // Δ_0 = M̄_0 of a free base, factored by its 3x3 blocks
  Eigen::VectorXd Delta_inv;         // (nv) 1/Δ_i for 1-DOF joints (at the joint's v index)
  std::vector<Vector6> eta;          // (nbodies) force accumulator of the upper-triangular sweep
  std::vector<Vector6> mu;           // (nbodies) motion accumulator of the lower-triangular sweep
  bool factorized = false;           // Mbar, phi, Delta hold the factors of the last q

  // Coriolis matrix workspace, in inertial-frame components (at the inertial origin)
  std::vector<Vector6> t_world;      // (nbodies) twist of body i
  std::vector<Inertia> Ic_world;     // (nbodies) M̂_i
  std::vector<Matrix6> Bc;           // (nbodies) composite Coriolis terms B̂_i
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_world;     // (6 x nv) each joint's P_i
  Eigen::Matrix<double, 6, Eigen::Dynamic> Sdot_world;  // (6 x nv) d/dt P_i

  // General (flexible) path workspace, sized only for models with flexible bodies.
  std::vector<FlexWork> flex;        // (nbodies or 0)
  Eigen::VectorXd flex_zero;         // (nv or 0) zero rates, for the terms of M_f(δ) alone

  // Hybrid dynamics scratch: the free velocity coordinates and the driven bodies, and the dense
  // form's blocks (sized by its first call with a given split of the coordinates).
  std::vector<int> hybrid_free;      // (capacity nv)
  std::vector<char> hybrid_driven;   // (nbodies)
  Eigen::MatrixXd hybrid_Hfp, hybrid_Hff;  // (nv x nv, sized by the first call) blocks of H
  Eigen::VectorXd hybrid_h, hybrid_rhs, hybrid_x;

  // Mimic joints (Model::full): the full model with the model's gravity, base placement, inertias
  // and armature (which a program may change after the build, e.g. for a captured payload), its
  // Data, the coordinates carried to it, and the Cholesky factor of the mass matrix projected on
  // the model's coordinates.
  std::vector<Model> full_model;     // (1, or 0 without mimic joints)
  std::vector<Data> full;            // (1, or 0 without mimic joints)
  Eigen::VectorXd q_full, v_full, a_full;
  Eigen::LLT<Eigen::MatrixXd> H_llt;

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
