#include "core/dynamics/coriolis.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"

namespace grapple::core {

const Eigen::MatrixXd& coriolisMatrix(const Model& m, Data& d, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v) {
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
    for (int k = 0; k < j.nv; ++k) d.Sdot[i].col(k) = crossMotion(t, d.S[i].col(k));
    if (j.type == JointType::kUniversal) {
      // dP/dt of the first column: -q̇2 a2 × (R2ᵀ a1) (see jointVelocityProduct).
      d.Sdot[i].col(0).tail<3>() -=
          v[j.idx_v + 1] * j.axis2.cross(d.S[i].col(0).tail<3>());
    }
    const Inertia& I = m.inertia[i];
    const Matrix6 M = I.matrix();
    d.Bc[i] = 0.5 * (crossForceMatrix(t) * M - M * crossMotionMatrix(t) + crossForceBarMatrix(I * t));
    d.Ic[i] = I;
  }
  // Inward: composites M̂_i and B̂_i.
  for (int i = m.nbodies - 1; i > 0; --i) {
    const int p = m.parent[i];
    d.Ic[p] += d.Ic[i].toParent(d.X_parent[i]);
    d.Bc[p] += congruenceToParent(d.X_parent[i], d.Bc[i]);
  }
  // One walk to the base per joint.
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    const Matrix6 Mc = d.Ic[i].matrix();
    Matrix6 F1, F2, F3;  // M̂_i P_i, B̂_iᵀ P_i, M̂_i Ṗ_i + B̂_i P_i; carried to the ancestors
    F1.leftCols(nvi).noalias() = Mc * d.S[i].leftCols(nvi);
    F2.leftCols(nvi).noalias() = d.Bc[i].transpose() * d.S[i].leftCols(nvi);
    F3.leftCols(nvi).noalias() = Mc * d.Sdot[i].leftCols(nvi);
    F3.leftCols(nvi).noalias() += d.Bc[i] * d.S[i].leftCols(nvi);
    d.C.block(vi, vi, nvi, nvi).noalias() = d.S[i].leftCols(nvi).transpose() * F3.leftCols(nvi);
    for (int c = i, p = m.parent[i]; p >= 0; c = p, p = m.parent[p]) {
      for (int k = 0; k < nvi; ++k) {
        F1.col(k) = forceToParent(d.X_parent[c], F1.col(k));
        F2.col(k) = forceToParent(d.X_parent[c], F2.col(k));
        F3.col(k) = forceToParent(d.X_parent[c], F3.col(k));
      }
      const Joint& jp = m.joint[p];
      const int nvp = jp.nv, vp = jp.idx_v;
      if (nvp == 0) continue;
      d.C.block(vi, vp, nvi, nvp).noalias() =
          F1.leftCols(nvi).transpose() * d.Sdot[p].leftCols(nvp);
      d.C.block(vi, vp, nvi, nvp).noalias() +=
          F2.leftCols(nvi).transpose() * d.S[p].leftCols(nvp);
      d.C.block(vp, vi, nvp, nvi).noalias() =
          d.S[p].leftCols(nvp).transpose() * F3.leftCols(nvi);
    }
  }
  return d.C;
}

}  // namespace grapple::core
