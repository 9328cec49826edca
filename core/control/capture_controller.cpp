#include "core/control/capture_controller.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/control/task_space.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/estimation/debris_sensing.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/indexing.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/path_shaping.hpp"
#include "core/planning/quintic.hpp"

namespace grapple::core {

namespace {

int checkedFrame(const Model& m, int frame) {
  if (frame < 0 || frame >= static_cast<int>(m.frames.size())) throw std::invalid_argument("capture: no end-effector frame");
  return frame;
}

}  // namespace

CaptureController::CaptureController(const Model& m, const ControllerSpec& spec, const ChaserSpec& chaser,
                                     const DebrisProperties& debris, int ee_frame,
                                     const Eigen::VectorXd& q0, const Vector3& debris_size)
    : spec_(spec),
      debris_(debris),
      ee_frame_(ee_frame),
      attitude_(m, chaser, q0),
      gains_(filteredPdGains(spec.kp, spec.kd, spec.rate_filter)),
      hand_rate_(spec.rate_filter),
      joint_rate_(spec.rate_filter),
      feasibility_(FeasibilityOptions::from(spec, chaser, debris, debris_size)),
      clearance_(m, feasibility_, checkedFrame(m, ee_frame)) {
  for (int b = 0; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) {
      joints_.push_back(m.joint[b].idx_v);
      joints_q_.push_back(m.joint[b].idx_q);
    }
  }
  if (joints_.empty()) throw std::invalid_argument("capture: the robot has no 1-DOF joint to drive");
  std::vector<std::size_t> order(joints_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return joints_[a] < joints_[b]; });
  std::vector<int> v, q;
  for (std::size_t k : order) {
    v.push_back(joints_[k]);
    q.push_back(joints_q_[k]);
  }
  joints_ = v;
  joints_q_ = q;
  if (attitude_.prescribes()) prescribed_ = {3, 4, 5};
  prescribed_.insert(prescribed_.end(), joints_.begin(), joints_.end());
  for (int k = 0; k < m.nv; ++k) {
    if (!std::binary_search(prescribed_.begin(), prescribed_.end(), k)) free_.push_back(k);
  }
  reactionless_ = spec.capture.reactionless;
  if (reactionless_) {
    if (m.base_mode != BaseMode::kFloating || attitude_.active()) {
      throw std::invalid_argument("capture: a reactionless approach needs a floating bus without attitude control");
    }
    base_rotation_row_ = static_cast<int>(std::find(free_.begin(), free_.end(), 3) - free_.begin());
  }
  posture_.resize(static_cast<Eigen::Index>(joints_.size()));
  for (std::size_t k = 0; k < joints_q_.size(); ++k) posture_[static_cast<Eigen::Index>(k)] = q0[joints_q_[k]];
  if ((spec.capture.window.search || spec.capture.abort.enabled) && m.base_mode != BaseMode::kFloating) {
    throw std::invalid_argument("capture: the capture window and the abort monitor need a floating bus");
  }
}

const char* CaptureController::phaseName(Phase p) {
  switch (p) {
    case Phase::kBefore: return "before";
    case Phase::kWaiting: return "waiting";
    case Phase::kTracking: return "tracking";
    case Phase::kRetreating: return "retreating";
    case Phase::kStopped: return "stopped";
    case Phase::kAttached: return "attached";
  }
  return "?";
}

void CaptureController::event(double t, std::string kind, std::string detail) {
  events_.push_back({t, std::move(kind), std::move(detail)});
}

void CaptureController::takeEvents(std::vector<ControlEvent>& out) {
  for (ControlEvent& e : events_) out.push_back(std::move(e));
  events_.clear();
}

void CaptureController::begin(ControlContext& ctx) {
  standoff_.resize(static_cast<Eigen::Index>(joints_q_.size()));
  for (std::size_t k = 0; k < joints_q_.size(); ++k) standoff_[static_cast<Eigen::Index>(k)] = ctx.q[joints_q_[k]];
  if (spec_.capture.window.search) {
    if (!ctx.debris) throw std::invalid_argument("capture: the scenario has no debris");
    searchWindow(ctx);
  } else {
    startPlan(ctx);
  }
}

void CaptureController::searchWindow(ControlContext& ctx) {
  // (a window starting now is the plan startPlan makes and checks: from the hand's state now)
  const HandState hand = handNow(ctx);
  window_ = std::make_unique<CaptureWindow>(searchCaptureWindow(ctx.model, ctx.data, feasibility_,
                                                                WindowSearchOptions::from(spec_), capturePlannerOptions(spec_), debris_,
                                                                *ctx.debris, ctx.t, ctx.q, ctx.v, ee_frame_, &hand));
  if (window_->found) {
    window_start_ = window_->start;
    phase_ = Phase::kWaiting;
    event(ctx.t, "window", window_->reason());
  } else {
    phase_ = Phase::kStopped;
    event(ctx.t, "no_window", window_->reason());
  }
}

