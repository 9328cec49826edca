// The general recursions: every body is an "extended" body, its twist t_i and its modal rates δ̇_i
// (6 + nf_i entries), as in the thesis' flexible DeNOC (Alg. 5.1, A.1, A.3 with A^f, P^f, M_f).
// The public algorithms (inverseDynamics, forwardDynamics, massMatrix, ...) come here when a model
// has flexible bodies; on a rigid model these functions give the results of the fast rigid path,
// which the tests check.
//
// Kinematics. A body at the tip of a flexible parent P hangs from the deformed tip frame E:
//   t_E = A_{E,P} t_P + S_E δ̇_P,     a_E = A_{E,P} a_P + S_E δ̈_P + Ṡ_E δ̇_P + t_E ×m S_E δ̇_P,
// then the usual joint from E. Its wrench reaches P as [A_{E,P}ᵀ f_E; S_Eᵀ f_E]: the second part
// is the modal force, the thesis' P^{fT} w.
// Dynamics of a flexible body (model/flexible.hpp): W = M_f(δ) [a; δ̈] + b(t, δ, δ̇) + [0; Kδ + Dδ̇],
// with b from Newton's law on the deformed continuum (flex), or t ×f (M^(0) ζ)_t for the
// constant-mass models (flex-M and the rest).
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core::general {

// Placements (deformed tips included) and world poses.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q);
// Also twists (data.t) and the tip twists.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v);
// Also the body accelerations (data.a, the base's offset by -g as in inverseDynamics) and the
// tip accelerations: the motion half of inverseDynamics' outward pass. With body >= 0, only the
// bodies on the path from the root to it.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& a, int body = -1);

const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                       const BodyWrenches* fext);
const Eigen::VectorXd& nonlinearEffects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const BodyWrenches* fext);
const Eigen::VectorXd& forwardDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                       const BodyWrenches* fext);
const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q);
// massMatrix and nonlinearEffects in one outward pass: data.H and data.h.
void massMatrixAndBias(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const BodyWrenches* fext);
// x = H⁻¹ b on the factors of the last forwardDynamics (its articulated sweeps with no bias), in
// O(n). Result in data.x.
const Eigen::VectorXd& solveMassMatrix(const Model& model, Data& data, const Eigen::VectorXd& b);
// Hybrid dynamics in O(n) (see dynamics/hybrid_dynamics.hpp): driven[i] != 0 (size nbodies) marks
// the bodies whose joint accelerations x gives; every other coordinate of x is a force. Results
// in data.ddq and data.tau (returned).
const Eigen::VectorXd& hybridDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v, const Eigen::VectorXd& x,
                                      const std::vector<char>& driven, const BodyWrenches* fext);

// The Coriolis matrix: C v = h(q, v) - h(q, 0) and, for the Lagrangian models (flex, flex-M),
// Ḣ - 2C skew. Built body by body from the extended Jacobians (O(n · nv²); for analysis).
const Eigen::MatrixXd& coriolisMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v);

// ½ Σ ζ_iᵀ M_f ζ_i + ½ armature v² [J]
double kineticEnergy(const Model& model, Data& data, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& v);
// [p; L about the inertial origin] in inertial components
Vector6 momentum(const Model& model, Data& data, const Eigen::VectorXd& q,
                 const Eigen::VectorXd& v);
// Jacobian of a point of a frame, after forwardKinematics(q) (see jacobian.hpp).
void frameJacobian(const Model& model, Data& data, int frame_id, const Vector3& p_F,
                   bool world);

// ½ Σ δᵀ K δ [J]: the strain energy of the flexible bodies (any model).
double elasticEnergy(const Model& model, const Eigen::VectorXd& q);

// R_Ψ of thesis eq. A.8 (angular velocity in the parent frame from 3-2-1 angle rates) and
// Ṙ_Ψ ψ̇ (eq. A.12), for ψ = [roll, pitch, yaw].
Matrix3 eulerRateMatrix(const Vector3& psi);
Vector3 eulerRateMatrixDotTimes(const Vector3& psi, const Vector3& psi_dot);

}  // namespace grapple::core::general
