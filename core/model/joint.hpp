// Joints: the motion a body may have relative to its parent.
//
// Every joint connects a joint frame J (fixed in the parent body, placed by Model::X_parent_joint)
// to the child body frame B. The joint model gives the pose X_JB(q), the joint-rate propagation
// matrix P (6 x nv, thesis eq. 4.29b; Featherstone's motion subspace S) in B components, and the
// velocity-product term Ṗ q̇ (non-zero only where P depends on q: the universal and planar joints).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/math/spatial.hpp"

namespace grapple::core {

enum class JointType {
  kFixed,        // 0 DOF (merged into the parent body when the model is built)
  kRevolute,     // 1 DOF rotation about `axis`; q = angle [rad]
  kPrismatic,    // 1 DOF translation along `axis`; q = displacement [m]
  kCylindrical,  // 2 DOF about and along `axis`; q = [angle, displacement]
  kUniversal,    // 2 DOF: rotation about `axis`, then about `axis2` of the rotated frame
  kPlanar,       // 3 DOF in the plane normal to `axis`: q = [x, y, angle], a shift by x e1 + y e2
                 //   then a rotation about `axis` (e1, e2, axis: planarBasis); v = q̇
  kSpherical,    // 3 DOF; q = unit quaternion [w x y z] of B in J, v = ω of B in J, B components
  kFree,         // 6 DOF (a free base or a floating joint); q = [p_JB (3); quaternion (4)],
                 // v = twist [v; ω] of B in B components
};

struct Joint {
  JointType type = JointType::kFixed;
  std::string name;
  Vector3 axis = Vector3::UnitZ();   // unit, in the joint frame
  Vector3 axis2 = Vector3::UnitY();  // universal joint only: unit, perpendicular to axis
  // A mimic joint (URDF <mimic>): a 1-DOF joint without a coordinate of its own (nq = nv = 0)
  // whose coordinate is mimic_multiplier * q_master + mimic_offset, q_master being the coordinate
  // of body mimic_body's joint. See Model::full.
  int mimic_body = -1;
  double mimic_multiplier = 1.0, mimic_offset = 0.0;
  int nq = 0, nv = 0;                // sizes of its configuration and velocity
  int idx_q = 0, idx_v = 0;          // offsets in q and v
};

bool isMimic(const Joint& joint);
// Whether P depends on q (then Ṗ q̇ != 0 and P is refreshed with the placement).
bool jointSubspaceVaries(JointType type);
// The in-plane unit vectors e1, e2 of a planar joint: e1 = R x, e2 = R y for R the rotation of
// smallest angle taking z to `axis` (for axis = z: the joint frame's x and y).
void planarBasis(const Vector3& axis, Vector3& e1, Vector3& e2);
int jointNq(JointType type);
int jointNv(JointType type);
std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);

// Pose of the body frame B in the joint frame J for the joint configuration q (q points at the
// joint's first coordinate). Quaternions are normalized on the fly.
Transform jointTransform(const Joint& joint, const double* q);
// Joint-rate propagation matrix P in B components: the leading nv columns of S are set.
void jointMotionSubspace(const Joint& joint, const double* q, Matrix6& S);
// The time derivative of the columns of P in B (its leading nv columns; zero where P is
// constant), from P (as jointMotionSubspace set it) and the joint velocity v.
void jointSubspaceRate(const Joint& joint, const Matrix6& S, const double* v, Matrix6& Sdot);
// Ṗ q̇ in B components (the time derivative of the columns of P in B).
Vector6 jointVelocityProduct(const Joint& joint, const double* q, const double* v);

}  // namespace grapple::core
