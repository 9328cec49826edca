// Controllers: what turns the state into actuator forces. The simulation calls each one at every
// evaluation of the equations of motion, in order; each adds its generalized forces to ctx.tau,
// and a later one sees the forces of the earlier ones (a computed-torque law needs them). The
// guidance layer (capture planners, the thesis' PD loops) adds its own controllers; these are the
// two the scenario format has without it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/control/rate_filter.hpp"
#include "core/dynamics/data.hpp"
#include "core/sim/scenario.hpp"
#include "core/world/debris.hpp"

namespace grapple::core {

struct ControlContext {
  const Model& model;
  Data& data;                    // scratch for the controller (the simulation recomputes after)
  double t;                      // [s]
  const Eigen::VectorXd& q;
  const Eigen::VectorXd& v;
  const BodyWrenches* fext;      // environment wrenches on the bodies, or null
  Eigen::VectorXd& tau;          // (nv) generalized forces so far; add to it
  // A controller that solved the whole dynamics with the final forces (a computed-torque law)
  // points this at the accelerations, which spares the simulation a forward dynamics. Only the
  // last controller's counts; the simulation resets it before each one.
  const Eigen::VectorXd* ddq = nullptr;
  const DebrisState* debris = nullptr;  // the debris now, if the scenario has one
  // The largest bus torque (per axis) the controllers asked before their limit [N m]: what the
  // requirement on the bus torque is checked against (the torque applied never exceeds the limit).
  double bus_torque_demand = 0;
};

// Something a controller decided (a plan, a capture window, an abort), for the run's events.
struct ControlEvent {
  double time;
  std::string kind, detail;
};

class Controller {
 public:
  virtual ~Controller() = default;
  virtual void update(ControlContext& ctx) = 0;
  // The desired position of velocity coordinate k at time t, if this controller sets one (for the
  // tracking-error channels).
  virtual bool reference(int k, double t, double& position) const {
    (void)k, (void)t, (void)position;
    return false;
  }
  // Whether this controller drives the joints itself at t, overriding the joint paths (whose
  // references then no longer apply).
  virtual bool drivesJoints(double t) const {
    (void)t;
    return false;
  }
  // Whether, at t, this controller's law sets the joints' and the bus' torques without reading
  // those of the joint paths' servo (which runs before it): the simulation then skips the servo.
  virtual bool replacesJointServo(double t) const {
    (void)t;
    return false;
  }
  // Whether this is the joint paths' servo (JointServo).
  virtual bool followsJointPaths() const { return false; }
  // Called instead of update() at the instants the simulation skips this controller: keeps what
  // it carries from sample to sample (filters) current.
  virtual void skipped(const ControlContext& ctx) { (void)ctx; }
  // The planned end-effector position at t (inertial), if this controller plans one.
  virtual bool handReference(double t, Vector3& position) const {
    (void)t, (void)position;
    return false;
  }
  // Moves the events decided since the last call into `out`.
  virtual void takeEvents(std::vector<ControlEvent>& out) { (void)out; }
};

// The bus attitude held (chaser.attitude_control, free-floating bus) inside a computed-torque law:
// the law prescribes the bus' angular acceleration α = -kp e - kd ω (e: the rotation vector from
// the initial attitude, base axes) together with the joints' accelerations, so the hybrid
// dynamics give the bus torque the arm's reaction needs (feed-forward); limited per axis.
class AttitudeHold {
 public:
  AttitudeHold(const Model& model, const ChaserSpec& chaser, const Eigen::VectorXd& q0);
  bool active() const { return active_; }
  // Whether the law prescribes the bus' acceleration (reaction fed forward); otherwise the bus
  // gets the plain PD torque of torque() (the thesis' AOCS) and moves freely under it.
  bool prescribes() const { return active_ && settings_.feedforward; }
  const ChaserSpec::AttitudeControl& settings() const { return settings_; }
  // The bus' rotation from its held attitude [rad].
  double angle(const ControlContext& ctx) const;
  // x[3..5] = α for the state in ctx.
  void prescribe(const ControlContext& ctx, Eigen::VectorXd& x);
  // x[3..5] = the limited PD torque -H_ωω (kp e + kd ω), H the mass matrix at ctx.q.
  void torque(ControlContext& ctx, const Eigen::MatrixXd& H, Eigen::VectorXd& x);
  // Writes the limited bus torques (from tau, indexed by v) into ctx.tau; true if any was limited.
  bool limit(const Eigen::VectorXd& tau, ControlContext& ctx) const;
  // After a limit: the joints' torques solved again with the bus free under the torques it gets,
  // x holding the joints' accelerations (and the forces elsewhere); sets ctx.ddq.
  static void resolve(ControlContext& ctx, Eigen::VectorXd& x, const std::vector<int>& joints);
  // At a sample where the law is skipped: its rate filter takes the sample all the same.
  void follow(const ControlContext& ctx) {
    if (active_) rate(ctx);
  }

