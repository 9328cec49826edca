// Internal helpers shared by the recursions (not part of the public API).
#pragma once

#include <stdexcept>
#include <cmath>
#include <string>

#include "core/dynamics/data.hpp"
#include "core/math/rotation.hpp"
#include "core/math/sincos.hpp"

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
      double s, c;
      sinCos(qi[0], s, c);
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
    case JointType::kPlanar:
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


// Outward pass of Newton–Euler (Alg. 4.1/6.1, kinetics loop): for each body its placement, twist
// t_i = A_{i,p} t_p + P_i q̇_i, acceleration a_i = A_{i,p} a_p + P_i q̈_i + t_i ×m P_i q̇_i (+ Ṗ_i q̇_i),
// with the joint accelerations a (none when a == nullptr) and gravity as an acceleration -g of the
// inertial frame (thesis §2.1, footnote 3), and the wrench the body needs,
// W_i = M_i a_i + t_i ×f M_i t_i - f_ext,i, in d.w[i]. 1-DOF joints (about or along z) take a
// path written out in 3-vectors: it is the hot loop of every dynamics algorithm.
inline void newtonEulerOutward(const Model& m, Data& d, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& v, const double* a,
                               const BodyWrenches* fext) {
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    updateJointPlacement(m, d, i, q.data());
    const int p = m.parent[i];
    const Transform& X = d.X_parent[i];
    Vector6& t = d.t[i];
    Vector6& acc = d.a[i];
    if (p >= 0 && j.nv == 1) {
      const auto Rt = X.R.transpose();
      const Vector3 wp = d.t[p].tail<3>(), alp = d.a[p].tail<3>();
      Vector3 w, vl, al, al_lin;
      w.noalias() = Rt * wp;
      vl.noalias() = Rt * (d.t[p].head<3>() + wp.cross(X.p));
      al.noalias() = Rt * alp;
      al_lin.noalias() = Rt * (d.a[p].head<3>() + alp.cross(X.p));
      const double qd = v[j.idx_v], qdd = a != nullptr ? a[j.idx_v] : 0.0;
      if (j.type == JointType::kRevolute) {
        w.z() += qd;
        // t ×m (q̇ e_ω,z) = q̇ [v × e_z; ω × e_z]
        al_lin.x() += qd * vl.y();
        al_lin.y() -= qd * vl.x();
        al.x() += qd * w.y();
        al.y() -= qd * w.x();
        al.z() += qdd;
      } else {  // prismatic: t ×m (q̇ e_v,z) = q̇ [ω × e_z; 0]
        vl.z() += qd;
        al_lin.x() += qd * w.y();
        al_lin.y() -= qd * w.x();
        al_lin.z() += qdd;
      }
      t.head<3>() = vl;
      t.tail<3>() = w;
      acc.head<3>() = al_lin;
      acc.tail<3>() = al;
    } else {
      const Vector6 vJ = jointMotion(j, d.S[i], v.data() + j.idx_v);
      if (p < 0) {
        Vector6 a_world = Vector6::Zero();
        a_world.head<3>() = -m.gravity_W;
        t = vJ;
        acc = motionToChild(X, a_world);
      } else {
        t = motionToChild(X, d.t[p]) + vJ;
        acc = motionToChild(X, d.a[p]) + crossMotion(t, vJ);
      }
      if (a != nullptr) acc += jointMotion(j, d.S[i], a + j.idx_v);
      if (jointSubspaceVaries(j.type)) {
        acc += jointVelocityProduct(j, q.data() + j.idx_q, v.data() + j.idx_v);
      }
    }
    // W = M a + t ×f (M t), with M t = [m v - h × ω; h × v + I ω]
    const Inertia& I = m.inertia[i];
    const Vector3 vv = t.head<3>(), ww = t.tail<3>();
    const Vector3 av = acc.head<3>(), aw = acc.tail<3>();
    const Vector3 pl = I.m * vv - I.h.cross(ww);
    const Vector3 pa = I.h.cross(vv) + I.I * ww;
    Vector6& W = d.w[i];
    W.head<3>() = I.m * av - I.h.cross(aw) + ww.cross(pl);
    W.tail<3>() = I.h.cross(av) + I.I * aw + vv.cross(pl) + ww.cross(pa);
    if (fext != nullptr) W -= (*fext)[i];
  }
}

}  // namespace grapple::core::detail
