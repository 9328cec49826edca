// μ-analysis of the thesis' PD loops over joint ranges (§8.3, Figs. 8.10-8.17, Tables 8.5-8.6):
// the joint ranges in which a controller is guaranteed to keep the closed loop stable, or stable
// with ‖W T_w→a‖∞ ≤ γ (robust performance).
//
// The loop D(q) δq̈ + C δq̇ + K δq = D(q) w (closed_loop.hpp) is rewritten δq̈ = w - D(q)⁻¹ (C s + K) δq,
// so only D⁻¹ carries the configuration: its LFT in the normalized joint parameters δ_k ∈ [-1, 1]
// (σ_k = c_k + r_k δ_k, σ = tan(θ/2) or tan(θ/4) over each joint's range; lft.hpp) closed by the
// PD gives the M-Δ form M(jω) with Δ = blockdiag(δ_k I_{n_k}) (and, for robust performance, a full
// complex block Δ_p from W T_w→a/γ back to w, Fig. 8.17).
//
// Bounds (ours; the thesis used ONERA's SMAC toolbox):
// - upper: at each frequency, the D-G scaling bound of Young, Newlin & Doyle (1995): μ(M) ≤ β when
//   σ̄((I+G²)^(-1/4) (D M D⁻¹/β - jG) (I+G²)^(-1/4)) ≤ 1 for some D > 0, G = G* that commute with Δ
//   (G zero on the complex block). D and G are taken diagonal, one entry per channel of Δ: a
//   subset of the scalings a repeated parameter allows (full blocks), so the bound is valid and
//   more conservative (for one parameter repeated 8 or 16 times, much more). The complex bound
//   μ_C (G = 0: the parameters treated as complex) starts from Osborne's balancing and is
//   minimized over D by L-BFGS; μ_R (with G) by bisection on β in ]0, μ_C], β passing when L-BFGS
//   finds (D, G) that satisfy the condition (every pass checked at its scalings; resolution
//   μ_C/128). μ_R is computed at the frequencies where μ_C exceeds the largest μ_R so far. The
//   peak over frequency is searched on a log grid joined by the nominal loop's pole frequencies,
//   refined by golden-section search around the largest value: a bound at the frequencies
//   evaluated.
// - lower: sampled configurations. For stability, along directions δ on the surface of the box,
//   the first scale α (grid, then bisection) with an unstable loop gives μ ≥ 1/α; for robust
//   performance each sample δ gives μ ≥ min(1/|δ|∞, ‖W T‖∞/γ) (the main-loop theorem). This is the
//   thesis' own check of the flexible model (Fig. 8.19), and 0 when nothing is found.
// - certified box: μ_u < 1 guarantees the open box; the box shrunk about its centre in σ by 1/μ_u
//   (stability: μ scales with the box, the shrunk box has the bound 1 at the same scalings) or, for
//   robust performance (the performance block does not scale), a scale of the box with μ_u < 1
//   found by halving from 1/μ_u, then bisection. The iterative procedures (§8.3.3.2, "1-5"
//   outward, "5-1" inward) add one joint at a time to the varying set, the others at the centre of
//   their range, and shrink the varying joints' ranges after each step; the last step's bound
//   certifies the whole final box.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/lft.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

// μ upper bounds of a complex matrix for the structure: channels 0..nr-1 real scalars (each with
// its own scaling), the last nc channels one full complex block (nc may be 0).
struct MuUpperBound {
  double complex_bound = 0;  // G = 0 (every block treated as complex)
  double mixed_bound = 0;    // with G on the real channels: ≤ complex_bound
  Eigen::VectorXd d, g;      // the scalings of mixed_bound: D = diag(exp(d)), G = diag(g)
};
// `warm`: the d of a nearby matrix (same size) to start from, or empty. mixed false: the complex
// bound only (mixed_bound = complex_bound).
MuUpperBound muUpperBound(const Eigen::MatrixXcd& M, Eigen::Index nr, Eigen::Index nc,
                          const Eigen::VectorXd& warm = {}, bool mixed = true);

struct JointRange {
  int body = 0;               // the joint's body
  double lower = 0, upper = 0;  // [rad]
};

enum class RobustGoal {
  kStability,    // the loop stays asymptotically stable
  kPerformance,  // and ‖W T_w→a‖∞ ≤ performance_level
};

struct RobustOptions {
  RotationParameter form = RotationParameter::kTan2;
  RobustGoal goal = RobustGoal::kStability;
  double performance_level = 1.1;  // γ of the robust-performance goal (‖W T‖∞ ≥ 1 for every PD)
  double omega_min = 1e-3, omega_max = 1e3;  // [rad/s]
  int grid_points = 30;            // log-spaced frequencies (plus the nominal loop's poles)
  int samples = 400;               // lower bound: sampled configurations
  unsigned seed = 1;
  // Called with the fraction done; returning false cancels (RobustCancelled thrown).
  std::function<bool(double)> progress;
};

