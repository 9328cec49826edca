// The thesis' linearized closed loop (§8.2.2-8.2.3): the model
// at a configuration at rest, D(q0) δq̈ + B δq̇ + K δq = δτ (modal damping B, modal stiffness K),
// closed by PD loops δτ = -Kp δq - Kd δq̇ on the actuated coordinates (AOCS on the base, decentralized
// or centralized PD on the joints; the modes unactuated). Its poles with their damping ratios, and
// the acceleration sensitivity T_{w→a}(s) = s² (D s² + (B + Kd) s + K + Kp)⁻¹ D (an acceleration
// disturbance w on every coordinate) against the thesis' weighting W(s) = (s² + 2ξωs + ω²)/s²:
// γ_hard = max over frequency of σ_max(W T) on the actuated channels, ≤ 1 when the templates are met.
#pragma once

#include <cmath>
#include <complex>
#include <vector>

#include <Eigen/Core>

#include "core/analysis/hinf.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

struct ClosedLoopGains {
  Eigen::MatrixXd Kp, Kd;          // (nv x nv) generalized PD gains; zero rows/columns: unactuated
  std::vector<int> actuated;       // the controlled velocity coordinates (the sensitivity's channels)
  // The template of each actuated channel (same order): W(s) = (s² + 2 ξ ω s + ω²) / s².
  std::vector<double> template_omega, template_xi;
  // A first-order roll-off on some rows' PD torque, the extension the thesis suggests for the
  // flexible modes (§8.2.4.2: "first order terms ... to add roll-off at high frequencies"): per
  // velocity coordinate i, the bandwidth ω_r,i [rad/s] of the low-pass on that row,
  //   τ_i = ω_r,i / (s + ω_r,i) · (-Kp δq - Kd δq̇)_i;
  // empty, or an entry 0 or infinite: the plain PD on that row. A filtered row adds one state to
  // the loop (its torque). The μ-analysis (robust) covers the plain PD only.
  std::vector<double> rolloff;
  bool filtered(int i) const {
    return static_cast<std::size_t>(i) < rolloff.size() && rolloff[static_cast<std::size_t>(i)] > 0 &&
           std::isfinite(rolloff[static_cast<std::size_t>(i)]);
  }
  // Row i's factor ω_r / (s + ω_r) (1 unfiltered).
  std::complex<double> rolloffFactor(int i, std::complex<double> s) const {
    if (!filtered(i)) return 1.0;
    const double w = rolloff[static_cast<std::size_t>(i)];
    return w / (s + w);
  }
  bool anyRolloff() const {
    for (std::size_t i = 0; i < rolloff.size(); ++i) {
      if (filtered(static_cast<int>(i))) return true;
    }
    return false;
  }
};

// The loop's dynamic stiffness at s, Z(s) = D s² + (C + F(s) Kd) s + K + F(s) Kp, F(s) the
// diagonal of the rows' roll-off factors: the loop is Z(s) δq = D w (w the acceleration
// disturbance), so T_w→a(s) = s² Z(s)⁻¹ D. K, C: the model's stiffness and damping.
Eigen::MatrixXcd dynamicStiffness(const Eigen::MatrixXd& D, const Eigen::MatrixXd& K, const Eigen::MatrixXd& C,
                                  const ClosedLoopGains& gains, std::complex<double> s);

// The loop's state matrix for the states [δq; δq̇; z] of the coordinates `rows` (z: the torques of
// the filtered ones among them, in that order, ż = ω_r (-Kp δq - Kd δq̇ - z)), the mass matrix M
// over these coordinates (condensed or not), K, C the model's stiffness and damping over the whole
// velocity space (without the gains).
Eigen::MatrixXd loopMatrix(const Eigen::MatrixXd& M, const Eigen::MatrixXd& K, const Eigen::MatrixXd& C,
                           const ClosedLoopGains& gains, const std::vector<int>& rows);

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
  std::vector<std::complex<double>> poles;  // eigenvalues of the closed loop (2 nv + the filtered rows), by frequency
  std::vector<double> frequency;            // [rad/s] |λ|
  std::vector<double> damping;              // -Re λ / |λ| (1 for a real stable pole, < 0 unstable)
  bool stable = false;
  // On the frequency grid: |T_ii(jω)| and 1/|W_i(jω)| for each actuated channel i (rows), and
  // σ_max(W T)(jω) over the actuated channels.
  std::vector<double> omega;                // [rad/s] the grid (log-spaced)
  Eigen::MatrixXd sensitivity, bound;       // (channels x grid)
  std::vector<double> weighted;             // σ_max(W T) per frequency
  double gamma_grid = 0;                    // its maximum: a lower bound of ‖W T‖∞
  // ‖W T_w→a‖∞ on the actuated channels, exact to a relative 1e-6 (hinfNorm of
  // weightedSensitivity): γ_hard, infinite if the loop is not asymptotically stable; the frequency
  // of its peak (infinity: the high-frequency gain, which is exactly 1 since T → I and W → 1).
  double gamma_hard = 0;
  double omega_peak = 0;
};

// W T_w→a as a state-space system, for the model's D(q0), K, C (stiffness and damping, without the
// gains) closed by `gains`: D δq̈ + (C + Kd) δq̇ + (K + Kp) δq = D w, w the acceleration disturbance
// on the actuated channels, output y_i = δq̈_i + 2 ξ_i ω_i δq̇_i + ω_i² δq_i = W_i(s) a_i (W_i a
// second-order numerator over s², a_i = s² δq_i). The free coordinates (no stiffness and no damping,
// open or closed: the bus translation without position control, unactuated joints) are condensed
// out: their rows give δq̈_f = w_f + D_ff⁻¹ D_fr (w_r - δq̈_r), so the rest obeys the same equation
// with the mass matrix D_rr - D_rf D_ff⁻¹ D_fr and no input from w_f (T_w→a is zero from a free
// coordinate's disturbance to the others). States [δq_r; δq̇_r; z] (z: the filtered rows' torques,
// gains.rolloff); D of the system = I. Throws
// std::invalid_argument if an actuated channel is free (no gain: its W T has a double pole at 0).
StateSpace weightedSensitivity(const Eigen::MatrixXd& D, const Eigen::MatrixXd& K, const Eigen::MatrixXd& C,
                               const ClosedLoopGains& gains);

// Throws std::invalid_argument on sizes that do not match the model.
ClosedLoopAnalysis analyzeClosedLoop(const Model& model, const Eigen::VectorXd& q0, const ClosedLoopGains& gains,
                                     double omega_min = 1e-3, double omega_max = 1e3, int points = 200);

}  // namespace grapple::core