void CaptureController::startPlan(ControlContext& ctx) {
  makePlan(ctx);
  if (spec_.capture.window.search) {
    // The window's plan was predicted from the stand-off pose; the one flown starts from the
    // state now (the bus has drifted a little): checked again, reshaped if the bus torque stops
    // it, and searched anew if it still fails.
    const PlanCheck check = checkCapturePlan(ctx.model, ctx.data, feasibility_, *plan_, ctx.q, ctx.v, ee_frame_);
    if (!check.feasible && !(check.limiting == "bus_torque" && reshape(ctx, check))) {
      event(ctx.t, "window_lost", "the plan from the state now fails its check (" + check.reason() + "): searching again");
      searchWindow(ctx);
      if (phase_ != Phase::kWaiting || window_start_ > ctx.t) return;
      makePlan(ctx);
    }
  }
  phase_ = Phase::kTracking;
  plan_start_ = ctx.t;
  t_rolled_ = NAN;
  ++plans_;
  if (parting_) {
    parting_->reset(sensing_->estimate(ctx.t), ctx.t + plan_->captureTime());
    images_at_plan_ = images_tested_ = sensing_->filter().measurements();
    replans_ = 0;
  }
  saturated_since_ = -1;
  const Vector3 j = plan_->jumps();
  char detail[320];
  if (plan_->approachTime() > 0) {
    std::snprintf(detail, sizeof detail, "hand meets the approach point (%.2f m out on the grasp axis) at t = %.3f s, "
                  "then the grasp point at t = %.3f s (plan of %.3f s); jumps at the approach point: velocity %.2e m/s, "
                  "acceleration %.2e m/s^2, jerk %.2e m/s^3", plan_->options().approach_distance,
                  ctx.t + plan_->rendezvousTime(), ctx.t + plan_->captureTime(), plan_->captureTime(), j[0], j[1], j[2]);
  } else {
    std::snprintf(detail, sizeof detail, "hand meets the grasp point at t = %.3f s (plan of %.3f s); "
                  "jumps there: velocity %.2e m/s, acceleration %.2e m/s^2, jerk %.2e m/s^3",
                  ctx.t + plan_->captureTime(), plan_->captureTime(), j[0], j[1], j[2]);
  }
  event(ctx.t, "plan", detail);
}

std::string CaptureController::abortReason(ControlContext& ctx) {
  const ControllerSpec::Capture::Abort& a = spec_.capture.abort;
  const Model& m = ctx.model;
  char buf[240];
  rigidEquivalent(m, ctx.q, q_r_);
  forwardKinematics(m, ctx.data, q_r_);
  const double t_plan = ctx.t - plan_start_;
  const Vector3 error = handTarget(ctx, t_plan).position - framePose(m, ctx.data, ee_frame_).p;
  if (error.norm() > a.plan_error) {
    std::snprintf(buf, sizeof buf, "hand %.3g m from the plan (threshold %.3g m)", error.norm(), a.plan_error);
    return buf;
  }
  if (saturated_since_ >= 0 && ctx.t - saturated_since_ > a.saturation_time) {
    std::snprintf(buf, sizeof buf, "torques at their limit for %.2f s (threshold %.2f s)", ctx.t - saturated_since_,
                  a.saturation_time);
    std::string why = buf;
    // (flipping at 80 % of at least ten periods: a limit cycle at the Nyquist frequency, not a
    // demand that merely crosses zero now and then)
    if (saturated_periods_ >= 10 && saturated_flips_ >= 0.8 * (saturated_periods_ - 1)) {
      std::snprintf(buf, sizeof buf, "; the torques flip their sign at %d of %d control periods: the sampled loop is "
                    "unstable on the true dynamics (lower the capture gains or raise run.control_rate)",
                    saturated_flips_, saturated_periods_ - 1);
      why += buf;
    }
    return why;
  }
  if (attitude_.active()) {
    const double angle = attitude_.angle(ctx) * 180 / M_PI;
    if (angle > a.bus_attitude_deg) {
      std::snprintf(buf, sizeof buf, "bus attitude %.3f deg from its held one (threshold %.3f deg)", angle, a.bus_attitude_deg);
      return buf;
    }
  }
  if (ctx.debris) {
    const double c = clearance_(m, ctx.data, q_r_, debris_, *ctx.debris);
    if (c < a.clearance) {
      std::snprintf(buf, sizeof buf, "the arm is %.3f m from the debris' box outside the approach corridor (threshold %.3f m)",
                    c, a.clearance);
      return buf;
    }
  }
  const double deadline = plan_->captureTime() + spec_.capture.hold + a.grasp_timeout;
  if (t_plan > deadline) {
    std::snprintf(buf, sizeof buf, "no grasp %.2f s after the planned meeting (threshold: hold %.2f s + %.2f s)",
                  t_plan - plan_->captureTime(), spec_.capture.hold, a.grasp_timeout);
    return buf;
  }
  return {};
}

void CaptureController::abort(ControlContext& ctx, const std::string& reason) {
  const ControllerSpec::Capture::Abort& a = spec_.capture.abort;
  const int left = a.retries - retries_used_;
  event(ctx.t, "abort", reason + "; the gripper stays open, the hand retreats to the stand-off pose" +
                            (left > 0 ? " (" + std::to_string(left) + " retr" + (left > 1 ? "ies" : "y") + " left)"
                                      : std::string(" (no retry left)")));
  phase_ = Phase::kRetreating;
  retreat_start_ = ctx.t;
  retreat_from_.resize(static_cast<Eigen::Index>(joints_q_.size()));
  retreat_rate_.resize(retreat_from_.size());
  for (std::size_t k = 0; k < joints_q_.size(); ++k) {
    retreat_from_[static_cast<Eigen::Index>(k)] = ctx.q[joints_q_[k]];
    retreat_rate_[static_cast<Eigen::Index>(k)] = ctx.v[joints_[k]];
  }
}

bool CaptureController::reshape(ControlContext& ctx, const PlanCheck& check) {
  // The window's plan, predicted from the stand-off pose, can ask the bus a little more from the
  // state at its start (the chaser's drift meanwhile, the sensors' noise in its motion): reshaped
  // against the bus torque from here (planning/path_shaping.hpp) before the window is given up —
  // a search made anew would find only a later pass of the grasp face. Kept only if feasible.
  if (!feasibility_.hold_bus || !std::isfinite(feasibility_.bus_torque_limit)) return false;
  const ShapedPlan shaped =
      shapeAgainstBusTorque(ctx.model, ctx.data, feasibility_, ShapingOptions{}, *plan_, ctx.q, ctx.v, ee_frame_);
  if (shaped.hopeless || !shaped.check.feasible) return false;
  if (window_) window_->shape = shaped.shape;
  char after[160];
  std::snprintf(after, sizeof after, "; reshaped against the bus torque: %.2f N m (%.2f before, %d predictions), the "
                "window kept", shaped.check.bus_torque, shaped.bus_torque_before, shaped.predictions);
  event(ctx.t, "window_reshaped", "the plan from the state now fails its check (" + check.reason() + ")" + after);
  return true;
}

