#include "core/dynamics/inverse_dynamics.hpp"

#include <Eigen/Cholesky>

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {
namespace {

void checkInputs(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                 const BodyWrenches* fext, const char* where) {
  detail::checkSize(q.size(), m.nq, "q", where);
  detail::checkSize(v.size(), m.nv, "v", where);
  if (fext != nullptr) {
    detail::checkSize(static_cast<Eigen::Index>(fext->size()), m.nbodies, "fext", where);
  }
}

}  // namespace

const Eigen::VectorXd& inverseDynamics(const Model& m, Data& d, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                       const BodyWrenches* fext) {
  if (m.hasMimicJoints()) return mimic::inverseDynamics(m, d, q, v, a, fext);
  if (m.hasFlexibleBodies()) return general::inverseDynamics(m, d, q, v, a, fext);
  checkInputs(m, q, v, fext, "inverseDynamics");
  detail::checkSize(a.size(), m.nv, "a", "inverseDynamics");
  detail::newtonEulerOutward(m, d, q, v, a.data(), fext);
  // Inward pass: w_i = W_i + Σ_children A_{c,i}ᵀ w_c, τ_i = P_iᵀ w_i (eq. 4.42).
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& j = m.joint[i];
    detail::jointProject(j, d.S[i], d.w[i], d.tau.data() + j.idx_v);
    const int p = m.parent[i];
    if (p >= 0) addForceToParent(d.X_parent[i], d.w[i], d.w[p]);
  }
  d.tau.array() += m.armature.array() * a.array();
  return d.tau;
}

const Eigen::VectorXd& nonlinearEffects(const Model& m, Data& d, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const BodyWrenches* fext) {
  if (m.hasMimicJoints()) return mimic::nonlinearEffects(m, d, q, v, fext);
  if (m.hasFlexibleBodies()) return general::nonlinearEffects(m, d, q, v, fext);
  checkInputs(m, q, v, fext, "nonlinearEffects");
  detail::newtonEulerOutward(m, d, q, v, nullptr, fext);
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& j = m.joint[i];
    detail::jointProject(j, d.S[i], d.w[i], d.h.data() + j.idx_v);
    const int p = m.parent[i];
    if (p >= 0) addForceToParent(d.X_parent[i], d.w[i], d.w[p]);
  }
  return d.h;
}

const Eigen::VectorXd& inverseDynamicsFloatingBase(const Model& m, Data& d,
                                                   const Eigen::VectorXd& q,
                                                   const Eigen::VectorXd& v,
                                                   const Eigen::VectorXd& a,
                                                   const BodyWrenches* fext) {
  if (!m.hasFreeBase()) {
    throw std::invalid_argument("inverseDynamicsFloatingBase: the model has a fixed base");
  }
  if (m.hasMimicJoints()) return mimic::inverseDynamicsFloatingBase(m, d, q, v, a, fext);
  checkInputs(m, q, v, fext, "inverseDynamicsFloatingBase");
  detail::checkSize(a.size(), m.nv, "a", "inverseDynamicsFloatingBase");
  if (m.hasFlexibleBodies()) {
    // From the blocks of H: H00 a_b = -(h_0 + H_0m a_m), then τ_m = H_m0 a_b + H_mm a_m + h_m.
    const Eigen::MatrixXd& H = general::massMatrix(m, d, q);
    const Eigen::VectorXd h = general::nonlinearEffects(m, d, q, v, fext);
    const int n = m.nv - 6;
    d.ddq = a;
    d.ddq.head<6>() = H.topLeftCorner<6, 6>().llt().solve(
        -(h.head<6>() + H.topRightCorner(6, n) * a.tail(n)));
    general::inverseDynamics(m, d, q, v, d.ddq, fext);  // the joint wrenches, for the reaction
    d.tau.head<6>().setZero();
    return d.tau;
  }
  // 1. Newton–Euler with the base held (zero base acceleration), the joints accelerating as
  //    asked; accumulate the joint wrenches and the composite inertias M̂_i.
  d.ddq = a;
  d.ddq.head<6>().setZero();
  detail::newtonEulerOutward(m, d, q, v, d.ddq.data(), fext);
  for (int i = 0; i < m.nbodies; ++i) d.Ic[i] = m.inertia[i];
  for (int i = m.nbodies - 1; i > 0; --i) {
    const int p = m.parent[i];
    addForceToParent(d.X_parent[i], d.w[i], d.w[p]);
    d.Ic[p] += d.Ic[i].toParent(d.X_parent[i]);
  }
  // 2. The base is free: M̂_0 a_b + w_0 = 0 gives the base acceleration (SPART: u̇0 = -H0⁻¹ τ0').
  BlockSolve6 H0;
  H0.compute(d.Ic[0].matrix());
  const Vector6 a_base = H0.solve(-d.w[0]);
  d.ddq.head<6>() = a_base;
  // 3. Outward: the base acceleration adds M̂_i A_{i,0} a_b to the wrench through every joint.
  d.mu[0] = a_base;
  d.tau.head<6>().setZero();
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    d.mu[i] = motionToChild(d.X_parent[i], d.mu[m.parent[i]]);
    d.w[i] += d.Ic[i] * d.mu[i];
    d.a[i] += d.mu[i];
    detail::jointProject(j, d.S[i], d.w[i], d.tau.data() + j.idx_v);
  }
  d.a[0] += a_base;
  d.w[0].setZero();  // nothing acts on the base through its (free, unactuated) joint
  d.tau.array() += m.armature.array() * d.ddq.array();
  return d.tau;
}

Vector6 baseReactionWrench(const Model& m, const Data& d) {
  Vector6 r = Vector6::Zero();
  for (int c : m.children[0]) r -= forceToParent(d.X_parent[c], d.w[c]);
  return r;
}

}  // namespace grapple::core
