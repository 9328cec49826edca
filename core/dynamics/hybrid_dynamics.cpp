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
  const Eigen::VectorXd h = nonlinearEffects(m, d, q, v, fext);
  const Eigen::MatrixXd& H = massMatrix(m, d, q);
  d.ddq.setZero();
  d.tau = x;
  for (int i : prescribed) d.ddq[i] = x[i];
  if (!free.empty()) {
    // rhs = τ_f - h_f - H_fp q̈_p
    Eigen::VectorXd rhs = x(free) - h(free);
    if (!prescribed.empty()) rhs.noalias() -= H(free, prescribed) * x(prescribed);
    const Eigen::MatrixXd Hff = H(free, free);
    const Eigen::VectorXd a_free = Hff.llt().solve(rhs);
    d.ddq(free) = a_free;
  }
  if (!prescribed.empty()) {
    d.tau(prescribed) = H(prescribed, Eigen::all) * d.ddq + h(prescribed);
  }
  return d.tau;
}

}  // namespace grapple::core
