// Operations on configurations q (size nq), whose quaternions make them differ from velocities v
// (size nv). The only legal way to move q along v is integrate(); finite differences in tests use
// it too (Pinocchio's rule).
#pragma once

#include <random>

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::core {

// q with every joint at zero and every quaternion at identity.
Eigen::VectorXd neutralConfiguration(const Model& model);
// q ⊕ v dt: joints add, spherical joints rotate by exp(ω dt) in the body frame, a free base moves
// along the SE(3) exponential of its body twist (exact for a constant twist).
Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          double dt);
// The v such that integrate(q0, v, 1) = q1.
Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& q1);
// dq/dt for the velocity v (nq): ṙ = R v and Q̇ = ½ Q ⊗ [0; ω] for the free base (thesis §1.2),
// Q̇ = ½ Q ⊗ [0; ω] for spherical joints, q̇ = v otherwise. An ODE solver that integrates this
// keeps the quaternion norm to its own accuracy; kinematics normalize it anyway.
Eigen::VectorXd configurationRate(const Model& model, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& v);
// Every quaternion set to unit length.
void normalizeConfiguration(const Model& model, Eigen::VectorXd& q);
// The rigid-equivalent of x, a configuration (size nq) or a velocity-sized vector (nv: rates,
// accelerations): x with every flexible body's modal coordinates set to zero (out may be x).
void rigidEquivalent(const Model& model, const Eigen::VectorXd& x, Eigen::VectorXd& out);
// A random configuration: joints uniform within their limits (within ±π or ±1 m where there are
// none), quaternions uniform on SO(3), the base position uniform in a unit cube.
Eigen::VectorXd randomConfiguration(const Model& model, std::mt19937& rng);

}  // namespace grapple::core
