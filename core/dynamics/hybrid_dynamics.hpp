// Hybrid dynamics (Featherstone, Rigid Body Dynamics Algorithms §9.2): some velocity coordinates
// have a prescribed acceleration (the joints a controller drives along a path), the others a
// prescribed generalized force (a free base, modal coordinates, passive joints). It solves
// H q̈ = τ - h(q, v) for the unknown accelerations and the unknown forces, by blocks:
//   H_ff q̈_f = τ_f - h_f - H_fp q̈_p,     τ_p = H_pf q̈_f + H_pp q̈_p + h_p.
// This is the exact computed-torque law on a free-floating or flexible system: the joint
// torques that give the driven joints their accelerations while the base and the modes move
// freely. Cost: O(n) when the driven coordinates are whole joints and the data has the general
// workspace (flexible models: the articulated recursion with known joint motions), or every joint
// of a rigid model is driven (inverse dynamics); otherwise through H, O(nv³).
#pragma once

#include <vector>

#include "core/dynamics/data.hpp"

namespace grapple::core {

// prescribed: the velocity indices whose acceleration is given, increasing. x (size nv) holds
// those accelerations at the prescribed indices and the forces elsewhere. Results: the full
// acceleration in data.ddq and the full generalized force in data.tau (returned).
// Throws std::invalid_argument on wrong sizes or indices.
const Eigen::VectorXd& hybridDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v, const Eigen::VectorXd& x,
                                      const std::vector<int>& prescribed,
                                      const BodyWrenches* fext = nullptr);

}  // namespace grapple::core
