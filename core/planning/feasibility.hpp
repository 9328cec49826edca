// Feasibility of a capture plan, predicted before it is flown, and the search of a capture window.
//
// The thesis plans the hand's path (Ch. 7) without actuator or collision constraints and names a
// planner that accounts for them as its future work (Ch. 10, after Lampariello 2013). Grapple
// keeps the Ch. 7 planners as the path generator and checks each candidate plan through the
// model, as the published planners do with the dynamics rather than the kinematics alone:
//
// Check (checkCapturePlan). The plan is flown in prediction: the rigid-equivalent chaser (modal
// coordinates held at zero) tracks it exactly by resolved acceleration through the generalized
// Jacobian — the capture law's nominal motion, with its damping near singularities and its
// posture term — with the bus attitude held (its acceleration prescribed, so the bus torque
// includes the arm's reaction fed forward), from the plan's start to the meeting and `hold`
// seconds beyond, at a fixed step. Along it: the joint torques and bus torques (inverse dynamics
// of the free-floating robot) against a fraction of their limits; the least singular value of
// the generalized Jacobian against the law's damping threshold (below it the hand no longer
// tracks exactly); the joint positions and rates against their limits; the clearance of the
// arm's links (their collision shapes; a link without any as the capsule between consecutive
// joint origins, the last one to the hand: geometry/collision.hpp) from the debris' box as the
// planner propagates it, except inside the grasp point's approach corridor, and from the bus
// (its collision shapes, or else the box of its uniform-density equivalent). Each constraint gives
// a normalized margin (>= 0: met); the smallest one names what limits the plan.
//
// Window (searchCaptureWindow). Start times t0 are scanned from now over the debris' propagated
// motion (every few degrees of its rotation, over a number of tumbling periods: the horizon of the
// scenario bounds it); for each, the plans from the stand-off pose (the hand at rest, the chaser
// drifting with its momentum) to the grasp point are checked with the final time t_f* of the Ch. 7
// transversality condition and with slower ones (1.25 to 6 t_f*: the same optimal path family
// with the final time fixed, asking smaller accelerations and so smaller reaction torques) — the
// thesis' one-stage plan onto the grasp point and, when the planner has an approach distance, the
// two-stage plan (the approach point on the grasp axis, then along the axis: the arm reaches the
// debris only inside the approach corridor when the grasp face is turned away).
// Criterion: the earliest capture instant t0 + t_f among feasible plans (scanned in order of t0,
// stopping once t0 alone passes the best t0 + t_f). When none is, the candidates the bus torque
// stopped, and those a geometric constraint stopped a little, are reshaped against the bus torque
// (planning/path_shaping.hpp: the Ch. 7 path plus a correction that keeps its ends, by sequential
// convex programming over the flight in prediction, the geometric margins kept up in the same
// subproblem): first those that violate nothing else, then those that cross a geometric
// constraint a little, each set asking the bus least first; the first feasible one is the window.
// A candidate feasible at the scan's step is confirmed at the check's own before it is chosen. The
// start times, the seeds' flights and their shapings are independent: WindowSearchOptions::threads
// of them are predicted at once and taken in the serial order, so the window is the same on any
// number of threads. The scan itself differs from Lampariello's single-shooting optimization of
// B-spline paths, which reshapes the path itself: here the path's shape stays the thesis' optimal
// one and the free variables are when to start and (through the transversality condition) when to
// meet, as in Aghili's choice of the rendezvous time and the time-horizon searches of the field —
// cheap enough to run on board at each retry (milliseconds per candidate; benchmark Planning_*);
// the shaping is the part closer to Lampariello's.
#pragma once

#include <string>
#include <vector>

#include "core/dynamics/data.hpp"
#include "core/geometry/collision.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/sim/scenario.hpp"

namespace grapple::core {

struct FeasibilityOptions {
  double step = 0.04;             // [s] prediction step
  double hold = 1.0;              // [s] checked beyond the meeting (the hand rides the grasp point)
  double torque_margin = 0.9;     // fraction of each torque limit a plan may use
  double bus_torque_limit = 5;    // [N m] per axis (infinite: not checked)
  double clearance = 0.02;        // [m] required beyond the link radius (beyond the shapes)
  double link_radius = 0.12;      // [m] of the links without collision shapes
  double corridor_radius = 0.5, corridor_length = 1.5;  // [m]
  // The capture law's settings (ControllerSpec::Capture): error dynamics, posture, damping.
  double kp = 4, kd = 4, posture_kp = 0.25, posture_kd = 1, damping = 0.05, singular_threshold = 0.05;
  // The bus attitude held (prescribed acceleration, kp, kd) or left free.
  bool hold_bus = true;
  double attitude_kp = 0.1, attitude_kd = 0.6;
  Vector3 debris_size = Vector3::Zero();  // [m] the debris' box (zero: no clearance check with it)
  // Stop the prediction at the first violated constraint (the window search: the candidate is
  // infeasible then, and the margins found so far say why).
  bool stop_at_violation = false;

