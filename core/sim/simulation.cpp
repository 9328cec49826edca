#include "core/sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/rotation.hpp"
#include "core/control/capture_controller.hpp"
#include "core/control/controller.hpp"
#include "core/planning/feasibility.hpp"
#include "core/sim/modal_stiffness.hpp"
#include "core/sim/ode.hpp"
#include "core/world/environment.hpp"

namespace grapple::core {
namespace {

constexpr double kDeg = 180 / M_PI;

bool anyEnvironment(const EnvironmentSettings& e) {
  return e.gravity_gradient || e.relative_motion || e.drag.enabled || e.solar_pressure.enabled ||
         e.magnetic.enabled;
}

// Rotation angle between two attitudes [rad] (2 atan2(|vec|, |w|) of the relative quaternion:
// accurate for small angles, where acos of the dot product loses them below 1e-8 rad).
double attitudeAngle(const Vector4& a, const Vector4& b) {
  const Vector4 r = quatMultiply(quatConjugate(a.normalized()), b.normalized());
  return 2 * std::atan2(r.tail<3>().norm(), std::abs(r[0]));
}

DebrisState debrisOf(const Eigen::VectorXd& x, int i) {
  DebrisState d;
  d.r_W = x.segment<3>(i);
  d.v_W = x.segment<3>(i + 3);
  d.Q_WB = x.segment<4>(i + 6);
  d.w_B = x.segment<3>(i + 10);
  return d;
}

}  // namespace

int endEffectorFrame(const Model& m, const Scenario& scenario) {
  const int named = scenario.run.end_effector.empty() ? -1 : m.frameId(scenario.run.end_effector);
  if (named >= 0) return named;
  std::vector<int> depth(m.nbodies, 0);
  for (int i = 1; i < m.nbodies; ++i) depth[i] = m.parent[i] < 0 ? 0 : depth[m.parent[i]] + 1;
  int best = -1;
  for (int f = 0; f < static_cast<int>(m.frames.size()); ++f) {
    if (best < 0 || depth[m.frames[f].body] >= depth[m.frames[best].body]) best = f;
  }
  return best;
}

struct Simulation::Impl {
  Scenario scenario;
  Model model;
  Data data;
  Environment environment;
  bool has_environment;
  std::vector<std::unique_ptr<Controller>> controllers;

  // State layout.
  int nq, nv, idebris, iwork, nx;
  Eigen::VectorXd x;
  Eigen::VectorXd x_recorded;  // x at the last recorded row: the state a failed step returns to
  double t = 0;
  int row = 0;                 // rows recorded
  std::string failure;
  bool done = false;

  // Integrators.
  Rk4Solver rk4;
  std::unique_ptr<AdaptiveRk> adaptive;
  std::unique_ptr<RosenbrockW> rosenbrock;
  std::unique_ptr<ModalStiffness> stiffness;  // its J: the modal stiffness and damping
  bool sampled = false;        // controllers at control_rate with a zero-order hold
  long control_index = 0;      // next control instant: control_index / control_rate
  long rk4_steps = 0;
  long evaluations = 0;
  OdeFunction f;

  // Scratch of one evaluation.
  Eigen::VectorXd q, v, tau, tau_cmd, tau_hold;
  double bus_demand = 0;       // the largest bus torque the controllers asked (before their limit)
  BodyWrenches fext;
  bool fext_used = false;
  Simulation::Impact impact;   // the grasp's
  bool solved = false;         // the controllers solved the accelerations under tau (control()) ...
  const Eigen::VectorXd* solved_ddq = nullptr;  // ... here
  DebrisState debris_now;      // the debris in the state being evaluated
  // sensors.camera: the debris the controllers see (the estimate), and where the camera is.
  std::unique_ptr<DebrisSensing> sensing;
  DebrisState debris_known;
  int camera_frame = -1;       // -1: the base body

  // Capture: the controller's settings, and the grasp's progress (seen at recording instants).
  const ControllerSpec* capture = nullptr;
  double within_since = -1;    // [s] since when the hand is within the tolerances (-1: it is not)
  double planned_capture = NAN;  // [s] when the plan has the hand meet the grasp point
  bool captured = false;
  CaptureController* capture_ctl = nullptr;  // the capture controller (null without one)
  // The chaser's state when the current plan was made (for its feasibility check), and the check.
  int plan_state_of = 0;       // the plan number the state belongs to
  Eigen::VectorXd plan_q, plan_v;
  std::unique_ptr<PlanCheck> plan_check;
  int plan_check_of = 0;       // the plan number the check belongs to
  // After the grasp the debris is part of the end-effector body: its pose relative to that body.
  bool attached = false, attach_pending = false;
  int attach_body = -1;
  Matrix3 R_body_debris = Matrix3::Identity();
  Vector3 com_body = Vector3::Zero();

  // Recording.
  Recorder recorder;
  std::vector<double> row_values;
  std::vector<SimulationEvent> events;
  std::vector<ControlEvent> control_events;
  int ee_frame = -1;
  Vector3 base_position0 = Vector3::Zero();
  Vector4 base_attitude0 = Vector4(1, 0, 0, 0);
  double energy0 = 0;
  std::vector<char> outside_limit;   // per v coordinate: -1 below, +1 above, 0 inside
  std::vector<char> saturated;       // per v coordinate

  Impl(Scenario s, Model m)
      : scenario(std::move(s)),
        model(std::move(m)),
        data(model, model.hasFlexibleBodies()),
        environment(scenario.environment),
        has_environment(anyEnvironment(scenario.environment)) {}

