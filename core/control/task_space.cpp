#include "core/control/task_space.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/SVD>

namespace grapple::core {

Eigen::MatrixXd dampedPseudoInverse(const Eigen::MatrixXd& A, double damping, double threshold, double* sigma) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(A);
  const double s = svd.singularValues().minCoeff();
  if (sigma) *sigma = s;
  const double lambda2 = s < threshold ? damping * damping * (1 - (s / threshold) * (s / threshold)) : 0.0;
  const auto r = A.rows();
  const Eigen::MatrixXd AAt = A * A.transpose() + lambda2 * Eigen::MatrixXd::Identity(r, r);
  return A.transpose() * AAt.ldlt().solve(Eigen::MatrixXd::Identity(r, r));
}

Eigen::VectorXd resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv, const Eigen::VectorXd& a_minus_b,
                                     const Eigen::VectorXd& pull) {
  return Apinv * a_minus_b + pull - Apinv * (A * pull);
}

void appendPointing(Eigen::MatrixXd& A, Eigen::VectorXd& rhs, const Eigen::MatrixXd& A_omega, const Vector3& b_omega,
                    const Vector3& axis, const Vector3& omega, const AxisKinematics& reference, double kp, double kd,
                    double length) {
  const Vector3 alpha = reference.acceleration + kd * (reference.rate - omega) + kp * axis.cross(reference.axis);
  Eigen::Matrix<double, 2, 3> P;
  const Vector3 u1 = axis.unitOrthogonal();
  P.row(0) = length * u1.transpose();
  P.row(1) = length * axis.cross(u1).transpose();
  const Eigen::Index n = A.rows();
  A.conservativeResize(n + 2, Eigen::NoChange);
  A.bottomRows<2>() = P * A_omega;
  rhs.conservativeResize(n + 2);
  rhs.tail<2>() = P * (alpha - b_omega);
}

}  // namespace grapple::core