struct RobustCancelled : std::runtime_error {
  RobustCancelled() : std::runtime_error("robust analysis cancelled") {}
};

// The closed loop's M(jω) for the joint ranges (σ2 ranges must stay inside ]-π, π[, σ4 inside
// ]-2π, 2π[); the rows and columns of Δ first (grouped by joint, in `ranges` order), then, for
// robust performance, the performance channels (the actuated ones, W_i a_i / γ back to w_i).
class RobustLoop {
 public:
  // q: the other coordinates (base, joints not in `ranges`). Throws std::invalid_argument on a
  // flexible model, sizes that do not match, or a range outside the parameterization's.
  RobustLoop(const Model& model, const Eigen::VectorXd& q, const ClosedLoopGains& gains,
             const std::vector<JointRange>& ranges, const RobustOptions& options);
  Eigen::MatrixXcd at(double omega) const;
  Eigen::Index deltaSize() const { return dinv_.deltaSize(); }
  Eigen::Index performanceSize() const { return performance_ ? static_cast<Eigen::Index>(actuated_.size()) : 0; }
  const std::vector<int>& param() const { return dinv_.param; }
  // The configuration at normalized parameters δ (each in [-1, 1] inside the box).
  Eigen::VectorXd configuration(const Eigen::VectorXd& delta) const;
  const Eigen::VectorXd& center() const { return center_; }
  const Eigen::VectorXd& radius() const { return radius_; }

 private:
  Lft dinv_;
  Eigen::MatrixXd C_, K_;
  std::vector<int> actuated_;
  std::vector<double> w_, xi_;
  double gamma_;
  bool performance_;
  Eigen::VectorXd q_, center_, radius_;
  std::vector<int> qidx_;
  RotationParameter form_;
};

struct MuSweep {
  std::vector<double> omega, upper, complex_upper;  // per frequency, sorted
  double upper_peak = 0, complex_peak = 0, omega_peak = 0;
  double lower = 0;                  // sampled lower bound of the peak
  Eigen::VectorXd worst_delta;       // the sample that gave it (empty if none)
  bool nominal_stable = false;       // the loop at the box's centre (else the bounds mean nothing: infinite)
};

MuSweep muSweep(const Model& model, const Eigen::VectorXd& q, const ClosedLoopGains& gains,
                const std::vector<JointRange>& ranges, const RobustOptions& options);

// The ranges shrunk about their centres in σ by 1/mu (unchanged if mu ≤ 1): the box μ certifies
// (thesis: "σ ∈ [a/μ, b/μ]", reproduced about the centre; Table 8.5).
std::vector<JointRange> shrinkRanges(const std::vector<JointRange>& ranges, double mu, RotationParameter form);
// The largest angle range the parameterization allows inside [lower, upper]: σ2 at most ±175°
// (tan(θ/2) is infinite at ±180°, the thesis' Table 8.5 limits), σ4 ±180°.
JointRange parameterRange(JointRange r, RotationParameter form);

// The model's revolute joints with their position limits (±180° where the model has none): the
// limits a certified box is sought within.
std::vector<JointRange> jointLimitRanges(const Model& model);

struct CertifiedBox {
  std::vector<JointRange> limits;  // what was asked (capped by parameterRange)
  std::vector<JointRange> box;     // guaranteed (empty ranges' joints: lower = upper = centre)
  std::vector<double> step_mu;     // the upper bound at each step (one step if not iterative)
  // The bounds of the last step: stability, on the box before its shrink by 1/upper_peak;
  // performance, on the final box (upper_peak < 1).
  MuSweep final_sweep;
  std::vector<int> fixed;          // joints left out of the analysis: the mass matrix does not depend on them
  bool nominal_stable = false;
  // A box was found (false: the loop is unstable at the centre, or, for robust performance, no
  // box scale down to 2^-12 of 1/μ_u passed, e.g. the goal already fails at the centre; the
  // box's analysed ranges are then points).
  bool certified = false;
  int sweeps = 0;
};

// The revolute joints whose angle changes D(q) (the others, e.g. a last joint turning a tool
// symmetric about its axis, do not enter the LFT: §8.3.3.2).
std::vector<int> massMatrixJoints(const Model& model, const Eigen::VectorXd& q);

// The certified box within `limits`: all joints at once (order empty) or the iterative procedure
// adding the joints in `order` (bodies). Joints in limits that do not change D keep their limits.
CertifiedBox certifyBox(const Model& model, const Eigen::VectorXd& q, const ClosedLoopGains& gains,
                        const std::vector<JointRange>& limits, const RobustOptions& options,
                        const std::vector<int>& order = {});

}  // namespace grapple::core
