// Rows, columns and entries picked by lists of indices, into preallocated storage. An Eigen
// indexed view, A(rows, cols) with std::vector indices, copies its index lists (a heap allocation
// each time it is made); these loops copy the same values without allocating once `out` is sized.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace grapple::core {

// out = A(rows, cols)
inline void pick(const Eigen::MatrixXd& A, const std::vector<int>& rows, const std::vector<int>& cols,
                 Eigen::MatrixXd& out) {
  out.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t j = 0; j < cols.size(); ++j) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = A(rows[i], cols[j]);
    }
  }
}

// out = A(rows, all)
inline void pickRows(const Eigen::MatrixXd& A, const std::vector<int>& rows, Eigen::MatrixXd& out) {
  out.resize(static_cast<Eigen::Index>(rows.size()), A.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = A.row(rows[i]);
}

// out = A(all, cols)
inline void pickCols(const Eigen::MatrixXd& A, const std::vector<int>& cols, Eigen::MatrixXd& out) {
  out.resize(A.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t j = 0; j < cols.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = A.col(cols[j]);
}

// out = x(idx)
inline void pick(const Eigen::VectorXd& x, const std::vector<int>& idx, Eigen::VectorXd& out) {
  out.resize(static_cast<Eigen::Index>(idx.size()));
  for (std::size_t i = 0; i < idx.size(); ++i) out[static_cast<Eigen::Index>(i)] = x[idx[i]];
}

// x(idx) = values
inline void place(const Eigen::VectorXd& values, const std::vector<int>& idx, Eigen::VectorXd& x) {
  for (std::size_t i = 0; i < idx.size(); ++i) x[idx[i]] = values[static_cast<Eigen::Index>(i)];
}

}  // namespace grapple::core