  void evaluate(double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx);
  // Environment wrenches (fext) and actuator forces (tau: commanded in tau_cmd, then limited) at
  // time tt for the state in q, v.
  void environmentWrenches(double tt);
  void control(double tt);
  // A control instant: the controllers see the state x and their forces are held until the next.
  void sampleControl();
  void setInitialState();
  void setUpChannels();
  void record();
  // The grasp: the debris becomes part of the end-effector body (its inertia added to the body's),
  // and the velocities jump as an inelastic impact conserving the generalized momentum,
  //   H⁺ v⁺ = H⁻ v⁻ + J_Dᵀ [m_d v_d; I_d ω_d]   (J_D: the Jacobian of the debris' centre of mass).
  // Returns the kinetic energy lost in the impact.
  double attachDebris();
  // The debris' state from the body carrying it (after the grasp), written into x.
  void carryDebris();
  CaptureController* captureController() const;
  // At a sensing instant: the camera's image of the state x taken, the images arrived applied.
  void sense();
  // The camera's pose, after forwardKinematics.
  Transform cameraPose() const {
    return (camera_frame < 0 ? data.X_world[0] : framePose(model, data, camera_frame)) * sensing->spec().mount;
  }
};

void Simulation::Impl::setInitialState() {
  const Model& m = model;
  const ChaserInitialState& init = scenario.chaser.initial;
  nq = m.nq;
  nv = m.nv;
  idebris = nq + nv;
  iwork = idebris + (scenario.debris.enabled ? 13 : 0);
  nx = iwork + 4;  // W_in, W_ext, W_diss, fuel
  x = Eigen::VectorXd::Zero(nx);
  x_recorded = x;
  Eigen::VectorXd q0 = neutralConfiguration(m);
  Eigen::VectorXd v0 = Eigen::VectorXd::Zero(nv);
  if (m.hasFreeBase()) {
    q0.head<3>() = init.base_position;
    q0.segment<4>(3) = init.base_attitude.normalized();
    v0.head<6>() = init.base_twist;
  } else {
    // A fixed base is placed where the scenario puts it.
    model.X_parent_joint[0] = Transform{quatToMatrix(init.base_attitude.normalized()), init.base_position};
    if (init.base_twist.norm() > 0) {
      throw std::invalid_argument("chaser.initial.base.twist: the base is fixed");
    }
  }
  base_position0 = init.base_position;
  base_attitude0 = init.base_attitude.normalized();
  auto joint = [&](const std::string& name) {
    const int b = m.bodyOfJoint(name);
    if (b < 0) throw std::invalid_argument("chaser.initial.joints: no joint '" + name + "'");
    return b;
  };
  for (const auto& [name, values] : init.joint_position) {
    const Joint& j = m.joint[joint(name)];
    if (static_cast<int>(values.size()) != j.nq) {
      throw std::invalid_argument("chaser.initial.joints." + name + ".position: " + std::to_string(j.nq) + " values expected");
    }
    for (int k = 0; k < j.nq; ++k) q0[j.idx_q + k] = values[k];
  }
  for (const auto& [name, values] : init.joint_velocity) {
    const Joint& j = m.joint[joint(name)];
    if (static_cast<int>(values.size()) != j.nv) {
      throw std::invalid_argument("chaser.initial.joints." + name + ".velocity: " + std::to_string(j.nv) + " values expected");
    }
    for (int k = 0; k < j.nv; ++k) v0[j.idx_v + k] = values[k];
  }
  auto flexBody = [&](const std::string& name) {
    for (int i = 0; i < m.nbodies; ++i) {
      if (m.body_name[i] == name && m.flex[i].nf > 0) return i;
    }
    throw std::invalid_argument("chaser.initial.modes: no flexible body '" + name + "'");
  };
  for (const auto& [name, values] : init.mode_position) {
    const FlexibleBody& fb = m.flex[flexBody(name)];
    if (static_cast<int>(values.size()) != fb.nf) throw std::invalid_argument("chaser.initial.modes." + name + ": wrong size");
    for (int k = 0; k < fb.nf; ++k) q0[fb.idx_q + k] = values[k];
  }
  for (const auto& [name, values] : init.mode_velocity) {
    const FlexibleBody& fb = m.flex[flexBody(name)];
    if (static_cast<int>(values.size()) != fb.nf) throw std::invalid_argument("chaser.initial.modes." + name + ": wrong size");
    for (int k = 0; k < fb.nf; ++k) v0[fb.idx_v + k] = values[k];
  }
  if (!q0.allFinite() || !v0.allFinite()) throw std::invalid_argument("the initial state is not finite");
  x.head(nq) = q0;
  x.segment(nq, nv) = v0;
  if (scenario.debris.enabled) {
    const DebrisState& d = scenario.debris.initial;
    x.segment<3>(idebris) = d.r_W;
    x.segment<3>(idebris + 3) = d.v_W;
    x.segment<4>(idebris + 6) = d.Q_WB.normalized();
    x.segment<3>(idebris + 10) = d.w_B;
  }
  q = q0;
  v = v0;
  tau = Eigen::VectorXd::Zero(nv);
  tau_cmd = tau;
  tau_hold = tau;
  fext.assign(m.nbodies, Vector6::Zero());
  if (!scenario.run.end_effector.empty() && m.frameId(scenario.run.end_effector) < 0) {
    throw std::invalid_argument("run.end_effector: no frame '" + scenario.run.end_effector + "'");
  }
  ee_frame = endEffectorFrame(m, scenario);
  if (ee_frame < 0) throw std::invalid_argument("run.end_effector: the model has no frame");
  controllers = makeControllers(m, scenario, q0, ee_frame);
  for (const ControllerSpec& c : scenario.controllers) {
    if (c.type == ControllerType::kCapture) capture = &c;
  }
  capture_ctl = captureController();
  plan_q = q0;
  plan_v = v0;
  outside_limit.assign(nv, 0);
  saturated.assign(nv, 0);
  if (const auto& cam = scenario.sensors.camera; cam && scenario.debris.enabled) {
    camera_frame = cam->frame.empty() ? -1 : m.frameId(cam->frame);
    if (!cam->frame.empty() && camera_frame < 0) throw std::invalid_argument("sensors.camera.frame: no frame '" + cam->frame + "'");
    sensing = std::make_unique<DebrisSensing>(scenario.debris.properties, *cam, debrisOf(x, idebris), 0.0);
  }
}

void Simulation::Impl::environmentWrenches(double tt) {
  fext_used = has_environment;
  if (!has_environment) return;
  for (Vector6& w : fext) w.setZero();
  forwardKinematics(model, data, q);
  environment.addBodyWrenches(model, data, tt, fext);
}

void Simulation::Impl::control(double tt) {
  const Model& m = model;
  tau.setZero();
  ControlContext ctx{m, data, tt, q, v, fext_used ? &fext : nullptr, tau};
  if (sensing && !attached) {  // (once grasped, the debris moves with the hand: known)
    debris_known = sensing->state(tt);
    ctx.debris = &debris_known;
  } else if (scenario.debris.enabled) {
    ctx.debris = &debris_now;
  }
  for (auto& c : controllers) {
    ctx.ddq = nullptr;
    c->update(ctx);
  }
  if (capture_ctl != nullptr && capture_ctl->plans() != plan_state_of) {  // a plan made at tt: its state
    plan_state_of = capture_ctl->plans();
    plan_q = q;
    plan_v = v;
  }
  bus_demand = ctx.bus_torque_demand;
  tau_cmd = tau;
  bool limited = false;
  for (int k = 0; k < nv; ++k) {
    const double lim = m.effort_limit[k];
    if (std::abs(tau[k]) > lim) {
      tau[k] = std::clamp(tau[k], -lim, lim);
      limited = true;
    }
  }
  solved = ctx.ddq != nullptr && !limited;
  solved_ddq = ctx.ddq;
}

void Simulation::Impl::sampleControl() {
  q = x.head(nq);
  v = x.segment(nq, nv);
  if (scenario.debris.enabled) debris_now = debrisOf(x, idebris);
  environmentWrenches(t);
  control(t);
  tau_hold = tau;
}

void Simulation::Impl::evaluate(double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx) {
  ++evaluations;
  const Model& m = model;
  q = xx.head(nq);
  v = xx.segment(nq, nv);
  if (scenario.debris.enabled) debris_now = debrisOf(xx, idebris);
  environmentWrenches(tt);
  const BodyWrenches* fe = fext_used ? &fext : nullptr;
  if (sampled) {
    tau = tau_hold;
    solved = false;
  } else {
    control(tt);
  }
  const Eigen::VectorXd& ddq = solved ? *solved_ddq : forwardDynamics(m, data, q, v, tau, fe);
  dx.resize(nx);
  dx.head(nq) = configurationRate(m, q, v);
  dx.segment(nq, nv) = ddq;
  if (attached) {
    dx.segment<13>(idebris).setZero();  // carried by the hand: set from it at each recording
  } else if (scenario.debris.enabled) {
    const DebrisState d = debrisOf(xx, idebris);
    Vector3 a = Vector3::Zero(), n = Vector3::Zero();
    if (has_environment) environment.debrisLoads(scenario.debris.properties, d, tt, a, n);
    const DebrisRates r = debrisRates(scenario.debris.properties, d, a, n);
    dx.segment<3>(idebris) = r.r;
    dx.segment<3>(idebris + 3) = r.v;
    dx.segment<4>(idebris + 6) = r.Q;
    dx.segment<3>(idebris + 10) = r.w;
  }
  // Powers: actuators, environment (t_iᵀ f_i, both at body i's origin in body i), damping.
  dx[iwork] = tau.dot(v);
  double p_ext = 0;
  if (fext_used) {
    for (int i = 0; i < m.nbodies; ++i) p_ext += data.t[i].dot(fext[i]);
  }
  dx[iwork + 1] = p_ext;
  double p_diss = 0;
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    if (fb.nf == 0) continue;
    const auto dd = v.segment(fb.idx_v, fb.nf);
    p_diss += dd.dot(fb.D * dd);
  }
  dx[iwork + 2] = p_diss;
  // Fuel (thesis eq. 9.1, g0 = 9.81 m/s² as there).
  dx[iwork + 3] = 0;
  if (const auto& th = scenario.chaser.thrusters; th && m.hasFreeBase()) {
    dx[iwork + 3] = (tau.head<3>() + tau.segment<3>(3) / th->lever_arm).norm() / (9.81 * th->isp);
  }
}

