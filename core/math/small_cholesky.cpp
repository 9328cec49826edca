#include "core/math/small_cholesky.hpp"

#include <algorithm>
#include <stdexcept>

namespace grapple::core {

void SmallCholesky::compute(const Eigen::MatrixXd& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("SmallCholesky: expected a square matrix");
  L_ = A;
  factor();
}

void SmallCholesky::compute(Eigen::MatrixXd&& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("SmallCholesky: expected a square matrix");
  if (A.rows() == L_.rows()) L_.swap(A);
  else L_ = A;
  factor();
}

void SmallCholesky::factor() { choleskyInPlace(L_, inv_diag_); }

namespace {

constexpr int kWidth = 4;

// W (n x width, row-major: row i the right-hand sides' entries i) <- (L Lᵀ)⁻¹ W.
template <int width>
void solveInterleaved(const double* __restrict L, const double* inv_diag, Eigen::Index n, double* __restrict W) {
  using Row = Eigen::Map<Eigen::Array<double, width, 1>, Eigen::Unaligned>;
  // L y = b, forward: y_j = b_j / L_jj, then b_i -= L_ij y_j below it (column j of L).
  for (Eigen::Index j = 0; j < n; ++j) {
    Row yj(W + j * width);
    yj *= inv_diag[j];
    const Eigen::Array<double, width, 1> y = yj;
    const double* col = L + j * n;
    for (Eigen::Index i = j + 1; i < n; ++i) Row(W + i * width) -= col[i] * y;
  }
  // Lᵀ x = y, backward: x_j = y_j / L_jj, then y_i -= L_ji x_j above it (row j of L).
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    Row xj(W + j * width);
    xj *= inv_diag[j];
    const Eigen::Array<double, width, 1> x = xj;
    for (Eigen::Index i = 0; i < j; ++i) Row(W + i * width) -= L[i * n + j] * x;
  }
}

}  // namespace

void SmallCholesky::solveInPlace(Eigen::Ref<Eigen::MatrixXd> B) const {
  const Eigen::Index n = L_.rows();
  if (B.rows() != n) throw std::invalid_argument("SmallCholesky::solveInPlace: right-hand side of the wrong size");
  // Four columns at a time (the last four padded with zeros): narrower kernels measured slower.
  work_.resize(n * kWidth);
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, kWidth, Eigen::RowMajor>> rows(work_.data(), n, kWidth);
  for (Eigen::Index c0 = 0; c0 < B.cols(); c0 += kWidth) {
    const Eigen::Index w = std::min<Eigen::Index>(kWidth, B.cols() - c0);
    rows.rightCols(kWidth - w).setZero();
    rows.leftCols(w) = B.middleCols(c0, w);
    solveInterleaved<kWidth>(L_.data(), inv_diag_.data(), n, work_.data());
    B.middleCols(c0, w) = rows.leftCols(w);
  }
}

}  // namespace grapple::core
