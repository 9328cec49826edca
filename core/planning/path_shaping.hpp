// Shaping a capture plan's path against the bus torque.
//
// The thesis' Ch. 7 paths are optimal for the hand alone; what they ask of the bus is not in
// their cost, and at a few degrees per second of tumbling the approach, where the hand gathers the
// grasp point's speed, asks more than the bus' 5 N m (Table 8.1). Lampariello (2013) plans the
// joints' B-spline paths by single shooting against the torque limits; Virgili-Llop & Romano
// convexify the guidance problem and solve it sequentially. Grapple keeps the Ch. 7 path and the
// meeting it gives (final time, target state matched to the acceleration) and adds a correction
// that vanishes to second order at both ends (CapturePlannerOptions::shape: n Bernstein
// polynomials per axis times 64 σ³(1 − σ)³), chosen by sequential convex programming over the
// flight in prediction itself (single shooting, as Lampariello's, on the hand's path):
//
//   1. fly the plan in prediction (checkCapturePlan: the capture law's nominal motion, bus held)
//      and record at each step the bus torque and the smallest normalized margin of the geometric
//      constraints (singularity, joint limits and rates, clearances: PlanSeries);
//   2. linearize both in the 3n coefficients by forward differences of whole flights (the path's
//      change moves the arm's configuration and rates over the plan, not only its acceleration:
//      the instantaneous sensitivity alone mispredicts by newton-metres);
//   3. minimize the largest of: the bus torque's components over the flight, and at the steps whose
//      geometric margin is under `geometric_on`, the deficit κ (geometric_on − margin) (κ the bus'
//      share of its limit; one-sided: a margin above its target costs nothing), with a trust
//      region μ s |Δc|² (s the mean squared entry of the Jacobian), by Lawson's iteratively
//      reweighted least squares for the minimax;
//   4. fly the new plan; keep it if its total violation (the sum of the negative margins of every
//      constraint the check knows) is smaller, and widen the trust region, otherwise shrink it and
//      step again from the kept one (same linearization).
//
// The joint torques are checked on every iterate but not in the subproblem. A plan that violates
// a geometric constraint by more than max_geometric as it comes, asks the bus more than max_ratio
// times its limit, or asks it too much beyond the Ch. 7 stage (the slide along the grasp axis and
// the hold: the debris' own motion), is returned at once (ShapedPlan::hopeless).
#pragma once

#include "core/planning/feasibility.hpp"

namespace grapple::core {

struct ShapingOptions {
  int basis = 5;            // functions per axis (CapturePlannerOptions::shape's rows), 1 to 24
  int iterations = 8;       // steps tried (each one flight, and 3 basis more to linearize after a kept one)
  int lawson = 25;          // reweighted least-squares passes per linearization
  double trust = 0.01;      // μ at the start (dimensionless: see above)
  double delta = 1e-3;      // [m] the coefficients' step of the forward differences
  // A plan asking the bus more than this many times its limit (the margin's share) is not shaped,
  // nor one violating a geometric constraint by more than max_geometric (normalized margin).
  double max_ratio = 3;
  double max_geometric = 0;
  // Steps whose geometric margin is under geometric_on enter the subproblem as rows to raise.
  double geometric_on = 0.5;
};

struct ShapedPlan {
  PlanCheck check;          // the kept plan's, predicted whole (not stopped at a violation)
  Eigen::Matrix<double, Eigen::Dynamic, 3> shape;  // its correction (zero: the Ch. 7 path was kept)
  double bus_torque_before = 0;   // [N m] the peak of the plan as it came
  int predictions = 0;      // flights in prediction
  bool hopeless = false;    // not shaped (shapeable() is false)
};

// Whether a plan, flown whole (check, with its bus torques), is one the shaping starts from: no
// geometric constraint violated, the bus within its limit after the Ch. 7 stage (t_f), its peak
// at most max_ratio times the limit.
bool shapeable(const PlanCheck& check, const PlanSeries& series, double t_f, const FeasibilityOptions& options,
               const ShapingOptions& shaping);

// Reshapes `plan` (its Ch. 7 stage, through CapturePlan::setShape) against the bus torque, the
// chaser at (q, v) at the plan's start; leaves `plan` with the shape kept. Needs the bus held and
// its torque limited (FeasibilityOptions); throws std::invalid_argument otherwise.
ShapedPlan shapeAgainstBusTorque(const Model& model, Data& data, const FeasibilityOptions& options,
                                 const ShapingOptions& shaping, CapturePlan& plan, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v, int ee_frame);

}  // namespace grapple::core