void Simulation::Impl::setUpChannels() {
  const Model& m = model;
  Recorder& r = recorder;
  r.add("time", "s");
  if (m.hasFreeBase()) {
    for (const char* c : {"x", "y", "z"}) r.add(std::string("base.") + c, "m");
    r.add("base.position_error", "m");
    r.add("base.attitude_error", "deg");
    for (const char* c : {"roll", "pitch", "yaw"}) r.add(std::string("base.") + c, "deg");
    for (const char* c : {"vx", "vy", "vz"}) r.add(std::string("base.") + c, "m/s");
    for (const char* c : {"wx", "wy", "wz"}) r.add(std::string("base.") + c, "deg/s");
    // Actuator force and torque on the base (thrusters, reaction wheels), base axes.
    for (const char* c : {"fx", "fy", "fz"}) r.add(std::string("base.") + c, "N");
    for (const char* c : {"tx", "ty", "tz"}) r.add(std::string("base.") + c, "N m");
    if (scenario.chaser.thrusters) r.add("base.fuel", "kg");
  }
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    if (j.nv == 0) continue;
    const bool linear = j.type == JointType::kPrismatic;
    for (int k = 0; k < j.nv; ++k) {
      const std::string base = "joint." + j.name + (j.nv > 1 ? "[" + std::to_string(k) + "]" : "");
      r.add(base + ".position", linear ? "m" : "rad");
      r.add(base + ".velocity", linear ? "m/s" : "rad/s");
      r.add(base + ".torque", linear ? "N" : "N m");
      double ref = 0;
      bool driven = false;
      for (const auto& c : controllers) driven = driven || c->reference(j.idx_v + k, 0, ref);
      if (driven) {
        r.add(base + ".reference", linear ? "m" : "rad");
        r.add(base + ".error", linear ? "m" : "rad");
      }
    }
  }
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    for (int k = 0; k < fb.nf; ++k) r.add("mode." + m.body_name[i] + "." + fb.mode_names[k], "1");
  }
  for (const char* c : {"kinetic", "elastic", "potential", "total", "input_work", "external_work",
                        "dissipated", "error"}) {
    r.add(std::string("energy.") + c, "J");
  }
  // The whole system's energy (chaser and debris, before and after the grasp) and its parts; the
  // kinetic energy the grasp's inelastic impact takes away is its own channel.
  r.add("energy.system", "J");
  if (scenario.debris.enabled) {
    for (const char* c : {"chaser", "debris", "impact_loss"}) r.add(std::string("energy.") + c, "J");
  }
  for (const char* c : {"px", "py", "pz"}) r.add(std::string("momentum.") + c, "kg m/s");
  for (const char* c : {"Lx", "Ly", "Lz"}) r.add(std::string("momentum.") + c, "kg m^2/s");
  for (const char* c : {"x", "y", "z"}) r.add(std::string("com.") + c, "m");  // whole chaser
  for (const char* c : {"x", "y", "z"}) r.add(std::string("ee.") + c, "m");
  for (const char* c : {"roll", "pitch", "yaw"}) r.add(std::string("ee.") + c, "deg");
  r.add("ee.speed", "m/s");
  if (scenario.debris.enabled) {
    for (const char* c : {"x", "y", "z"}) r.add(std::string("debris.") + c, "m");
    for (const char* c : {"qw", "qx", "qy", "qz"}) r.add(std::string("debris.") + c, "1");
    for (const char* c : {"wx", "wy", "wz"}) r.add(std::string("debris.") + c, "deg/s");
    r.add("debris.rotational_energy", "J");
    for (const char* c : {"x", "y", "z"}) r.add(std::string("target.") + c, "m");
    for (const char* c : {"vx", "vy", "vz"}) r.add(std::string("target.") + c, "m/s");
    r.add("distance.ee_target", "m");
    r.add("distance.ee_target_rate", "m/s");
    r.add("distance.ee_target_relative_speed", "m/s");
    if (sensing) {
      for (const auto& [name, unit] : DebrisSensing::channels()) r.add(name, unit);
    }
  }
  if (capture) {
    for (const char* c : {"x", "y", "z"}) r.add(std::string("plan.") + c, "m");
    r.add("plan.ee_error", "m");
    // CaptureController::Phase: 0 before, 1 waiting, 2 tracking, 3 retreating, 4 stopped, 5 attached.
    r.add("capture.phase", "1");
  }
  // What the controllers asked before any limit: the requirements on torques are checked on these.
  if (m.hasFreeBase()) r.add("base.torque_demand", "N m");
  r.add("arm.torque_demand", "N m");
  // How many actuators ask beyond their limit (each joint's effort limit, the bus torque's): the
  // intervals where the run is limited by its actuators.
  r.add("limits.saturated", "1");
  row_values.assign(r.channels(), 0.0);
}

