#include "core/dynamics/mass_matrix.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {

const Eigen::MatrixXd& massMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  if (m.hasMimicJoints()) return mimic::massMatrix(m, d, q);
  if (m.hasFlexibleBodies()) return general::massMatrix(m, d, q);
  detail::checkSize(q.size(), m.nq, "q", "massMatrix");
  for (int i = 0; i < m.nbodies; ++i) {
    detail::updateJointPlacement(m, d, i, q.data());
    d.Ic[i] = m.inertia[i];
  }
  for (int i = m.nbodies - 1; i > 0; --i) {
    d.Ic[m.parent[i]] += d.Ic[i].toParent(d.X_parent[i]);
  }
  Eigen::MatrixXd& H = d.H;
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    if (nvi == 1) {
      // F = M̂_i P_i, carried to each ancestor j as A_{i,j}ᵀ M̂_i P_i; H(j, i) = P_jᵀ F.
      const int k = detail::unitAxisIndex(ji.type);
      Vector6 F = d.Ic[i].column(k);
      H(vi, vi) = F[k] + m.armature[vi];
      for (int c = i, p = m.parent[i]; p >= 0; c = p, p = m.parent[p]) {
        F = forceToParent(d.X_parent[c], F);
        const Joint& jp = m.joint[p];
        if (jp.nv == 0) continue;
        detail::jointProject(jp, d.S[p], F, &H(jp.idx_v, vi));
        for (int r = 0; r < jp.nv; ++r) H(vi, jp.idx_v + r) = H(jp.idx_v + r, vi);
      }
      continue;
    }
    // Multi-DOF joints: the same with one column per DOF.
    Matrix6 F;
    if (nvi == 6) {
      F = d.Ic[i].matrix();
    } else {
      for (int k = 0; k < nvi; ++k) F.col(k) = d.Ic[i] * d.S[i].col(k);
    }
    for (int k = 0; k < nvi; ++k) detail::jointProject(ji, d.S[i], F.col(k), &H(vi, vi + k));
    for (int k = 0; k < nvi; ++k) H(vi + k, vi + k) += m.armature[vi + k];
    for (int c = i, p = m.parent[i]; p >= 0; c = p, p = m.parent[p]) {
      for (int k = 0; k < nvi; ++k) F.col(k) = forceToParent(d.X_parent[c], F.col(k));
      const Joint& jp = m.joint[p];
      if (jp.nv == 0) continue;
      for (int k = 0; k < nvi; ++k) detail::jointProject(jp, d.S[p], F.col(k), &H(jp.idx_v, vi + k));
      H.block(vi, jp.idx_v, nvi, jp.nv) = H.block(jp.idx_v, vi, jp.nv, nvi).transpose();
    }
  }
  return H;
}

void massMatrixAndBias(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const BodyWrenches* fext) {
  if (m.hasFlexibleBodies() && !m.hasMimicJoints()) return general::massMatrixAndBias(m, d, q, v, fext);
  massMatrix(m, d, q);
  nonlinearEffects(m, d, q, v, fext);
}

}  // namespace grapple::core
