// The task-space pieces of the capture law (core/control/capture_controller) that the plan's
// feasibility prediction (core/planning/feasibility) flies too: one definition for both, so that
// what the prediction promises is what the controller asks.
#pragma once

#include <Eigen/Core>

#include "core/math/decompositions.hpp"
#include "core/math/small_cholesky.hpp"
#include "core/math/spatial.hpp"
#include "core/world/debris.hpp"

namespace grapple::core {

// Damped least-squares pseudo-inverse A⁺ = Aᵀ (A Aᵀ + λ² I)⁻¹ with the damping growing as the
// least singular value σ of A falls below the threshold ε: λ² = λ_max² (1 - (σ/ε)²), zero above ε
// (Nakamura & Hanafusa's singularity-robust inverse, with Chiaverini's variable damping).
// sigma, when given, receives σ. σ is the square root of the least eigenvalue of A Aᵀ (of Aᵀ A
// when A has more rows than columns), not an SVD of A: on the 5 x 6 task of the aligned hand
// 1.1 µs against the Jacobi SVD's 3.1 µs (A Aᵀ formed included; measured alone, -O3), accurate
// to ε_mach σ_max² / σ, 1e-14 and better where the damping acts.
Eigen::MatrixXd dampedPseudoInverse(const Eigen::MatrixXd& A, double damping, double threshold,
                                    double* sigma = nullptr);

// The same into `out` with a workspace that, once sized by a first call, makes later calls with A
// of the same size allocate nothing (a controller's per-call path). The same arithmetic, so the
// same result to the last bit.
struct PseudoInverseWork {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen;  // of A Aᵀ (or Aᵀ A for a tall A): σ² its least eigenvalue
  Eigen::Index eigen_size = -1;                          // the size `eigen` was made for
  Eigen::MatrixXd AAt, AtA, inv, shifted;
  SmallCholesky cholesky;     // of A Aᵀ + λ² I (positive definite: λ > 0 wherever σ < ε)
  SmallCholesky certificate;  // of A Aᵀ - ε² I: σ above the threshold (the eigensolver skipped)
};
void dampedPseudoInverse(const Eigen::MatrixXd& A, double damping, double threshold, PseudoInverseWork& work,
                         Eigen::MatrixXd& out, double* sigma = nullptr);

// Resolved acceleration with a posture term in the task's null space: the joints' accelerations
// q̈ = A⁺ (a - b) + (I - A⁺ A) p, with A the (generalized) Jacobian of the hand, A⁺ its damped
// inverse, a the hand's acceleration asked, b the hand's acceleration with the joints not
// accelerating, p the posture pull (-k_d q̇ - k_p (q - q_posture)).
Eigen::VectorXd resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv, const Eigen::VectorXd& a_minus_b,
                                     const Eigen::VectorXd& pull);
// The same into `out` (sized like pull), without allocation (a task of at most 6 rows).
using TaskVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
void resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv,
                          const Eigen::Ref<const Eigen::VectorXd>& a_minus_b, const Eigen::VectorXd& pull,
                          Eigen::VectorXd& out);

// The pointing task's two rows, beside the hand's position task: the hand's approach axis `axis`
// (unit, inertial), turning at `omega` (the hand's angular velocity), is brought onto the
// reference by asking its angular acceleration perpendicular to the axis to be
//   α_des = α_ref + k_d (ω_ref - ω) + k_p (axis × axis_ref)
// (the error e = axis × axis_ref, |e| = sin of the angle between them, obeys ë + k_d ė + k_p e ≈ 0,
// the position task's error dynamics): rows = P A_ω, rhs = P (α_des - b_ω), with P two unit
// vectors perpendicular to the axis (the spin about it is left to the null space). A_omega: the
// (generalized) Jacobian of the hand's angular velocity (3 x joints), b_omega: its angular
// acceleration with the joints not accelerating. Rows are weighted by `length` [m] so that a
// radian counts as `length` metres in the damped inverse and its singular values. No allocation.
void pointingTask(const Eigen::Ref<const Eigen::MatrixXd>& A_omega, const Vector3& b_omega, const Vector3& axis,
                  const Vector3& omega, const AxisKinematics& reference, double kp, double kd,
                  Eigen::Ref<Eigen::MatrixXd> rows, Eigen::Ref<Eigen::VectorXd> rhs, double length = 1);

}  // namespace grapple::core