void Simulation::Impl::record() {
  const Model& m = model;
  Eigen::VectorXd dx(nx);
  evaluate(t, x, dx);  // τ and the wrenches at this instant
  --evaluations;       // bookkeeping, not integration
  std::size_t c = 0;
  auto put = [&](double value) { row_values[c++] = value; };
  put(t);
  if (attached) carryDebris();
  // Momentum of the whole system: the chaser and, until it is attached, the debris.
  Vector6 mom = momentum(m, data, q, v);  // also forwardKinematics(q, v)
  if (scenario.debris.enabled && !attached) {
    const DebrisState d = debrisOf(x, idebris);
    const double md = scenario.debris.properties.mass;
    mom.head<3>() += md * d.v_W;
    mom.tail<3>() += d.r_W.cross(md * d.v_W) + debrisAngularMomentum(scenario.debris.properties, d);
  }
  if (m.hasFreeBase()) {
    const Vector3 r0 = q.head<3>();
    const Vector4 Q = q.segment<4>(3);
    for (int k = 0; k < 3; ++k) put(r0[k]);
    put((r0 - base_position0).norm());
    put(attitudeAngle(Q, base_attitude0) * kDeg);
    const Vector3 rpy = matrixToRpy(quatToMatrix(Q.normalized()));
    for (int k = 0; k < 3; ++k) put(rpy[k] * kDeg);
    for (int k = 0; k < 3; ++k) put(v[k]);
    for (int k = 3; k < 6; ++k) put(v[k] * kDeg);
    for (int k = 0; k < 6; ++k) put(tau[k]);
    if (scenario.chaser.thrusters) put(x[iwork + 3]);
  }
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    for (int k = 0; k < j.nv; ++k) {
      const int iv = j.idx_v + k;
      // Multi-DOF joints with quaternions (spherical) record their rotation vector components.
      const double pos = j.nq == j.nv ? q[j.idx_q + k] : 0.0;
      put(pos);
      put(v[iv]);
      put(tau[iv]);
      double ref = 0;
      bool driven = false;
      for (const auto& ctl : controllers) driven = driven || ctl->reference(iv, t, ref);
      if (driven) {
        // Once a capture controller has taken the joints over, their paths no longer apply: the
        // reference and error are left empty (NaN).
        const bool overridden = std::any_of(controllers.begin(), controllers.end(),
                                            [&](const auto& ctl) { return ctl->drivesJoints(t); });
        put(overridden ? NAN : ref);
        put(overridden ? NAN : ref - pos);
      }
      // Events: position limits and effort saturation, seen at the recording instants.
      if (j.nq == j.nv) {
        const double lo = m.lower_position_limit[j.idx_q + k], hi = m.upper_position_limit[j.idx_q + k];
        const char side = pos < lo ? -1 : (pos > hi ? 1 : 0);
        if (side != 0 && outside_limit[iv] != side) {
          events.push_back({t, "joint_limit", "joint '" + j.name + "' reached its " +
                                                  (side < 0 ? "lower" : "upper") + " limit (" +
                                                  std::to_string(side < 0 ? lo : hi) + ")"});
        }
        outside_limit[iv] = side;
      }
      const char sat = std::abs(tau_cmd[iv]) > m.effort_limit[iv];
      if (sat && !saturated[iv]) {
        events.push_back({t, "effort_limit", "joint '" + j.name + "' asks " +
                                                 std::to_string(tau_cmd[iv]) + ", limited to ±" +
                                                 std::to_string(m.effort_limit[iv])});
      }
      saturated[iv] = sat;
    }
  }
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    for (int k = 0; k < fb.nf; ++k) put(q[fb.idx_q + k]);
  }
  const double ek = kineticEnergy(m, data, q, v);
  const double ee = m.hasFlexibleBodies() ? general::elasticEnergy(m, q) : 0.0;
  const double ep = potentialEnergy(m, data, q);
  const double total = ek + ee + ep;
  const double w_in = x[iwork], w_ext = x[iwork + 1], w_diss = x[iwork + 2];
  if (row == 0) energy0 = total;
  for (double e : {ek, ee, ep, total, w_in, w_ext, w_diss, total + w_diss - w_in - w_ext - energy0}) put(e);
  if (scenario.debris.enabled) {
    // The debris' own energy: kinetic (translation and rotation) and, under uniform gravity,
    // potential. Once attached it moves with the hand (carryDebris) and its mass is part of the
    // composite's total, so the chaser's share is the rest: kinetic energy is additive over bodies.
    const DebrisState d = debrisOf(x, idebris);
    const double md = scenario.debris.properties.mass;
    const double e_debris = 0.5 * md * d.v_W.squaredNorm() + debrisRotationalEnergy(scenario.debris.properties, d) -
                            md * m.gravity_W.dot(d.r_W);
    const double e_system = attached ? total : total + e_debris;
    for (double e : {e_system, e_system - e_debris, e_debris, impact.energy_lost}) put(e);
  } else {
    put(total);
  }
  for (int k = 0; k < 6; ++k) put(mom[k]);
  const Vector3 com = centerOfMass(m, data, q);
  for (int k = 0; k < 3; ++k) put(com[k]);
  forwardKinematics(m, data, q, v);
  const Transform X_ee = framePose(m, data, ee_frame);
  const Vector6 v_ee = pointVelocityWorld(m, data, ee_frame);
  for (int k = 0; k < 3; ++k) put(X_ee.p[k]);
  const Vector3 rpy_ee = matrixToRpy(X_ee.R);
  for (int k = 0; k < 3; ++k) put(rpy_ee[k] * kDeg);
  put(v_ee.head<3>().norm());
  if (scenario.debris.enabled) {
    const DebrisState d = debrisOf(x, idebris);
    for (int k = 0; k < 3; ++k) put(d.r_W[k]);
    const Vector4 Q = d.Q_WB.normalized();
    for (int k = 0; k < 4; ++k) put(Q[k]);
    for (int k = 0; k < 3; ++k) put(d.w_B[k] * kDeg);
    put(debrisRotationalEnergy(scenario.debris.properties, d));
    const PointKinematics tk = targetKinematics(scenario.debris.properties, d);
    for (int k = 0; k < 3; ++k) put(tk.position[k]);
    for (int k = 0; k < 3; ++k) put(tk.velocity[k]);
    const Vector3 rel = tk.position - X_ee.p;
    const double dist = rel.norm();
    put(dist);
    put(dist > 0 ? rel.dot(tk.velocity - v_ee.head<3>()) / dist : 0.0);
    const double rel_speed = (tk.velocity - v_ee.head<3>()).norm();
    put(rel_speed);
    // With a camera the gripper closes on the estimate (the hand's own state is known exactly).
    double grasp_dist = dist, grasp_speed = rel_speed;
    if (sensing) {
      sensing->record(t, d, cameraPose().p, &row_values[c]);
      c += DebrisSensing::channels().size();
      if (!sensing->stopped()) {
        const PointKinematics ek = targetKinematics(scenario.debris.properties, sensing->state(t));
        grasp_dist = (ek.position - X_ee.p).norm();
        grasp_speed = (ek.velocity - v_ee.head<3>()).norm();
      }
    }
    // The grasp: the hand within the position and relative-speed tolerances of the grasp point
    // for `hold` seconds (tracking it) after the capture started; the gripper then closes.
    const CaptureController* cc = capture ? captureController() : nullptr;
    if (cc && !captured && t >= capture->start && cc->graspArmed()) {
      const auto& c = capture->capture;
      if (grasp_dist < c.tolerance && grasp_speed < c.speed_tolerance) {
        if (within_since < 0) within_since = t;
        if (t - within_since >= c.hold - 1e-12) {
          captured = true;
          attach_pending = true;
          // The hand's approach axis (its z) from the inward grasp axis (capture.align turns one onto
          // the other; without it the gripper meets the grasp point at whatever angle the arm gives).
          const Vector3 inward = -(quatToMatrix(Q) * graspAxis(scenario.debris.properties));
          const double axis_deg = std::acos(std::clamp(X_ee.R.col(2).dot(inward), -1.0, 1.0)) * kDeg;
          char detail[320];
          std::snprintf(detail, sizeof detail, "grasp closed: %.4f m from the grasp point at %.4f m/s, "
                        "tracked within tolerance since t = %.3f s; approach axis %.1f deg from the grasp axis", dist,
                        rel_speed, within_since, axis_deg);
          if (sensing) {
            std::snprintf(detail, sizeof detail, "grasp closed on the estimate: %.4f m from the estimated grasp "
                          "point at %.4f m/s (truly %.4f m at %.4f m/s), tracked within tolerance since t = %.3f s; "
                          "approach axis %.1f deg from the grasp axis", grasp_dist, grasp_speed, dist, rel_speed,
                          within_since, axis_deg);
          }
          events.push_back({t, "capture", detail});
        }
      } else {
        within_since = -1;
      }
    }
  }
  if (capture) {
    // The controller's decisions (windows, plans, aborts), and the meeting of its current plan.
    for (const auto& ctl : controllers) {
      control_events.clear();
      ctl->takeEvents(control_events);
      for (ControlEvent& e : control_events) events.push_back({e.time, std::move(e.kind), std::move(e.detail)});
    }
    if (const CaptureController* cc = captureController(); cc && cc->plan()) {
      planned_capture = cc->planStart() + cc->plan()->captureTime();
    }
  }
  if (capture) {
    // The plan's hand position while the hand flies it (NaN while waiting, retreating, attached).
    Vector3 ref = Vector3::Constant(NAN);
    for (const auto& ctl : controllers) ctl->handReference(t, ref);
    for (int k = 0; k < 3; ++k) put(ref[k]);
    put((ref - X_ee.p).norm());
    put(static_cast<double>(captureController()->phase()));
  }
  if (m.hasFreeBase()) put(bus_demand);
  double arm_demand = 0;
  for (int i = 1; i < m.nbodies; ++i) {
    if (m.joint[i].nv == 1) arm_demand = std::max(arm_demand, std::abs(tau_cmd[m.joint[i].idx_v]));
  }
  put(arm_demand);
  int at_limit = static_cast<int>(std::count(saturated.begin(), saturated.end(), 1));
  if (const auto& ac = scenario.chaser.attitude_control; m.hasFreeBase() && ac && ac->active()) {
    at_limit += bus_demand > ac->torque_limit;
  }
  put(at_limit);
  recorder.append(row_values);
  ++row;
  if (attach_pending) {
    attach_pending = false;
    if (sensing) sensing->stop();
    const double loss = attachDebris();
    char detail[300];
    std::snprintf(detail, sizeof detail, "debris attached to the hand: %.4g J of kinetic energy lost in the "
                  "impact, impulse %.4g N s, angular impulse %.4g N m s; from now on the energy and momentum "
                  "channels are the composite's", loss, impact.impulse.norm(), impact.angular_impulse.norm());
    events.push_back({t, "attach", detail});
  }
}