HandState CaptureController::handNow(ControlContext& ctx) {
  const Model& m = ctx.model;
  rigidEquivalent(m, forwardDynamics(m, ctx.data, ctx.q, ctx.v, ctx.tau, ctx.fext), ddq0_);
  rigidEquivalent(m, ctx.q, q_r_);
  rigidEquivalent(m, ctx.v, v_r_);
  forwardKinematics(m, ctx.data, q_r_, v_r_, ddq0_);
  HandState hand;
  hand.position = framePose(m, ctx.data, ee_frame_).p;
  hand.velocity = pointVelocityWorld(m, ctx.data, ee_frame_).head<3>();
  hand.acceleration = pointAccelerationWorld(m, ctx.data, ee_frame_).head<3>();
  // A plan of the capture window starts from the hand holding its pose (at the window's start, or
  // at the stand-off after a retreat), whose commanded acceleration is zero: the acceleration the
  // forces give it there is the joints' answer to the arm's vibration (1-2 mm/s² on the flexible
  // chaser), which a plan matching it would carry into its whole path (centimetres over a minute),
  // and which the window's predictions from the pose held cannot know. (A replan starts from the
  // old plan's reference, replan().)
  if (spec_.capture.window.search) hand.acceleration.setZero();
  hand.axis = framePose(m, ctx.data, ee_frame_).R.col(2);
  return hand;
}

void CaptureController::makePlan(ControlContext& ctx) {
  if (!ctx.debris) throw std::invalid_argument("capture: the scenario has no debris");
  const HandState hand = handNow(ctx);
  CapturePlannerOptions o = capturePlannerOptions(spec_);
  if (window_ && window_->found) {  // the duration and the approach the window chose
    o.final_time = window_->duration;
    o.approach_distance = window_->approach_distance;
    o.shape = window_->shape;
  }
  plan_ = std::make_unique<CapturePlan>(debris_, *ctx.debris, hand, o);
  for (std::size_t k = 0; k < joints_q_.size(); ++k) posture_[static_cast<Eigen::Index>(k)] = ctx.q[joints_q_[k]];
}

void CaptureController::watch(const DebrisSensing* sensing) {
  sensing_ = sensing;
  parting_.reset();
  if (sensing_ && spec_.capture.replan.max > 0) {
    const ControllerSpec::Capture::Replan& r = spec_.capture.replan;
    parting_ = std::make_unique<PartingTest>(debris_, sensing_->spec().filter, r.false_alarm, r.tolerance);
  }
}

void CaptureController::watchEstimate(ControlContext& ctx) {
  const ControllerSpec::Capture::Replan& r = spec_.capture.replan;
  const int images = sensing_->filter().measurements();
  if (images == images_tested_) return;
  images_tested_ = images;
  // Trusted: the grasp point seen, enough images since the plan; and time left to act on it.
  if (replans_ >= r.max || !sensing_->visible() || images - images_at_plan_ < r.min_images) return;
  const double left = plan_->rendezvousTime() - (ctx.t - plan_start_);
  if (left < r.min_time) return;
  const PartingResult p = parting_->test(sensing_->estimate(ctx.t));
  if (p.parted()) replan(ctx, p, left);
}

void CaptureController::replan(ControlContext& ctx, const PartingResult& parting, double left) {
  // From the old plan's reference now (the reference the hand tracks stays continuous: position,
  // velocity, acceleration, and the pointing axis), to the target as the estimate now predicts
  // it, meeting it when the old plan did (its final time fixed to the time left).
  const double tp = ctx.t - plan_start_;
  const PointKinematics ref = handTarget(ctx, tp);
  HandState hand;
  hand.position = ref.position;
  hand.velocity = ref.velocity;
  hand.acceleration = ref.acceleration;
  if (plan_->aligns()) hand.axis = plan_->pointing(tp).axis;
  CapturePlannerOptions o = plan_->options();
  o.final_time = left;
  // The window's shaping belongs to the path it was computed for (its final time, its start):
  // the new plan is the Ch. 7 path from the reference now.
  o.shape.resize(0, 3);
  const double meeting = ctx.t + left, captured = plan_->captureTime();
  plan_ = std::make_unique<CapturePlan>(debris_, *ctx.debris, hand, o);
  plan_start_ = ctx.t;
  ++plans_;
  ++replans_;
  images_at_plan_ = images_tested_;
  parting_->reset(sensing_->estimate(ctx.t), ctx.t + plan_->captureTime());
  const ControllerSpec::Capture::Replan& r = spec_.capture.replan;
  char inconsistent[160] = "", misses[160] = "";
  if (parting.inconsistent) {
    std::snprintf(inconsistent, sizeof inconsistent, "beyond what the images since the plan explain: statistic %.2f > "
                  "%.2f, the chi-square quantile at false-alarm probability %.3g; ", parting.statistic,
                  parting.threshold, r.false_alarm);
  }
  if (parting.misses) {
    std::snprintf(misses, sizeof misses, "the plan misses it by more than the tolerance %.3g m with confidence 1 - %.3g "
                  "(estimate sigma %.4f m); ", r.tolerance, r.false_alarm, parting.sigma);
  }
  char detail[560];
  std::snprintf(detail, sizeof detail, "the plan and the estimate parted: at the grasp (t = %.3f s) the estimated grasp "
                "point is %.4f m from the plan's, %s%snew plan from the estimate now, meeting its target at t = %.3f s "
                "as before (replan %d of at most %d)", ctx.t - tp + captured, parting.miss, inconsistent, misses, meeting,
                replans_, r.max);
  event(ctx.t, "replan", detail);
  // The new plan flown in prediction from the state now, as the window's was: a path that takes
  // the arm into the debris' box or the bus, through a singularity or past a joint limit is not
  // flown; the hand retreats instead. (The torques are left to the monitor: a replan moves the
  // meeting by centimetres and asks about what the plan flown asked, while a prediction from the
  // sensed state carries the rate noise into the bus torque at its start, past the plans' 90 %.)
  const PlanCheck check = checkCapturePlan(ctx.model, ctx.data, feasibility_, *plan_, ctx.q, ctx.v, ee_frame_);
  for (const ConstraintMargin& cm : check.constraints) {
    const bool geometric = cm.name == "debris_clearance" || cm.name == "bus_clearance" || cm.name == "singularity" ||
                           cm.name == "joint_limit";
    if (geometric && cm.margin < 0) {
      abort(ctx, "the new plan fails its check (" + cm.name + ": " + cm.detail + ")");
      return;
    }
  }
}

