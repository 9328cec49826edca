#include "core/math/spatial.hpp"

#include <algorithm>
#include <cmath>

namespace grapple::core {

// A = diag(R^T, R^T) T with T = [I -P; 0 I], P = p^x. So A^T M A = T^T N T with
// N = diag(R, R) M diag(R^T, R^T), and with blocks N11..N22:
//   T^T N T = [ N11              N12 - N11 P                        ]
//             [ P N11 + N21      N22 + P N12 - N21 P - P N11 P      ]
Matrix6 congruenceToParent(const Transform& X_PC, const Matrix6& M) {
  const Matrix3& R = X_PC.R;
  const Matrix3 P = skew(X_PC.p);
  const Matrix3 N11 = R * M.topLeftCorner<3, 3>() * R.transpose();
  const Matrix3 N12 = R * M.topRightCorner<3, 3>() * R.transpose();
  const Matrix3 N21 = R * M.bottomLeftCorner<3, 3>() * R.transpose();
  const Matrix3 N22 = R * M.bottomRightCorner<3, 3>() * R.transpose();
  const Matrix3 PN11 = P * N11;
  Matrix6 out;
  out.topLeftCorner<3, 3>() = N11;
  out.topRightCorner<3, 3>() = N12 - N11 * P;
  out.bottomLeftCorner<3, 3>() = PN11 + N21;
  out.bottomRightCorner<3, 3>() = N22 + P * N12 - (PN11 + N21) * P;
  return out;
}

namespace {

// P X for P = p^x: column by column cross products (18 multiplications instead of 27).
inline Matrix3 skewTimes(const Vector3& p, const Matrix3& X) {
  Matrix3 out;
  out.col(0) = p.cross(X.col(0));
  out.col(1) = p.cross(X.col(1));
  out.col(2) = p.cross(X.col(2));
  return out;
}

}  // namespace

void addCongruenceToParentSymmetric(const Transform& X_PC, const Matrix6& M, Matrix6& out) {
  const Matrix3& R = X_PC.R;
  const Vector3& p = X_PC.p;
  Matrix3 T, N11, N12, N22;
  T.noalias() = R * M.topLeftCorner<3, 3>();
  N11.noalias() = T * R.transpose();
  T.noalias() = R * M.topRightCorner<3, 3>();
  N12.noalias() = T * R.transpose();
  T.noalias() = R * M.bottomRightCorner<3, 3>();
  N22.noalias() = T * R.transpose();
  // With P = p^x (Pᵀ = -P) and N11 symmetric: N11 P = -(P N11)ᵀ, so
  //   B12 = N12 - N11 P = N12 + (P N11)ᵀ,
  //   B22 = N22 + P N12 - N21 P - P N11 P = N22 + P N12 + (P N12)ᵀ + P (P N11)ᵀ.
  const Matrix3 PN11 = skewTimes(p, N11);
  const Matrix3 PN12 = skewTimes(p, N12);
  const Matrix3 B12 = N12 + PN11.transpose();
  out.topLeftCorner<3, 3>() += N11;
  out.topRightCorner<3, 3>() += B12;
  out.bottomLeftCorner<3, 3>() += B12.transpose();
  out.bottomRightCorner<3, 3>() += N22 + PN12 + PN12.transpose() + skewTimes(p, PN11.transpose());
}

Matrix6 congruenceToParentSymmetric(const Transform& X_PC, const Matrix6& M) {
  Matrix6 out = Matrix6::Zero();
  addCongruenceToParentSymmetric(X_PC, M, out);
  return out;
}

Vector3 equivalentBox(double m, const Matrix3& I, double floor) {
  if (m <= 0) return Vector3::Constant(floor);
  const double a2 = 6 * (I(1, 1) + I(2, 2) - I(0, 0)) / m;
  const double b2 = 6 * (I(0, 0) + I(2, 2) - I(1, 1)) / m;
  const double c2 = 6 * (I(0, 0) + I(1, 1) - I(2, 2)) / m;
  return Vector3(std::sqrt(std::max(a2, floor * floor)), std::sqrt(std::max(b2, floor * floor)),
                 std::sqrt(std::max(c2, floor * floor)));
}

}  // namespace grapple::core
