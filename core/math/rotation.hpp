// Rotations. Quaternions are stored scalar-first [w, x, y, z] with the Hamilton product
// (thesis App. A.2). A quaternion Q_WB maps body components to world components:
// x_W = Q ⊗ x_B ⊗ Q^{-1} = R(Q) x_B. Euler angles appear only for display and in URDF/DH input.
#pragma once

#include "core/math/spatial.hpp"

namespace grapple::core {

// Rotation matrix of a quaternion [w x y z] (thesis eq. A.5). The quaternion is normalized first,
// so a state whose quaternion has drifted from unit length still describes a proper rotation.
Matrix3 quatToMatrix(const Vector4& q_wxyz);
// Unit quaternion [w x y z] with w >= 0 of a rotation matrix.
Vector4 matrixToQuat(const Matrix3& R);
// Hamilton product a ⊗ b.
Vector4 quatMultiply(const Vector4& a, const Vector4& b);
Vector4 quatConjugate(const Vector4& q);
// Unit quaternion of the rotation vector phi (angle |phi| about phi/|phi|).
Vector4 quatExp(const Vector3& phi);
// Rotation vector of a unit quaternion (shortest: angle in [0, π]).
Vector3 quatLog(const Vector4& q);
// dQ/dt = ½ Q ⊗ [0; ω_B] for the angular velocity ω_B in body components (thesis eq. A.11).
Vector4 quatRateBody(const Vector4& q, const Vector3& w_B);

// Rotation about a unit axis by angle [rad] (Rodrigues).
Matrix3 axisAngle(const Vector3& unit_axis, double angle);
// SO(3) exponential and logarithm.
Matrix3 expSO3(const Vector3& phi);
Vector3 logSO3(const Matrix3& R);

// Roll-pitch-yaw as in URDF and the thesis' 3-2-1 Euler angles (eq. 4.2):
// R = Rz(yaw) Ry(pitch) Rx(roll).
Matrix3 rpyToMatrix(const Vector3& rpy);
Vector3 matrixToRpy(const Matrix3& R);
Matrix3 rotX(double a);
Matrix3 rotY(double a);
Matrix3 rotZ(double a);

// SE(3) exponential of a body twist [v; ω] held for unit time: pose of the moved frame in the
// start frame. Used to integrate a free base exactly for a constant body twist.
Transform expSE3(const Vector6& twist);
// Inverse of expSE3.
Vector6 logSE3(const Transform& X);

}  // namespace grapple::core