void CaptureController::attach(const Eigen::VectorXd& q) {
  phase_ = Phase::kAttached;
  hold_.resize(static_cast<Eigen::Index>(joints_q_.size()));
  for (std::size_t k = 0; k < joints_q_.size(); ++k) hold_[static_cast<Eigen::Index>(k)] = q[joints_q_[k]];
}

bool CaptureController::handReference(double t, Vector3& position) const {
  if (!plan_ || phase_ != Phase::kTracking || t < plan_start_) return false;
  if (corrected_) {
    const double dt = t - ride_time_;
    position = ride_.position + dt * ride_.velocity + 0.5 * dt * dt * ride_.acceleration;
  } else {
    position = plan_->at(t - plan_start_).position;
  }
  return true;
}

bool CaptureController::replacesJointServo(double t) const {
  if (t < spec_.start) return false;
  switch (phase_) {
    case Phase::kBefore: return false;
    case Phase::kWaiting: return !windowOpen(t);
    case Phase::kRetreating: return !retreatDone(t);
    default: return true;
  }
}

void CaptureController::update(ControlContext& ctx) {
  if (ctx.t < spec_.start) return;
  ctx.bus_torque_demand = 0;  // this controller's torques replace those of the joint paths
  if (phase_ == Phase::kBefore) begin(ctx);
  if (phase_ == Phase::kAttached) {
    postCapture(ctx);
    return;
  }
  const ControllerSpec::Capture& c = spec_.capture;
  if (phase_ == Phase::kWaiting && windowOpen(ctx.t)) startPlan(ctx);
  if (phase_ == Phase::kTracking && c.abort.enabled) {
    if (const std::string why = abortReason(ctx); !why.empty()) abort(ctx, why);
  }
  if (phase_ == Phase::kTracking && parting_) watchEstimate(ctx);
  if (phase_ == Phase::kRetreating && retreatDone(ctx.t)) {
    const bool retry = retries_used_ < c.abort.retries;
    event(ctx.t, "standoff", std::string("the hand is back at the stand-off pose") +
                                 (retry ? ": searching the next capture window" : ": no retry left"));
    if (retry) {
      ++retries_used_;
      searchWindow(ctx);
      if (phase_ == Phase::kWaiting && windowOpen(ctx.t)) startPlan(ctx);
    } else {
      phase_ = Phase::kStopped;
    }
  }
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  if (phase_ == Phase::kTracking) {
    track(ctx);
  } else if (phase_ == Phase::kRetreating) {
    // A quintic from where and how fast the abort left the joints to rest at the stand-off pose
    // (leaving from rest instead would ask the joints, and the bus, to stop the arm at once).
    const double T = c.abort.retreat_time, u = std::min(1.0, (ctx.t - retreat_start_) / T);
    const Blend b = quinticBlend(u), h = quinticLaunchBlend(u);
    dq_ = standoff_ - retreat_from_;
    qd_ = retreat_from_ + b.s * dq_ + (T * h.s) * retreat_rate_;
    vd_ = (b.ds / T) * dq_ + h.ds * retreat_rate_;
    ad_ = (b.dds / (T * T)) * dq_ + (h.dds / T) * retreat_rate_;
    holdJoints(ctx, qd_, vd_, ad_);
  } else {
    zero_joints_.setZero(nj);
    holdJoints(ctx, standoff_, zero_joints_, zero_joints_);
  }
  // Saturation, seen by the abort monitor: some joint or the bus at its limit; and whether the
  // torques flip their sign at every control period (their vector's product with the last
  // period's negative), the signature of a sampled loop that is unstable on the true dynamics:
  // e.g. gains set on a rigid model of a flexible arm, where a joint drives a much smaller inertia
  // than the model's (the modal one at a segment's tip) and a derivative gain k_d with
  // k_d T I_model / I_true > 2 diverges at the Nyquist frequency.
  if (!saturated_now_ && !jointsSaturated(ctx)) {
    saturated_since_ = -1;
    return;
  }
  if (saturated_since_ < 0) {
    saturated_since_ = ctx.t;
    saturated_periods_ = saturated_flips_ = 0;
  } else {
    saturated_flips_ += ctx.tau.dot(saturated_tau_) < 0;
  }
  ++saturated_periods_;
  saturated_tau_ = ctx.tau;
}

bool CaptureController::jointsSaturated(const ControlContext& ctx) const {
  for (int k : joints_) {
    if (std::abs(ctx.tau[k]) > ctx.model.effort_limit[k]) return true;
  }
  return false;
}