  // From a scenario's capture controller, chaser and debris (debris_size zero: the box of the
  // debris' uniform-density equivalent).
  static FeasibilityOptions from(const ControllerSpec& capture, const ChaserSpec& chaser,
                                 const DebrisProperties& debris, const Vector3& debris_size);
};

// One constraint along a predicted plan: its worst normalized margin (>= 0: met), where, and a
// sentence with the physical values.
struct ConstraintMargin {
  std::string name;     // joint_torque, bus_torque, singularity, joint_limit, joint_rate,
                        // debris_clearance, bus_clearance, transversality
  double margin = INFINITY;
  double time = 0;      // [s] after the plan's start
  std::string detail;
};

struct PlanCheck {
  bool feasible = false;
  std::vector<ConstraintMargin> constraints;
  double margin = -INFINITY;       // the smallest normalized margin
  std::string limiting;            // the constraint that gives it
  // Along the prediction, at each step: time after the plan's start and the smallest margin
  // there (for drawing the plan coloured by its margin).
  std::vector<double> times, margins;
  // Predicted peaks.
  double joint_torque = 0, bus_torque = 0, sigma_min = INFINITY, clearance = INFINITY;
  // The hand's approach axis from the inward grasp axis at the meeting and over the hold, worst [deg].
  double axis_error_deg = 0;
  const ConstraintMargin* worst() const;
  std::string reason() const;      // "joint_torque: joint 'joint2' asks 212 N m ... at 3.2 s"
};

// Along a prediction, at each step (at PlanCheck::times): the bus torque asked (bus frame [N m])
// and the smallest normalized margin of the geometric constraints (singularity, joint limits and
// rates, clearances): what the path shaping (planning/path_shaping.hpp) linearizes.
struct PlanSeries {
  std::vector<Vector3> bus_torque;
  std::vector<double> geometric;
};

// The plan's prediction from the chaser state (q, v) at the plan's start (modal coordinates are
// set to zero: the rigid-equivalent chaser). ee_frame: the hand. With `series`, also the bus
// torque and the geometric margin at each step.
PlanCheck checkCapturePlan(const Model& model, Data& data, const FeasibilityOptions& options,
                           const CapturePlan& plan, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                           int ee_frame, PlanSeries* series = nullptr);

// The arm's clearance from the debris' box now (outside the approach corridor) [m], beyond the
// link radius: what the abort monitor watches. Runs forwardKinematics(q).
double debrisClearance(const Model& model, Data& data, const FeasibilityOptions& options,
                       const Eigen::VectorXd& q, int ee_frame, const DebrisProperties& debris,
                       const DebrisState& state);

// The same for a caller that watches it at every control instant (the abort monitor): the arm's
// capsules and shapes are built once, and a call allocates nothing.
class DebrisClearanceMonitor {
 public:
  DebrisClearanceMonitor(const Model& model, const FeasibilityOptions& options, int ee_frame);
  double operator()(const Model& model, Data& data, const Eigen::VectorXd& q, const DebrisProperties& debris,
                    const DebrisState& state);

