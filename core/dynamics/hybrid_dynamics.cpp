#include "core/dynamics/hybrid_dynamics.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "core/dynamics/flexible.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"

namespace grapple::core {

const Eigen::VectorXd& hybridDynamics(const Model& m, Data& d, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v, const Eigen::VectorXd& x,
                                      const std::vector<int>& prescribed,
                                      const BodyWrenches* fext) {
  if (x.size() != m.nv) {
    throw std::invalid_argument("hybridDynamics: x has size " + std::to_string(x.size()) +
                                ", expected nv = " + std::to_string(m.nv));
  }
  std::vector<int>& free = d.hybrid_free;  // Data's scratch: no allocation per call
  free.clear();
  std::size_t k = 0;
  for (int i = 0; i < m.nv; ++i) {
    if (k < prescribed.size() && prescribed[k] == i) {
      ++k;
    } else {
      free.push_back(i);
    }
  }
  if (k != prescribed.size()) {
    throw std::invalid_argument("hybridDynamics: prescribed indices must be increasing and < nv");
  }
  // Rigid models with every joint driven and no force on the base: the O(n) inverse dynamics
  // (fixed base) or floating-base inverse dynamics give the same answer without H.
  const int nb = m.baseDofs();
  const bool all_joints = !m.hasFlexibleBodies() &&
                          static_cast<int>(prescribed.size()) == m.nv - nb &&
                          (prescribed.empty() || prescribed.front() == nb);
  if (all_joints && nb == 0) {
    d.ddq = x;
    return inverseDynamics(m, d, q, v, x, fext);
  }
  if (all_joints && nb == 6 && x.head<6>().isZero(0)) {
    inverseDynamicsFloatingBase(m, d, q, v, x, fext);  // leaves the base acceleration in ddq
    return d.tau;
  }
  // With the general recursions' workspace: the O(n) articulated form, when the driven
  // coordinates are whole joints (not modal coordinates).
  if (!d.flex.empty() && !m.hasMimicJoints()) {
    std::vector<char>& driven = d.hybrid_driven;
    std::fill(driven.begin(), driven.end(), 0);
    bool whole_joints = true;
    for (int i : prescribed) driven[m.v_body[i]] = 1;
    for (int b = 0; b < m.nbodies && whole_joints; ++b) {
      if (!driven[b]) continue;
      const Joint& j = m.joint[b];
      for (int k = 0; k < j.nv; ++k) {
        whole_joints = whole_joints && std::binary_search(prescribed.begin(), prescribed.end(), j.idx_v + k);
      }
      for (int k = 0; k < m.flex[b].nf; ++k) {
        whole_joints = whole_joints && !std::binary_search(prescribed.begin(), prescribed.end(), m.flex[b].idx_v + k);
      }
    }
    if (whole_joints) return general::hybridDynamics(m, d, q, v, x, driven, fext);
  }
  // The dense form, in Data's scratch: blocks copied there (Eigen's indexed views would copy their
  // index lists, and products of them make temporaries), in buffers of the largest sizes so that
  // calls with different splits of the coordinates do not reallocate.
  const auto nf = static_cast<Eigen::Index>(free.size()), np = static_cast<Eigen::Index>(prescribed.size());
  if (d.hybrid_Hff.size() < m.nv * m.nv) {
    d.hybrid_Hff.resize(m.nv, m.nv);
    d.hybrid_Hfp.resize(m.nv, m.nv);
    d.hybrid_rhs.resize(m.nv);
    d.hybrid_x.resize(m.nv);
  }
  Eigen::VectorXd& h = d.hybrid_h;
  h = nonlinearEffects(m, d, q, v, fext);
  const Eigen::MatrixXd& H = massMatrix(m, d, q);
  d.ddq.setZero();
  d.tau = x;
  for (int i : prescribed) d.ddq[i] = x[i];
  Eigen::Map<Eigen::VectorXd> xp(d.hybrid_x.data(), np);
  if (nf > 0) {
    // rhs = τ_f - h_f - H_fp q̈_p
    Eigen::Map<Eigen::VectorXd> rhs(d.hybrid_rhs.data(), nf);
    for (Eigen::Index k = 0; k < nf; ++k) rhs[k] = x[free[k]] - h[free[k]];
    if (np > 0) {
      Eigen::Map<Eigen::MatrixXd> Hfp(d.hybrid_Hfp.data(), nf, np);
      for (Eigen::Index j = 0; j < np; ++j) {
        for (Eigen::Index i = 0; i < nf; ++i) Hfp(i, j) = H(free[i], prescribed[j]);
        xp[j] = x[prescribed[j]];
      }
      rhs.noalias() -= Hfp * xp;
    }
    Eigen::Map<Eigen::MatrixXd> Hff(d.hybrid_Hff.data(), nf, nf);
    for (Eigen::Index j = 0; j < nf; ++j) {
      for (Eigen::Index i = 0; i < nf; ++i) Hff(i, j) = H(free[i], free[j]);
    }
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(Hff);  // in place
    llt.solveInPlace(rhs);
    for (Eigen::Index k = 0; k < nf; ++k) d.ddq[free[k]] = rhs[k];
  }
  if (np > 0) {
    Eigen::Map<Eigen::MatrixXd> Hp(d.hybrid_Hfp.data(), np, m.nv);
    for (Eigen::Index i = 0; i < np; ++i) Hp.row(i) = H.row(prescribed[i]);
    xp.noalias() = Hp * d.ddq;
    for (Eigen::Index k = 0; k < np; ++k) d.tau[prescribed[k]] = xp[k] + h[prescribed[k]];
  }
  return d.tau;
}

}  // namespace grapple::core
