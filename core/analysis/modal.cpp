#include "core/analysis/modal.hpp"

#include <algorithm>
#include <numeric>

#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

Eigen::MatrixXd stiffnessMatrix(const Model& m) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(m.nv, m.nv);
  for (const FlexibleBody& f : m.flex) K.block(f.idx_v, f.idx_v, f.nf, f.nf) = f.K;
  return K;
}

Eigen::MatrixXd dampingMatrix(const Model& m) {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(m.nv, m.nv);
  for (const FlexibleBody& f : m.flex) D.block(f.idx_v, f.idx_v, f.nf, f.nf) = f.D;
  return D;
}

ModalAnalysis coupledModes(const Model& m, const Eigen::VectorXd& q0) {
  Data d(m);
  const Eigen::MatrixXd H = massMatrix(m, d, q0);
  const Eigen::MatrixXd K = stiffnessMatrix(m), C = dampingMatrix(m);
  // K x = λ H x with H positive definite: eigenvectors H-orthonormal, λ = ω² >= 0.
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K, H);
  const Eigen::VectorXd lambda = eig.eigenvalues();
  std::vector<int> order(m.nv);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] < lambda[b]; });
  ModalAnalysis out;
  const int n = m.nflex, first = m.nv - n;  // the rigid (zero-frequency) directions come first
  out.frequency.resize(n);
  out.damping_ratio.resize(n);
  out.shape.resize(m.nv, n);
  for (int k = 0; k < n; ++k) {
    const int c = order[first + k];
    const double w = std::sqrt(std::max(0.0, lambda[c]));
    const Eigen::VectorXd x = eig.eigenvectors().col(c);
    out.frequency[k] = w;
    out.damping_ratio[k] = w > 0 ? x.dot(C * x) / (2 * w) : 0.0;
    out.shape.col(k) = x;
  }
  return out;
}

}  // namespace grapple::core
