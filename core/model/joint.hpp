// Joints: the motion a body may have relative to its parent.
//
// Every joint connects a joint frame J (fixed in the parent body, placed by Model::X_parent_joint)
// to the child body frame B. The joint model gives the pose X_JB(q), the joint-rate propagation
// matrix P (6 x nv, thesis eq. 4.29b; Featherstone's motion subspace S) in B components, and the
// velocity-product term Ṗ q̇ (non-zero only where P depends on q, i.e. the universal joint).
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
  kSpherical,    // 3 DOF; q = unit quaternion [w x y z] of B in J, v = ω of B in J, B components
  kFree,         // 6 DOF (a free base or a floating joint); q = [p_JB (3); quaternion (4)],
                 // v = twist [v; ω] of B in B components
};

struct Joint {
  JointType type = JointType::kFixed;
  std::string name;
  Vector3 axis = Vector3::UnitZ();   // unit, in the joint frame
  Vector3 axis2 = Vector3::UnitY();  // universal joint only: unit, perpendicular to axis
  int nq = 0, nv = 0;                // sizes of its configuration and velocity
  int idx_q = 0, idx_v = 0;          // offsets in q and v
};

int jointNq(JointType type);
int jointNv(JointType type);
std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);

// Pose of the body frame B in the joint frame J for the joint configuration q (q points at the
// joint's first coordinate). Quaternions are normalized on the fly.
Transform jointTransform(const Joint& joint, const double* q);
// Joint-rate propagation matrix P in B components: the leading nv columns of S are set.
void jointMotionSubspace(const Joint& joint, const double* q, Matrix6& S);
// Ṗ q̇ in B components (the time derivative of the columns of P in B).
Vector6 jointVelocityProduct(const Joint& joint, const double* q, const double* v);

}  // namespace grapple::core
