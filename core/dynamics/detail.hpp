// Internal helpers shared by the recursions (not part of the public API).
#pragma once

#include <stdexcept>
#include <cmath>
#include <string>

#include "core/dynamics/data.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core::detail {

// Throws std::invalid_argument when a vector argument has the wrong size (Pinocchio's
// PINOCCHIO_CHECK_ARGUMENT_SIZE); the message names the argument and both sizes.
inline void checkSize(Eigen::Index got, int expected, const char* what, const char* where) {
  if (got != expected) {
    throw std::invalid_argument(std::string(where) + ": " + what + " has size " +
                                std::to_string(got) + ", expected " + std::to_string(expected));
  }
}

// Pose of body i in its parent for configuration q, and P_i where it depends on q.
// Revolute and prismatic joints act about or along the body z axis (see Model).
inline void updateJointPlacement(const Model& m, Data& d, int i, const double* q) {
  const Joint& j = m.joint[i];
  const Transform& Xpj = m.X_parent_joint[i];
  const double* qi = q + j.idx_q;
  Transform& X = d.X_parent[i];
  switch (j.type) {
    case JointType::kFixed:
      X = Xpj;
      break;
    case JointType::kRevolute: {
      // R = Rpj Rz(q): the first two columns turn, the third stays.
      const double c = std::cos(qi[0]), s = std::sin(qi[0]);
      X.R.col(0) = c * Xpj.R.col(0) + s * Xpj.R.col(1);
      X.R.col(1) = c * Xpj.R.col(1) - s * Xpj.R.col(0);
      X.R.col(2) = Xpj.R.col(2);
      X.p = Xpj.p;
      break;
    }
    case JointType::kPrismatic:
      X.R = Xpj.R;
      X.p = Xpj.p + qi[0] * Xpj.R.col(2);
      break;
    case JointType::kUniversal:
      jointMotionSubspace(j, qi, d.S[i]);
      X = Xpj * jointTransform(j, qi);
      break;
    default:
      X = Xpj * jointTransform(j, qi);
      break;
  }
}

// Index in [v; ω] of the one non-zero (unit) entry of P_i for 1-DOF joints: 5 (ω_z) for a
// revolute joint, 2 (v_z) for a prismatic one.
inline int unitAxisIndex(JointType type) { return type == JointType::kRevolute ? 5 : 2; }

// P_i x for the joint-space vector x of body i (x points at the joint's first coordinate).
inline Vector6 jointMotion(const Joint& j, const Matrix6& S, const double* x) {
  switch (j.nv) {
    case 0: return Vector6::Zero();
    case 1: {
      Vector6 r = Vector6::Zero();
      r[unitAxisIndex(j.type)] = x[0];
      return r;
    }
    case 6: return Eigen::Map<const Vector6>(x);  // only the free joint has 6 DOF: P = I
    default: {
      Vector6 r = S.col(0) * x[0];
      for (int k = 1; k < j.nv; ++k) r += S.col(k) * x[k];
      return r;
    }
  }
}

// out = P_iᵀ f
inline void jointProject(const Joint& j, const Matrix6& S, const Vector6& f, double* out) {
  switch (j.nv) {
    case 0: return;
    case 1: out[0] = f[unitAxisIndex(j.type)]; return;
    case 6: {
      Eigen::Map<Vector6> out6(out);  // free joint: P = I
      out6 = f;
      return;
    }
    default:
      for (int k = 0; k < j.nv; ++k) out[k] = S.col(k).dot(f);
  }
}

}  // namespace grapple::core::detail