 private:
  FeasibilityOptions options_;
  int ee_frame_;
  ChainCollision arm_;
  std::vector<ConvexShape> obstacles_;
};

// The least bus torque any plan must ask while its hand rides the grasp point through the hold,
// over the meetings in a span (planning/riding_bound.hpp).
struct RidingBound {
  bool computed = false;   // false: not computed, or the arm's redundancy leaves the bus reaction free
  double torque = 0;       // [N m] per axis: no plan riding the grasp point asks less of the bus
  double meeting = NAN;    // [s] after now: the start of the hold that gives it
  double span = 0;         // [s] meetings searched from now
  double hold = 0;         // [s]
  double limit = INFINITY; // [N m] the bus' torque limit (FeasibilityOptions::bus_torque_limit)
  bool align = false;
  // Instants sampled: ridden; proven out of reach; whose pose was not found (excluded as well).
  int samples = 0, ridden = 0, out_of_reach = 0, uncertified = 0;
  // The limit is out of reach of every plan that rides the grasp point (torque +inf: the grasp
  // point itself is, at some instant of every hold).
  bool excludes() const { return computed && torque > limit; }
  // "riding the grasp point through the 1 s hold, aligned with the grasp axis, asks the bus at
  // least 5.31 N m at every meeting in the 183 s after now (limit 5.00 N m)"
  std::string describe() const;
};

struct CaptureWindow {
  bool found = false;
  double start = NAN;       // [s] plan start (absolute)
  double meeting = NAN;     // [s] start + t_f
  double duration = NAN;    // [s] t_f of the chosen plan's Ch. 7 stage (fixed for the plan flown)
  double approach_distance = 0;  // [m] the chosen plan's (0: one stage, onto the grasp point)
  PlanCheck check;          // the chosen plan's, or the best candidate's when none is feasible
  double best_start = NAN;  // when none is feasible: the start of the best candidate (the one
                            //   whose prediction went furthest before its first violation)
  int candidates = 0;
  double span = 0;          // [s] searched after now
  // The chosen plan's shaping (CapturePlannerOptions::shape; empty: the thesis' path), with the
  // peak bus torque its path asked before it; how many candidates were shaped, and the least peak
  // bus torque among them.
  Eigen::Matrix<double, Eigen::Dynamic, 3> shape;
  double unshaped_bus_torque = NAN;
  int shaped = 0;
  double shaped_bus_torque = INFINITY;
  // When none is feasible and the bus' torque is limited: the bound on the bus torque riding the
  // grasp point asks, which tells a limit no plan can meet from one the search did not.
  RidingBound riding;
  std::string reason() const;  // one sentence: the window, or why there is none
};

struct WindowSearchOptions {
  double horizon = 600, step_deg = 4, min_step = 0.25;
  // Tumbling periods searched (2π/|ω| each, and a twentieth), within the horizon. A spin about a
  // principal axis repeats itself after one; any other tumble nutates, and the grasp face comes
  // round to the chaser differently on each turn.
  double periods = 1;
  // Durations tried for each start, as multiples of the transversality condition's t_f (slower
  // plans ask smaller torques; the debris turns further meanwhile).
  std::vector<double> durations{1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6};
  // When no candidate is feasible: how many of those the bus torque (or a geometric constraint, a
  // little) stopped are reshaped against it at most, in each of the two sets
  // (planning/path_shaping.hpp; 0: none).
  int shaped = 12;
  // Threads predicting the start times (and the seeds, and shaping them) at once: the window is
  // the same for any number.
  int threads = 1;
  double step = 0.2;  // [s] prediction step of the candidates (one found feasible is confirmed at FeasibilityOptions::step before it is chosen, and checked again when it starts)

  // From a scenario's capture controller (its `window:` section).
  static WindowSearchOptions from(const ControllerSpec& capture);
};

// The Ch. 7 planner's options of a scenario's capture controller (matching, weights, the two-stage
// approach, the aligned approach axis): the ones its plans and its window search use.
CapturePlannerOptions capturePlannerOptions(const ControllerSpec& capture);

// How long after now the window search scans: `periods` tumbling periods (2π/rate each) and a
// twentieth, within the horizon [s]; rate [rad/s] (0: the horizon).
double windowSearchSpan(double horizon, double periods, double rate);

// The capture window from time `now`, the chaser at (q, v) holding its pose and the debris in
// `debris_now`: the plans of a later start begin with the hand at rest at its rigid-equivalent
// pose (the modes at zero, as checkCapturePlan flies the arm) and are predicted from the pose
// held (the joints at rest, the bus drifting without turning). The plans starting now begin
// from `hand_now` when given (the hand's state now, as the flown plan will: CapturePlan) and are
// predicted from (q, v) as they are, so that a window starting now is the plan that will be flown
// and checked from the state now (without hand_now: as a later start).
CaptureWindow searchCaptureWindow(const Model& model, Data& data, const FeasibilityOptions& options,
                                  const WindowSearchOptions& search, const CapturePlannerOptions& planner,
                                  const DebrisProperties& debris, const DebrisState& debris_now,
                                  double now, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                  int ee_frame, const HandState* hand_now = nullptr);

}  // namespace grapple::core
