// Internal helpers shared by the recursions (not part of the public API).
#pragma once

#include <stdexcept>
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
inline void updateJointPlacement(const Model& m, Data& d, int i, const double* q) {
  const Joint& j = m.joint[i];
  const Transform& Xpj = m.X_parent_joint[i];
  const double* qi = q + j.idx_q;
  Transform& X = d.X_parent[i];
  switch (j.type) {
    case JointType::kFixed:
      X = Xpj;
      break;
    case JointType::kRevolute:
      X.R.noalias() = Xpj.R * axisAngle(j.axis, qi[0]);
      X.p = Xpj.p;
      break;
    case JointType::kPrismatic:
      X.R = Xpj.R;
      X.p.noalias() = Xpj.R * (j.axis * qi[0]);
      X.p += Xpj.p;
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

// P_i x for the joint-space vector x of body i (x points at the joint's first coordinate).
inline Vector6 jointMotion(const Matrix6& S, int nv, const double* x) {
  switch (nv) {
    case 0: return Vector6::Zero();
    case 1: return S.col(0) * x[0];
    case 6: return Eigen::Map<const Vector6>(x);  // only the free joint has 6 DOF: P = I
    default: {
      Vector6 r = S.col(0) * x[0];
      for (int k = 1; k < nv; ++k) r += S.col(k) * x[k];
      return r;
    }
  }
}

// out = P_iᵀ f
inline void jointProject(const Matrix6& S, int nv, const Vector6& f, double* out) {
  if (nv == 6) {  // free joint: P = I
    Eigen::Map<Vector6> out6(out);
    out6 = f;
    return;
  }
  for (int k = 0; k < nv; ++k) out[k] = S.col(k).dot(f);
}

}  // namespace grapple::core::detail