void Simulation::Impl::sense() {
  q = x.head(nq);
  forwardKinematics(model, data, q);
  std::vector<std::pair<std::string, std::string>> seen;
  sensing->advance(t, debrisOf(x, idebris), cameraPose(), seen);
  for (auto& [kind, detail] : seen) events.push_back({t, std::move(kind), std::move(detail)});
}

CaptureController* Simulation::Impl::captureController() const {
  for (auto& ctl : controllers) {
    if (auto* cc = dynamic_cast<CaptureController*>(ctl.get())) return cc;
  }
  return nullptr;
}

double Simulation::Impl::attachDebris() {
  Model& m = model;
  const DebrisProperties& P = scenario.debris.properties;
  const DebrisState d = debrisOf(x, idebris);
  q = x.head(nq);
  v = x.segment(nq, nv);
  forwardKinematics(m, data, q, v);
  attach_body = m.frames[ee_frame].body;
  const Transform& Xb = data.X_world[attach_body];
  const Matrix3 R_WD = quatToMatrix(d.Q_WB.normalized());
  R_body_debris = Xb.R.transpose() * R_WD;
  com_body = Xb.R.transpose() * (d.r_W - Xb.p);
  // J_D: the debris' centre of mass as a point of the end-effector frame.
  const Transform XF = framePose(m, data, ee_frame);
  const Eigen::MatrixXd J_D = frameJacobian(m, data, ee_frame, XF.R.transpose() * (d.r_W - XF.p));
  Vector6 p_D;
  p_D << P.mass * d.v_W, R_WD * (P.inertia * d.w_B);
  const double e_before = kineticEnergy(m, data, q, v) + 0.5 * P.mass * d.v_W.squaredNorm() +
                          debrisRotationalEnergy(P, d);
  const double total_before = e_before - 0.5 * P.mass * d.v_W.squaredNorm() - debrisRotationalEnergy(P, d) +
                              (m.hasFlexibleBodies() ? general::elasticEnergy(m, q) : 0.0) +
                              potentialEnergy(m, data, q);
  const Eigen::VectorXd h = massMatrix(m, data, q) * v + J_D.transpose() * p_D;
  m.inertia[attach_body] += Inertia::FromCom(P.mass, com_body, R_body_debris * P.inertia * R_body_debris.transpose());
  m.inertia_matrix[attach_body] = m.inertia[attach_body].matrix();
  const Eigen::VectorXd v_plus = massMatrix(m, data, q).llt().solve(h);
  x.segment(nq, nv) = v_plus;
  v = v_plus;
  attached = true;
  carryDebris();
  const double e_after = kineticEnergy(m, data, q, v);
  // The impulse on the debris: its momentum after (moving with the hand) minus before.
  const DebrisState after = debrisOf(x, idebris);
  impact.happened = true;
  impact.impulse = P.mass * (after.v_W - d.v_W);
  impact.angular_impulse = R_WD * (P.inertia * (after.w_B - d.w_B));
  // The energy balance goes on from the composite's energy.
  const double total_after = e_after + (m.hasFlexibleBodies() ? general::elasticEnergy(m, q) : 0.0) +
                             potentialEnergy(m, data, q);
  energy0 += total_after - total_before;
  if (CaptureController* cc = captureController()) cc->attach(q);
  impact.energy_lost = e_before - e_after;
  return impact.energy_lost;
}

