#include "core/model/joint.hpp"

#include "core/math/rotation.hpp"

namespace grapple::core {

int jointNq(JointType type) {
  switch (type) {
    case JointType::kFixed: return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic: return 1;
    case JointType::kCylindrical:
    case JointType::kUniversal: return 2;
    case JointType::kSpherical: return 4;
    case JointType::kFree: return 7;
  }
  return 0;
}

int jointNv(JointType type) {
  switch (type) {
    case JointType::kFixed: return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic: return 1;
    case JointType::kCylindrical:
    case JointType::kUniversal: return 2;
    case JointType::kSpherical: return 3;
    case JointType::kFree: return 6;
  }
  return 0;
}

std::string_view jointTypeName(JointType type) {
  switch (type) {
    case JointType::kFixed: return "fixed";
    case JointType::kRevolute: return "revolute";
    case JointType::kPrismatic: return "prismatic";
    case JointType::kCylindrical: return "cylindrical";
    case JointType::kUniversal: return "universal";
    case JointType::kSpherical: return "spherical";
    case JointType::kFree: return "free";
  }
  return "?";
}

std::optional<JointType> jointTypeFromName(std::string_view name) {
  for (JointType t : {JointType::kFixed, JointType::kRevolute, JointType::kPrismatic,
                      JointType::kCylindrical, JointType::kUniversal, JointType::kSpherical,
                      JointType::kFree}) {
    if (jointTypeName(t) == name) return t;
  }
  return std::nullopt;
}

Transform jointTransform(const Joint& j, const double* q) {
  switch (j.type) {
    case JointType::kFixed: return Transform::Identity();
    case JointType::kRevolute: return {axisAngle(j.axis, q[0]), Vector3::Zero()};
    case JointType::kPrismatic: return {Matrix3::Identity(), j.axis * q[0]};
    case JointType::kCylindrical: return {axisAngle(j.axis, q[0]), j.axis * q[1]};
    case JointType::kUniversal:
      return {axisAngle(j.axis, q[0]) * axisAngle(j.axis2, q[1]), Vector3::Zero()};
    case JointType::kSpherical:
      return {quatToMatrix(Vector4(q[0], q[1], q[2], q[3])), Vector3::Zero()};
    case JointType::kFree:
      return {quatToMatrix(Vector4(q[3], q[4], q[5], q[6])), Vector3(q[0], q[1], q[2])};
  }
  return Transform::Identity();
}

void jointMotionSubspace(const Joint& j, const double* q, Matrix6& S) {
  switch (j.type) {
    case JointType::kFixed: return;
    case JointType::kRevolute:
      S.col(0) << 0, 0, 0, j.axis;
      return;
    case JointType::kPrismatic:
      S.col(0) << j.axis, 0, 0, 0;
      return;
    case JointType::kCylindrical:
      S.col(0) << 0, 0, 0, j.axis;
      S.col(1) << j.axis, 0, 0, 0;
      return;
    case JointType::kUniversal: {
      // ω_B = R2^T axis q̇1 + axis2 q̇2, with R2 the rotation about axis2.
      const Vector3 a1_B = axisAngle(j.axis2, q[1]).transpose() * j.axis;
      S.col(0) << 0, 0, 0, a1_B;
      S.col(1) << 0, 0, 0, j.axis2;
      return;
    }
    case JointType::kSpherical:
      S.leftCols<3>().setZero();
      S.block<3, 3>(3, 0).setIdentity();
      return;
    case JointType::kFree:
      S.setIdentity();
      return;
  }
}

Vector6 jointVelocityProduct(const Joint& j, const double* q, const double* v) {
  Vector6 c = Vector6::Zero();
  if (j.type == JointType::kUniversal) {
    // d/dt (R2^T a1) = -q̇2 a2 × (R2^T a1)
    const Vector3 a1_B = axisAngle(j.axis2, q[1]).transpose() * j.axis;
    c.tail<3>() = -v[0] * v[1] * j.axis2.cross(a1_B);
  }
  return c;
}

}  // namespace grapple::core