void CaptureController::prepareDynamics(ControlContext& ctx) {
  const Model& m = ctx.model;
  Data& d = ctx.data;
  // One mass matrix and one bias vector serve the whole law: the block solution of the hybrid
  // dynamics, H_ff q̈_f = x_f - h_f - H_fp x_p, τ_p = H_p· q̈ + h_p (p: the prescribed coordinates,
  // f: the free ones — base translation, base rotation if not held, modes).
  // (H and h stay in ctx.data for the rest of the call: nothing after this recomputes them.)
  massMatrixAndBias(m, d, ctx.q, ctx.v, ctx.fext);
  const Eigen::MatrixXd& H = d.H;
  const Eigen::VectorXd& h = d.h;
  // Base attitude (free-floating base): its angular acceleration prescribed, α = -kp e - kd ω in
  // base axes, e the rotation vector from the held attitude (small-angle: 2 sign(w) vec(Q_ref⁻¹ Q));
  // or, without feed-forward, the thesis' AOCS: a PD torque on a free bus.
  x_ = ctx.tau;
  if (attitude_.prescribes()) {
    attitude_.prescribe(ctx, x_);
  } else if (attitude_.active()) {
    attitude_.torque(ctx, H, x_);
    ctx.tau.segment<3>(3) = x_.segment<3>(3);
  }
  for (int k : joints_) x_[k] = 0;
  ddq_.setZero(m.nv);
  for (int k : prescribed_) ddq_[k] = x_[k];
  react_.resize(static_cast<Eigen::Index>(free_.size()), static_cast<Eigen::Index>(joints_.size()));  // H_ff⁻¹ H_fm
  if (!free_.empty()) {
    // (The blocks are copied into the scratch: Eigen's indexed views would copy their index
    // lists, and products of them make temporaries.)
    pick(H, free_, free_, Hff_);
    llt_.compute(std::move(Hff_));  // (Hff_: scratch, refilled each call)
    // H_fm and the right-hand side solved together (the solve goes four columns at a time):
    // [H_ff⁻¹ H_fm, H_ff⁻¹ (x_f - h_f - H_fp x_p)].
    const auto nf = static_cast<Eigen::Index>(free_.size()), nj = static_cast<Eigen::Index>(joints_.size());
    pick(H, free_, prescribed_, Hfp_);
    pick(x_, prescribed_, xp_);
    solved_.resize(nf, nj + 1);
    solved_.col(nj).noalias() = Hfp_ * xp_;
    for (Eigen::Index k = 0; k < nf; ++k) {
      const int f = free_[static_cast<std::size_t>(k)];
      for (Eigen::Index j = 0; j < nj; ++j) solved_(k, j) = H(f, joints_[static_cast<std::size_t>(j)]);
      solved_(k, nj) = x_[f] - h[f] - solved_(k, nj);
    }
    llt_.solveInPlace(solved_);
    react_ = solved_.leftCols(nj);
    rhs_ = solved_.col(nj);
    place(rhs_, free_, ddq_);
  }
}

void CaptureController::applyJointAccelerations(ControlContext& ctx, const Eigen::VectorXd& ddqm) {
  // The joints' torques for those accelerations, and the bus' (wheel-limited).
  const Model& m = ctx.model;
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  place(ddqm, joints_, ddq_);
  if (!free_.empty()) {
    reaction_.noalias() = react_ * ddqm;
    for (std::size_t k = 0; k < free_.size(); ++k) ddq_[free_[k]] -= reaction_[static_cast<Eigen::Index>(k)];
  }
  tau_full_.setZero(m.nv);
  pickRows(ctx.data.H, prescribed_, Hp_);
  tp_.noalias() = Hp_ * ddq_;
  for (std::size_t k = 0; k < prescribed_.size(); ++k) {
    tau_full_[prescribed_[k]] = tp_[static_cast<Eigen::Index>(k)] + ctx.data.h[prescribed_[k]];
  }
  for (int k : joints_) ctx.tau[k] = tau_full_[k];
  ctx.ddq = &ddq_;
  saturated_now_ = false;
  if (attitude_.prescribes() && attitude_.limit(tau_full_, ctx)) {
    saturated_now_ = true;
    for (Eigen::Index k = 0; k < nj; ++k) x_[joints_[k]] = ddqm[k];
    AttitudeHold::resolve(ctx, x_, joints_);
  }
}

const PointKinematics& CaptureController::handTarget(const ControlContext& ctx, double t_plan) {
  // With a camera, the plan is corrected onto the grasp point as the filter estimates it now: the
  // plan predicted it from the estimate when it was made, and that prediction drifts with the
  // estimate's error then (its rate error, over the plan's tens of seconds: a centimetre and more
  // by the meeting), while the gripper closes on the estimate now. The correction Δ = (estimate
  // now − prediction) is blended in over the whole plan, r = r_plan + w Δ with w a quintic from 0
  // at the plan's start to 1 when it reaches the grasp point, and the ride rides the estimate.
  // Spread so, its acceleration 5.8 |Δ| / T² stays far below what would load the bus (a few cm
  // over a 20 s plan: below 1 mm/s²; a blend over the last 2 s asks 100 times that). A replan
  // starts from this reference, with Δ zero again. (Without a camera: no correction.)
  ride_ = plan_->at(t_plan);
  corrected_ = sensing_ && ctx.debris;
  if (!corrected_) return ride_;
  const double T = plan_->captureTime(), u = T > 0 ? t_plan / T : 1.0;
  const PointKinematics est = targetKinematics(debris_, *ctx.debris);
  const PointKinematics pred = targetKinematics(debris_, plan_->debris(t_plan));
  const Blend w = quinticBlend(u);
  const double dw = T > 0 ? w.ds / T : 0, ddw = T > 0 ? w.dds / (T * T) : 0;
  const Vector3 d = est.position - pred.position, dd = est.velocity - pred.velocity,
                ddd = est.acceleration - pred.acceleration;
  ride_.position += w.s * d;
  ride_.velocity += w.s * dd + dw * d;
  ride_.acceleration += w.s * ddd + 2 * dw * dd + ddw * d;
  ride_time_ = ctx.t;
  return ride_;
}

