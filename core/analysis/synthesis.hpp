// Structured H∞ synthesis of the thesis' PD loops (§8.2.3-8.2.4, Fig. 8.4, Tables 8.2 and 8.4):
// the gains of a fixed structure — the AOCS on the bus (eq. 8.1) and a decentralized (eq. 8.3) or
// centralized D(q0)-premultiplied (eq. 8.2) PD on the joints — that minimize the soft goal
//   γ_soft = max over the tuned gains of |gain| / its inertia-based bound
// (decentralized bounds ω_m² D_ii and 2 ξ_m ω_m D_ii, centralized ω_m² and 2 ξ_m ω_m, the bus blocks
// ω_b² √(D_ii D_jj) and 2 ξ_b ω_b √(D_ii D_jj)) under the hard goal
//   γ_hard = max over the configurations of ‖W T_w→a‖∞ ≤ 1 (eq. 8.11; SynthesisOptions::hard_level),
// mono-model (one configuration) or multi-model (several at once, one controller).
//
// Method (ours; the thesis used Matlab's systune): the epigraph problem min t subject to
// |x_k| ≤ t, σ_max(W T(jω)) ≤ 1 (the level) at a set of frequencies per configuration and Re λ ≤ -1e-4 for
// the four rightmost poles of each loop (a frequency-sampled norm does not see instability),
// solved by NLopt's SLSQP with exact gradients: of the singular values (dσ = Re(uᴴ dG v), dG from
// d(Z⁻¹) = -Z⁻¹ dZ Z⁻¹, Z = -ω²D + jωC + K) and of the poles (dλ = yᴴ dA x / yᴴ x). Convergence test: after each solve the exact H∞ norm
// of every configuration's loop is computed (hinfNorm); the solve is accepted when each is
// ≤ level (1 + hard_tolerance), else the peak frequency joins that configuration's set and the solve is
// repeated (at most `rounds` times). Since T → I and W → 1 at high frequency, ‖W T‖∞ ≥ 1 for every
// PD: the best a controller does is 1, reached at infinite frequency. If the constraints cannot be
// met, γ_hard itself is minimized and reported (> 1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/analysis/closed_loop.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

struct SynthesisStructure {
  // The bus' loops: none; the scenario's attitude control (Kp = kp H, Kd = kd H on the rotation,
  // H its 3x3 block of D(q0): 2 parameters); the thesis' free 3x3 rotation blocks (18); free 3x3
  // position and rotation blocks (36, eq. 8.1).
  enum class Base { kNone, kAttitudeScalar, kAttitudeBlocks, kPoseBlocks };
  Base base = Base::kAttitudeBlocks;
  bool centralized = false;  // joints: D_mm(q0) diag(kp), diag(kd) instead of diag(kp), diag(kd)
  double omega_b = 0.0698, xi_b = 0.707;  // the thesis' templates (§8.2.3)
  double omega_m = 0.698, xi_m = 0.707;
  // A first-order roll-off ω_r / (s + ω_r) on each joint's PD torque (ClosedLoopGains::rolloff),
  // the thesis' suggested extension for the flexible modes (§8.2.4.2: "add some dynamics to the
  // arm controller by means of first order terms ... to add roll-off at high frequencies"):
  // none; fixed by the user (rolloff_omega: one bandwidth for every joint, or one per joint); or
  // tuned with the gains, one bandwidth per joint in [ω_m, 1000 ω_m] (on its logarithm, started at
  // rolloff_omega, default 1000 ω_m: from nearly the plain PD's loop). The bandwidths are not in the soft goal (they
  // cost no torque). With a roll-off the loop is no longer a PD: the Lyapunov argument of
  // §8.3.3.1 (stable at every configuration for positive definite gains) does not hold.
  enum class Rolloff { kNone, kFixed, kTuned };
  Rolloff rolloff = Rolloff::kNone;
  std::vector<double> rolloff_omega;  // [rad/s]
};

