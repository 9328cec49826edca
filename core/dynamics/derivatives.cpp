#include "core/dynamics/derivatives.hpp"

#include <stdexcept>
#include <string>

#include "core/dynamics/detail.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {
namespace {

void refuseFlexible(const Model& m, const char* where) {
  if (m.hasFlexibleBodies()) {
    throw std::invalid_argument(std::string(where) + ": model '" + m.name +
                                "' has flexible bodies; the analytical derivatives cover rigid trees "
                                "(mimic joints included) only");
  }
}

// The right blocks of B = (d/dt Y) + (Y t) ×̄f for the inertia Y = [m 1, -h×; h×, I] (about the
// inertial origin) moving with the twist t = [v; ω], of momentum Y t = [p; L]:
// d/dt Y = t ×f Y - Y t ×m = [0, -p×; p×, İ] (ḣ = m v + ω × h = p) with
// İ = ω× I - I ω× - (v× h× + h× v×), and (Y t) ×̄f = [0, -p×; -p×, -L×]. Its left columns are zero.
void bodyTerm(const Inertia& Y, const Vector6& t, const Vector6& momentum, Matrix3& B12, Matrix3& B22) {
  const Vector3 v = t.head<3>(), w = t.tail<3>();
  const Matrix3 WI = skew(w) * Y.I;
  const Matrix3 hv = Y.h * v.transpose();
  B12 = -2.0 * skew(momentum.head<3>());
  B22 = WI + WI.transpose() - hv - hv.transpose() - skew(momentum.tail<3>());  // I ω× = -(ω× I)ᵀ
  B22.diagonal().array() += 2.0 * Y.h.dot(v);
}

// A⁻¹ in place by Gauss–Jordan elimination without pivoting, column-oriented (a rank-1 update per
// step): A is symmetric positive definite, so every pivot is a positive Schur complement. c and
// r: scratch of size n.
void invertSpd(Eigen::MatrixXd& A, Eigen::VectorXd& c, Eigen::VectorXd& r) {
  // (Raw loops over the columns: at n ~ 12 Eigen's dynamic-size outer product and its strided row
  // copy cost more in set-up than in arithmetic.)
  const Eigen::Index n = A.rows();
  double* a = A.data();
  double* __restrict cc = c.data();
  double* __restrict rr = r.data();
  for (Eigen::Index k = 0; k < n; ++k) {
    double* ak = a + k * n;
    const double piv = ak[k], inv = 1.0 / piv;
    for (Eigen::Index i = 0; i < n; ++i) cc[i] = ak[i];
    for (Eigen::Index j = 0; j < n; ++j) rr[j] = a[j * n + k] * inv;
    cc[k] = piv - 1.0;  // so that row k becomes r
    for (Eigen::Index j = 0; j < n; ++j) {
      double* __restrict aj = a + j * n;
      const double rj = rr[j];
      for (Eigen::Index i = 0; i < n; ++i) aj[i] -= cc[i] * rj;
    }
    cc[k] = piv;
    for (Eigen::Index i = 0; i < n; ++i) ak[i] = -cc[i] * inv;
    ak[k] = inv;
  }
}

// ∂τ on the full model of a model with mimic joints, projected: Gᵀ (·) G.
void mimicDerivatives(const Model& m, Data& d, DynamicsDerivatives& der, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& v, const Eigen::VectorXd& a, const BodyWrenches* fext) {
  const Model& full = mimic::fullModel(m, d);
  mimic::expandConfiguration(m, q, d.q_full);
  mimic::expandVelocity(m, v, d.v_full);
  mimic::expandVelocity(m, a, d.a_full);
  inverseDynamicsDerivatives(full, d.full[0], *der.full, d.q_full, d.v_full, d.a_full, fext);
  mimic::projectMatrix(m, der.full->dtau_dq, der.dtau_dq);
  mimic::projectMatrix(m, der.full->dtau_dv, der.dtau_dv);
  mimic::projectMatrix(m, der.full->M, der.M);
}

// The derivatives from the kinematics in data: placements X_parent, P_i in S, twists t and
// accelerations a (gravity included) in body components, as newtonEulerOutward and
// forwardDynamics leave them for the velocities v and accelerations a. The work per body and per
// coordinate is in functions of their own, flattened (every call inlined: small spatial products
// cost as much in calls as in arithmetic).

// Outward, body i: everything in the inertial frame, and per coordinate its column J_c, dV_c,
// dA_c, dAv_c.
[[gnu::flatten]] void outwardBody(const Model& m, Data& d, DynamicsDerivatives& der, int i,
                                  const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                  const BodyWrenches* fext) {
  const int p = m.parent[i];
  d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
  const Transform& X = d.X_world[i];
  const Vector6 ov = motionToParent(X, d.t[i]), oa = motionToParent(X, d.a[i]);
  der.ov[i] = ov;
  der.oa[i] = oa;
  const Inertia& Y = der.oY[i] = m.inertia[i].toParent(X);
  const Vector6 momentum = Y * ov;
  der.of[i] = Y * oa + crossForce(ov, momentum);
  if (fext != nullptr) der.of[i] -= forceToParent(X, (*fext)[i]);
  bodyTerm(Y, ov, momentum, der.B12[i], der.B22[i]);
  const Joint& j = m.joint[i];
  if (j.nv == 0) return;
  // ov⁻, oa⁻: what the joint's columns move relative to. The universal and planar joints are
  // chains of 1-DOF motions: each column moves relative to the frame after the earlier ones.
  const bool chain = j.type == JointType::kUniversal || j.type == JointType::kPlanar;
  Vector6 v_pre = Vector6::Zero(), a_pre = Vector6::Zero();
  if (p >= 0) {
    v_pre = der.ov[p];
    a_pre = der.oa[p];
  } else {
    a_pre.head<3>() = -m.gravity_W;  // the inertial frame's acceleration
  }
  for (int k = 0; k < j.nv; ++k) {
    const int c = j.idx_v + k;
    Vector6 Jc;
    if (j.type == JointType::kRevolute) {  // P = e_ωz
      Jc.tail<3>() = X.R.col(2);
      Jc.head<3>() = X.p.cross(X.R.col(2));
    } else if (j.type == JointType::kPrismatic) {  // P = e_vz
      Jc << X.R.col(2), 0.0, 0.0, 0.0;
    } else {
      Jc = motionToParent(X, d.S[i].col(k));
    }
    const Vector6 dV = crossMotion(v_pre, Jc);
    der.J.col(c) = Jc;
    der.dV.col(c) = dV;
    der.dA.col(c) = crossMotion(a_pre, Jc) + crossMotion(v_pre, dV);
    // ov⁺ ×m J_c: ov⁻ ×m J_c for a 1-DOF joint or a chain's column (J_c ×m J_c = 0), else the
    // body's twist
    der.dAv.col(c) = chain || j.nv == 1 ? Vector6(2.0 * dV) : Vector6(dV + crossMotion(ov, Jc));
    if (chain) {
      a_pre += Jc * a[c] + crossMotion(v_pre, Jc * v[c]);
      v_pre += Jc * v[c];
    }
  }
}

// Inward, coordinate r = idx_v + k of body i (the composites Ŷ, B̂, f of its subtree complete):
// its entries with the coordinates of its own joint and, walking to the base, with those of every
// ancestor.
[[gnu::flatten]] void inwardCoordinate(const Model& m, DynamicsDerivatives& der, int i, int k) {
  const Joint& j = m.joint[i];
  const Inertia& Y = der.oY[i];
  const Matrix3& B12 = der.B12[i];
  const Matrix3& B22 = der.B22[i];
  const auto Bx = [&](const Vector6& x) {  // B̂ x (B̂'s left columns are zero)
    Vector6 out;
    out.head<3>().noalias() = B12 * x.tail<3>();
    out.tail<3>().noalias() = B22 * x.tail<3>();
    return out;
  };
  const int r = j.idx_v + k;
  const Vector6 Jr = der.J.col(r);
  const Vector6 y = Y * Jr;  // Ŷ J_r
  Vector3 b;                 // (B̂ᵀ J_r)_ω
  b.noalias() = B12.transpose() * Jr.head<3>();
  b.noalias() += B22.transpose() * Jr.tail<3>();
  const Vector6 gq0 = Y * Vector6(der.dA.col(r)) + Bx(der.dV.col(r));
  const Vector6 fx = crossForce(Jr, der.of[i]);  // J_r ×f f_i
  const Vector6 gv = Y * Vector6(der.dAv.col(r)) + Bx(Jr);
  // The joint's own block: column r against its rows r2.
  const bool chain = j.type == JointType::kUniversal || j.type == JointType::kPlanar;
  for (int k2 = 0; k2 < j.nv; ++k2) {
    const int r2 = j.idx_v + k2;
    const auto Jr2 = der.J.col(r2);
    der.M(r2, r) = Jr2.dot(y);
    der.dtau_dv(r2, r) = Jr2.dot(gv);
    der.dtau_dq(r2, r) = Jr2.dot(gq0) + (chain && k > k2 ? Jr2.dot(fx) : 0.0);
  }
  // The ancestors' coordinates c: row r (c moves J_r) and column r (r lies below c's row).
  const Vector6 gq = gq0 + fx;
  for (int anc = m.parent[i]; anc >= 0; anc = m.parent[anc]) {
    const Joint& ja = m.joint[anc];
    for (int c = ja.idx_v; c < ja.idx_v + ja.nv; ++c) {
      const auto Jc = der.J.col(c);
      der.dtau_dq(r, c) = y.dot(der.dA.col(c)) + b.dot(der.dV.col(c).tail<3>());
      der.dtau_dv(r, c) = y.dot(der.dAv.col(c)) + b.dot(Jc.tail<3>());
      der.M(r, c) = der.M(c, r) = y.dot(Jc);
      der.dtau_dq(c, r) = Jc.dot(gq);
      der.dtau_dv(c, r) = Jc.dot(gv);
    }
  }
}

void derivativesFromKinematics(const Model& m, Data& d, DynamicsDerivatives& der,
                               const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                               const BodyWrenches* fext) {
  for (int i = 0; i < m.nbodies; ++i) outwardBody(m, d, der, i, v, a, fext);
  der.dtau_dq.setZero();  // (entries of coordinates on different branches stay zero)
  der.dtau_dv.setZero();
  der.M.setZero();
  for (int i = m.nbodies - 1; i >= 0; --i) {
    for (int k = 0; k < m.joint[i].nv; ++k) inwardCoordinate(m, der, i, k);
    const int p = m.parent[i];
    if (p >= 0) {
      der.oY[p] += der.oY[i];
      der.B12[p] += der.B12[i];
      der.B22[p] += der.B22[i];
      der.of[p] += der.of[i];
    }
  }
  der.M.diagonal() += m.armature;
}

}  // namespace

