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
// inertial origin) moving with the twist t = [v; ω]: d/dt Y = t ×f Y - Y t ×m = [0, -p×; p×, İ]
// with p = m v + ω × h (ḣ, the linear momentum) and İ = ω× I - I ω× - (v× h× + h× v×), and
// (Y t) ×̄f = [0, -p×; -p×, -L×] with L = h × v + I ω. Its left columns are zero.
void bodyTerm(const Inertia& Y, const Vector6& t, Matrix3& B12, Matrix3& B22) {
  const Vector3 v = t.head<3>(), w = t.tail<3>();
  const Vector3 p = Y.m * v + w.cross(Y.h);
  const Vector3 L = Y.h.cross(v) + Y.I * w;
  const Matrix3 WI = skew(w) * Y.I;
  const Matrix3 hv = Y.h * v.transpose();
  B12 = -2.0 * skew(p);
  B22 = WI + WI.transpose() - hv - hv.transpose() - skew(L);  // ω×I - Iω× = ω×I + (ω×I)ᵀ
  B22.diagonal().array() += 2.0 * Y.h.dot(v);
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
      llt(model.nv) {
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

  // Outward: Newton–Euler in body components (placements, twists, accelerations, body wrenches),
  // then everything in the inertial frame, and per coordinate its column J_c, dV_c, dA_c, dAv_c.
  detail::newtonEulerOutward(m, d, q, v, a.data(), fext);
  Vector6 g_acc = Vector6::Zero();  // the inertial frame's acceleration: -g
  g_acc.head<3>() = -m.gravity_W;
  for (int i = 0; i < m.nbodies; ++i) {
    const int p = m.parent[i];
    d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
    const Transform& X = d.X_world[i];
    der.ov[i] = motionToParent(X, d.t[i]);
    der.oa[i] = motionToParent(X, d.a[i]);
    der.of[i] = forceToParent(X, d.w[i]);
    der.oY[i] = m.inertia[i].toParent(X);
    bodyTerm(der.oY[i], der.ov[i], der.B12[i], der.B22[i]);
    const Joint& j = m.joint[i];
    if (j.nv == 0) continue;
    // ov⁻, oa⁻: what the joint's columns move relative to. The universal and planar joints are
    // chains of 1-DOF motions: each column moves relative to the frame after the earlier ones.
    const bool chain = j.type == JointType::kUniversal || j.type == JointType::kPlanar;
    Vector6 v_pre = p < 0 ? Vector6::Zero() : der.ov[p];
    Vector6 a_pre = p < 0 ? g_acc : der.oa[p];
    for (int k = 0; k < j.nv; ++k) {
      const int c = j.idx_v + k;
      const Vector6 Jc = motionToParent(X, Vector6(d.S[i].col(k)));
      const Vector6 dV = crossMotion(v_pre, Jc);
      der.J.col(c) = Jc;
      der.dV.col(c) = dV;
      der.dA.col(c) = crossMotion(a_pre, Jc) + crossMotion(v_pre, dV);
      // ov⁺ ×m J_c: ov⁻ ×m J_c for a chain's column (J_c ×m J_c = 0), else the body's twist
      der.dAv.col(c) = chain ? Vector6(2.0 * dV) : Vector6(dV + crossMotion(der.ov[i], Jc));
      if (chain) {
        a_pre += Jc * a[c] + crossMotion(v_pre, Jc * v[c]);
        v_pre += Jc * v[c];
      }
    }
  }

  // Inward: composites Ŷ, B̂, f over each subtree; for every coordinate r of body i, its entries
  // with the coordinates of its own joint and, walking to the base, with those of every ancestor.
  der.dtau_dq.setZero();
  der.dtau_dv.setZero();
  der.M.setZero();
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& j = m.joint[i];
    const Inertia& Y = der.oY[i];
    const Matrix3& B12 = der.B12[i];
    const Matrix3& B22 = der.B22[i];
    const auto Bx = [&](const Vector6& x) {  // B̂ x (B̂'s left columns are zero)
      Vector6 r;
      r.head<3>().noalias() = B12 * x.tail<3>();
      r.tail<3>().noalias() = B22 * x.tail<3>();
      return r;
    };
    const bool chain = j.type == JointType::kUniversal || j.type == JointType::kPlanar;
    for (int k = 0; k < j.nv; ++k) {
      const int r = j.idx_v + k;
      const Vector6 Jr = der.J.col(r);
      const Vector6 y = Y * Jr;                                                   // Ŷ J_r
      const Vector3 b = B12.transpose() * Jr.head<3>() + B22.transpose() * Jr.tail<3>();  // (B̂ᵀ J_r)_ω
      const Vector6 gq0 = Y * Vector6(der.dA.col(r)) + Bx(der.dV.col(r));
      const Vector6 fx = crossForce(Jr, der.of[i]);                               // J_r ×f f_i
      const Vector6 gv = Y * Vector6(der.dAv.col(r)) + Bx(Jr);
      // The joint's own block: column r against its rows r2.
      for (int k2 = 0; k2 < j.nv; ++k2) {
        const int r2 = j.idx_v + k2;
        const Vector6 Jr2 = der.J.col(r2);
        der.M(r2, r) = Jr2.dot(y);
        der.dtau_dv(r2, r) = Jr2.dot(gv);
        der.dtau_dq(r2, r) = Jr2.dot(gq0) + (chain && k > k2 ? Jr2.dot(fx) : 0.0);
      }
      // The ancestors' coordinates c: row r (c moves J_r) and column r (r lies below c's row).
      const Vector6 gq = gq0 + fx;
      for (int anc = m.parent[i]; anc >= 0; anc = m.parent[anc]) {
        const Joint& ja = m.joint[anc];
        for (int c = ja.idx_v; c < ja.idx_v + ja.nv; ++c) {
          const Vector6 Jc = der.J.col(c);
          der.dtau_dq(r, c) = y.dot(der.dA.col(c)) + b.dot(der.dV.col(c).tail<3>());
          der.dtau_dv(r, c) = y.dot(der.dAv.col(c)) + b.dot(Jc.tail<3>());
          der.M(r, c) = der.M(c, r) = y.dot(Jc);
          der.dtau_dq(c, r) = Jc.dot(gq);
          der.dtau_dv(c, r) = Jc.dot(gv);
        }
      }
    }
    const int p = m.parent[i];
    if (p >= 0) {
      der.oY[p] += Y;
      der.B12[p] += B12;
      der.B22[p] += B22;
      der.of[p] += der.of[i];
    }
  }
  der.M.diagonal() += m.armature;
}

void forwardDynamicsDerivatives(const Model& m, Data& d, DynamicsDerivatives& der,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, const BodyWrenches* fext) {
  refuseFlexible(m, "forwardDynamicsDerivatives");
  forwardDynamics(m, d, q, v, tau, fext);
  inverseDynamicsDerivatives(m, d, der, q, v, d.ddq, fext);
  der.llt.compute(der.M);
  der.Minv.setIdentity();
  der.llt.solveInPlace(der.Minv);
  der.ddq_dq.noalias() = -der.Minv * der.dtau_dq;
  der.ddq_dv.noalias() = -der.Minv * der.dtau_dv;
}

}  // namespace grapple::core
