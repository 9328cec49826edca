// Capture planners of the thesis, Ch. 7: the end effector ("hand")
// leaves its initial state and meets the grasp point of the tumbling debris at a free final time
// t_f, matching
//   A  its position                       (r_h' = u,   L = 1 + w_u |u|²),             eq. 7.15–7.22
//   B  its position and velocity          (r_h'' = u,  L = 1 + w_1 |r_h'|² + w_u |u|²), 7.28–7.37
//   C  position, velocity, acceleration   (r_h''' = u, L = 1 + w_1 |r_h''|² + w_u |u|²), 7.38–7.47
// (C is the thesis' contribution: the hand merges with the grasp point's natural motion with
// continuous commands, and can then follow it before the gripper closes.) The optimal paths are
// closed forms — polynomials, plus e^{±st}, s = √(w_1/w_u) when w_1 > 0 (the thesis prints
// σ for s) — whose coefficients solve a linear system per axis (7.19, 7.33/7.36, 7.43/7.46, rows
// corrected where the print does not meet the boundary conditions); t_f is the smallest root of the transversality condition H(t_f) = 0
// (7.22, 7.37, 7.47, with the derivative orders corrected from the print) within a horizon, found by
// scanning and bisection on the propagated debris motion.
//
// Frame: inertial (the debris and the hand are in the same inertial frame; the
// guidance converts to the chaser's body frame where it needs to). After t_f the reference is
// the grasp point's own motion. Not thread-safe: the debris propagation grows on demand.
#pragma once

#include <memory>
#include <vector>

#include "core/world/debris.hpp"

namespace grapple::core {

enum class CaptureMatching {
  kPosition,                  // A
  kPositionVelocity,          // B (Aghili 2009a)
  kPositionVelocityAcceleration,  // C (thesis)
};

struct CapturePlannerOptions {
  CaptureMatching matching = CaptureMatching::kPositionVelocityAcceleration;
  double w_u = 100;           // weight of the input (velocity, acceleration or jerk) against time
  double w_1 = 1;             // weight of the velocity (B) or acceleration (C); unused by A
  double horizon = 120;       // [s] largest t_f searched (the smallest root of H(t_f) = 0 below it)
  double scan_step = 0.05;    // [s] bracketing step of the t_f search
  double debris_step = 0.01;  // [s] RK4 step of the debris propagation
  // > 0: the final time, fixed, instead of the root of the transversality condition (the optimal
  // path for that duration; a capture window search trades it for feasibility) [s].
  double final_time = 0;
  // Approach in two stages (ours; the thesis plans straight onto the grasp point): with
  // approach_distance d > 0 the Ch. 7 plan meets, with the same matching, the approach point — d
  // out on the grasp point's outward axis (from the centre of mass through the grasp point), fixed
  // in the debris — at t_f; then the hand slides in along that axis, as seen from the debris, to
  // the grasp point in approach_time (a quintic in the debris frame, at rest relative to the
  // debris at both ends). The arm then enters the debris' neighbourhood only inside the approach
  // corridor instead of sweeping past the box's edges when the grasp face is turned away.
  double approach_distance = 0;  // [m]
  double approach_time = 10;     // [s]
  // Align the hand's approach axis with the grasp axis (ours; the thesis plans and tracks the
  // hand's position only, whatever the gripper's orientation): the plan then also gives a pointing
  // reference (pointing()), from the hand's axis at the start (HandState::axis) turned onto the
  // inward grasp axis -R a_t by the meeting — along the great circle onto the meeting's grasp axis
  // with a quintic (rest-to-rest) profile of the fraction turned, the debris' rotation from then
  // to the meeting laid on it in the same proportion — and on the grasp axis itself from then on
  // (CapturePlan::pointingAxis says how). The wrist then
  // reaches the grasp point along the approach corridor instead of across the grasp face.
  bool align = false;
  // A correction added to the Ch. 7 stage's path (ours: the window search's bus-torque shaping,
  // planning/path_shaping.hpp): Δ(t) = Σ_k shape(k, :) φ_k(t / t_f) on [0, t_f], with
  // φ_k(σ) = 64 σ³(1 − σ)³ B_k(σ) (at most 1) and B_k the Bernstein polynomials of degree
  // shape.rows() − 1. Δ and its first two derivatives vanish at both ends, so the plan still
  // leaves the hand's state and meets its target's position, velocity and acceleration at t_f;
  // only the path between changes.
  // Empty: the Ch. 7 path as it is. [m]
  Eigen::Matrix<double, Eigen::Dynamic, 3> shape;
};

// The shaping's basis (CapturePlannerOptions::shape): d^order φ_k / dσ^order at σ ∈ [0, 1] for
// k = 0 .. n − 1, into out (size n); order 0 to 3.
void shapeBasis(double sigma, int n, int order, double* out);

// The hand's initial state, inertial [m, m/s, m/s²].
struct HandState {
  Vector3 position = Vector3::Zero(), velocity = Vector3::Zero(), acceleration = Vector3::Zero();
  Vector3 axis = Vector3::Zero();  // the hand's approach axis (unit; zero: not known, no pointing)
};

// The torque-free debris propagated from an initial state, on a grid, with the grasp point's
// kinematics at any time (an RK4 step from the nearest grid point below).
//
// from(k) is the same propagation seen from its k-th grid point: its states are, to the last bit,
// those of a trajectory started from that grid point's state, and it shares the grid (either one
// extends it for both). A capture window search builds hundreds of plans from start times on one
// debris propagation: sharing it propagates the debris once instead of once per plan (the plans'
// own propagation was 40 % of a search). A shared grid is not synchronized: the trajectories that
// share one are used by one thread at a time. A copy has a grid of its own.
class DebrisTrajectory {
 public:
  DebrisTrajectory(DebrisProperties properties, const DebrisState& initial, double step = 0.01);
  DebrisTrajectory(const DebrisTrajectory& other);
  DebrisTrajectory& operator=(const DebrisTrajectory& other);
  DebrisTrajectory(DebrisTrajectory&&) noexcept = default;
  DebrisTrajectory& operator=(DebrisTrajectory&&) noexcept = default;

