#include "core/dynamics/mimic.hpp"

#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/detail.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"

namespace grapple::core::mimic {
namespace {

// The per-body results of the full model's last algorithm, for the callers reading them.
void copyBodies(Data& d) {
  const Data& f = d.full[0];
  d.X_parent = f.X_parent;
  d.X_world = f.X_world;
  d.S = f.S;
  d.t = f.t;
  d.a = f.a;
  d.w = f.w;
  d.Ic = f.Ic;
}

// The full model, with what may have changed in the model since it was built.
const Model& full(const Model& m, Data& d) {
  Model& f = d.full_model[0];
  f.gravity_W = m.gravity_W;
  f.X_parent_joint = m.X_parent_joint;
  f.inertia = m.inertia;
  f.inertia_matrix = m.inertia_matrix;
  for (int k = 0; k < f.nv; ++k) {
    f.armature[k] = isMimic(m.joint[f.v_body[k]]) ? 0.0 : m.armature[m.mimic_v_source[k]];
  }
  return f;
}

// Gᵀ x_full
void projectVector(const Model& m, const Eigen::VectorXd& x_full, Eigen::VectorXd& x) {
  x.setZero();
  for (int k = 0; k < m.full->nv; ++k) x[m.mimic_v_source[k]] += m.mimic_v_gain[k] * x_full[k];
}

void expand(const Model& m, Data& d, const Eigen::VectorXd& q, const char* where) {
  detail::checkSize(q.size(), m.nq, "q", where);
  expandConfiguration(m, q, d.q_full);
}

void expand(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
            const char* where) {
  expand(m, d, q, where);
  detail::checkSize(v.size(), m.nv, "v", where);
  expandVelocity(m, v, d.v_full);
}

void expand(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
            const Eigen::VectorXd& a, const char* where) {
  expand(m, d, q, v, where);
  detail::checkSize(a.size(), m.nv, "a", where);
  expandVelocity(m, a, d.a_full);
}

}  // namespace

const Model& fullModel(const Model& m, Data& d) { return full(m, d); }

void projectMatrix(const Model& m, const Eigen::MatrixXd& A_full, Eigen::MatrixXd& A) {
  A.setZero();
  const int n = m.full->nv;
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < n; ++r) {
      A(m.mimic_v_source[r], m.mimic_v_source[c]) += m.mimic_v_gain[r] * m.mimic_v_gain[c] * A_full(r, c);
    }
  }
}

void expandConfiguration(const Model& m, const Eigen::VectorXd& q, Eigen::VectorXd& q_full) {
  for (int k = 0; k < m.full->nq; ++k) {
    q_full[k] = m.mimic_q_gain[k] * q[m.mimic_q_source[k]] + m.mimic_q_offset[k];
  }
}

void expandVelocity(const Model& m, const Eigen::VectorXd& v, Eigen::VectorXd& v_full) {
  for (int k = 0; k < m.full->nv; ++k) v_full[k] = m.mimic_v_gain[k] * v[m.mimic_v_source[k]];
}

Eigen::MatrixXd velocityMap(const Model& m) {
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(m.full->nv, m.nv);
  for (int k = 0; k < m.full->nv; ++k) G(k, m.mimic_v_source[k]) = m.mimic_v_gain[k];
  return G;
}

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q) {
  expand(m, d, q, "forwardKinematics");
  core::forwardKinematics(full(m, d), d.full[0], d.q_full);
  copyBodies(d);
}

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  expand(m, d, q, v, "forwardKinematics");
  core::forwardKinematics(full(m, d), d.full[0], d.q_full, d.v_full);
  copyBodies(d);
}

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const Eigen::VectorXd& a) {
  expand(m, d, q, v, a, "forwardKinematics");
  core::forwardKinematics(full(m, d), d.full[0], d.q_full, d.v_full, d.a_full);
  copyBodies(d);
}

