// The generalized mass matrix H(q) (the thesis' D), by the composite-body recursion of Alg. A.1
// (MassMat) and C.1 (MassMatSpace), generalized to trees: M̂_i = M_i + Σ_c A_{c,i}ᵀ M̂_c A_{c,i},
// H(i,j) = P_iᵀ M̂_i A_{i,j} P_j for j on the path from i to the base.
// For a free base, H = [H0 H0m; H0mᵀ Hm] with H0 = M̂_0 (6 x 6), eq. 6.53. On rigid trees the
// entries off the diagonal blocks are taken in the root body's frame (mass_matrix.cpp).
#pragma once

#include "core/dynamics/data.hpp"

namespace grapple::core {

// Fills data.H (both triangles) and data.Ic; data.X_root and data.S_root are its workspace.
const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q);

// massMatrix(q) into data.H and nonlinearEffects(q, v, fext) into data.h, the same numbers, on a
// flexible model at the cost of one outward pass fewer (the bias' pass gives the placements and
// the bodies' M_f(δ) the mass matrix needs).
void massMatrixAndBias(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const BodyWrenches* fext = nullptr);

}  // namespace grapple::core