void CaptureController::holdJoints(ControlContext& ctx, const Eigen::VectorXd& qd, const Eigen::VectorXd& vd,
                                   const Eigen::VectorXd& ad) {
  prepareDynamics(ctx);
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  qm_.resize(nj);
  vm_.resize(nj);
  for (Eigen::Index k = 0; k < nj; ++k) {
    qm_[k] = ctx.q[joints_q_[k]];
    vm_[k] = ctx.v[joints_[k]];
  }
  // Joint error dynamics with the capture's Cartesian gains (kp, kd: ω² and 2ξω).
  if (joint_rate_.active()) {
    rate_error_ = vd - vm_;
    ddqm_ = ad + gains_.kd * joint_rate_.filter(ctx.t, rate_error_) + gains_.kp * (qd - qm_);
  } else {
    ddqm_ = ad + spec_.kd * (vd - vm_) + spec_.kp * (qd - qm_);
  }
  applyJointAccelerations(ctx, ddqm_);
}

CaptureController::HandTask CaptureController::handTask(ControlContext& ctx) {
  const Model& m = ctx.model;
  Data& d = ctx.data;
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  const ControllerSpec::Capture& c = spec_.capture;
  HandTask t;
  // The reference and the hand's error. On a flexible chaser the hand controlled is its
  // rigid-equivalent (modal coordinates and rates set to zero): steering the deformed hand would
  // make the joints chase the elastic deflection (a non-minimum-phase output, the instability of
  // the thesis' flexible closed loop); the deflection is left to the modes' own damping.
  t.ref = handTarget(ctx, ctx.t - plan_start_);
  prepareDynamics(ctx);
  // One kinematic pass serves the hand's position, velocity, Jacobian and b (its acceleration with
  // the joints not accelerating, the free coordinates reacting: the drift of prepareDynamics).
  rigidEquivalent(m, ctx.q, q_r_);
  rigidEquivalent(m, ctx.v, v_r_);
  rigidEquivalent(m, ddq_, ddq0_);
  forwardKinematicsToBody(m, d, q_r_, v_r_, ddq0_, m.frames[static_cast<std::size_t>(ee_frame_)].body);
  t.r = framePose(m, d, ee_frame_).p;
  t.rd = pointVelocityWorld(m, d, ee_frame_).head<3>();
  if (hand_rate_.active()) {
    rate_error_ = t.ref.velocity - t.rd;
    t.a_des = t.ref.acceleration + gains_.kd * Vector3(hand_rate_.filter(ctx.t, rate_error_)) +
              gains_.kp * (t.ref.position - t.r);
  } else {
    t.a_des = t.ref.acceleration + spec_.kd * (t.ref.velocity - t.rd) + spec_.kp * (t.ref.position - t.r);
  }
  // The pointing task (capture.align) rides on the resolved-acceleration law only.
  t.point = plan_->aligns() && c.law == CaptureLaw::kResolvedAcceleration && !reactionless_;
  J_ = frameJacobian(m, d, ee_frame_).topRows(t.point ? 6 : 3);
  for (const FlexibleBody& f : m.flex) J_.middleCols(f.idx_v, f.nf).setZero();
  const Matrix3 R_hand = framePose(m, d, ee_frame_).R;
  const Vector3 w_hand = pointVelocityWorld(m, d, ee_frame_).tail<3>();
  // b, and A = J_m - J_f H_ff⁻¹ H_fm: what the joints' accelerations add while the free
  // coordinates react — the generalized Jacobian of a free-floating robot (Umetani & Yoshida),
  // with the modes.
  const Vector6 b6 = pointAccelerationWorld(m, d, ee_frame_);
  t.b = b6.head<3>();
  pickCols(J_, joints_, A_);
  if (!free_.empty()) {
    pickCols(J_, free_, Jf_);
    A_.noalias() -= Jf_ * react_;
  }
  t.task.resize(t.point ? 5 : 3);
  t.task.head<3>() = t.a_des - t.b;
  if (t.point) {  // the hand's position rows, then its pointing's (from A_'s angular rows)
    A_task_.resize(5, nj);
    A_task_.topRows<3>() = A_.topRows<3>();
    pointingTask(A_.bottomRows<3>(), b6.tail<3>(), R_hand.col(2), w_hand, plan_->pointing(ctx.t - plan_start_), spec_.kp,
                 spec_.kd, A_task_.bottomRows<2>(), t.task.tail<2>());
  }
  return t;
}

void CaptureController::track(ControlContext& ctx) {
  const ControllerSpec::Capture& c = spec_.capture;
  const HandTask t = handTask(ctx);
  if (c.law == CaptureLaw::kTransposeJacobian) {
    transposeJacobian(ctx, t);
    return;
  }
  if (c.law == CaptureLaw::kJointPd) {
    jointPd(ctx, t.ref, t.r);
    return;
  }
  if (reactionless_) {
    reactionlessAccelerations(ctx, t, ddqm_);
  } else {
    taskAccelerations(ctx, t, ddqm_);
  }
  applyJointAccelerations(ctx, ddqm_);
}

void CaptureController::transposeJacobian(ControlContext& ctx, const HandTask& t) {
  // Transpose-Jacobian control (Craig; SPART's example law): a Cartesian spring and damper at
  // the hand, F = force_kp (r_ref - r) + force_kd (ṙ_ref - ṙ) [N], mapped to the joints by the
  // generalized Jacobian, τ = Aᵀ F, with joint damping (posture_kd, scaled by H_jj). No model in
  // the loop: the simplest law, and the least precise.
  const ControllerSpec::Capture& c = spec_.capture;
  const Vector3 F = c.force_kp * (t.ref.position - t.r) + c.force_kd * (t.ref.velocity - t.rd);
  const Eigen::VectorXd tau_m = A_.transpose() * F;  // (this law and the reactionless ones allocate)
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(joints_.size()); ++k) {
    const int i = joints_[k];
    ctx.tau[i] = tau_m[k] - c.posture_kd * ctx.data.H(i, i) * ctx.v[i];
  }
  holdBusUnderJointTorques(ctx);
}

