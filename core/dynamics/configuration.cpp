#include "core/dynamics/configuration.hpp"

#include <cmath>

#include "core/math/rotation.hpp"

namespace grapple::core {

Eigen::VectorXd neutralConfiguration(const Model& model) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq);
  for (const Joint& j : model.joint) {
    if (j.type == JointType::kSpherical) q[j.idx_q] = 1.0;
    if (j.type == JointType::kFree) q[j.idx_q + 3] = 1.0;
  }
  return q;
}

Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          double dt) {
  Eigen::VectorXd out = q;
  for (const Joint& j : model.joint) {
    if (j.nq == 0 && j.nv == 0) continue;  // fixed, or a mimic: no coordinate of its own
    const int iq = j.idx_q, iv = j.idx_v;
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kSpherical: {
        const Vector4 Q = q.segment<4>(iq);
        out.segment<4>(iq) = quatMultiply(Q, quatExp(v.segment<3>(iv) * dt));
        break;
      }
      case JointType::kFree: {
        const Transform X{quatToMatrix(q.segment<4>(iq + 3)), q.segment<3>(iq)};
        const Transform Xn = X * expSE3(v.segment<6>(iv) * dt);
        out.segment<3>(iq) = Xn.p;
        out.segment<4>(iq + 3) = quatMultiply(q.segment<4>(iq + 3), quatExp(v.segment<3>(iv + 3) * dt));
        break;
      }
      default:
        out.segment(iq, j.nq) += v.segment(iv, j.nv) * dt;
        break;
    }
  }
  for (const FlexibleBody& f : model.flex) {
    if (f.nf > 0) out.segment(f.idx_q, f.nf) += v.segment(f.idx_v, f.nf) * dt;
  }
  return out;
}

Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& q1) {
  Eigen::VectorXd v(model.nv);
  for (const Joint& j : model.joint) {
    if (j.nq == 0 && j.nv == 0) continue;  // fixed, or a mimic: no coordinate of its own
    const int iq = j.idx_q, iv = j.idx_v;
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kSpherical:
        v.segment<3>(iv) =
            quatLog(quatMultiply(quatConjugate(q0.segment<4>(iq)), q1.segment<4>(iq)));
        break;
      case JointType::kFree: {
        const Transform X0{quatToMatrix(q0.segment<4>(iq + 3)), q0.segment<3>(iq)};
        const Transform X1{quatToMatrix(q1.segment<4>(iq + 3)), q1.segment<3>(iq)};
        v.segment<6>(iv) = logSE3(X0.inverse() * X1);
        break;
      }
      default:
        v.segment(iv, j.nv) = q1.segment(iq, j.nq) - q0.segment(iq, j.nq);
        break;
    }
  }
  for (const FlexibleBody& f : model.flex) {
    if (f.nf == 0) continue;  // no modes: no coordinates
    v.segment(f.idx_v, f.nf) = q1.segment(f.idx_q, f.nf) - q0.segment(f.idx_q, f.nf);
  }
  return v;
}

Eigen::VectorXd configurationRate(const Model& model, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& v) {
  Eigen::VectorXd qd(model.nq);
  for (const Joint& j : model.joint) {
    if (j.nq == 0 && j.nv == 0) continue;  // fixed, or a mimic: no coordinate of its own
    const int iq = j.idx_q, iv = j.idx_v;
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kSpherical:
        qd.segment<4>(iq) = quatRateBody(q.segment<4>(iq), v.segment<3>(iv));
        break;
      case JointType::kFree:
        qd.segment<3>(iq) = quatToMatrix(q.segment<4>(iq + 3)) * v.segment<3>(iv);
        qd.segment<4>(iq + 3) = quatRateBody(q.segment<4>(iq + 3), v.segment<3>(iv + 3));
        break;
      default:
        qd.segment(iq, j.nq) = v.segment(iv, j.nv);
        break;
    }
  }
  for (const FlexibleBody& f : model.flex) {
    if (f.nf > 0) qd.segment(f.idx_q, f.nf) = v.segment(f.idx_v, f.nf);
  }
  return qd;
}

void normalizeConfiguration(const Model& model, Eigen::VectorXd& q) {
  for (const Joint& j : model.joint) {
    if (j.type == JointType::kSpherical) q.segment<4>(j.idx_q).normalize();
    if (j.type == JointType::kFree) q.segment<4>(j.idx_q + 3).normalize();
  }
}

void rigidEquivalent(const Model& model, const Eigen::VectorXd& x, Eigen::VectorXd& out) {
  out = x;
  const bool positions = x.size() == model.nq;
  for (const FlexibleBody& f : model.flex) {
    if (f.nf > 0) out.segment(positions ? f.idx_q : f.idx_v, f.nf).setZero();
  }
}

static Vector4 randomQuaternion(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vector4 Q(n(rng), n(rng), n(rng), n(rng));
  Q.normalize();
  if (Q[0] < 0) Q = -Q;
  return Q;
}

Eigen::VectorXd randomConfiguration(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd q = neutralConfiguration(model);
  for (const Joint& j : model.joint) {
    if (j.nq == 0 && j.nv == 0) continue;  // fixed, or a mimic: no coordinate of its own
    const int iq = j.idx_q;
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kSpherical: q.segment<4>(iq) = randomQuaternion(rng); break;
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) q[iq + k] = u(rng) - 0.5;
        q.segment<4>(iq + 3) = randomQuaternion(rng);
        break;
      default:
        for (int k = 0; k < j.nq; ++k) {
          double lo = model.lower_position_limit[iq + k], hi = model.upper_position_limit[iq + k];
          const bool length = j.type == JointType::kPrismatic ||
                              (j.type == JointType::kCylindrical && k == 1) ||
                              (j.type == JointType::kPlanar && k < 2);
          const double span = length ? 1.0 : M_PI;
          if (!std::isfinite(lo)) lo = -span;
          if (!std::isfinite(hi)) hi = span;
          q[iq + k] = lo + (hi - lo) * u(rng);
        }
        break;
    }
  }
  // Small deformations: ±1 % of the mode's scale (δ is scaled so that K_jj = m ω_j²).
  for (const FlexibleBody& f : model.flex) {
    if (f.nf == 0) continue;  // no modes: no coordinates
    for (int k = 0; k < f.nf; ++k) q[f.idx_q + k] = 0.02 * (u(rng) - 0.5);
  }
  return q;
}

}  // namespace grapple::core
