// Capture of the debris' grasp point (thesis Ch. 7–8; spec/guidance_control.md §2, §3.3): at the
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
#pragma once

#include <memory>

#include <Eigen/Cholesky>

#include "core/planning/capture_planner.hpp"
#include "core/control/controller.hpp"

namespace grapple::core {

class CaptureController final : public Controller {
 public:
  // ee_frame: the hand; the joints driven are every 1-DOF joint of the model.
  CaptureController(const Model& model, const ControllerSpec& spec, const ChaserSpec& chaser,
                    const DebrisProperties& debris, int ee_frame, const Eigen::VectorXd& q0);
  void update(ControlContext& ctx) override;

  // The planned hand position at t (inertial) once planned (until the grasp).
  bool handReference(double t, Vector3& position) const override;
  // The grasp has happened (the simulation attached the debris): from now on the post-capture law
  // brings the composite to rest with collocated, passive feedback — the joints held where they
  // are (PD with post_kp, post_kd, scaled by each joint's apparent inertia) and, with base control,
  // the bus' rotation damped (torque -kd H_ωω ω, limited: detumbling).
  void attach(const Eigen::VectorXd& q);
  bool attached() const { return attached_; }
  bool drivesJoints(double t) const override { return t >= spec_.start; }
  // The plan (null before the start time).
  const CapturePlan* plan() const { return plan_.get(); }
  double start() const { return spec_.start; }

 private:
  void makePlan(ControlContext& ctx);
  void postCapture(ControlContext& ctx);
  void jointPd(ControlContext& ctx, const PointKinematics& ref, const Vector3& r);
  // With the joints' torques in ctx.tau: the bus' (held: its acceleration prescribed, the torque
  // solved and limited) and ctx.ddq.
  void holdBusUnderJointTorques(ControlContext& ctx);
  Eigen::MatrixXd dampedPseudoInverse(const Eigen::MatrixXd& M) const;


  ControllerSpec spec_;
  DebrisProperties debris_;
  int ee_frame_;
  std::vector<int> joints_;          // v indices of the driven joints, increasing
  std::vector<int> joints_q_;        // their q indices
  AttitudeHold attitude_;            // bus attitude (chaser.attitude_control)
  std::vector<int> prescribed_;      // v indices with a prescribed acceleration: base angular
                                     // coordinates (if held), then the joints
  std::vector<int> free_;            // the other v indices
  bool reactionless_ = false;        // zero reaction manoeuvre (bus floating)
  int base_rotation_row_ = 0;        // where the bus' angular coordinates start in free_
  Eigen::VectorXd posture_;          // joint positions at the start
  std::unique_ptr<CapturePlan> plan_;
  bool attached_ = false;
  Eigen::VectorXd hold_;             // joint positions at the grasp
  Eigen::VectorXd kp_, kd_;          // joint_pd's gains (set at the start of the capture)
  Eigen::MatrixXd d0_;               // joint_pd's D(q0)
  // Scratch.
  Eigen::VectorXd x_, ddq0_, q_r_, v_r_, ddq_, h_, tau_full_, unit_;
  Eigen::MatrixXd H_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::MatrixXd A_;
};

}  // namespace grapple::core