  DebrisState state(double t);               // t >= 0; extends the grid as needed
  PointKinematics target(double t) { return targetKinematics(properties(), state(t)); }
  const DebrisProperties& properties() const { return grid_->properties; }
  double step() const { return grid_->step; }
  // The grid point k (time k step()), and the trajectory from it (time 0 there; sharing the grid).
  const DebrisState& gridState(std::size_t k);
  DebrisTrajectory from(std::size_t k);

 private:
  struct Grid {
    DebrisProperties properties;
    double step;
    std::vector<DebrisState> states;
  };
  DebrisTrajectory(std::shared_ptr<Grid> grid, std::size_t first) : grid_(std::move(grid)), first_(first) {}
  std::shared_ptr<Grid> grid_;
  std::size_t first_ = 0;  // this trajectory's time 0: grid_->states[first_]
};

class CapturePlan {
 public:
  // Throws std::runtime_error if H(t_f) = 0 has no root within the horizon (the message gives the
  // horizon and suggests weights), std::invalid_argument on bad options.
  CapturePlan(const DebrisProperties& debris, const DebrisState& debris0, const HandState& hand0,
              const CapturePlannerOptions& options = {});
  // The same, the debris given as its propagation from the plan's start (e.g. a window search's
  // DebrisTrajectory::from); its step must be options.debris_step.
  CapturePlan(DebrisTrajectory debris, const HandState& hand0, const CapturePlannerOptions& options = {});