void Simulation::Impl::carryDebris() {
  q = x.head(nq);
  v = x.segment(nq, nv);
  forwardKinematics(model, data, q, v);
  const Transform& Xb = data.X_world[attach_body];
  const Matrix3 R_WD = Xb.R * R_body_debris;
  // The body's twist: [v_O; ω] in body axes; the debris' centre of mass moves with it.
  const Vector6& tb = data.t[attach_body];
  const Vector3 w_b = tb.tail<3>();
  DebrisState d;
  d.r_W = Xb.p + Xb.R * com_body;
  d.v_W = Xb.R * (tb.head<3>() + w_b.cross(com_body));
  d.Q_WB = matrixToQuat(R_WD);
  d.w_B = R_body_debris.transpose() * w_b;
  x.segment<3>(idebris) = d.r_W;
  x.segment<3>(idebris + 3) = d.v_W;
  x.segment<4>(idebris + 6) = d.Q_WB;
  x.segment<3>(idebris + 10) = d.w_B;
}

Simulation::Simulation(Scenario scenario, Model model)
    : impl_(std::make_unique<Impl>(std::move(scenario), std::move(model))) {
  Impl& s = *impl_;
  const RunSettings& run = s.scenario.run;
  if (!(run.duration > 0) || !(run.record_rate > 0) || !(run.step > 0) || !(run.control_rate >= 0)) {
    throw std::invalid_argument("run: duration, record_rate and step must be > 0, control_rate >= 0");
  }
  s.setInitialState();
  s.setUpChannels();
  s.f = [&s](double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx) { s.evaluate(tt, xx, dx); };
  if (run.integrator != IntegratorType::kRk4) {
    AdaptiveOptions o;
    o.method = run.integrator == IntegratorType::kRk43 ? AdaptiveMethod::kRk43
                                                      : AdaptiveMethod::kDormandPrince54;
    o.rtol = run.rtol;
    o.atol = run.atol;
    o.h_max = run.max_step;
    o.h_initial = std::min(1e-3, run.max_step);
    if (run.integrator == IntegratorType::kRosenbrockW) {
      s.rosenbrock = std::make_unique<RosenbrockW>(o);
      s.stiffness = std::make_unique<ModalStiffness>(s.model, s.data, 0, s.nq);
    } else {
      s.adaptive = std::make_unique<AdaptiveRk>(o);
    }
  }
  s.sampled = run.control_rate > 0;
  try {
    if (s.sensing) s.sense();  // the image at t = 0
    if (s.sampled) {
      s.sampleControl();
      s.control_index = 1;
    }
    s.record();
  } catch (const std::runtime_error& e) {
    // A controller that fails on the initial state (a capture plan without a solution): the
    // scenario cannot start, which its caller reports against the file.
    throw std::invalid_argument(e.what());
  }
}

