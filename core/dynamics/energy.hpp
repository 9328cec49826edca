// System-level quantities: centre of mass, momentum, kinetic energy.
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Centre of mass of the whole system, inertial components [m]. Runs forwardKinematics(q).
Vector3 centerOfMass(const Model& model, Data& data, const Eigen::VectorXd& q);
// Linear momentum and angular momentum about the inertial origin, inertial components:
// [p; L] [kg m/s; kg m^2/s]. Runs forwardKinematics(q, v). (Reflected rotor inertias, the
// armature, carry no momentum of the bodies and are left out, so a floating base conserves it.)
Vector6 momentum(const Model& model, Data& data, const Eigen::VectorXd& q,
                 const Eigen::VectorXd& v);
// Angular momentum about the centre of mass, inertial components [kg m^2/s].
Vector3 angularMomentumAboutCom(const Model& model, Data& data, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& v);
// ½ Σ t_iᵀ M_i t_i + ½ Σ armature v² [J] (= ½ vᵀ H v). Runs forwardKinematics(q, v).
double kineticEnergy(const Model& model, Data& data, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& v);
// Gravitational potential energy -m g·p_com [J] (zero in orbit, where gravity_W = 0).
double potentialEnergy(const Model& model, Data& data, const Eigen::VectorXd& q);

}  // namespace grapple::core