DynamicsDerivatives::DynamicsDerivatives(const Model& model)
    : dtau_dq(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      dtau_dv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      M(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      ddq_dq(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      ddq_dv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      Minv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      ov(model.nbodies, Vector6::Zero()),
      oa(model.nbodies, Vector6::Zero()),
      of(model.nbodies, Vector6::Zero()),
      oY(model.nbodies),
      B12(model.nbodies, Matrix3::Zero()),
      B22(model.nbodies, Matrix3::Zero()),
      J(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dV(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dA(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dAv(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      scratch_c(model.nv),
      scratch_r(model.nv) {
  if (model.hasMimicJoints()) full = std::make_unique<DynamicsDerivatives>(*model.full);
}

void inverseDynamicsDerivatives(const Model& m, Data& d, DynamicsDerivatives& der,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& a, const BodyWrenches* fext) {
  const char* where = "inverseDynamicsDerivatives";
  refuseFlexible(m, where);
  detail::checkSize(q.size(), m.nq, "q", where);
  detail::checkSize(v.size(), m.nv, "v", where);
  detail::checkSize(a.size(), m.nv, "a", where);
  if (fext != nullptr) detail::checkSize(static_cast<Eigen::Index>(fext->size()), m.nbodies, "fext", where);
  if (m.hasMimicJoints()) return mimicDerivatives(m, d, der, q, v, a, fext);
  detail::newtonEulerOutward(m, d, q, v, a.data(), nullptr);  // placements, twists, accelerations
  derivativesFromKinematics(m, d, der, v, a, fext);
}

void forwardDynamicsDerivatives(const Model& m, Data& d, DynamicsDerivatives& der,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const BodyWrenches* fext) {
  refuseFlexible(m, "forwardDynamicsDerivatives");
  forwardDynamics(m, d, q, v, tau, fext);  // checks the sizes
  if (m.hasMimicJoints()) {
    inverseDynamicsDerivatives(m, d, der, q, v, d.ddq, fext);
  } else {
    derivativesFromKinematics(m, d, der, v, d.ddq, fext);  // the kinematics of forwardDynamics
  }
  der.Minv = der.M;
  invertSpd(der.Minv, der.scratch_c, der.scratch_r);
  der.ddq_dq.noalias() = -der.Minv * der.dtau_dq;
  der.ddq_dv.noalias() = -der.Minv * der.dtau_dv;
}

}  // namespace grapple::core
