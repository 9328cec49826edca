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

// Adds to the parent's B̂ the child's carried over, Āᵀ B Ā, for a B with zero left columns (which
// stay zero: B sees only the angular velocity, which the change of point keeps):
//   B12 → R B12 Rᵀ,  B22 → R B22 Rᵀ + p× R B12 Rᵀ.
void addBodyTermToParent(const Transform& X_PC, const Matrix6& B, Matrix6& B_parent) {
  const Matrix3& R = X_PC.R;
  const Matrix3 B12 = R * B.topRightCorner<3, 3>() * R.transpose();
  B_parent.topRightCorner<3, 3>() += B12;
  B_parent.bottomRightCorner<3, 3>() += R * B.bottomRightCorner<3, 3>() * R.transpose() + skew(X_PC.p) * B12;
}

}  // namespace

const Eigen::MatrixXd& coriolisMatrix(const Model& m, Data& d, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v) {
  if (m.hasMimicJoints()) return mimic::coriolisMatrix(m, d, q, v);
  if (m.hasFlexibleBodies()) return general::coriolisMatrix(m, d, q, v);
  detail::checkSize(q.size(), m.nq, "q", "coriolisMatrix");
  detail::checkSize(v.size(), m.nv, "v", "coriolisMatrix");
  // Outward: kinematics, Ṗ_i, and the body terms.
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    detail::updateJointPlacement(m, d, i, q.data());
    const Vector6 vJ = detail::jointMotion(j, d.S[i], v.data() + j.idx_v);
    const int p = m.parent[i];
    d.t[i] = p < 0 ? vJ : Vector6(motionToChild(d.X_parent[i], d.t[p]) + vJ);
    const Vector6& t = d.t[i];
    jointSubspaceRate(j, d.S[i], v.data() + j.idx_v, d.Sdot[i]);
    for (int k = 0; k < j.nv; ++k) d.Sdot[i].col(k) += crossMotion(t, d.S[i].col(k));
    d.Bc[i].leftCols<3>().setZero();
    bodyTerm(m.inertia[i], t, d.Bc[i]);
    d.Ic[i] = m.inertia[i];
  }
  // Inward: composites M̂_i and B̂_i.
  for (int i = m.nbodies - 1; i > 0; --i) {
    const int p = m.parent[i];
    d.Ic[p] += d.Ic[i].toParent(d.X_parent[i]);
    addBodyTermToParent(d.X_parent[i], d.Bc[i], d.Bc[p]);
  }
  // One walk to the base per joint, column by column with fixed-size 6-vectors (small
  // dynamic-size products cost more in call overhead than in flops here).
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    const Inertia& Mc = d.Ic[i];
    const Matrix3 B12 = d.Bc[i].topRightCorner<3, 3>(), B22 = d.Bc[i].bottomRightCorner<3, 3>();
    for (int k = 0; k < nvi; ++k) {
      // M̂_i P_i, B̂_iᵀ P_i and M̂_i Ṗ_i + B̂_i P_i (column k), carried to the ancestors.
      const Vector6 s = d.S[i].col(k);
      const Vector3 s_v = s.head<3>(), s_w = s.tail<3>();
      Vector6 F1 = Mc * s;
      Vector3 F2 = B12.transpose() * s_v + B22.transpose() * s_w;  // (its linear part is zero)
      Vector6 F3 = Mc * Vector6(d.Sdot[i].col(k));
      F3.head<3>() += B12 * s_w;
      F3.tail<3>() += B22 * s_w;
      for (int l = 0; l < nvi; ++l) d.C(vi + l, vi + k) = d.S[i].col(l).dot(F3);
      for (int c = i, p = m.parent[i]; p >= 0; c = p, p = m.parent[p]) {
        F1 = forceToParent(d.X_parent[c], F1);
        F2 = d.X_parent[c].R * F2;
        F3 = forceToParent(d.X_parent[c], F3);
        const Joint& jp = m.joint[p];
        for (int l = 0; l < jp.nv; ++l) {
          const int vp = jp.idx_v + l;
          d.C(vi + k, vp) = F1.dot(d.Sdot[p].col(l)) + F2.dot(d.S[p].col(l).tail<3>());
          d.C(vp, vi + k) = d.S[p].col(l).dot(F3);
        }
      }
    }
  }
  return d.C;
}

}  // namespace grapple::core
