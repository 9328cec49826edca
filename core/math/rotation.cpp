#include "core/math/rotation.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

#include "core/math/sincos.hpp"

namespace grapple::core {

Matrix3 quatToMatrix(const Vector4& q_wxyz) {
  const Vector4 q = q_wxyz / q_wxyz.norm();
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  Matrix3 R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
       2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
       2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

Vector4 matrixToQuat(const Matrix3& R) {
  // Shepperd's method: pick the largest of the four squared components for accuracy.
  const double t = R.trace();
  Vector4 q;
  if (t > R(0, 0) && t > R(1, 1) && t > R(2, 2)) {
    const double s = 2.0 * std::sqrt(1.0 + t);
    q << 0.25 * s, (R(2, 1) - R(1, 2)) / s, (R(0, 2) - R(2, 0)) / s, (R(1, 0) - R(0, 1)) / s;
  } else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
    const double s = 2.0 * std::sqrt(1.0 + R(0, 0) - R(1, 1) - R(2, 2));
    q << (R(2, 1) - R(1, 2)) / s, 0.25 * s, (R(0, 1) + R(1, 0)) / s, (R(0, 2) + R(2, 0)) / s;
  } else if (R(1, 1) > R(2, 2)) {
    const double s = 2.0 * std::sqrt(1.0 + R(1, 1) - R(0, 0) - R(2, 2));
    q << (R(0, 2) - R(2, 0)) / s, (R(0, 1) + R(1, 0)) / s, 0.25 * s, (R(1, 2) + R(2, 1)) / s;
  } else {
    const double s = 2.0 * std::sqrt(1.0 + R(2, 2) - R(0, 0) - R(1, 1));
    q << (R(1, 0) - R(0, 1)) / s, (R(0, 2) + R(2, 0)) / s, (R(1, 2) + R(2, 1)) / s, 0.25 * s;
  }
  if (q[0] < 0) q = -q;
  return q / q.norm();
}

Vector4 quatMultiply(const Vector4& a, const Vector4& b) {
  Vector4 r;
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  return r;
}

Vector4 quatConjugate(const Vector4& q) { return {q[0], -q[1], -q[2], -q[3]}; }

Vector4 quatExp(const Vector3& phi) {
  const double angle = phi.norm();
  const double half = 0.5 * angle;
  // sin(half)/angle, with its Taylor series near zero.
  const double k = angle < 1e-8 ? 0.5 - angle * angle / 48.0 : std::sin(half) / angle;
  return {std::cos(half), k * phi.x(), k * phi.y(), k * phi.z()};
}

Vector3 quatLog(const Vector4& q_in) {
  Vector4 q = q_in / q_in.norm();
  if (q[0] < 0) q = -q;
  const Vector3 v = q.tail<3>();
  const double s = v.norm();
  const double angle = 2.0 * std::atan2(s, q[0]);
  // angle / sin(angle/2) -> 2 as s -> 0
  const double k = s < 1e-12 ? 2.0 / q[0] : angle / s;
  return k * v;
}

Vector4 quatRateBody(const Vector4& q, const Vector3& w_B) {
  return 0.5 * quatMultiply(q, Vector4(0.0, w_B.x(), w_B.y(), w_B.z()));
}

Matrix3 axisAngle(const Vector3& u, double angle) {
  const double c = std::cos(angle), s = std::sin(angle), v = 1.0 - c;
  Matrix3 R;
  R << c + u.x() * u.x() * v, u.x() * u.y() * v - u.z() * s, u.x() * u.z() * v + u.y() * s,
       u.y() * u.x() * v + u.z() * s, c + u.y() * u.y() * v, u.y() * u.z() * v - u.x() * s,
       u.z() * u.x() * v - u.y() * s, u.z() * u.y() * v + u.x() * s, c + u.z() * u.z() * v;
  return R;
}

Matrix3 expSO3(const Vector3& phi) {
  const double angle = phi.norm();
  if (angle < 1e-12) return Matrix3::Identity() + skew(phi);
  return axisAngle(phi / angle, angle);
}

Vector3 logSO3(const Matrix3& R) { return quatLog(matrixToQuat(R)); }

Matrix3 rotX(double a) {
  const double c = std::cos(a), s = std::sin(a);
  Matrix3 R;
  R << 1, 0, 0, 0, c, -s, 0, s, c;
  return R;
}
Matrix3 rotY(double a) {
  const double c = std::cos(a), s = std::sin(a);
  Matrix3 R;
  R << c, 0, s, 0, 1, 0, -s, 0, c;
  return R;
}
Matrix3 rotZ(double a) {
  const double c = std::cos(a), s = std::sin(a);
  Matrix3 R;
  R << c, -s, 0, s, c, 0, 0, 0, 1;
  return R;
}

// Rz(yaw) Ry(pitch) Rx(roll) written out, the sines and cosines by sinCos (the flexible bodies'
// tip rotations call this at every evaluation; the C library's sin and cos save and restore the
// rounding mode on each call).
Matrix3 rpyToMatrix(const Vector3& rpy) {
  double sr, cr, sp, cp, sy, cy;
  sinCos(rpy.x(), sr, cr);
  sinCos(rpy.y(), sp, cp);
  sinCos(rpy.z(), sy, cy);
  Matrix3 R;
  R << cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
       sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
       -sp, cp * sr, cp * cr;
  return R;
}

Vector3 matrixToRpy(const Matrix3& R) {
  // R(2,0) = -sin(pitch); at the gimbal lock (|pitch| = 90°) roll is set to zero.
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  if (std::abs(R(2, 0)) > 1.0 - 1e-12) {
    return {0.0, pitch, std::atan2(-R(0, 1), R(1, 1))};
  }
  return {std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0))};
}

// Left Jacobian of SO(3): V(φ) = I + (1-cos θ)/θ² φ^x + (θ - sin θ)/θ³ (φ^x)².
static Matrix3 leftJacobianSO3(const Vector3& phi) {
  const double t = phi.norm();
  const Matrix3 K = skew(phi);
  double a, b;
  if (t < 1e-5) {
    a = 0.5 - t * t / 24.0;
    b = 1.0 / 6.0 - t * t / 120.0;
  } else {
    a = (1.0 - std::cos(t)) / (t * t);
    b = (t - std::sin(t)) / (t * t * t);
  }
  return Matrix3::Identity() + a * K + b * K * K;
}

Transform expSE3(const Vector6& twist) {
  const Vector3 v = twist.head<3>(), w = twist.tail<3>();
  return {expSO3(w), leftJacobianSO3(w) * v};
}

Vector6 logSE3(const Transform& X) {
  const Vector3 w = logSO3(X.R);
  Vector6 out;
  out.tail<3>() = w;
  out.head<3>() = leftJacobianSO3(w).inverse() * X.p;
  return out;
}

}  // namespace grapple::core