const Eigen::VectorXd& inverseDynamics(const Model& m, Data& d, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                       const BodyWrenches* fext) {
  expand(m, d, q, v, a, "inverseDynamics");
  projectVector(m, core::inverseDynamics(full(m, d), d.full[0], d.q_full, d.v_full, d.a_full, fext), d.tau);
  copyBodies(d);
  return d.tau;
}

const Eigen::VectorXd& inverseDynamicsFloatingBase(const Model& m, Data& d, const Eigen::VectorXd& q,
                                                   const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                                   const BodyWrenches* fext) {
  expand(m, d, q, v, a, "inverseDynamicsFloatingBase");
  // The base acceleration solves the base's row of the full equations; with a_full = G a that is
  // the base's row of the projected ones (G is the identity on the base).
  Data& f = d.full[0];
  projectVector(m, core::inverseDynamicsFloatingBase(full(m, d), f, d.q_full, d.v_full, d.a_full, fext),
                d.tau);
  d.ddq = a;
  d.ddq.head<6>() = f.ddq.head<6>();
  copyBodies(d);
  return d.tau;
}

const Eigen::VectorXd& nonlinearEffects(const Model& m, Data& d, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const BodyWrenches* fext) {
  expand(m, d, q, v, "nonlinearEffects");
  projectVector(m, core::nonlinearEffects(full(m, d), d.full[0], d.q_full, d.v_full, fext), d.h);
  copyBodies(d);
  return d.h;
}

const Eigen::MatrixXd& massMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  expand(m, d, q, "massMatrix");
  projectMatrix(m, core::massMatrix(full(m, d), d.full[0], d.q_full), d.H);
  copyBodies(d);
  return d.H;
}

const Eigen::VectorXd& forwardDynamics(const Model& m, Data& d, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                       const BodyWrenches* fext) {
  detail::checkSize(tau.size(), m.nv, "tau", "forwardDynamics");
  mimic::massMatrix(m, d, q);
  d.H_llt.compute(d.H);
  d.factorized = true;
  mimic::nonlinearEffects(m, d, q, v, fext);
  d.ddq = d.H_llt.solve(tau - d.h);
  // The body accelerations and joint wrenches of that motion (for the callers reading them).
  expandVelocity(m, d.ddq, d.a_full);
  core::inverseDynamics(full(m, d), d.full[0], d.q_full, d.v_full, d.a_full, fext);
  copyBodies(d);
  return d.ddq;
}

void factorizeMassMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  mimic::massMatrix(m, d, q);
  d.H_llt.compute(d.H);
  d.factorized = true;
}

const Eigen::VectorXd& solveMassMatrix(const Model& m, Data& d, const Eigen::VectorXd& b) {
  detail::checkSize(b.size(), m.nv, "b", "solveMassMatrix");
  if (!d.factorized) throw std::logic_error("solveMassMatrix: call factorizeMassMatrix first");
  d.x = d.H_llt.solve(b);
  return d.x;
}

const Eigen::MatrixXd& coriolisMatrix(const Model& m, Data& d, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v) {
  expand(m, d, q, v, "coriolisMatrix");
  projectMatrix(m, core::coriolisMatrix(full(m, d), d.full[0], d.q_full, d.v_full), d.C);
  copyBodies(d);
  return d.C;
}

void frameJacobian(const Model& m, Data& d, int frame_id, const Vector3& p_F, bool world) {
  const Eigen::MatrixXd& J_full = core::frameJacobian(
      d.full_model[0], d.full[0], frame_id, p_F, world ? ReferenceFrame::kWorld : ReferenceFrame::kLocal);
  d.J.setZero();
  for (int k = 0; k < m.full->nv; ++k) d.J.col(m.mimic_v_source[k]) += m.mimic_v_gain[k] * J_full.col(k);
}

double kineticEnergy(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  expand(m, d, q, v, "kineticEnergy");
  const double T = core::kineticEnergy(full(m, d), d.full[0], d.q_full, d.v_full);
  copyBodies(d);
  return T;
}

}  // namespace grapple::core::mimic