Simulation::~Simulation() = default;

const Scenario& Simulation::scenario() const { return impl_->scenario; }
const Model& Simulation::model() const { return impl_->model; }
double Simulation::time() const { return impl_->t; }
double Simulation::endTime() const { return impl_->scenario.run.duration; }
bool Simulation::finished() const { return impl_->done; }
const std::string& Simulation::failure() const { return impl_->failure; }
double Simulation::plannedCaptureTime() const { return impl_->planned_capture; }

int Simulation::plans() const {
  const CaptureController* cc = impl_->captureController();
  return cc ? cc->plans() : 0;
}

std::vector<Vector3> Simulation::plannedHandPath(int points) const {
  std::vector<Vector3> path;
  const CaptureController* cc = impl_->captureController();
  if (cc == nullptr || cc->plan() == nullptr || points < 2) return path;
  const double T = cc->plan()->captureTime();  // the current plan's (time 0: its start)
  path.reserve(static_cast<std::size_t>(points));
  for (int k = 0; k < points; ++k) path.push_back(cc->plan()->at(T * k / (points - 1)).position);
  return path;
}
Vector3 Simulation::plannedHandAt(double t) const {
  const CaptureController* cc = impl_->capture_ctl;
  if (cc == nullptr || cc->plan() == nullptr) return Vector3::Constant(NAN);
  return cc->plan()->at(t - cc->planStart()).position;
}