void CaptureController::reactionlessAccelerations(const ControlContext& ctx, const HandTask& t, Eigen::VectorXd& ddqm) {
  // Zero (or desired) reaction manoeuvre: the bus' angular acceleration B q̈_m + c is set to
  // -(ω - ω_des) (its rate driven to ω_des: zero for the ZRM, not only its acceleration); the
  // hand's task is met in what the bus leaves (3 of 6 joints for each; Yoshida's reaction null
  // space, SPART's ZRM/DRM, eq. 47).
  const ControllerSpec::Capture& c = spec_.capture;
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  const Eigen::MatrixXd B = -react_.middleRows(base_rotation_row_, 3);
  const Vector3 c0 = ddq0_.segment<3>(3);
  const Vector3 bus = c.reaction_rate - ctx.v.segment<3>(3) - c0;
  if (c.reaction_inverse == ReactionInverse::kAdjugate && nj == 6) {
    // SPART eq. 48 at the acceleration level: G = [B; A] square, q̈ = k adj(G) [bus; hand] with
    // k = 1/det G while |1/det G| <= adjugate_limit, capped beyond: near a singularity of G the
    // motion shrinks (the task is met more slowly) instead of growing without bound.
    Eigen::Matrix<double, 6, 6> G;
    G.topRows<3>() = B;
    G.bottomRows<3>() = A_;
    Eigen::Matrix<double, 6, 1> rhs;
    rhs.head<3>() = bus;
    rhs.tail<3>() = t.a_des - t.b;
    const Eigen::PartialPivLU<Eigen::Matrix<double, 6, 6>> lu(G);
    const double det = lu.determinant();
    const double scale = std::abs(det) * c.adjugate_limit >= 1 ? 1.0 : std::abs(det) * c.adjugate_limit;
    ddqm = scale * lu.solve(rhs);  // k adj(G) = (k det G) G⁻¹
  } else {
    // (B maps joint to bus accelerations, ~ the arm's to the bus' inertia: small but not
    // singular; its exact pseudo-inverse, the thresholds of the damping being the hand's.)
    const Eigen::MatrixXd Bpinv = B.completeOrthogonalDecomposition().pseudoInverse();
    const Eigen::VectorXd q1 = Bpinv * bus;
    const Eigen::MatrixXd N = Eigen::MatrixXd::Identity(nj, nj) - Bpinv * B;
    const Eigen::MatrixXd AN = A_ * N;
    ddqm = q1 + N * (dampedPseudoInverse(AN, c.damping, c.singular_threshold) * (t.a_des - t.b - A_ * q1));
  }
}

void CaptureController::taskAccelerations(const ControlContext& ctx, const HandTask& t, Eigen::VectorXd& ddqm) {
  const ControllerSpec::Capture& c = spec_.capture;
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  const Eigen::MatrixXd& A = t.point ? A_task_ : A_;
  dampedPseudoInverse(A, c.damping, c.singular_threshold, pinv_, Apinv_);
  const Eigen::MatrixXd& Apinv = Apinv_;
  Eigen::VectorXd &qm = qm_, &vm = vm_;
  qm.resize(nj);
  vm.resize(nj);
  for (Eigen::Index k = 0; k < nj; ++k) {
    qm[k] = ctx.q[joints_q_[k]];
    vm[k] = ctx.v[joints_[k]];
  }
  posture_pull_ = -c.posture_kd * vm - c.posture_kp * (qm - posture_);
  const Eigen::VectorXd& posture = posture_pull_;
  if (c.law == CaptureLaw::kResolvedRate) {
    // Resolved motion-rate control (Whitney): joint rates from the hand's velocity demand,
    // q̇_d = A⁺(ṙ_ref + kp (r_ref - r)), followed by a rate servo q̈ = kd (q̇_d - q̇); kp and kd
    // [1/s] are the Cartesian and the rate-loop bandwidths.
    const Eigen::VectorXd rate = Apinv * (t.ref.velocity + spec_.kp * (t.ref.position - t.r));
    ddqm = spec_.kd * (rate - vm) + posture - Apinv * (A_ * posture);
  } else {
    resolvedAcceleration(A, Apinv, t.task, posture, ddqm);
  }
}

void CaptureController::holdBusUnderJointTorques(ControlContext& ctx) {
  ctx.ddq = nullptr;
  saturated_now_ = false;
  if (!attitude_.prescribes()) return;  // the bus' PD torque (if any) is in ctx.tau already
  // The bus held, its torque from the same dynamics with the joints' torques.
  x_ = ctx.tau;
  attitude_.prescribe(ctx, x_);
  static const std::vector<int> bus{3, 4, 5};
  const Eigen::VectorXd& tau = hybridDynamics(ctx.model, ctx.data, ctx.q, ctx.v, x_, bus, ctx.fext);
  saturated_now_ = attitude_.limit(tau, ctx);
  if (!saturated_now_) ctx.ddq = &ctx.data.ddq;
}

