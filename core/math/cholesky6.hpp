// Cholesky factorization of a 6x6 symmetric positive-definite matrix (the free base's Δ_0 and
// composite inertia), written out: Eigen's general LLT costs several times more at this size.
// A matrix that is not positive definite gives NaN factors, so the failure shows in the result.
#pragma once

#include <cmath>

#include "core/math/spatial.hpp"

namespace grapple::core {

struct Cholesky6 {
  Matrix6 L = Matrix6::Zero();   // lower triangle: A = L Lᵀ
  Vector6 inv_diag = Vector6::Zero();

  void compute(const Matrix6& A) {
    for (int j = 0; j < 6; ++j) {
      double d = A(j, j);
      for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
      const double ljj = d > 0 ? std::sqrt(d) : std::nan("");
      L(j, j) = ljj;
      inv_diag[j] = 1.0 / ljj;
      for (int i = j + 1; i < 6; ++i) {
        double s = A(i, j);
        for (int k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
        L(i, j) = s * inv_diag[j];
      }
    }
  }

  // x = A⁻¹ b
  Vector6 solve(const Vector6& b) const {
    Vector6 y;
    for (int i = 0; i < 6; ++i) {
      double s = b[i];
      for (int k = 0; k < i; ++k) s -= L(i, k) * y[k];
      y[i] = s * inv_diag[i];
    }
    Vector6 x;
    for (int i = 5; i >= 0; --i) {
      double s = y[i];
      for (int k = i + 1; k < 6; ++k) s -= L(k, i) * x[k];
      x[i] = s * inv_diag[i];
    }
    return x;
  }
};

}  // namespace grapple::core
