// The least bus torque a capture plan must ask while its hand rides the grasp point: a certificate
// that tells a miss no plan can avoid from a miss the planner did not solve.
//
// Every plan of the capture planner (Ch. 7, one or two stages) ends the same way: the hand rides
// the grasp point for `hold` seconds before the gripper closes — its position on the point, and
// with `align` its approach axis on the inward grasp axis — the bus attitude held. Over the hold
// the hand's motion is imposed by the debris, whatever the plan before it. With the bus' attitude
// held (its angular rate and acceleration zero) and the system's linear momentum conserved (the
// bus torque is the only external action: its centre of mass drifts uniformly), the arm's
// configuration is then fixed by the hand's pose (inverse kinematics on the configuration branch
// followed continuously from the stand-off pose), its joint rates by the hand's velocity, and its
// joint accelerations by the hand's acceleration — up to the arm's redundancy: the joints beyond
// the task's rows (none for 6 joints on a 6-row task; one, the hand's roll about its approach
// axis, for the 5 rows of the aligned hand on a 6-joint arm). The bus torque needed to ride the
// grasp point at instant t, τ_ride(t), follows by inverse dynamics of the free-floating robot
// (H q̈ + h, the bus' rows).
//
// Redundancy. With one redundant joint rate (the roll), its rate is taken as the minimum-norm
// solution's (at rest: the capture law's posture damping keeps it there) and its acceleration is
// chosen at each instant to lower the bus torque as far as the joint torque limits allow (a
// one-variable linear programme, solved exactly). With two or more the bound is not computed: with
// three, a 6-joint arm riding a point has the reaction null space of Nenchev (2013) at its disposal
// (3 hand + 3 bus rows for 6 joints) and, in general, can ride it without any bus torque.
//
// The bound. A meeting at any t_m in [0, T] is followed by the hold [t_m, t_m + hold]; on a grid
// of step δ, every such hold contains the grid window [t_k, t_k + hold - δ] of the first grid
// point t_k >= t_m, so the peak over the hold is at least the largest sampled τ_ride in that
// window. The bound is the smallest of these window maxima over k: no plan whose hand rides the
// grasp point for the hold from a meeting in [0, T] asks less of the bus. An instant where the
// grasp point is proven out of the arm's reach (GraspRider::outOfReach, a distance argument)
// excludes every hold that contains it (+inf). So does one where the pose is not found, forwards
// nor backwards from the neighbouring instants ridden: these lie at the edges of the reach, where
// the arm stretches towards a singular pose, and the distance argument is too loose to prove them
// out of reach (its slack: how far the bus can move as the arm extends, half a metre on the DEOS
// chaser). The bound is thus over the meetings whose hold the inverse kinematics rides, and says
// how many instants it left out (RidingBound::uncertified). What it assumes besides: the hand on
// the grasp point exactly (the planner's plans are; the gripper's 1 cm tolerance would leave a
// little room), the bus attitude held exactly, the roll at rest, the configuration branch reached
// from the stand-off pose.
//
// (Published planners bound the base reaction over the whole path instead — the intercept chosen
// to limit the base's angular impulse, Ma, Flores-Abad & Pham; Lampariello's B-spline optimisation
// with the torques as constraints — neither says when no path can exist; this certificate only
// speaks of the part every plan shares.)
#pragma once

#include <string>
#include <vector>

#include "core/dynamics/data.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/planning/feasibility.hpp"

