// The algorithms on models with mimic joints (Model::full), by exact projection: each runs on the
// full model, whose every joint has a coordinate (with the model's gravity, base placement,
// inertias and armature), at q_full(q), v_full = G v, a_full = G a (G is
// constant, so Ġ = 0 and no velocity-product term appears), and the results are projected on the
// model's coordinates (an explicit constraint q̇_full = G q̇ projected by virtual work, Featherstone,
// Rigid Body Dynamics Algorithms §3.2, with G = ∂q_full/∂q):
//   τ = Gᵀ τ_full,  h = Gᵀ h_full,  H = Gᵀ H_full G,  C = Gᵀ C_full G,  J = J_full G,
// and the forward dynamics solves H q̈ = τ - h by Cholesky. The public functions (inverseDynamics,
// forwardDynamics, ...) come here when Model::hasMimicJoints(); the per-body results (placements,
// twists, accelerations, joint wrenches) are those of the full model, copied into the Data.
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core::mimic {

void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q);
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v);
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& a);
const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                       const BodyWrenches* fext);
const Eigen::VectorXd& inverseDynamicsFloatingBase(const Model& model, Data& data,
                                                   const Eigen::VectorXd& q,
                                                   const Eigen::VectorXd& v,
                                                   const Eigen::VectorXd& a,
                                                   const BodyWrenches* fext);
const Eigen::VectorXd& nonlinearEffects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const BodyWrenches* fext);
const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q);
const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                       const BodyWrenches* fext);
void factorizeMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& q);
const Eigen::VectorXd& solveMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& b);
const Eigen::MatrixXd& coriolisMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v);
// After forwardKinematics(q): the full model's Jacobian times G.
void frameJacobian(const Model& model, Data& data, int frame_id, const Vector3& p_F, bool world);
double kineticEnergy(const Model& model, Data& data, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& v);

// The full model's coordinates: q_full(q) and v_full = G v.
void expandConfiguration(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& q_full);
void expandVelocity(const Model& model, const Eigen::VectorXd& v, Eigen::VectorXd& v_full);
// G as a dense (full->nv x nv) matrix.
Eigen::MatrixXd velocityMap(const Model& model);
// The full model, updated with what may have changed in the model since it was built (gravity,
// base placement, inertias, armature); it lives in data.
const Model& fullModel(const Model& model, Data& data);
// A = Gᵀ A_full G (A sized nv x nv).
void projectMatrix(const Model& model, const Eigen::MatrixXd& A_full, Eigen::MatrixXd& A);

}  // namespace grapple::core::mimic
