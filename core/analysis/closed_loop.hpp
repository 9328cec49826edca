// The thesis' linearized closed loop (§8.2.2-8.2.3; spec/guidance_control.md §3.5-3.6): the model
// at a configuration at rest, D(q0) δq̈ + B δq̇ + K δq = δτ (modal damping B, modal stiffness K),
// closed by PD loops δτ = -Kp δq - Kd δq̇ on the actuated coordinates (AOCS on the base, decentralized
// or centralized PD on the joints; the modes unactuated). Its poles with their damping ratios, and
// the acceleration sensitivity T_{w→a}(s) = s² (D s² + (B + Kd) s + K + Kp)⁻¹ D (an acceleration
// disturbance w on every coordinate) against the thesis' weighting W(s) = (s² + 2ξωs + ω²)/s²:
// γ_hard = max over frequency of σ_max(W T) on the actuated channels, ≤ 1 when the templates are met.
#pragma once

#include <complex>
#include <vector>

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::core {

struct ClosedLoopGains {
  Eigen::MatrixXd Kp, Kd;          // (nv x nv) generalized PD gains; zero rows/columns: unactuated
  std::vector<int> actuated;       // the controlled velocity coordinates (the sensitivity's channels)
  // The template of each actuated channel (same order): W(s) = (s² + 2 ξ ω s + ω²) / s².
  std::vector<double> template_omega, template_xi;
};

// Gains of the thesis' structure for the model at q0: the base's six coordinates (if free) with
// the AOCS PD Kp = ω_b² D_bb, Kd = 2 ξ_b ω_b D_bb (its full 6x6 block, coupled axes), the joints
// with decentralized diag(kp), diag(kd) or centralized D_mm(q0) diag(kp), diag(kd); templates:
// (ω_b, ξ_b) on the base, (ω_m, ξ_m) on the joints.
// Adds PD loops on the coordinates `channels` (velocity indices) to g: diagonal kp, kd, or,
// centralized, premultiplied by D's block D(channels, channels) (the thesis' D(q0) structure); each
// channel's W(s) template (omega, xi) recorded.
void addPdLoops(ClosedLoopGains& g, const Eigen::MatrixXd& D, const std::vector<int>& channels,
                const Eigen::VectorXd& kp, const Eigen::VectorXd& kd, bool centralized, double omega, double xi);

ClosedLoopGains thesisGains(const Model& model, const Eigen::VectorXd& q0, double omega_b, double xi_b,
                            const std::vector<double>& joint_kp, const std::vector<double>& joint_kd, bool centralized,
                            double omega_m, double xi_m);

struct ClosedLoopAnalysis {
  std::vector<std::complex<double>> poles;  // eigenvalues of the closed loop (2 nv), by frequency
  std::vector<double> frequency;            // [rad/s] |λ|
  std::vector<double> damping;              // -Re λ / |λ| (1 for a real stable pole, < 0 unstable)
  bool stable = false;
  // On the frequency grid: |T_ii(jω)| and 1/|W_i(jω)| for each actuated channel i (rows), and
  // σ_max(W T)(jω) over the actuated channels.
  std::vector<double> omega;                // [rad/s] the grid (log-spaced)
  Eigen::MatrixXd sensitivity, bound;       // (channels x grid)
  std::vector<double> weighted;             // σ_max(W T) per frequency
  double gamma_hard = 0;                    // its maximum
};

// Throws std::invalid_argument on sizes that do not match the model.
ClosedLoopAnalysis analyzeClosedLoop(const Model& model, const Eigen::VectorXd& q0, const ClosedLoopGains& gains,
                                     double omega_min = 1e-3, double omega_max = 1e3, int points = 200);

}  // namespace grapple::core