  // When the hand reaches the grasp point: t_f, plus the approach time in a two-stage approach.
  double captureTime() const { return t_f_ + approachTime(); }
  // t_f: when the Ch. 7 plan meets its target (the grasp point, or the approach point).
  double rendezvousTime() const { return t_f_; }
  double approachTime() const { return options_.approach_distance > 0 ? options_.approach_time : 0.0; }
  // The hand reference at t: position, velocity, acceleration, jerk; the Ch. 7 plan until t_f,
  // then the approach along the grasp axis (two stages), then the grasp point's own motion.
  PointKinematics at(double t) const;
  // Whether the plan gives a pointing reference (options().align, and the hand's axis known).
  bool aligns() const { return options_.align && hand0_.axis.squaredNorm() > 0; }
  // The pointing reference at t after the plan's start (aligns() only): the axis as described at
  // CapturePlannerOptions::align, its rate and acceleration by central differences of the axis
  // (step 1 ms: the profile is smooth, C² at its ends, so they are accurate to ~1e-6 relative).
  AxisKinematics pointing(double t) const;
  // The inward grasp axis -R(t) a_t (unit, inertial) t after the plan's start: the direction in
  // which the hand meets the grasp face.
  Vector3 graspAxis(double t) const;
  // The kinematics of the point the Ch. 7 plan meets (the grasp point, or the approach point), t
  // after the plan's start.
  PointKinematics rendezvousTarget(double t) const;
  // The Ch. 7 path alone (also beyond t_f: the closed form continued; without the shaping),
  // derivative order 0–3.
  Vector3 path(double t, int order) const;
  // The shaping's correction Δ at t (zero outside [0, t_f] and without a shape), order 0–3.
  Vector3 shaping(double t, int order) const;
  // Replaces the shaping (CapturePlannerOptions::shape; empty: none).
  void setShape(const Eigen::Matrix<double, Eigen::Dynamic, 3>& shape);
  // The transversality residual H(t_f) of the variant for a candidate final time (zero at the
  // capture time); exposed for analysis and tests.
  double transversality(double t_f) const;
  // Jumps at t_f between the plan and the grasp point: |Δ velocity|, |Δ acceleration|, |Δ jerk|.
  Vector3 jumps() const;
  // The cost J = ∫₀^T L dt of the optimal path with the final time fixed at T (Simpson's rule on
  // 2000 intervals); cost(captureTime()) is the plan's. At the capture time dJ/dT = 0: that is
  // what H(t_f) = 0 expresses (checked in the tests).
  double cost(double T) const;
  const CapturePlannerOptions& options() const { return options_; }
  // The debris as the planner propagates it, t after the plan's start.
  DebrisState debris(double t) const { return debris_.state(t); }
  const DebrisProperties& debrisProperties() const { return debris_.properties(); }

 private:
  // The pointing reference's axis alone at t (t <= 0: the hand's axis at the start).
  Vector3 pointingAxis(double t) const;
  // The closed-form path for final time t_f into coef_ (n x 3).
  void solve(double t_f) const;
  Vector3 pathFor(double t, int order, double t_f) const;
  // The body point p_t + u a (a: the grasp axis) moving along a at the rates du, ddu, dddu.
  PointKinematics approachPoint(double t, double u, double du, double ddu, double dddu) const;
  int basisSize() const;
  // d^order/dt^order of the basis functions at t, into out (size n).
  void basis(double t, double t_f, int order, double* out) const;

  CapturePlannerOptions options_;
  HandState hand0_;
  mutable DebrisTrajectory debris_;
  Vector3 axis_B_ = Vector3::UnitZ();  // the grasp point's outward axis, debris frame
  double s_ = 0;      // √(w_1 / w_u) for the exponential forms, 0 for the polynomial ones
  double t_f_ = 0;
  PointKinematics target_tf_{};
  Vector3 grasp_axis_tf_ = Vector3::Zero();  // graspAxis(t_f)
  mutable double coef_t_f_ = -1;        // final time coef_ belongs to
  mutable Eigen::Matrix<double, 6, 3> coef_;
};

}  // namespace grapple::core
