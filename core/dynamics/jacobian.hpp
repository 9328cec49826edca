// Jacobians of a point of a frame: [v_P; ω] = J v (thesis eq. 4.33-4.34 and 6.25-6.26; SPART's
// J0/Jm; Saha's and Umetani–Yoshida's generalized Jacobian).
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

enum class ReferenceFrame {
  kWorld,  // [v_P; ω] in inertial components (v_P the velocity of the point)
  kLocal,  // [v_P; ω] in the components of the frame itself
};

// After forwardKinematics(q): the 6 x nv Jacobian of the point p_F (frame components) of frame
// frame_id, in data.J. For a free base its first six columns are J0 (base twist in base
// components) and the rest Jm (joint rates).
const Eigen::MatrixXd& frameJacobian(const Model& model, Data& data, int frame_id,
                                     const Vector3& p_F = Vector3::Zero(),
                                     ReferenceFrame reference = ReferenceFrame::kWorld);

// The generalized Jacobian of a free-floating robot, J* = Jm - J0 H0⁻¹ H0m (6 x (nv - 6)): the
// end-point twist produced by the joint rates when the total momentum is zero (Saha eq. 23,
// SPART). Runs forwardKinematics and massMatrix at q. Throws for a fixed base.
Eigen::MatrixXd generalizedJacobian(const Model& model, Data& data, const Eigen::VectorXd& q,
                                    int frame_id, const Vector3& p_F = Vector3::Zero(),
                                    ReferenceFrame reference = ReferenceFrame::kWorld);

}  // namespace grapple::core
