#include "core/control/task_space.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

namespace grapple::core {

namespace {

// Whether σ, the least singular value of A, is certainly above ε: A Aᵀ - (ε² + margin) I has a
// Cholesky factor (σ² is the least eigenvalue of A Aᵀ). The margin, 10⁻⁶ ε² and 10⁻¹² tr(A Aᵀ),
// stands far above the round-off of this test (backward error ~ r ε_mach ‖A Aᵀ‖) and of the
// eigensolver's σ² (~ ε_mach ‖A Aᵀ‖), so that when it holds the eigensolver would find σ ≥ ε too.
bool clearlyAboveThreshold(PseudoInverseWork& w, double threshold) {
  if (threshold <= 0) return true;
  const double margin = 1e-6 * threshold * threshold + 1e-12 * w.AAt.trace();
  w.shifted = w.AAt;
  w.shifted.diagonal().array() -= threshold * threshold + margin;
  w.certificate.compute(std::move(w.shifted));
  return w.certificate.positiveDefinite();
}

}  // namespace

void dampedPseudoInverse(const Eigen::MatrixXd& A, double damping, double threshold, PseudoInverseWork& w,
                         Eigen::MatrixXd& out, double* sigma) {
  const auto r = A.rows(), c = A.cols();
  w.AAt.resize(r, r);
  w.AAt.noalias() = A * A.transpose();
  // The damping needs σ only below the threshold: above it (certified cheaply) the eigensolver is skipped,
  // λ² = 0 as it would have given.
  double lambda2 = 0.0;
  if (sigma != nullptr || !clearlyAboveThreshold(w, threshold)) {
    const Eigen::MatrixXd* gram = &w.AAt;
    if (r > c) {
      w.AtA.resize(c, c);
      w.AtA.noalias() = A.transpose() * A;
      gram = &w.AtA;
    }
    if (w.eigen_size != gram->rows()) {
      w.eigen = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram->rows());
      w.eigen_size = gram->rows();
    }
    w.eigen.compute(*gram, Eigen::EigenvaluesOnly);
    const double s = gram->size() > 0 ? std::sqrt(std::max(0.0, w.eigen.eigenvalues()[0])) : 0.0;
    if (sigma) *sigma = s;
    lambda2 = s < threshold ? damping * damping * (1 - (s / threshold) * (s / threshold)) : 0.0;
  }
  w.AAt.diagonal().array() += lambda2;
  w.cholesky.compute(w.AAt);
  w.inv.setIdentity(r, r);
  w.cholesky.solveInPlace(w.inv);
  out.resize(c, r);
  out.noalias() = A.transpose() * w.inv;
}

Eigen::MatrixXd dampedPseudoInverse(const Eigen::MatrixXd& A, double damping, double threshold, double* sigma) {
  PseudoInverseWork w;
  Eigen::MatrixXd out;
  dampedPseudoInverse(A, damping, threshold, w, out, sigma);
  return out;
}

void resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv,
                          const Eigen::Ref<const Eigen::VectorXd>& a_minus_b, const Eigen::VectorXd& pull,
                          Eigen::VectorXd& out) {
  TaskVector A_pull(A.rows());
  A_pull.noalias() = A * pull;
  out.resize(pull.size());
  out.noalias() = Apinv * a_minus_b;
  out += pull;
  out.noalias() -= Apinv * A_pull;
}

Eigen::VectorXd resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv, const Eigen::VectorXd& a_minus_b,
                                     const Eigen::VectorXd& pull) {
  Eigen::VectorXd out;
  resolvedAcceleration(A, Apinv, a_minus_b, pull, out);
  return out;
}

void pointingTask(const Eigen::Ref<const Eigen::MatrixXd>& A_omega, const Vector3& b_omega, const Vector3& axis,
                  const Vector3& omega, const AxisKinematics& reference, double kp, double kd,
                  Eigen::Ref<Eigen::MatrixXd> rows, Eigen::Ref<Eigen::VectorXd> rhs, double length) {
  const Vector3 alpha = reference.acceleration + kd * (reference.rate - omega) + kp * axis.cross(reference.axis);
  Eigen::Matrix<double, 2, 3> P;
  const Vector3 u1 = axis.unitOrthogonal();
  P.row(0) = length * u1.transpose();
  P.row(1) = length * axis.cross(u1).transpose();
  rows.noalias() = P * A_omega;
  rhs.noalias() = P * (alpha - b_omega);
}

}  // namespace grapple::core