double Simulation::planStart() const {
  const CaptureController* cc = impl_->capture_ctl;
  return cc != nullptr && cc->plan() != nullptr ? cc->planStart() : NAN;
}

double Simulation::plannedRendezvousTime() const {
  const CaptureController* cc = impl_->capture_ctl;
  return cc != nullptr && cc->plan() != nullptr ? cc->planStart() + cc->plan()->rendezvousTime() : NAN;
}

const PlanCheck* Simulation::planCheck() const {
  Impl& s = *impl_;
  const CaptureController* cc = s.capture_ctl;
  if (cc == nullptr || cc->plan() == nullptr || cc->plans() == 0) return nullptr;
  if (s.plan_check_of != cc->plans() || !s.plan_check) {
    Data data(s.model, s.model.hasFlexibleBodies());
    s.plan_check = std::make_unique<PlanCheck>(
        checkCapturePlan(s.model, data, cc->feasibility(), *cc->plan(), s.plan_q, s.plan_v, s.ee_frame));
    s.plan_check_of = cc->plans();
  }
  return s.plan_check.get();
}

const Simulation::Impact& Simulation::impact() const { return impl_->impact; }

const Recorder& Simulation::recorder() const { return impl_->recorder; }
const std::vector<SimulationEvent>& Simulation::events() const { return impl_->events; }
const Eigen::VectorXd& Simulation::q() const { return impl_->q; }
const Eigen::VectorXd& Simulation::v() const { return impl_->v; }

DebrisState Simulation::debris() const {
  const Impl& s = *impl_;
  return s.scenario.debris.enabled ? debrisOf(s.x, s.idebris) : s.scenario.debris.initial;
}

SimulationStats Simulation::stats() const {
  const Impl& s = *impl_;
  SimulationStats st;
  st.evaluations = s.evaluations;
  if (s.adaptive || s.rosenbrock) {
    const AdaptiveStats& a = s.adaptive ? s.adaptive->stats() : s.rosenbrock->stats();
    st.steps = a.accepted;
    st.rejected = a.rejected;
  } else {
    st.steps = s.rk4_steps;
  }
  return st;
}

bool Simulation::step() {
  Impl& s = *impl_;
  if (s.done) return false;
  const RunSettings& run = s.scenario.run;
  // Recording and control instants are exact multiples of their intervals (no accumulated
  // rounding); the integration runs piecewise between them, so that a held control never
  // changes inside a step.
  const double t_next = std::min(run.duration, s.row / run.record_rate);
  const double t_recorded = s.t;
  s.x_recorded = s.x;
  try {
    while (s.t < t_next) {
      double t_piece = t_next;
      const double t_control = s.sampled ? s.control_index / run.control_rate : INFINITY;
      if (t_control < t_piece) t_piece = t_control;
      const double t_sense = s.sensing ? s.sensing->nextInstant() : INFINITY;
      if (t_sense < t_piece) t_piece = t_sense;
      if (s.adaptive) {
        s.adaptive->advance(s.f, s.t, t_piece, s.x);
      } else if (s.rosenbrock) {
        s.rosenbrock->advance(s.f, *s.stiffness, s.t, t_piece, s.x);
      } else {
        const double span = t_piece - s.t;
        const long n = std::max(1L, static_cast<long>(std::ceil(span / run.step - 1e-9)));
        const double h = span / n;
        for (long k = 0; k < n; ++k) {
          s.rk4.step(s.f, s.t + k * h, h, s.x);
          ++s.rk4_steps;
        }
        if (!s.x.allFinite()) {
          throw std::runtime_error("the state is no longer finite at t = " + std::to_string(t_piece) +
                                   " s (step too large for the stiffest mode?)");
        }
      }
      s.t = t_piece;
      if (t_piece >= t_sense) s.sense();
      if (s.sampled && t_piece >= t_control) {
        s.sampleControl();
        ++s.control_index;
      }
    }
    s.record();
  } catch (const std::exception& e) {
    // The state stays the last recorded one (finite), not the one that failed.
    s.x = s.x_recorded;
    s.t = t_recorded;
    s.q = s.x.head(s.nq);
    s.v = s.x.segment(s.nq, s.nv);
    s.failure = e.what();
    s.events.push_back({s.t, "integration_failure", e.what()});
    s.done = true;
    return false;
  }
  if (s.t >= run.duration) s.done = true;
  return true;
}

void Simulation::run(const std::function<bool(double)>& progress) {
  while (step()) {
    if (progress && !progress(time())) break;
  }
}

}  // namespace grapple::core
