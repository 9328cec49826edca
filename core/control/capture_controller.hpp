// Capture of the debris' grasp point (thesis Ch. 7–8): at the
// start time a Ch. 7 planner (planning/capture_planner) plans the hand's path from its current
// state to the grasp point, which it then follows; the arm's joints track it by resolved
// acceleration through the whole system's dynamics:
//   a_d = r̈_ref + kd (ṙ_ref - ṙ) + kp (r_ref - r)                (Cartesian error dynamics)
//   a_hand = A q̈_m + b      (A, b: the hand's acceleration for given joint accelerations while
//                            the base and the modes move freely — A is the generalized Jacobian
//                            J* of a free-floating robot, with the modes: J_m - J_f H_ff⁻¹ H_fm)
//   q̈_m = A⁺_λ (a_d - b) + (I - A⁺_λ A) q̈_posture
// with the damped pseudo-inverse A⁺_λ = Aᵀ (A Aᵀ + λ² I)⁻¹, whose damping grows as the smallest
// singular value σ falls below a threshold ε: λ² = λ_max² (1 - (σ/ε)²) (Nakamura & Hanafusa;
// Maciejewski & Klein), so the commands stay bounded through singular configurations where a
// plain inversion (the thesis' outer loop) produced torque peaks; q̈_posture = -kd_p q̇_m -
// kp_p (q_m - q_m,start) keeps the redundant joints near their starting pose. The joint torques
// are the exact computed torques of those accelerations (hybridDynamics): base torques and forces
// of the controllers before it (attitude control) are taken into account.
// With chaser.attitude_control the bus attitude is held too (AttitudeHold): its angular
// acceleration is prescribed in the same dynamics, so the torque it needs includes the arm's
// reaction (feed-forward, which the thesis' separate AOCS loop lacked), then limited per axis.
// With `reactionless`, the bus floats and the joints move so that it does not turn (zero reaction
// manoeuvre): its angular acceleration is constrained exactly, the hand's task is met in what
// remains (see update()).
// Position only: the Ch. 7 planners plan the hand's position; its orientation is free. On a
// flexible chaser the hand steered is the rigid-equivalent one (modes at zero), see update().
// With a camera (watch()), the plans are made from the estimate, and while the hand flies the
// plan's first stage the plan is made anew when its prediction of the grasp point and the
// estimate part (capture.replan; estimation/parting_test).
// With rate_filter, the rate errors of the hand's Cartesian law (ṙ_ref - ṙ) and of the joints'
// holding law go through a low-pass and kp, kd are the compensated gains of control/rate_filter
// (the measured rates' noise kept out of the torques); the filters are sampled once per control
// instant.
#pragma once

#include <cmath>
#include <memory>

#include "core/estimation/parting_test.hpp"
#include "core/math/small_cholesky.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/planning/feasibility.hpp"
#include "core/control/controller.hpp"
#include "core/control/task_space.hpp"

namespace grapple::core {

class DebrisSensing;

class CaptureController final : public Controller {
 public:
  // ee_frame: the hand; the joints driven are every 1-DOF joint of the model. debris_size: the
  // debris' box, for the clearance checks of the capture window and the abort monitor (zero: the
  // box of its uniform-density equivalent).
  CaptureController(const Model& model, const ControllerSpec& spec, const ChaserSpec& chaser,
                    const DebrisProperties& debris, int ee_frame, const Eigen::VectorXd& q0,
                    const Vector3& debris_size = Vector3::Zero());
  void update(ControlContext& ctx) override;

  // Where the capture is:
  //   kBefore      before `start` (the controller does nothing)
  //   kWaiting     the hand held at the stand-off pose until the capture window opens
  //   kTracking    the hand flies the plan, then rides the grasp point until the gripper closes
  //   kRetreating  after an abort: back to the stand-off pose on a joint path
  //   kStopped     no window, or no retries left: the stand-off pose held to the end
  //   kAttached    the debris grasped: detumbling
  enum class Phase { kBefore, kWaiting, kTracking, kRetreating, kStopped, kAttached };
  Phase phase() const { return phase_; }
  static const char* phaseName(Phase p);
  // The gripper may close now (the simulation's grasp test applies only while tracking).
  bool graspArmed() const { return phase_ == Phase::kTracking; }

