// Linear fractional transformations (LFTs) in real parameters, for the μ-analysis of the thesis'
// §8.3: a matrix that depends rationally on parameters σ_k is written as the upper LFT
//   F_u(M, Δ) = M22 + M21 Δ (I - M11 Δ)⁻¹ M12,   Δ = diag(σ_{param[0]}, σ_{param[1]}, ...),
// (z = M11 w + M12 u, y = M21 w + M22 u, w = Δ z), each parameter a repeated real scalar block.
// The algebra below (sum, product, transpose, inverse, concatenation, normalization of the
// parameters' ranges) builds an LFT of a whole expression without evaluating it, and the mass
// matrix D(q) = Nᵀ [M] N (eqs. 6.48, 8.13) is built with it from the minimal LFTs of the joint
// rotations in σ2 = tan(θ/2) (eqs. 8.15-8.20, Δ = σ2 I_2) or σ4 = tan(θ/4) (eqs. 8.21-8.23,
// Δ = σ4 I_4).
#pragma once

#include <vector>

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::core {

struct Lft {
  Eigen::MatrixXd M11, M12, M21, M22;  // (nΔ x nΔ), (nΔ x m), (p x nΔ), (p x m)
  std::vector<int> param;              // (nΔ) the parameter repeated on each channel of Δ

  Eigen::Index rows() const { return M22.rows(); }
  Eigen::Index cols() const { return M22.cols(); }
  Eigen::Index deltaSize() const { return M11.rows(); }

  static Lft constant(const Eigen::MatrixXd& value);
  // F_u(M, Δ) at the parameter values sigma (indexed by param). Throws std::invalid_argument
  // when I - M11 Δ is singular (the LFT is not defined there).
  Eigen::MatrixXd evaluate(const Eigen::VectorXd& sigma) const;
  // F_u(M, Δ)ᵀ = F_u([M11ᵀ M21ᵀ; M12ᵀ M22ᵀ], Δ) (Δ diagonal).
  Lft transpose() const;
  // F_u(M, Δ)⁻¹, M22 invertible: F_u([M11 - M12 M22⁻¹ M21, M12 M22⁻¹; -M22⁻¹ M21, M22⁻¹], Δ).
  // Throws std::invalid_argument if M22 (the value at σ = 0) is singular.
  Lft inverse() const;
  // The same function of δ, with σ_k = center_k + radius_k δ_k for each parameter k (the
  // normalized parameters of μ-analysis: the range [a, b] becomes δ ∈ [-1, 1]).
  Lft normalized(const Eigen::VectorXd& center, const Eigen::VectorXd& radius) const;
  // The channels of Δ reordered by parameter (stable), so that Δ = blockdiag(σ_k I_{n_k}).
  Lft grouped() const;
  // Rows / columns picked out (a constant selection on either side).
  Lft block(const std::vector<int>& rows, const std::vector<int>& cols) const;
};

Lft operator+(const Lft& a, const Lft& b);
Lft operator-(const Lft& a, const Lft& b);
Lft operator*(const Lft& a, const Lft& b);  // series: a(b(u)), Δ = blockdiag(Δ_a, Δ_b)
Lft operator*(const Eigen::MatrixXd& a, const Lft& b);
Lft operator*(const Lft& a, const Eigen::MatrixXd& b);
Lft horizontalConcat(const Lft& a, const Lft& b);  // [a b]
Lft verticalConcat(const Lft& a, const Lft& b);    // [a; b]
Lft blockDiagonal(const Lft& a, const Lft& b);     // [a 0; 0 b]

// Evaluation of partitioned complex matrices (the closed loop at a frequency):
// upper LFT F_u(M, Δ) = M22 + M21 Δ (I - M11 Δ)⁻¹ M12 with Δ (k x k) closing the first k channels,
// lower LFT F_l(P, K) = P11 + P12 K (I - P22 K)⁻¹ P21 with K (l x l') closing the last channels.
Eigen::MatrixXcd upperLft(const Eigen::MatrixXcd& M, const Eigen::MatrixXcd& Delta);
Eigen::MatrixXcd lowerLft(const Eigen::MatrixXcd& P, const Eigen::MatrixXcd& K);
// Redheffer star product of P (its last ny outputs and nu inputs feeding Q's first ones) with Q:
// F_l(starProduct(P, Q, ny, nu), K) = F_l(P, F_l(Q, K)) for every K that closes Q's last channels.
Eigen::MatrixXcd starProduct(const Eigen::MatrixXcd& P, const Eigen::MatrixXcd& Q, Eigen::Index ny, Eigen::Index nu);

// Minimal LFT of the rotation R_z(θ) (3 x 3) in one parameter:
enum class RotationParameter {
  kTan2,  // σ2 = tan(θ/2), Δ = σ2 I_2 (eq. 8.20); θ ∈ ]-π, π[
  kTan4,  // σ4 = tan(θ/4), Δ = σ4 I_4 (eq. 8.23); θ ∈ ]-2π, 2π[
};
Lft rotationZ(RotationParameter form, int param);
// The parameter of an angle, and back.
double rotationParameter(RotationParameter form, double theta);
double rotationAngle(RotationParameter form, double sigma);

// D(q) of a rigid model as an LFT in the parameters of the revolute joints `joints` (bodies):
// parameter k is joint joints[k]'s σ, the other coordinates fixed at q. Built from the
// propagation of the body twists t = A t + P q̇, A_{i,p} = blockdiag(R_z(θ_i)ᵀ, R_z(θ_i)ᵀ) A⁰_{i,p}
// (eq. 8.13; the joint rotation the only varying factor), N = (I - A)⁻¹ P and D = Nᵀ [M] N
// (eq. 6.48) plus the armature: each rotation's Δ appears 2x (blockdiag(R, R)) on each side of
// [M], 8 channels per joint with σ2 and 16 with σ4 (the thesis' count, §8.3.3.2), grouped by
// joint. Throws std::invalid_argument for a flexible model, a body that is not moved by a
// revolute joint, a repeated body or a q of the wrong size.
Lft massMatrixLft(const Model& model, const Eigen::VectorXd& q, const std::vector<int>& joints, RotationParameter form);

}  // namespace grapple::core
