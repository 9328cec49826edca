#include "core/dynamics/kinematics.hpp"

#include <stdexcept>
#include <string>

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q) {
  if (m.hasMimicJoints()) return mimic::forwardKinematics(m, d, q);
  if (m.hasFlexibleBodies()) return general::forwardKinematics(m, d, q);
  detail::checkSize(q.size(), m.nq, "q", "forwardKinematics");
  for (int i = 0; i < m.nbodies; ++i) {
    detail::updateJointPlacement(m, d, i, q.data());
    const int p = m.parent[i];
    d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
  }
}

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v) {
  if (m.hasMimicJoints()) return mimic::forwardKinematics(m, d, q, v);
  if (m.hasFlexibleBodies()) return general::forwardKinematics(m, d, q, v);
  detail::checkSize(v.size(), m.nv, "v", "forwardKinematics");
  forwardKinematics(m, d, q);
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const Vector6 vJ = detail::jointMotion(j, d.S[i], v.data() + j.idx_v);
    const int p = m.parent[i];
    d.t[i] = p < 0 ? vJ : Vector6(motionToChild(d.X_parent[i], d.t[p]) + vJ);
  }
}

void forwardKinematics(const Model& m, Data& d, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
  if (m.hasMimicJoints()) return mimic::forwardKinematics(m, d, q, v, a);
  detail::checkSize(a.size(), m.nv, "a", "forwardKinematics");
  if (m.hasFlexibleBodies()) return general::forwardKinematics(m, d, q, v, a);
  forwardKinematics(m, d, q, v);
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const Vector6 vJ = detail::jointMotion(j, d.S[i], v.data() + j.idx_v);
    Vector6 ai = detail::jointMotion(j, d.S[i], a.data() + j.idx_v) + crossMotion(d.t[i], vJ);
    if (jointSubspaceVaries(j.type)) {
      ai += jointVelocityProduct(j, q.data() + j.idx_q, v.data() + j.idx_v);
    }
    const int p = m.parent[i];
    d.a[i] = p < 0 ? ai : Vector6(motionToChild(d.X_parent[i], d.a[p]) + ai);
  }
}

void forwardKinematicsToBody(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             const Eigen::VectorXd& a, int body) {
  if (body < 0 || body >= m.nbodies) throw std::invalid_argument("forwardKinematicsToBody: no body " + std::to_string(body));
  if (m.hasFlexibleBodies() && !m.hasMimicJoints()) {
    detail::checkSize(a.size(), m.nv, "a", "forwardKinematicsToBody");
    return general::forwardKinematics(m, d, q, v, a, body);
  }
  forwardKinematics(m, d, q, v, a);
}

Transform framePose(const Model& m, const Data& d, int frame_id) {
  const Frame& f = m.frames.at(frame_id);
  return d.X_world[f.body] * f.X_body_frame;
}

Vector6 pointVelocityWorld(const Model& m, const Data& d, int frame_id, const Vector3& p_F) {
  const Frame& f = m.frames.at(frame_id);
  const Vector3 p_B = f.X_body_frame.act(p_F);
  const Vector6& t = d.t[f.body];
  const Matrix3& R = d.X_world[f.body].R;
  Vector6 out;
  out.head<3>() = R * (t.head<3>() + t.tail<3>().cross(p_B));
  out.tail<3>() = R * t.tail<3>();
  return out;
}

Vector6 pointAccelerationWorld(const Model& m, const Data& d, int frame_id, const Vector3& p_F) {
  const Frame& f = m.frames.at(frame_id);
  const Vector3 p_B = f.X_body_frame.act(p_F);
  const Vector6& t = d.t[f.body];
  const Vector6& a = d.a[f.body];
  const Matrix3& R = d.X_world[f.body].R;
  const Vector3 w = t.tail<3>();
  // Velocity of the material point P in body components, then its classical acceleration:
  // the spatial acceleration at P plus ω × v_P.
  const Vector3 v_P = t.head<3>() + w.cross(p_B);
  const Vector3 a_P = a.head<3>() + a.tail<3>().cross(p_B) + w.cross(v_P);
  Vector6 out;
  out.head<3>() = R * a_P;
  out.tail<3>() = R * a.tail<3>();
  return out;
}

}  // namespace grapple::core