  // The planned hand position at t (inertial) while tracking.
  bool handReference(double t, Vector3& position) const override;
  // The grasp has happened (the simulation attached the debris): from now on the post-capture law
  // brings the composite to rest with collocated, passive feedback — the joints held where they
  // are (PD with post_kp, post_kd, scaled by each joint's apparent inertia) and, with base control,
  // the bus' rotation damped (torque -kd H_ωω ω, limited: detumbling).
  void attach(const Eigen::VectorXd& q);
  bool attached() const { return phase_ == Phase::kAttached; }
  bool drivesJoints(double t) const override { return t >= spec_.start; }
  // Once started, except at an instant it may make a plan (makePlan starts from the acceleration
  // the forces before it give, the servo's among them).
  bool replacesJointServo(double t) const override;
  void takeEvents(std::vector<ControlEvent>& out) override;
  // The debris known through a camera and a filter (ctx.debris is then its estimate): the plans
  // are tested against its new images and made anew when they part (capture.replan). Null: the
  // debris is known exactly (no replanning).
  void watch(const DebrisSensing* sensing);
  // The current (or last) plan, null before the first; its time 0 is planStart().
  const CapturePlan* plan() const { return plan_.get(); }
  double planStart() const { return plan_start_; }
  int plans() const { return plans_; }           // plans flown so far
  double start() const { return spec_.start; }
  // The last capture window searched (null if none was).
  const CaptureWindow* window() const { return window_.get(); }
  const FeasibilityOptions& feasibility() const { return feasibility_; }

 private:
  void begin(ControlContext& ctx);               // at `start`
  void searchWindow(ControlContext& ctx);
  void startPlan(ControlContext& ctx);           // the plan from the state now
  // The plan from the state now, stopped by the bus torque (check): reshaped against it; whether
  // it is feasible now (event window_reshaped).
  bool reshape(ControlContext& ctx, const PlanCheck& check);
  void makePlan(ControlContext& ctx);
  // The rigid-equivalent hand's state now, a plan's start: position, axis, velocity, and the
  // acceleration the forces so far give (zero for a capture window's plans: the hold's).
  HandState handNow(ControlContext& ctx);
  // After each new image while tracking the plan's first stage: the parting test, and the replan
  // if it fires (capture.replan).
  void watchEstimate(ControlContext& ctx);
  void replan(ControlContext& ctx, const PartingResult& parting, double left);
  // Abort monitor while tracking: the reason to abort now, or empty.
  std::string abortReason(ControlContext& ctx);
  void abort(ControlContext& ctx, const std::string& reason);
  void track(ControlContext& ctx);               // the capture law on the plan
  // The hand's task on the plan now: the reference, the hand's position and velocity, the
  // acceleration asked (the plan's with the Cartesian PD), b (the hand's acceleration with the
  // joints at rest); A_ (and A_task_ with the pointing rows) the generalized Jacobian.
  struct HandTask {
    PointKinematics ref;
    Vector3 r, rd, a_des, b;
    bool point = false;  // with the pointing task (capture.align)
    TaskVector task;     // [a_des - b; pointing's]
  };
  HandTask handTask(ControlContext& ctx);
  // The laws on the hand's task: transpose-Jacobian torques (into ctx), the joints' accelerations
  // of the reactionless laws, those of resolved rate or acceleration.
  void transposeJacobian(ControlContext& ctx, const HandTask& t);
  void reactionlessAccelerations(const ControlContext& ctx, const HandTask& t, Eigen::VectorXd& ddqm);
  void taskAccelerations(const ControlContext& ctx, const HandTask& t, Eigen::VectorXd& ddqm);
  // The joints to a joint-space setpoint (stand-off pose, retreat path) by computed torque, the
  // bus held.
  void holdJoints(ControlContext& ctx, const Eigen::VectorXd& qd, const Eigen::VectorXd& vd,
                  const Eigen::VectorXd& ad);
  // H and h (in ctx.data), the bus' prescribed acceleration in x_, and the free coordinates'
  // reaction to the joints (react_) and acceleration with the joints at rest (in ddq_).
  void prepareDynamics(ControlContext& ctx);
  // The torques that give the joints ddqm (and the bus its held motion), into ctx.
  void applyJointAccelerations(ControlContext& ctx, const Eigen::VectorXd& ddqm);
  void postCapture(ControlContext& ctx);
  void jointPd(ControlContext& ctx, const PointKinematics& ref, const Vector3& r);
  // With the joints' torques in ctx.tau: the bus' (held: its acceleration prescribed, the torque
  // solved and limited) and ctx.ddq.
  void holdBusUnderJointTorques(ControlContext& ctx);
  void event(double t, std::string kind, std::string detail);
  bool jointsSaturated(const ControlContext& ctx) const;
  // The hand's reference at t_plan after the plan's start: the plan's, with a camera corrected
  // onto the grasp point estimated now (kept in ride_ for handReference).
  const PointKinematics& handTarget(const ControlContext& ctx, double t_plan);

