#include "core/dynamics/mass_matrix.hpp"

#include "core/dynamics/detail.hpp"

namespace grapple::core {

const Eigen::MatrixXd& massMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  detail::checkSize(q.size(), m.nq, "q", "massMatrix");
  for (int i = 0; i < m.nbodies; ++i) {
    detail::updateJointPlacement(m, d, i, q.data());
    d.Ic[i] = m.inertia[i];
  }
  for (int i = m.nbodies - 1; i > 0; --i) {
    d.Ic[m.parent[i]] += d.Ic[i].toParent(d.X_parent[i]);
  }
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    // F = M̂_i P_i, carried to each ancestor j: A_{i,j}ᵀ M̂_i P_i, then H(j, i) = P_jᵀ F.
    Matrix6 F;
    if (nvi == 6) {
      F = d.Ic[i].matrix();
    } else {
      for (int k = 0; k < nvi; ++k) F.col(k) = d.Ic[i] * d.S[i].col(k);
    }
    for (int k = 0; k < nvi; ++k) {
      detail::jointProject(d.S[i], nvi, F.col(k), &d.H(vi, vi + k));
    }
    for (int k = 0; k < nvi; ++k) d.H(vi + k, vi + k) += m.armature[vi + k];
    for (int c = i, p = m.parent[i]; p >= 0; c = p, p = m.parent[p]) {
      for (int k = 0; k < nvi; ++k) F.col(k) = forceToParent(d.X_parent[c], F.col(k));
      const Joint& jp = m.joint[p];
      if (jp.nv == 0) continue;
      for (int k = 0; k < nvi; ++k) {
        detail::jointProject(d.S[p], jp.nv, F.col(k), &d.H(jp.idx_v, vi + k));
      }
      d.H.block(vi, jp.idx_v, nvi, jp.nv) = d.H.block(jp.idx_v, vi, jp.nv, nvi).transpose();
    }
  }
  return d.H;
}

}  // namespace grapple::core
