#include "core/dynamics/jacobian.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"

namespace grapple::core {

const Eigen::MatrixXd& frameJacobian(const Model& m, Data& d, int frame_id, const Vector3& p_F,
                                     ReferenceFrame reference) {
  if (frame_id < 0 || frame_id >= static_cast<int>(m.frames.size())) {
    throw std::invalid_argument("frameJacobian: no frame with index " + std::to_string(frame_id));
  }
  if (m.hasMimicJoints()) {
    mimic::frameJacobian(m, d, frame_id, p_F, reference == ReferenceFrame::kWorld);
    return d.J;
  }
  if (m.hasFlexibleBodies()) {
    general::frameJacobian(m, d, frame_id, p_F, reference == ReferenceFrame::kWorld);
    return d.J;
  }
  const Frame& f = m.frames[frame_id];
  const Transform X_WF = d.X_world[f.body] * f.X_body_frame;
  const Vector3 p_W = X_WF.act(p_F);
  d.J.setZero();
  // Column k of joint j: its motion P_j e_k moved to the inertial frame and to the point,
  // [R_j s_v + (R_j s_ω) × (p - o_j); R_j s_ω]. Only the joints on the path to the base move P.
  for (int j = f.body; j >= 0; j = m.parent[j]) {
    const Joint& jt = m.joint[j];
    const Transform& X = d.X_world[j];
    for (int k = 0; k < jt.nv; ++k) {
      const Vector3 w = X.R * d.S[j].col(k).tail<3>();
      d.J.col(jt.idx_v + k).head<3>() = X.R * d.S[j].col(k).head<3>() + w.cross(p_W - X.p);
      d.J.col(jt.idx_v + k).tail<3>() = w;
    }
  }
  if (reference == ReferenceFrame::kLocal) {
    const Matrix3 R_FW = X_WF.R.transpose();
    for (Eigen::Index c = 0; c < d.J.cols(); ++c) {  // column by column: no temporary matrix
      const Vector3 v = d.J.col(c).head<3>(), w = d.J.col(c).tail<3>();
      d.J.col(c).head<3>() = R_FW * v;
      d.J.col(c).tail<3>() = R_FW * w;
    }
  }
  return d.J;
}

Eigen::MatrixXd generalizedJacobian(const Model& m, Data& d, const Eigen::VectorXd& q,
                                    int frame_id, const Vector3& p_F, ReferenceFrame reference) {
  if (!m.hasFreeBase()) {
    throw std::invalid_argument("generalizedJacobian: the model has a fixed base");
  }
  forwardKinematics(m, d, q);
  frameJacobian(m, d, frame_id, p_F, reference);
  massMatrix(m, d, q);
  const int nm = m.nv - 6;
  const Eigen::LLT<Matrix6> H0(d.H.topLeftCorner<6, 6>());
  const Eigen::MatrixXd H0inv_H0m = H0.solve(d.H.topRightCorner(6, nm));
  return d.J.rightCols(nm) - d.J.leftCols<6>() * H0inv_H0m;
}

}  // namespace grapple::core
