#include "core/model/joint.hpp"

#include <cmath>

#include "core/math/rotation.hpp"

namespace grapple::core {

bool isMimic(const Joint& joint) { return joint.mimic_body >= 0; }

bool jointSubspaceVaries(JointType type) {
  return type == JointType::kUniversal || type == JointType::kPlanar;
}

void planarBasis(const Vector3& axis, Vector3& e1, Vector3& e2) {
  const Vector3 z = Vector3::UnitZ();
  const Vector3 k = z.cross(axis);
  const double s = k.norm(), c = z.dot(axis);
  const Matrix3 R = s < 1e-15 ? (c > 0 ? Matrix3::Identity() : axisAngle(Vector3::UnitX(), M_PI))
                              : axisAngle(k / s, std::atan2(s, c));
  e1 = R.col(0);
  e2 = R.col(1);
}

int jointNq(JointType type) {
  switch (type) {
    case JointType::kFixed: return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic: return 1;
    case JointType::kCylindrical:
    case JointType::kUniversal: return 2;
    case JointType::kPlanar: return 3;
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
    case JointType::kPlanar:
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
    case JointType::kPlanar: return "planar";
    case JointType::kSpherical: return "spherical";
    case JointType::kFree: return "free";
  }
  return "?";
}

std::optional<JointType> jointTypeFromName(std::string_view name) {
  for (JointType t : {JointType::kFixed, JointType::kRevolute, JointType::kPrismatic,
                      JointType::kCylindrical, JointType::kUniversal, JointType::kPlanar,
                      JointType::kSpherical, JointType::kFree}) {
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
    case JointType::kPlanar: {
      Vector3 e1, e2;
      planarBasis(j.axis, e1, e2);
      return {axisAngle(j.axis, q[2]), q[0] * e1 + q[1] * e2};
    }
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
    case JointType::kPlanar: {
      // v_B = Rᵀ (ẋ e1 + ẏ e2), ω_B = θ̇ axis, with R the rotation by θ about axis.
      Vector3 e1, e2;
      planarBasis(j.axis, e1, e2);
      const Matrix3 Rt = axisAngle(j.axis, q[2]).transpose();
      S.leftCols<3>().setZero();
      S.col(0).head<3>() = Rt * e1;
      S.col(1).head<3>() = Rt * e2;
      S.col(2).tail<3>() = j.axis;
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

void jointSubspaceRate(const Joint& j, const Matrix6& S, const double* v, Matrix6& Sdot) {
  Sdot.leftCols(j.nv).setZero();
  if (j.type == JointType::kUniversal) {
    // d/dt (R2ᵀ a1) = -q̇2 a2 × (R2ᵀ a1)
    Sdot.col(0).tail<3>() = -v[1] * j.axis2.cross(Vector3(S.col(0).tail<3>()));
  } else if (j.type == JointType::kPlanar) {
    // d/dt (Rᵀ e) = -θ̇ axis × (Rᵀ e)
    for (int k = 0; k < 2; ++k) Sdot.col(k).head<3>() = -v[2] * j.axis.cross(Vector3(S.col(k).head<3>()));
  }
}

Vector6 jointVelocityProduct(const Joint& j, const double* q, const double* v) {
  Vector6 c = Vector6::Zero();
  if (j.type == JointType::kUniversal) {
    // d/dt (R2^T a1) = -q̇2 a2 × (R2^T a1)
    const Vector3 a1_B = axisAngle(j.axis2, q[1]).transpose() * j.axis;
    c.tail<3>() = -v[0] * v[1] * j.axis2.cross(a1_B);
  } else if (j.type == JointType::kPlanar) {
    // d/dt (Rᵀ e) = -θ̇ axis × (Rᵀ e)
    Vector3 e1, e2;
    planarBasis(j.axis, e1, e2);
    const Vector3 v_B = axisAngle(j.axis, q[2]).transpose() * (v[0] * e1 + v[1] * e2);
    c.head<3>() = -v[2] * j.axis.cross(v_B);
  }
  return c;
}

}  // namespace grapple::core
