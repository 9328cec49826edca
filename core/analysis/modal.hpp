// Linearization of a model about a configuration at rest (thesis §8.2.2, eq. 8.7):
//   D(q0) δq̈ + C_d δq̇ + K δq = δτ,
// and the modal analysis of the whole model: the coupled natural frequencies and mode shapes of
// K x = ω² D(q0) x, with the damping ratio of each mode from the modal damping. A free-floating or
// flying base, and every joint, are free directions (zero frequency); the elastic modes are the
// nflex non-zero ones.
#pragma once

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::core {

// (nv x nv) stiffness and damping matrices: the modal blocks of the flexible bodies, zero elsewhere.
Eigen::MatrixXd stiffnessMatrix(const Model& model);
Eigen::MatrixXd dampingMatrix(const Model& model);

struct ModalAnalysis {
  Eigen::VectorXd frequency;      // (nflex) [rad/s], increasing
  Eigen::VectorXd damping_ratio;  // (nflex)
  Eigen::MatrixXd shape;          // (nv x nflex) mass-normalized: shapeᵀ D shape = I
};

// Throws std::invalid_argument if the configuration has the wrong size.
ModalAnalysis coupledModes(const Model& model, const Eigen::VectorXd& q0);

}  // namespace grapple::core