namespace grapple::core {

// The chaser riding the grasp point at one instant.
struct RidingSample {
  double time = 0;                  // [s] after now
  bool certified = false;           // the arm rides the point exactly there; otherwise torque is
                                    // +inf if the point is out of the arm's reach (proven, see
                                    // GraspRider::outOfReach), else 0 (not known: see the bound)
  Eigen::VectorXd q, v, ddq;        // the robot's state and accelerations (roll acceleration 0)
  Vector3 bus_torque = Vector3::Zero();  // [N m] bus axes, the roll at rest (no acceleration)
  double torque = 0;                // [N m] the least per-axis peak over the roll's acceleration
  double roll_acceleration = 0;     // [rad/s²] along the null direction, the one that gives it
  bool posed = false;               // the hand's pose was found (then sigma is the task's)
  double sigma = 0;                 // least singular value of the task's Jacobian
};

// Rides the grasp point over increasing times, each solve warm-started from the previous one.
class GraspRider {
 public:
  // From the chaser's state (q, v) now, holding its pose (the joints at rest, the bus drifting
  // with its momentum, as the window search assumes), and the debris now. align: the hand's
  // approach axis on the inward grasp axis too.
  GraspRider(const Model& model, const FeasibilityOptions& options, bool align, const DebrisProperties& debris,
             const DebrisState& debris_now, const Eigen::VectorXd& q, const Eigen::VectorXd& v, int ee_frame,
             double debris_step = 0.01);
  // Joints beyond the task's rows; the bound needs <= 1.
  int redundancy() const { return redundancy_; }
  // The chaser riding the grasp point t after now, warm-started from the previous call's (an
  // earlier or a later time). After a call that did not ride it, the pose is searched from a few
  // seeds (costly where it is out of reach) only if `search`; else only the reach is checked.
  const RidingSample& ride(Data& data, double t, bool search = true);
  // Continue from a sample ridden before (the next ride() warm-starts from it).
  void resume(const RidingSample& from);

 private:
  bool solvePose(Data& data, const Vector3& target, const Vector3& axis, const Vector3& com, int iterations);
  // Whether no configuration puts the hand on the target (with its axis on `axis` when aligned)
  // with the centre of mass at com: the wrist — the last joint's origin, at a fixed place in the
  // hand's frame — lies further from the shoulder than the sum of the distances between the
  // consecutive joint origins from the shoulder to the wrist (each fixed for revolute joints), the
  // shoulder itself being within m_arm D / M of where the centre of mass puts it (D: how far the
  // arm's bodies can be from the shoulder). Only for an arm of revolute joints (else never).
  bool outOfReach(const Vector3& target, const Vector3& axis, const Vector3& com) const;
  void jacobians(Data& data, const Eigen::VectorXd& q);  // H_, react_, G_, A_ at q

  const Model& model_;
  FeasibilityOptions options_;
  bool align_;
  int ee_frame_;
  DebrisTrajectory debris_;
  std::vector<int> joints_, free_;    // v indices: the joints; the bus' translation
  std::vector<int> joints_q_;
  int redundancy_ = 0;
  Vector4 attitude_;                  // the bus' held attitude
  Vector3 com0_, com_rate_;           // the system's centre of mass now, its velocity [m, m/s]
  Vector3 momentum_B_;                // the linear momentum in bus axes (constant: the bus does not turn)
  Eigen::VectorXd q_warm_;            // last converged configuration
  Eigen::VectorXd q_stand_, q_entry_; // the stand-off pose; the first of the last ridden stretch
  bool reach_known_ = false;          // outOfReach's figures (an arm of revolute joints)
  double reach_ = 0, shoulder_slack_ = 0;
  Vector3 shoulder_offset_ = Vector3::Zero();  // shoulder - centre of mass, but for the arm's part [m, inertial]
  Vector3 wrist_T_ = Vector3::Zero();          // the wrist in the hand's frame [m]
  Eigen::MatrixXd H_, react_, G_, A_; // mass matrix, H_ff⁻¹ H_fm, generalized Jacobian (6 rows), task
  RidingSample sample_;
};

// (RidingBound: feasibility.hpp, where the capture window carries it.)

// The bound over meetings in [0, span] after now (grid step `step`; step < hold).
RidingBound ridingBusTorqueBound(const Model& model, Data& data, const FeasibilityOptions& options, bool align,
                                 const DebrisProperties& debris, const DebrisState& debris_now,
                                 const Eigen::VectorXd& q, const Eigen::VectorXd& v, int ee_frame, double span,
                                 double step = 0.1);

}  // namespace grapple::core