  ControllerSpec spec_;
  DebrisProperties debris_;
  int ee_frame_;
  std::vector<int> joints_;          // v indices of the driven joints, increasing
  std::vector<int> joints_q_;        // their q indices
  AttitudeHold attitude_;            // bus attitude (chaser.attitude_control)
  FilteredPdGains gains_;            // the Cartesian (and joint holding) kp, kd applied
  RateFilter hand_rate_, joint_rate_;  // on ṙ_ref - ṙ, and on the held joints' q̇_d - q̇
  Eigen::VectorXd rate_error_;       // scratch
  std::vector<int> prescribed_;      // v indices with a prescribed acceleration: base angular
                                     // coordinates (if held), then the joints
  std::vector<int> free_;            // the other v indices
  bool reactionless_ = false;        // zero reaction manoeuvre (bus floating)
  int base_rotation_row_ = 0;        // where the bus' angular coordinates start in free_
  Eigen::VectorXd posture_;          // joint positions at the start
  std::unique_ptr<CapturePlan> plan_;
  Phase phase_ = Phase::kBefore;
  FeasibilityOptions feasibility_;
  DebrisClearanceMonitor clearance_;   // the abort monitor's
  std::unique_ptr<CaptureWindow> window_;
  double window_start_ = NAN;        // [s] when the window's plan starts
  double plan_start_ = NAN;          // [s] when the current plan started
  int plans_ = 0, retries_used_ = 0;
  // Replanning (watch()): the sensing, the test against the current plan, the images when it was
  // made and when last tested, the replans of the current plan flown.
  const DebrisSensing* sensing_ = nullptr;
  std::unique_ptr<PartingTest> parting_;
  int images_at_plan_ = 0, images_tested_ = 0, replans_ = 0;
  Eigen::VectorXd standoff_;         // joint positions of the stand-off pose
  PointKinematics ride_;             // the last handTarget(), and when it was taken if corrected
  double ride_time_ = NAN;
  bool corrected_ = false;
  Eigen::VectorXd retreat_from_;     // joint positions where the retreat started
  Eigen::VectorXd retreat_rate_;     //   and their rates
  double retreat_start_ = NAN;
  // The instants update() may make a plan at (startPlan), which replacesJointServo keeps the
  // servo running for: the window open while waiting, the retreat over.
  bool windowOpen(double t) const { return t >= window_start_ - 1e-9; }
  bool retreatDone(double t) const { return t >= retreat_start_ + spec_.capture.abort.retreat_time; }
  double saturated_since_ = -1;      // [s] since when some torque is at its limit (-1: none)
  bool saturated_now_ = false;
  // Over the current saturation: the control periods, those at which the torques flipped their
  // sign, and the torques of the last one.
  int saturated_periods_ = 0, saturated_flips_ = 0;
  Eigen::VectorXd saturated_tau_;
  std::vector<ControlEvent> events_;
  Eigen::VectorXd hold_;             // joint positions at the grasp
  Eigen::VectorXd kp_, kd_;          // joint_pd's gains (set at the start of the capture)
  Eigen::MatrixXd d0_;               // joint_pd's D(q0)
  Eigen::VectorXd rolled_;           // joint_pd's roll-off: the filtered torques at t_rolled_
  double t_rolled_ = NAN;            //   (NaN: the next sample starts the filter)
  // Scratch, sized by the first calls: the law's calls then allocate nothing.
  Eigen::VectorXd x_, ddq0_, q_r_, v_r_, ddq_, tau_full_, unit_, qm_, vm_;
  Eigen::VectorXd rhs_, xp_, reaction_, tp_, posture_pull_, ddqm_, zero_joints_, qd_, vd_, ad_, dq_, rate_;
  Eigen::MatrixXd react_, solved_, Hff_, Hfp_, Hp_, J_, Jf_, Apinv_;
  Eigen::MatrixXd A_task_;  // the hand's task with its pointing rows (capture.align)
  SmallCholesky llt_, llt_post_;  // of H_ff; of H (after the grasp)
  Eigen::MatrixXd A_;
  PseudoInverseWork pinv_;
};

}  // namespace grapple::core