struct SynthesisOptions {
  // Extra starts, the best result kept: the diagonally dominant gains (Σ_j |D_ij| / D_ii times
  // the bounds), then random multiples (0.5 to 2, seeded) of the bounds.
  int restarts = 2;
  int rounds = 8;                // exact-norm checks (frequencies added) per solve
  int grid_points = 60;          // initial frequencies per configuration, log-spaced
  double hard_tolerance = 1e-3;  // accepted ‖W T‖∞ ≤ hard_level (1 + this)
  // The hard goal ‖W T‖∞ ≤ hard_level: 1, the thesis' templates. With a roll-off the templates
  // cannot be met exactly: W → 1 and T → I at high frequency, but the low-pass makes the loop
  // approach W T = 1 from above (|W T|² ≈ 1 + 2 ω_r Kd / (J ω²) for ω ≫ ω_r, a joint of inertia
  // J), so a roll-off design asks for a level above 1, the templates exceeded by that factor.
  double hard_level = 1;
  int max_evaluations = 3000;    // per SLSQP solve
  unsigned seed = 1;
  // Called after each evaluation with the fraction of the work done; returning false cancels
  // (the result is then the best point so far, `cancelled` set).
  std::function<bool(double)> progress;
};

struct SynthesisResult {
  ClosedLoopGains gains;                     // the controller (configuration-independent matrices)
  Eigen::VectorXd joint_kp, joint_kd;        // per 1-DOF joint, the scenario's units (centralized: 1/s², 1/s)
  Eigen::Matrix3d kp_rot = Eigen::Matrix3d::Zero(), kd_rot = Eigen::Matrix3d::Zero();  // the bus blocks
  Eigen::Matrix3d kp_pos = Eigen::Matrix3d::Zero(), kd_pos = Eigen::Matrix3d::Zero();
  double attitude_kp = 0, attitude_kd = 0;   // Base::kAttitudeScalar: the scenario's kp, kd
  Eigen::VectorXd joint_rolloff;             // [rad/s] per 1-DOF joint (empty: no roll-off)
  double gamma_soft = 0;
  double gamma_hard = 0;                     // max over the configurations (exact norm)
  std::vector<double> gamma_hard_each;       // per configuration
  std::vector<double> omega_peak_each;       // [rad/s] (infinity: the high-frequency asymptote)
  // Lyapunov condition (§8.3.3.1): the symmetric parts of Kp and Kd on the actuated channels
  // positive definite; their smallest eigenvalues.
  bool kp_positive_definite = false, kd_positive_definite = false;
  double kp_min_eigenvalue = 0, kd_min_eigenvalue = 0;
  bool feasible = false;                     // γ_hard ≤ hard_level (1 + hard_tolerance)
  bool cancelled = false;
  int evaluations = 0;
  std::string message;                       // how the solver stopped
};

// Throws std::invalid_argument if no configuration is given, one has the wrong size or is not
// finite, a roll-off bandwidth is not positive or their count is neither 1 nor the joints', or the
// structure has no loop for this model (a fixed base with Base other than kNone is
// accepted: the bus part is then ignored).
SynthesisResult synthesize(const Model& model, const std::vector<Eigen::VectorXd>& configurations,
                           const SynthesisStructure& structure, const SynthesisOptions& options = {});

// A controller's ‖W T‖∞ at another configuration (the mono-model designs at the other point):
// the exact norm (infinite if the loop is unstable) and its peak frequency.
HinfNorm evaluateController(const Model& model, const Eigen::VectorXd& q, const ClosedLoopGains& gains);

// The worst ‖W T‖∞ of a controller over configurations sampled uniformly (seeded) in the 1-DOF
// joints' position limits (±π where the model gives none), the rest of q (base pose, flexible
// coordinates at zero) as in `q`: the thesis' check of the flexible model (Fig. 8.19, its worst
// σ_max over random configurations), here with the exact norm at each sample.
struct WorstCase {
  double gamma = 0;          // the largest norm (infinite if some sample is unstable)
  Eigen::VectorXd q;         // where
  int unstable = 0;          // samples with an unstable loop
  std::vector<double> each;  // every sample's norm
};
WorstCase worstCase(const Model& model, const Eigen::VectorXd& q, const ClosedLoopGains& gains, int samples,
                    unsigned seed = 1);

namespace detail {
// For the tests: the largest difference between the analytic gradients of the synthesis'
// constraints (singular values and poles) and central finite differences, relative to the
// gradient's size, at the start point scaled by `scale`, on the grid and at the point solveFrom adds
// for a peak at ω = 0; infinite if a value or a gradient is not finite.
double synthesisGradientError(const Model& model, const std::vector<Eigen::VectorXd>& configurations,
                              const SynthesisStructure& structure, double scale);
}  // namespace detail

}  // namespace grapple::core
