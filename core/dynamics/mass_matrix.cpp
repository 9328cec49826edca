#include "core/dynamics/mass_matrix.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {

// The composite-body recursion (Alg. A.1), with H's entries off the diagonal blocks taken in one
// frame. The thesis carries the wrench M̂_i P_i down the path to the root one body frame at a time,
// H(j, i) = P_jᵀ A_{i,j}ᵀ M̂_i P_i: a spatial transform per entry of H. Carried once to the root
// body's frame, F = A_{i,0}ᵀ M̂_i P_i, the entry is H(j, i) = P_{j,0}ᵀ F with every ancestor's P_j
// also at the root's origin in its components (Pinocchio's crba does this in the inertial frame,
// Carpentier et al. 2019; the root's frame spares the root's own rows, F itself, P_0 being I, and
// the poses of the root's children), and body i's column between the root's rows and its diagonal
// block is Σ_r F_r · (row r of P over the ancestors' coordinates): six contiguous multiply-adds
// per run of those coordinates, which vectorize. O(n·depth) either way; the composites M̂_i and
// the diagonal blocks stay in body components as the thesis has them (a body's own block is the
// same to the last bit; the rest differs at round-off), so a body costs one composition of its
// pose and one wrench moved more, and an entry six multiply-adds instead of a wrench moved one
// body down.
const Eigen::MatrixXd& massMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  if (m.hasMimicJoints()) return mimic::massMatrix(m, d, q);
  if (m.hasFlexibleBodies()) return general::massMatrix(m, d, q);
  detail::checkSize(q.size(), m.nq, "q", "massMatrix");
  for (int i = 0; i < m.nbodies; ++i) {
    detail::updateJointPlacement(m, d, i, q.data());
    d.Ic[i] = m.inertia[i];
    const int p = m.parent[i];
    if (p < 0) continue;
    const Transform& X = d.X_root[i] = p == 0 ? d.X_parent[i] : d.X_root[p] * d.X_parent[i];
    const Joint& j = m.joint[i];
    for (int k = 0; k < j.nv; ++k) d.S_root.col(j.idx_v + k) = motionToParent(X, Vector6(d.S[i].col(k)));
  }
  for (int i = m.nbodies - 1; i > 0; --i) {
    d.Ic[m.parent[i]] += d.Ic[i].toParent(d.X_parent[i]);
  }
  Eigen::MatrixXd& H = d.H;
  if (m.nbodies == 0) return H;
  const Joint& root = m.joint[0];
  const int stride = static_cast<int>(d.S_root.outerStride());
  // Column c of H above its body's diagonal block, from F = M̂_i P_i e_k in body i's components.
  const auto ancestorRows = [&](int i, const Vector6& F, int c) {
    const Vector6 F_0 = forceToParent(d.X_root[i], F);
    if (root.nv > 0) {
      detail::jointProject(root, d.S[0], F_0, &H(root.idx_v, c));
      for (int r = 0; r < root.nv; ++r) H(c, root.idx_v + r) = H(root.idx_v + r, c);
    }
    for (int run = d.ancestor_runs_begin[i]; run < d.ancestor_runs_begin[i + 1]; ++run) {
      const auto [s, len] = d.ancestor_runs[run];
      const double* P = d.S_root.data() + s;  // row r of P over the run: P[r * stride + e]
      double* column = &H(s, c);
      for (int e = 0; e < len; ++e) {
        column[e] = F_0[0] * P[e] + F_0[1] * P[stride + e] + F_0[2] * P[2 * stride + e] +
                    F_0[3] * P[3 * stride + e] + F_0[4] * P[4 * stride + e] + F_0[5] * P[5 * stride + e];
      }
      for (int e = 0; e < len; ++e) H(c, s + e) = column[e];
    }
  };
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& ji = m.joint[i];
    const int nvi = ji.nv, vi = ji.idx_v;
    if (nvi == 0) continue;
    if (nvi == 1) {
      const int k = detail::unitAxisIndex(ji.type);
      const Vector6 F = d.Ic[i].column(k);
      H(vi, vi) = F[k] + m.armature[vi];
      if (i > 0) ancestorRows(i, F, vi);
      continue;
    }
    // Multi-DOF joints: the same with one column per DOF.
    Matrix6 F;
    if (nvi == 6) {
      F = d.Ic[i].matrix();
    } else {
      for (int k = 0; k < nvi; ++k) F.col(k) = d.Ic[i] * d.S[i].col(k);
    }
    for (int k = 0; k < nvi; ++k) {
      detail::jointProject(ji, d.S[i], F.col(k), &H(vi, vi + k));
      H(vi + k, vi + k) += m.armature[vi + k];
      if (i > 0) ancestorRows(i, F.col(k), vi + k);
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