 private:
  Vector3 error(const ControlContext& ctx) const;  // rotation vector from the held attitude
  Vector3 rate(const ControlContext& ctx);         // the bus' rate, filtered with rate_filter
  bool active_ = false;
  ChaserSpec::AttitudeControl settings_;
  FilteredPdGains gains_;             // kp, kd applied
  RateFilter rate_filter_;
  Eigen::VectorXd w_;                 // (3) scratch
  Vector4 reference_ = Vector4(1, 0, 0, 0);
};

// Prescribed torques τ = A sin(t / divisor) inside time windows (the dual-quaternion paper's
// example inputs).
class TorqueWindowsController final : public Controller {
 public:
  TorqueWindowsController(const Model& model, const ControllerSpec& spec);
  void update(ControlContext& ctx) override;

 private:
  struct Window {
    int v_index;
    ControllerSpec::Window w;
  };
  std::vector<Window> windows_;
};

// Joint servo along paths: every joint named by a joint_trajectory controller follows its
// segments (quintic or cycloidal, rest to rest), holding the start position before the first one
// and each target after it. The torques are the exact computed-torque law of the whole system
// (hybridDynamics): the driven joints get q̈_d + kd (q̇_d - q̇) + kp (q_d - q) while the base, the
// modes and the other joints move freely under the forces already in ctx.tau. kp [1/s²] and
// kd [1/s] are therefore the squared natural frequency and twice ξω of the error dynamics
// (the thesis' "centralized" gains, Ch. 8). All joint_trajectory controllers of
// a scenario make one servo, which runs after the other controllers. With rate_filter, the rate
// error q̇_d - q̇ goes through a low-pass and kp, kd are the compensated gains of
// control/rate_filter (the encoders' rate noise kept out of the torques).
class JointServo final : public Controller {
 public:
  // q0: the initial configuration (start positions). Throws std::invalid_argument if two segments
  // of one joint overlap in time, or a joint is not a 1-DOF joint.
  JointServo(const Model& model, const std::vector<ControllerSpec>& specs,
             const Eigen::VectorXd& q0, const ChaserSpec& chaser);
  void update(ControlContext& ctx) override;
  bool reference(int k, double t, double& position) const override;
  bool followsJointPaths() const override { return true; }
  void skipped(const ControlContext& ctx) override;

  struct Setpoint {
    double position, velocity, acceleration;
  };
  // The path of the joint at velocity index k (which must be driven) at time t.
  // kp, kd: the segment's designed gains, rate_filter its time constant [s].
  Setpoint setpoint(int k, double t, double* kp = nullptr, double* kd = nullptr, double* rate_filter = nullptr) const;

 private:
  struct Segment {
    double start, duration, from, to, kp, kd;
    bool cycloidal;
    double rate_filter;    // [s]
  };
  struct Axis {
    int q_index, v_index;
    double initial;
    std::vector<Segment> segments;  // by start time, not overlapping
    RateFilter filter;              // with the current segment's time constant
    Eigen::VectorXd rate_error;     // (1) scratch
  };
  std::vector<Axis> axes_;
  std::vector<int> joints_;         // v indices of the driven joints, increasing
  std::vector<int> prescribed_;     // those and, with attitude hold, the bus' angular coordinates
  // x_'s entries of the driven joints: the path's acceleration with the PD (and rate filter).
  void pathAccelerations(const ControlContext& ctx);

  AttitudeHold hold_;
  Eigen::VectorXd x_;               // hybridDynamics input
};

// The controllers of a scenario, in the order they run: torque windows, the joint servo, then the
// capture controller (which, once started, overrides the servo's joint torques);
// ee_frame: the end effector.
std::vector<std::unique_ptr<Controller>> makeControllers(const Model& model, const Scenario& scenario,
                                                         const Eigen::VectorXd& q0, int ee_frame);

// Runs the controllers in order at ctx (ctx.ddq reset before each). With skip_replaced, the joint
// paths' servo is skipped while a later law replaces its torques (Controller::replacesJointServo:
// the capture controller's, but at the instants it may make a plan, which reads them); its
// skipped() keeps its filters current. Returns whether it was skipped.
bool updateControllers(std::vector<std::unique_ptr<Controller>>& controllers, ControlContext& ctx,
                       bool skip_replaced = true);

}  // namespace grapple::core
