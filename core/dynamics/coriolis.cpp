#include "core/dynamics/coriolis.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {

namespace {

// The body term B of a body of inertia M = [m 1, -h×; h×, I_O] moving with t = [v; ω], in closed
// form: with p = m v + ω × h (the linear momentum) and L = h × v + I_O ω,
//   B = ½ (t ×f M - M t ×m + (M t) ×̄f) = [0, -p×; 0, ½ (-L× - h vᵀ - v hᵀ + 2 (h·v) 1 - I_O ω× + ω× I_O)]
// (the blocks of M t ×m + (M t ×m)ᵀ simplify with [ω×, h×] = (ω × h)×). Its left columns are zero;
// writes the right ones into B.
void bodyTerm(const Inertia& M, const Vector6& t, Matrix6& B) {
  const Vector3 v = t.head<3>(), w = t.tail<3>();
  const Vector3 p = M.m * v + w.cross(M.h);
  const Vector3 L = M.h.cross(v) + M.I * w;
  const Matrix3 W = skew(w);
  const Matrix3 IW = M.I * W;
  B.topRightCorner<3, 3>() = -skew(p);
  B.bottomRightCorner<3, 3>() = 0.5 * (-skew(L) - M.h * v.transpose() - v * M.h.transpose() - IW -
                                       IW.transpose()) +
                                M.h.dot(v) * Matrix3::Identity();
}

}  // namespace

const Eigen::MatrixXd& coriolisMatrix(const Model& m, Data& d, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v) {
  if (m.hasMimicJoints()) return mimic::coriolisMatrix(m, d, q, v);
  if (m.hasFlexibleBodies()) return general::coriolisMatrix(m, d, q, v);
  detail::checkSize(q.size(), m.nq, "q", "coriolisMatrix");
  detail::checkSize(v.size(), m.nv, "v", "coriolisMatrix");
  // Everything in inertial-frame components at the inertial origin (as Pinocchio's
  // computeCoriolisMatrix): the composites are then sums and the walk to the base is dot
  // products, with no change of frame per ancestor.
  // Outward: placements, twists, P_i and Ṗ_i, the inertias and the body terms.
  Matrix6 dS;  // dP_i/dt in body components (non-zero for the universal and planar joints)
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    detail::updateJointPlacement(m, d, i, q.data());
    const int p = m.parent[i];
    const Transform& X = d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
    Vector6& t = d.t_world[i];
    t = p < 0 ? Vector6::Zero() : d.t_world[p];
    for (int k = 0; k < j.nv; ++k) {
      d.S_world.col(j.idx_v + k) = motionToParent(X, d.S[i].col(k));
      t += d.S_world.col(j.idx_v + k) * v[j.idx_v + k];
    }
    const bool varying = jointSubspaceVaries(j.type);
    if (varying) jointSubspaceRate(j, d.S[i], v.data() + j.idx_v, dS);
    for (int k = 0; k < j.nv; ++k) {
      auto Sd = d.Sdot_world.col(j.idx_v + k);
      Sd = crossMotion(t, d.S_world.col(j.idx_v + k));
      if (varying) Sd += motionToParent(X, dS.col(k));
    }
    d.Ic_world[i] = m.inertia[i].toParent(X);
    d.Bc[i].leftCols<3>().setZero();
    bodyTerm(d.Ic_world[i], t, d.Bc[i]);
  }
  // Inward: composites M̂_i and B̂_i.
  for (int i = m.nbodies - 1; i > 0; --i) {
    const int p = m.parent[i];
    d.Ic_world[p] += d.Ic_world[i];
    d.Bc[p].rightCols<3>() += d.Bc[i].rightCols<3>();
  }
  // One walk to the base per joint, column by column with fixed-size 6-vectors (small
  // dynamic-size products cost more in call overhead than in flops here).
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    const Inertia& Mc = d.Ic_world[i];
    const Matrix3 B12 = d.Bc[i].topRightCorner<3, 3>(), B22 = d.Bc[i].bottomRightCorner<3, 3>();
    for (int k = 0; k < nvi; ++k) {
      // M̂_i P_i, B̂_iᵀ P_i and M̂_i Ṗ_i + B̂_i P_i (column k), against the ancestors' columns.
      const Vector6 s = d.S_world.col(vi + k);
      const Vector3 s_v = s.head<3>(), s_w = s.tail<3>();
      const Vector6 F1 = Mc * s;
      const Vector3 F2 = B12.transpose() * s_v + B22.transpose() * s_w;  // (its linear part is zero)
      Vector6 F3 = Mc * Vector6(d.Sdot_world.col(vi + k));
      F3.head<3>() += B12 * s_w;
      F3.tail<3>() += B22 * s_w;
      for (int l = 0; l < nvi; ++l) d.C(vi + l, vi + k) = d.S_world.col(vi + l).dot(F3);
      for (int p = m.parent[i]; p >= 0; p = m.parent[p]) {
        const Joint& jp = m.joint[p];
        for (int vp = jp.idx_v; vp < jp.idx_v + jp.nv; ++vp) {
          d.C(vi + k, vp) = F1.dot(d.Sdot_world.col(vp)) + F2.dot(d.S_world.col(vp).tail<3>());
          d.C(vp, vi + k) = d.S_world.col(vp).dot(F3);
        }
      }
    }
  }
  return d.C;
}

}  // namespace grapple::core
