// Inverse dynamics: the recursive Newton–Euler algorithm in the DeNOC form of the thesis
// (Alg. 4.1 for chains, Alg. 6.1 for the space robot), generalized to any tree.
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Generalized forces that produce the accelerations a:  τ = H(q) a + C(q, v) v + g(q) - Jᵀ f_ext.
// For a free base the first six entries are the base wrench [f; n] at the base origin in base
// components (the flying-base actuator wrench, thesis eq. 6.42-6.43); then the joint torques.
// fext: optional external wrench on each body (at its origin, body components).
// Also leaves the joint wrenches in data.w (for baseReactionWrench).
const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                       const BodyWrenches* fext = nullptr);

// Floating-base inverse dynamics (SPART's Floating_ID, in O(n)): the base is free and
// unactuated, so only the joint accelerations are prescribed (the joint part of a; its base part
// is ignored). Returns the joint torques (base entries zero: no base actuation) and leaves the
// full acceleration, the base part found from the base equation, in data.ddq.
const Eigen::VectorXd& inverseDynamicsFloatingBase(const Model& model, Data& data,
                                                   const Eigen::VectorXd& q,
                                                   const Eigen::VectorXd& v,
                                                   const Eigen::VectorXd& a,
                                                   const BodyWrenches* fext = nullptr);

// Nonlinear effects h(q, v) = C(q, v) v + g(q) - Jᵀ f_ext (inverse dynamics at a = 0), in data.h.
const Eigen::VectorXd& nonlinearEffects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v,
                                        const BodyWrenches* fext = nullptr);

// After inverseDynamics: the wrench the joints of the base's children exert on the base (the
// reaction of the arms and appendages on the spacecraft), at the base origin in base components.
Vector6 baseReactionWrench(const Model& model, const Data& data);

}  // namespace grapple::core
