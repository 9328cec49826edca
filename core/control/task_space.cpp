#include "core/control/task_space.hpp"

#include <Eigen/Cholesky>
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

Eigen::VectorXd resolvedAcceleration(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Apinv, const Vector3& a_minus_b,
                                     const Eigen::VectorXd& pull) {
  return Apinv * a_minus_b + pull - Apinv * (A * pull);
}

}  // namespace grapple::core
