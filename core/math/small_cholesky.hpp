// Cholesky factorization of a small symmetric positive-definite matrix of dynamic size (tens of
// rows: the capture law's free block, the base's translation and the modes), unblocked and
// column-oriented. At this size Eigen's LLT factors by blocks of 8 through its GEMM and
// triangular-solve kernels, and solves several right-hand sides the same way: their packing costs
// more than the flops. Here the factor is formed column by column (one matrix-vector product
// each), and the right-hand sides are solved four at a time, interleaved (each update of a row is
// one 4-wide multiply-add, and the substitutions carry no dot product's dependency chain).
// A matrix that is not positive definite gives NaN factors, so the failure shows in the result
// (as Cholesky6's). Factoring a matrix of the size already held allocates nothing.
#pragma once

#include <Eigen/Core>

namespace grapple::core {

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
