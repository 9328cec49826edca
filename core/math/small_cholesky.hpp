// Cholesky factorization of a small symmetric positive-definite matrix of dynamic size (tens of
// rows: the capture law's free block, the base's translation and the modes), unblocked and
// column-oriented. At this size Eigen's LLT factors by blocks of 8 through its GEMM and
// triangular-solve kernels, and solves several right-hand sides the same way: their packing costs
// more than the flops. Here the factor is formed column by column (one matrix-vector product
// each), and the right-hand sides are solved four at a time, interleaved (each update of a row is
// one 4-wide multiply-add, and the substitutions carry no dot product's dependency chain).
// A matrix that is not positive definite gives NaN factors, so the failure shows in the result
// (as BlockSolve6's solutions). Factoring a matrix of the size already held allocates nothing.
#pragma once

#include <cmath>
#include <limits>

#include <Eigen/Core>

namespace grapple::core {

// A = L Lᵀ in A's storage (its lower triangle read and overwritten by L; left-looking, by
// columns: L(j:, j) = (A(j:, j) - L(j:, :j) L(j, :j)ᵀ) / L(j, j)), inv_diag (resized) = 1 / L(j, j).
// A matrix that is not positive definite gives NaN factors. Any dense column-major storage: the
// control laws' dynamic matrices (SmallCholesky) and the flexible recursions' bounded ones.
template <class Matrix, class Vector>
void choleskyInPlace(Matrix& L, Vector& inv_diag) {
  const Eigen::Index n = L.rows();
  inv_diag.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    if (j > 0) L.col(j).tail(n - j).noalias() -= L.block(j, 0, n - j, j) * L.row(j).head(j).transpose();
    const double d = L(j, j);
    const double ljj = d > 0 ? std::sqrt(d) : std::numeric_limits<double>::quiet_NaN();
    L(j, j) = ljj;
    inv_diag[j] = 1 / ljj;
    L.col(j).tail(n - j - 1) *= inv_diag[j];
  }
}

class SmallCholesky {
 public:
  // Factors A = L Lᵀ (only A's lower triangle is read).
  void compute(const Eigen::MatrixXd& A);
  // The same, factoring in A's storage when it has the size of the factor held (A is left with
  // the previous factor's: a caller that refills the same scratch each time neither copies nor
  // allocates).
  void compute(Eigen::MatrixXd&& A);
  // B ← A⁻¹ B, each column of B a right-hand side (a vector binds too). (It uses the object's
  // scratch: one solve at a time per object.)
  void solveInPlace(Eigen::Ref<Eigen::MatrixXd> B) const;
  Eigen::Index rows() const { return L_.rows(); }
  // Whether the matrix factored was positive definite (every pivot positive).
  bool positiveDefinite() const { return inv_diag_.allFinite(); }
  const Eigen::MatrixXd& matrixL() const { return L_; }  // lower triangle (the rest is A's)

 private:
  void factor();  // L_ in place
  Eigen::MatrixXd L_;
  Eigen::VectorXd inv_diag_;
  mutable Eigen::VectorXd work_;  // the right-hand sides solved together, interleaved
};

}  // namespace grapple::core