void CaptureController::jointPd(ControlContext& ctx, const PointKinematics& ref, const Vector3& r) {
  // The thesis' two loops (Ch. 8). Outer loop (guidance): the
  // hand's error turned into joint references by the damped inverse of the generalized Jacobian
  // (the coordinated base + arm inversion of §8.1.2; the damping keeps the references smooth near
  // singular poses, where the thesis' plain inversion made torque peaks): δq = A⁺(r_ref - r),
  // q̇_ref = A⁺ ṙ_ref. Inner loop: a joint PD, decentralized (8.3) or centralized (8.2), the
  // latter premultiplied by the joints' mass matrix D(q0) frozen at the start of the capture.
  const ControllerSpec::Capture& c = spec_.capture;
  const auto nj = static_cast<Eigen::Index>(joints_.size());
  const bool centralized = c.arm_pd == ArmPd::kCentralized;
  if (kp_.size() == 0) {
    d0_ = ctx.data.H(joints_, joints_);
    // Defaults (captureJointGains). Decentralized: the thesis' rigid multi-model synthesis (Table
    // 8.2, "Multi"), the one complete set it prints. Table 9.1 lists proportional gains only (157,
    // 471, 198, 84, 76, 0.002); with them and critically damped Kd the hand lags the plan by 6.7 cm
    // on this model and never grasps, as with Table 9.1's centralized diagonals read as
    // diag(D(q0) Kp) (10 cm). Centralized [ours]: every joint a critically damped ω = 4 rad/s loop
    // (D(q0) scales them).
    std::vector<double> kp, kd;
    captureJointGains(c, joints_.size(), kp, kd);
    kp_ = Eigen::Map<const Eigen::VectorXd>(kp.data(), nj);
    kd_ = Eigen::Map<const Eigen::VectorXd>(kd.data(), nj);
  }
  dampedPseudoInverse(A_, c.damping, c.singular_threshold, pinv_, Apinv_);
  const Vector3 dr = ref.position - r;
  dq_.noalias() = Apinv_ * dr;
  rate_.noalias() = Apinv_ * ref.velocity;
  Eigen::VectorXd& u = ddqm_;  // (scratch)
  u.resize(nj);
  for (Eigen::Index k = 0; k < nj; ++k) u[k] = kp_[k] * dq_[k] + kd_[k] * (rate_[k] - ctx.v[joints_[k]]);
  if (centralized) {
    dq_.noalias() = d0_ * u;
    u = dq_;
  }
  if (!c.joint_rolloff.empty()) {
    // The roll-off ω_r/(s + ω_r) on each joint's torque (the thesis' suggested extension for the
    // flexible modes, §8.2.4.2), sampled: τ_k = a τ_(k-1) + (1 - a) u_k, a = exp(-ω_r h), h the
    // time since the last sample (its pole mapped exactly, unit static gain; 0 at the same instant
    // again: the torque held); the first sample of a plan passes u.
    const bool first = std::isnan(t_rolled_);
    if (first) rolled_ = u;
    const double h = first ? 0.0 : std::max(0.0, ctx.t - t_rolled_);
    for (Eigen::Index k = 0; k < nj && !first; ++k) {
      const double a = std::exp(-c.joint_rolloff[c.joint_rolloff.size() == 1 ? 0 : static_cast<std::size_t>(k)] * h);
      rolled_[k] = a * rolled_[k] + (1 - a) * u[k];
    }
    t_rolled_ = ctx.t;
    u = rolled_;
  }
  for (Eigen::Index k = 0; k < nj; ++k) ctx.tau[joints_[k]] = u[k];
  holdBusUnderJointTorques(ctx);
}

void CaptureController::postCapture(ControlContext& ctx) {
  // Collocated, passive laws (the composite now carries the debris at the tip of possibly
  // flexible segments, where a computed-torque law that prescribes accelerations would excite
  // the modes): joint torques -I_j (post_kd q̇ + post_kp (q - q_grasp)), and bus torques
  // -kd H_ωω ω (kd of chaser.attitude_control; H_ωω: the whole system's locked inertia about the
  // bus), limited.
  // I_j = 1 / (H⁻¹)_jj is the joint's apparent inertia, the one it feels with every other
  // coordinate free, so that post_kd [1/s] is the rate of the fastest motion the damper acts on.
  // (The locked inertia H_jj is the debris' own for the joints of a rigid arm, but on a flexible
  // arm a joint at a segment's tip also pushes on that tip's small modal inertia: damping scaled
  // by H_jj then puts an eigenvalue near -post_kd H_jj / I_tip, ~10⁴ s⁻¹ here, which made the
  // detumbling of the flexible chaser stiff — 8x slower — and chatter under a sampled control.)
  const ControllerSpec::Capture& c = spec_.capture;
  const Eigen::MatrixXd& H = massMatrix(ctx.model, ctx.data, ctx.q);
  llt_post_.compute(H);
  const Eigen::Index n = H.rows();
  unit_.resize(n);
  for (std::size_t k = 0; k < joints_.size(); ++k) {
    const int i = joints_[k];
    // (H⁻¹)_ii = |L⁻¹ e_i|², H = L Lᵀ; L⁻¹ e_i is zero above row i: its trailing block's solve.
    auto y = unit_.head(n - i);
    y.setZero();
    y[0] = 1;
    llt_post_.matrixL().bottomRightCorner(n - i, n - i).triangularView<Eigen::Lower>().solveInPlace(y);
    const double inertia = 1 / y.squaredNorm();
    ctx.tau[i] = -inertia * (c.post_kd * ctx.v[i] + c.post_kp * (ctx.q[joints_q_[k]] - hold_[static_cast<Eigen::Index>(k)]));
  }
  if (attitude_.active()) {
    const double lim = attitude_.settings().torque_limit;
    const Vector3 t = -attitude_.settings().kd * H.block<3, 3>(3, 3) * ctx.v.segment<3>(3);
    for (int k = 0; k < 3; ++k) ctx.tau[3 + k] = std::clamp(t[k], -lim, lim);
    ctx.bus_torque_demand = std::max(ctx.bus_torque_demand, t.cwiseAbs().maxCoeff());
  }
  ctx.ddq = nullptr;
}

}  // namespace grapple::core
