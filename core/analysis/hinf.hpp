// The H∞ norm of a stable linear system ẋ = A x + B u, y = C x + D u:
//   ‖G‖∞ = sup over ω of σ_max(C (jωI - A)⁻¹ B + D),
// by the two-step method of Bruinsma & Steinbuch (1990), the quadratically convergent form of the
// Hamiltonian bisection of Boyd, Balakrishnan & Kabamba (1989): γ is a singular value of G(jω)
// exactly when the Hamiltonian H(γ) has the eigenvalue jω; starting from the largest σ_max at the
// poles' frequencies, each step sets γ = (1 + 2 tol) γ_lb, takes the imaginary eigenvalues of H(γ)
// (the frequencies where σ_max crosses γ) and raises γ_lb to the largest σ_max at the midpoints of
// consecutive crossings, until H(γ) has none. Used for the thesis' hard goal ‖W T_w→a‖∞ ≤ 1
// (§8.2.3, eq. 8.11).
#pragma once

#include <complex>
#include <limits>

#include <Eigen/Core>

namespace grapple::core {

struct StateSpace {
  Eigen::MatrixXd A, B, C, D;  // (n x n), (n x m), (p x n), (p x m)
};

struct HinfNorm {
  // lower ≤ ‖G‖∞ ≤ upper, upper ≤ (1 + 2 rtol) lower; `lower` is σ_max(G(j omega_peak)), a value
  // the system reaches. An unstable A (an eigenvalue with Re ≥ 0): stable false, both infinite.
  double lower = 0, upper = 0;
  double omega_peak = 0;  // [rad/s]; infinity when the supremum is the high-frequency gain σ_max(D)
  bool stable = false;
  int iterations = 0;     // Hamiltonian eigenvalue problems solved
  double norm() const { return upper; }
};

// G(jω) and its largest singular value.
Eigen::MatrixXcd frequencyResponse(const StateSpace& sys, double omega);
double sigmaMax(const StateSpace& sys, double omega);

// Throws std::invalid_argument on inconsistent sizes, non-finite entries or rtol outside ]0, 0.1].
HinfNorm hinfNorm(const StateSpace& sys, double rtol = 1e-6);

}  // namespace grapple::core
