// Forward kinematics: poses, twists and accelerations of every body, and of any point of a frame.
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Poses: data.X_parent, data.X_world.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q);
// Poses and twists: also data.t (twist [v; ω] of each body at its origin, body components).
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v);
// Poses, twists and accelerations: also data.a (derivative of the components of t, no gravity).
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& a);
// The same for the bodies on the path from the root to `body` at least: all that a frame of
// `body` needs (framePose, pointVelocityWorld, pointAccelerationWorld, frameJacobian). On a
// flexible model the other bodies are skipped (their entries in data are left as they were); on
// a rigid one, whose whole pass is cheap, every body is done.
void forwardKinematicsToBody(const Model& model, Data& data, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& v, const Eigen::VectorXd& a, int body);

// After forwardKinematics: the pose of a frame in the inertial frame.
Transform framePose(const Model& model, const Data& data, int frame_id);
// After forwardKinematics with v: velocity of the point p_F (frame components) of frame F and the
// angular velocity of F, both in inertial components: [v_P; ω] in the inertial frame.
Vector6 pointVelocityWorld(const Model& model, const Data& data, int frame_id,
                           const Vector3& p_F = Vector3::Zero());
// After forwardKinematics with v and a: classical acceleration of that point and angular
// acceleration of F, in inertial components.
Vector6 pointAccelerationWorld(const Model& model, const Data& data, int frame_id,
                               const Vector3& p_F = Vector3::Zero());

}  // namespace grapple::core
