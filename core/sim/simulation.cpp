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
#include "core/sim/channel_table.hpp"
#include "core/sim/knowledge.hpp"
#include "core/sim/modal_stiffness.hpp"
#include "core/sim/ode.hpp"
#include "core/sim/quasi_static.hpp"
#include "core/world/environment.hpp"

namespace grapple::core {
namespace {

constexpr double kDeg = 180 / M_PI;

bool anyEnvironment(const EnvironmentSettings& e) {
  return e.gravity_gradient || e.relative_motion || e.drag.enabled || e.solar_pressure.enabled ||
         e.magnetic.enabled;
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

  StateLayout layout;
  int nq = 0, nv = 0;          // (the layout's, for short)
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
  std::unique_ptr<QuasiStaticModes> quasi_static;  // integrator quasi_static: the condensed modes
  Eigen::VectorXd q_r, v_r, tau_r, ddq_qs;         // ... the reduced model's coordinates, and
                                                   //   its accelerations in the full model's
  Eigen::VectorXd f0, tau_before;                  // f(t, x) for the next piece, if f0_valid
  bool f0_valid = false;
  std::unique_ptr<Data> qs_data;                   // the reduced model's, for the channels
  Eigen::VectorXd q_out, v_out;
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
  // knowledge: the controllers' own model of the chaser (null: the truth's) and of the debris.
  std::unique_ptr<Knowledge> knowledge;
  DebrisProperties known_debris;

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
  // Quasi-static with coupled modes, after the grasp: the composite's coupled modes of the whole
  // model above the cutoff (kWhole's), which each body's coupled modes leave, stay integrated while
  // they vibrate (struck by the impact, then by the held torques' steps), and are condensed too
  // once that has settled (condenseSettled, checked every kSettleCheck seconds from settle_check
  // on; NaN: not pending).
  static constexpr double kSettleCheck = 0.5;
  double settle_check = NAN;
  bool settled_once = false;  // the last check found them settled (a second one, a row later, must too)
  void condenseSettled();
  int attach_body = -1;
  Matrix3 R_body_debris = Matrix3::Identity();
  Vector3 com_body = Vector3::Zero();

  // Recording: the channel table, the instant's quantities it reads, the rows.
  std::vector<Channel> channels;
  Observation now;
  Recorder recorder;
  std::vector<double> row_values;
  std::vector<SimulationEvent> events;
  std::vector<ControlEvent> control_events;
  int ee_frame = -1;
  double energy0 = 0;
  std::vector<char> outside_limit;   // per v coordinate: -1 below, +1 above, 0 inside
  std::vector<char> saturated;       // per v coordinate
  std::vector<char> joint_path;      // per v coordinate: driven along a path (reference channels)

  // sensors.encoders/gyro/star_tracker: the chaser's state the controllers see (sampled control);
  // actuators: what the actuators make of the commands (and the joints' friction).
  std::unique_ptr<ChaserSensing> chaser_sensing;
  std::unique_ptr<Actuators> actuators;
  Eigen::VectorXd tau_friction;  // τ plus the joints' friction, for the dynamics

  Impl(Scenario s, Model m)
      : scenario(std::move(s)),
        model(std::move(m)),
        data(model, model.hasFlexibleBodies()),
        environment(scenario.environment),
        has_environment(anyEnvironment(scenario.environment)) {}

  void evaluate(double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx);
  // The chaser's momentum [p; L] and kinetic, elastic and potential energies at (q, v) as the
  // integrated model has them: with quasi-static modes the reduced model's (those modes locked),
  // whose momentum and energy balance the integration keeps; the condensed modes' strain energy,
  // of the order of the dynamics dropped, is left out of the balance.
  struct Balance {
    Vector6 momentum;
    double kinetic, elastic, potential;
  };
  Balance balance();
  // The quasi-static integration's condensed modes for the model as it is, the coupled ones at
  // the configuration q.
  void makeQuasiStatic(const Eigen::VectorXd& q_ref) {
    const RunSettings& run = scenario.run;
    quasi_static = std::make_unique<QuasiStaticModes>(model, run.quasi_static_above, run.quasi_static_modes, &q_ref);
    qs_data = std::make_unique<Data>(quasi_static->reduced(), quasi_static->reduced().hasFlexibleBodies());
  }
  // What an evaluation at (tt, xx) sets before the dynamics: q, v, the debris, the wrenches, τ.
  void inputs(double tt, const Eigen::VectorXd& xx);
  // dx's actuator power and fuel rate, from tau and v.
  void actuatorRates(Eigen::VectorXd& dx) const;
  // Quasi-static modes, sampled control: f0 = f(t, x) under the forces held before the control
  // instant (tau_before) made f(t, x) under the new ones (tau_hold), without a new evaluation.
  void retargetDerivative();
  // Environment wrenches (fext) and actuator forces (tau: commanded in tau_cmd, then limited) at
  // time tt for the state in q, v.
  void environmentWrenches(double tt);
  void control(double tt);
  // A control instant: the controllers see the state x and their forces are held until the next.
  void sampleControl();
  void setInitialState();
  // The chaser's sensors and the actuators' imperfections (scenario sensors.encoders/gyro/
  // star_tracker, actuators), on the initial state.
  void setUpChaser();
  // The channel table (the joints a controller drives along a path get reference channels).
  void setUpChannels();
  // A recording instant, in three steps. observe: τ and the wrenches at t, the quasi-static modes'
  // deflection, the carried debris, then every quantity the channels and the grasp read (now).
  // record: one row, the channel table applied to now. decide: the limit events, the grasp, the
  // controllers' events, the attachment of the grasped debris (which changes the model and the
  // velocities: after the row, the next rows are the composite's).
  void observe();
  void observeControllers();
  void observeDebris();
  void record();
  void decide();
  void watchLimits();  // a joint reaching a position limit, an actuator asking beyond its effort limit
  void watchGrasp();   // the grasp's state: the hand within the tolerances for the hold time
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
  layout = StateLayout(m.nq, m.nv, scenario.debris.enabled);
  nq = m.nq;
  nv = m.nv;
  x = Eigen::VectorXd::Zero(layout.size);
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
    DebrisState d = scenario.debris.initial;
    d.Q_WB.normalize();
    layout.setDebris(x, d);
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
  // The controllers built on their knowledge (sim/knowledge), if it is not the truth.
  knowledge = makeKnowledge(m, scenario, known_debris);
  controllers = knowledge ? knowledge->makeControllers(scenario, q0) : makeControllers(m, scenario, q0, ee_frame);
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
    sensing = std::make_unique<DebrisSensing>(scenario.debris.properties, known_debris, *cam, layout.debrisOf(x), 0.0,
                                              scenario.debris.size);
    if (capture_ctl) capture_ctl->watch(sensing.get());
  }
}

void Simulation::Impl::setUpChaser() {
  const double control_rate = scenario.run.control_rate;
  if (scenario.sensors.any()) {
    if (!(control_rate > 0)) {
      throw std::invalid_argument("sensors: the chaser's sensors sample at control instants: set run.control_rate > 0");
    }
    chaser_sensing = std::make_unique<ChaserSensing>(model, scenario.sensors, control_rate, q);  // (q: the initial state)
  }
  if (scenario.actuators.any()) {
    const double lever_arm = scenario.chaser.thrusters ? scenario.chaser.thrusters->lever_arm : 1.0;
    actuators = std::make_unique<Actuators>(model, scenario.actuators, control_rate, lever_arm);
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
  // The state the controllers see: measured and estimated with the chaser's sensors, else the
  // truth's; in their own model's coordinates with a knowledge (sim/knowledge).
  const Eigen::VectorXd& q_seen = chaser_sensing ? chaser_sensing->q() : q;
  const Eigen::VectorXd& v_seen = chaser_sensing ? chaser_sensing->v() : v;
  const Model& known = knowledge ? knowledge->model() : m;
  Data& known_data = knowledge ? knowledge->data() : data;
  const Eigen::VectorXd& known_q = knowledge ? knowledge->q(q_seen) : q_seen;
  const Eigen::VectorXd& known_v = knowledge ? knowledge->v(v_seen) : v_seen;
  Eigen::VectorXd& known_tau = knowledge ? knowledge->forces() : tau;
  ControlContext ctx{known, known_data, tt, known_q, known_v, fext_used ? &fext : nullptr, known_tau};
  if (sensing && !attached) {  // (once grasped, the debris moves with the hand: known)
    debris_known = sensing->state(tt);
    ctx.debris = &debris_known;
  } else if (scenario.debris.enabled) {
    ctx.debris = &debris_now;
  }
  updateControllers(controllers, ctx);
  // Knowledge: their forces on the truth's coordinates; their accelerations (ctx.ddq) are those
  // of their model, not the truth's, which the forward dynamics then gives.
  if (knowledge) {
    knowledge->applyForces(tau);
    ctx.ddq = nullptr;
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
  if (scenario.debris.enabled) debris_now = layout.debrisOf(x);
  environmentWrenches(t);
  if (chaser_sensing) chaser_sensing->sample(control_index, t, q, v);
  control(t);
  tau_hold = tau;
  if (actuators) actuators->command(tau_hold);
}

void Simulation::Impl::inputs(double tt, const Eigen::VectorXd& xx) {
  q = xx.head(nq);
  v = xx.segment(nq, nv);
  // Quasi-static modes: the motion is the reduced model's, with the condensed modes locked (their
  // deflection, set at the recording and control instants, is what is recorded and what the
  // controllers see).
  if (quasi_static) quasi_static->lockQ(q);
  if (scenario.debris.enabled) debris_now = layout.debrisOf(xx);
  environmentWrenches(tt);
  if (sampled) {
    tau = tau_hold;
    solved = false;
  } else {
    control(tt);
  }
}

void Simulation::Impl::evaluate(double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx) {
  ++evaluations;
  const Model& m = model;
  inputs(tt, xx);
  const BodyWrenches* fe = fext_used ? &fext : nullptr;
  // The joints' friction (actuators.friction) adds to the actuators' forces in the dynamics.
  const Eigen::VectorXd* tau_in = &tau;
  double p_friction = 0;
  if (actuators && actuators->hasFriction()) {
    tau_friction = tau;
    p_friction = actuators->friction(v, tau_friction);
    tau_in = &tau_friction;
  }
  dx.resize(layout.size);
  dx.head(nq) = configurationRate(m, q, v);
  if (quasi_static) {
    QuasiStaticModes& qs = *quasi_static;
    qs.gatherQ(q, q_r);
    qs.gatherV(v, v_r);
    qs.gatherForce(*tau_in, tau_r);
    ddq_qs.resize(nv);
    qs.scatterV(forwardDynamics(qs.reduced(), qs.reducedData(), q_r, v_r, tau_r, fe), ddq_qs);
    dx.segment(nq, nv) = ddq_qs;
  } else {
    dx.segment(nq, nv) = solved && tau_in == &tau ? *solved_ddq : forwardDynamics(m, data, q, v, *tau_in, fe);
  }
  if (attached) {
    dx.segment<StateLayout::kDebrisSize>(layout.debris).setZero();  // carried by the hand: set from it at each recording
  } else if (scenario.debris.enabled) {
    const DebrisState d = layout.debrisOf(xx);
    Vector3 a = Vector3::Zero(), n = Vector3::Zero();
    if (has_environment) environment.debrisLoads(scenario.debris.properties, d, tt, a, n);
    const DebrisRates r = debrisRates(scenario.debris.properties, d, a, n);
    layout.setDebrisRates(dx, r);
  }
  // Powers: actuators, environment (t_iᵀ f_i, both at body i's origin in body i), damping.
  actuatorRates(dx);
  double p_ext = 0;
  if (fext_used) {
    const Data& dt = quasi_static ? quasi_static->reducedData() : data;  // (the twists of the last dynamics)
    for (int i = 0; i < m.nbodies; ++i) p_ext += dt.t[i].dot(fext[i]);
  }
  dx[layout.external_work] = p_ext;
  double p_diss = p_friction;
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    if (fb.nf == 0) continue;
    const auto dd = v.segment(fb.idx_v, fb.nf);
    p_diss += dd.dot(fb.D * dd);
  }
  dx[layout.dissipated] = p_diss;
}

Simulation::Impl::Balance Simulation::Impl::balance() {
  const Model* bm = &model;
  Data* bd = &data;
  const Eigen::VectorXd *bq = &q, *bv = &v;
  if (quasi_static) {
    quasi_static->gatherQ(q, q_out);
    quasi_static->gatherV(v, v_out);
    bm = &quasi_static->reduced();
    bd = qs_data.get();
    bq = &q_out;
    bv = &v_out;
  }
  Balance b;
  b.momentum = momentum(*bm, *bd, *bq, *bv);
  b.kinetic = kineticEnergy(*bm, *bd, *bq, *bv);
  b.elastic = bm->hasFlexibleBodies() ? general::elasticEnergy(*bm, *bq) : 0.0;
  b.potential = potentialEnergy(*bm, *bd, *bq);
  return b;
}

void Simulation::Impl::actuatorRates(Eigen::VectorXd& dx) const {
  dx[layout.input_work] = tau.dot(v);
  // Fuel (thesis eq. 9.1, g0 = 9.81 m/s² as there).
  dx[layout.fuel] = 0;
  if (const auto& th = scenario.chaser.thrusters; th && model.hasFreeBase()) {
    dx[layout.fuel] = (tau.head<3>() + tau.segment<3>(3) / th->lever_arm).norm() / (9.81 * th->isp);
  }
}

void Simulation::Impl::retargetDerivative() {
  QuasiStaticModes& qs = *quasi_static;
  // The forward dynamics is affine in τ: the new forces add H⁻¹ Δτ to the accelerations (H's
  // factors are those of the last evaluation, at this state), and change the actuators' power.
  tau_before = tau_hold - tau_before;  // Δτ
  qs.gatherForce(tau_before, v_r);
  qs.scatterV(solveMassMatrix(qs.reduced(), qs.reducedData(), v_r), ddq_qs);
  f0.segment(nq, nv) += ddq_qs;
  q = x.head(nq);
  v = x.segment(nq, nv);
  tau = tau_hold;
  actuatorRates(f0);
}

void Simulation::Impl::setUpChannels() {
  std::vector<char> driven(nv, 0);  // the v coordinates a controller drives along a path
  for (int k = 0; k < nv; ++k) {
    double ref = 0;
    const int kc = knowledge ? knowledge->index(k) : k;  // the controllers' index of coordinate k
    for (const auto& c : controllers) driven[k] = driven[k] || (kc >= 0 && c->reference(kc, 0, ref));
  }
  channels = channelTable(model, scenario, layout, driven, sensing != nullptr, capture != nullptr);
  for (const Channel& c : channels) recorder.add(c.name, c.unit);
  row_values.assign(channels.size(), 0.0);
  now.joint_reference = Eigen::VectorXd::Constant(nv, NAN);
  joint_path.swap(driven);
}

void Simulation::Impl::observe() {
  const Model& m = model;
  Eigen::VectorXd dx(layout.size);
  if (quasi_static && f0_valid) {
    inputs(t, x);  // τ and the wrenches at this instant, whose derivative f0 is
    ddq_qs = f0.segment(nq, nv);
  } else {
    evaluate(t, x, dx);  // τ and the wrenches at this instant
    --evaluations;       // bookkeeping, not integration
  }
  if (quasi_static) {
    // The condensed modes' static deflection under the loads now (kept in the state, where the
    // controllers see it until the next control or recording instant).
    quasi_static->deflect(m, data, q, v, ddq_qs, fext_used ? &fext : nullptr);
    x.head(nq) = q;
  }
  if (attached) carryDebris();
  Observation& o = now;
  o.t = t;
  // Momentum of the whole system: the chaser and, until it is attached, the debris.
  const Balance bal = balance();
  o.kinetic = bal.kinetic;
  o.elastic = bal.elastic;
  o.potential = bal.potential;
  o.momentum = bal.momentum;
  if (scenario.debris.enabled && !attached) {
    const DebrisState d = layout.debrisOf(x);
    const double md = scenario.debris.properties.mass;
    o.momentum.head<3>() += md * d.v_W;
    o.momentum.tail<3>() += d.r_W.cross(md * d.v_W) + debrisAngularMomentum(scenario.debris.properties, d);
  }
  if (row == 0) energy0 = bal.kinetic + bal.elastic + bal.potential;
  o.energy0 = energy0;
  o.attached = attached;
  o.impact_loss = impact.energy_lost;
  o.x = x;
  o.q = q;
  o.v = v;
  o.tau = tau;
  o.tau_cmd = tau_cmd;
  o.bus_demand = bus_demand;
  if (chaser_sensing) o.chaser_estimate = chaser_sensing->report(q, v);
  observeControllers();
  o.com = centerOfMass(m, data, q);
  forwardKinematics(m, data, q, v);
  o.hand = framePose(m, data, ee_frame);
  o.hand_velocity = pointVelocityWorld(m, data, ee_frame).head<3>();
  if (scenario.debris.enabled) observeDebris();
}

void Simulation::Impl::observeControllers() {
  Observation& o = now;
  // The joints' paths: none once a capture controller has taken the joints over.
  o.paths_apply = std::none_of(controllers.begin(), controllers.end(), [&](const auto& ctl) { return ctl->drivesJoints(t); });
  for (int iv = 0; iv < nv; ++iv) {
    if (!joint_path[iv]) continue;
    double ref = 0;
    bool driven = false;
    const int kc = knowledge ? knowledge->index(iv) : iv;
    for (const auto& ctl : controllers) driven = driven || (kc >= 0 && ctl->reference(kc, t, ref));
    o.joint_reference[iv] = driven ? ref : NAN;
  }
  if (!capture) return;
  // The plan's hand position while the hand flies it (NaN while waiting, retreating, attached).
  o.hand_reference = Vector3::Constant(NAN);
  for (const auto& ctl : controllers) ctl->handReference(t, o.hand_reference);
  o.capture_phase = static_cast<double>(capture_ctl->phase());
}

void Simulation::Impl::observeDebris() {
  Observation& o = now;
  const DebrisProperties& P = scenario.debris.properties;
  o.debris = layout.debrisOf(x);
  o.debris_kinetic = 0.5 * P.mass * o.debris.v_W.squaredNorm();
  o.debris_rotational = debrisRotationalEnergy(P, o.debris);
  o.target = targetKinematics(P, o.debris);
  o.distance = (o.target.position - o.hand.p).norm();
  o.relative_speed = (o.target.velocity - o.hand_velocity).norm();
  // With a camera the gripper closes on the estimate (the hand's own state is known exactly).
  // With a knowledge of the debris, on the grasp point the controllers believe in.
  o.grasp_distance = o.distance;
  o.grasp_speed = o.relative_speed;
  if (knowledge && knowledge->debrisOff() && !sensing) {
    const PointKinematics kk = targetKinematics(known_debris, o.debris);
    o.grasp_distance = (kk.position - o.hand.p).norm();
    o.grasp_speed = (kk.velocity - o.hand_velocity).norm();
  }
  if (!sensing) return;
  o.estimate = sensing->report(t, o.debris, cameraPose().p);
  if (!sensing->stopped()) {
    const PointKinematics ek = targetKinematics(known_debris, sensing->state(t));
    o.grasp_distance = (ek.position - o.hand.p).norm();
    o.grasp_speed = (ek.velocity - o.hand_velocity).norm();
  }
}

void Simulation::Impl::record() {
  for (std::size_t k = 0; k < channels.size(); ++k) row_values[k] = channels[k].value(now);
  recorder.append(row_values);
  ++row;
}

void Simulation::Impl::decide() {
  watchLimits();
  watchGrasp();
  if (capture) {
    // The controller's decisions (windows, plans, aborts), and the meeting of its current plan.
    for (const auto& ctl : controllers) {
      control_events.clear();
      ctl->takeEvents(control_events);
      for (ControlEvent& e : control_events) events.push_back({e.time, std::move(e.kind), std::move(e.detail)});
    }
    if (capture_ctl->plan()) planned_capture = capture_ctl->planStart() + capture_ctl->plan()->captureTime();
  }
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

void Simulation::Impl::watchLimits() {
  const Model& m = model;
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    for (int k = 0; k < j.nv; ++k) {
      const int iv = j.idx_v + k;
      if (j.nq == j.nv) {
        const double pos = q[j.idx_q + k];
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
}

void Simulation::Impl::watchGrasp() {
  // The grasp: the hand within the position and relative-speed tolerances of the grasp point for
  // `hold` seconds (tracking it) after the capture started; the gripper then closes.
  const Observation& o = now;
  if (!scenario.debris.enabled || capture_ctl == nullptr || captured || t < capture->start || !capture_ctl->graspArmed()) {
    return;
  }
  const auto& c = capture->capture;
  if (!(o.grasp_distance < c.tolerance && o.grasp_speed < c.speed_tolerance)) {
    within_since = -1;
    return;
  }
  if (within_since < 0) within_since = t;
  if (t - within_since < c.hold - 1e-12) return;
  captured = true;
  attach_pending = true;
  // The hand's approach axis (its z) from the inward grasp axis (capture.align turns one onto the
  // other; without it the gripper meets the grasp point at whatever angle the arm gives).
  const Vector3 inward = -(quatToMatrix(o.debris.Q_WB.normalized()) * graspAxis(scenario.debris.properties));
  const double axis_deg = std::acos(std::clamp(o.hand.R.col(2).dot(inward), -1.0, 1.0)) * kDeg;
  char detail[320];
  std::snprintf(detail, sizeof detail, "grasp closed: %.4f m from the grasp point at %.4f m/s, "
                "tracked within tolerance since t = %.3f s; approach axis %.1f deg from the grasp axis", o.distance,
                o.relative_speed, within_since, axis_deg);
  if (sensing || (knowledge && knowledge->debrisOff())) {
    std::snprintf(detail, sizeof detail, "grasp closed on the %s: %.4f m from the %s grasp "
                  "point at %.4f m/s (truly %.4f m at %.4f m/s), tracked within tolerance since t = %.3f s; "
                  "approach axis %.1f deg from the grasp axis", sensing ? "estimate" : "debris known",
                  o.grasp_distance, sensing ? "estimated" : "known", o.grasp_speed, o.distance, o.relative_speed,
                  within_since, axis_deg);
  }
  events.push_back({t, "capture", detail});
}

void Simulation::Impl::sense() {
  q = x.head(nq);
  forwardKinematics(model, data, q);
  std::vector<std::pair<std::string, std::string>> seen;
  sensing->advance(t, layout.debrisOf(x), cameraPose(), seen);
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
  const DebrisState d = layout.debrisOf(x);
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
  const Balance before = balance();
  const double e_before = before.kinetic + 0.5 * P.mass * d.v_W.squaredNorm() + debrisRotationalEnergy(P, d);
  const double total_before = e_before - 0.5 * P.mass * d.v_W.squaredNorm() - debrisRotationalEnergy(P, d) +
                              before.elastic + before.potential;
  const Eigen::VectorXd h = massMatrix(m, data, q) * v + J_D.transpose() * p_D;
  m.inertia[attach_body] += Inertia::FromCom(P.mass, com_body, R_body_debris * P.inertia * R_body_debris.transpose());
  m.inertia_matrix[attach_body] = m.inertia[attach_body].matrix();
  if (knowledge) {
    // The controllers add the debris they know, its centre of mass where their grasp point puts it.
    const DebrisProperties& K = known_debris;
    const Vector3 com_known = com_body + R_body_debris * (P.target_B - K.target_B);
    knowledge->attach(attach_body, Inertia::FromCom(K.mass, com_known, R_body_debris * K.inertia * R_body_debris.transpose()));
  }
  Eigen::VectorXd v_plus;
  if (quasi_static) {
    // The condensed modes stay locked through the impact: the momentum balance of the kept
    // coordinates, v = T v_r: Tᵀ H T v_r⁺ = Tᵀ h. The composite's modes are condensed from now on
    // (its coupled modes at this configuration: the debris' inertia changes them).
    makeQuasiStatic(q);
    const Eigen::MatrixXd T = quasi_static->velocityBasis();
    const Eigen::MatrixXd H_rr = T.transpose() * massMatrix(m, data, q) * T;
    v_plus = T * H_rr.llt().solve(T.transpose() * h);
    if (scenario.run.quasi_static_modes == CondensedModes::kCoupled) settle_check = t + kSettleCheck;
  } else {
    v_plus = massMatrix(m, data, q).llt().solve(h);
  }
  x.segment(nq, nv) = v_plus;
  v = v_plus;
  attached = true;
  carryDebris();
  const Balance after_impact = balance();
  const double e_after = after_impact.kinetic;
  // The impulse on the debris: its momentum after (moving with the hand) minus before.
  const DebrisState after = layout.debrisOf(x);
  impact.happened = true;
  impact.impulse = P.mass * (after.v_W - d.v_W);
  impact.angular_impulse = R_WD * (P.inertia * (after.w_B - d.w_B));
  // The energy balance goes on from the composite's energy.
  const double total_after = e_after + after_impact.elastic + after_impact.potential;
  energy0 += total_after - total_before;
  if (CaptureController* cc = captureController()) cc->attach(knowledge ? knowledge->q(q) : q);
  f0_valid = false;  // (the state and the model changed)
  impact.energy_lost = e_before - e_after;
  return impact.energy_lost;
}

void Simulation::Impl::condenseSettled() {
  // The model restricted to the kept modes, v = T v_r, loses the velocities of the directions the
  // whole model's condensation adds: with the kept coordinates' momentum Tᵀ H v kept (as through
  // the impact), the kinetic energy dropped is ½ vᵀ H v − ½ pᵀ (Tᵀ H T)⁻¹ p, p = Tᵀ H v. Settled:
  // the velocities dropped are within the integration's relative tolerance of the motion's, in
  // the kinetic energy's norm (dropped ≤ rtol² · kinetic), at two successive rows (the energy of
  // a ringing mode passes through zero twice a period; one row later its phase has moved on).
  q = x.head(nq);
  v = x.segment(nq, nv);
  auto whole = std::make_unique<QuasiStaticModes>(model, scenario.run.quasi_static_above, CondensedModes::kWhole, &q);
  if (whole->condensed() <= quasi_static->condensed()) {
    settle_check = NAN;  // nothing more to condense
    return;
  }
  const Eigen::MatrixXd T = whole->velocityBasis();
  const Eigen::MatrixXd& H = massMatrix(model, data, q);
  const Eigen::VectorXd Hv = H * v;
  const Eigen::VectorXd p = T.transpose() * Hv;
  const Eigen::LLT<Eigen::MatrixXd> H_kept(T.transpose() * H * T);
  const double kinetic = 0.5 * v.dot(Hv), dropped = kinetic - 0.5 * p.dot(H_kept.solve(p));
  const double rtol = scenario.run.rtol;
  if (!(dropped <= rtol * rtol * kinetic)) {
    settled_once = false;
    settle_check = t + kSettleCheck;
    return;
  }
  if (!settled_once) {
    settled_once = true;
    settle_check = t + 0.5 / scenario.run.record_rate;  // (the next row)
    return;
  }
  const Balance before = balance();
  const int more = whole->condensed() - quasi_static->condensed();
  quasi_static = std::move(whole);
  qs_data = std::make_unique<Data>(quasi_static->reduced(), quasi_static->reduced().hasFlexibleBodies());
  x.segment(nq, nv) = T * H_kept.solve(p);
  v = x.segment(nq, nv);
  const Balance after = balance();
  energy0 += (after.kinetic + after.elastic + after.potential) - (before.kinetic + before.elastic + before.potential);
  f0_valid = false;
  settle_check = NAN;
  char detail[200];
  std::snprintf(detail, sizeof detail, "%d more of the composite's coupled modes above %.0f rad/s condensed: the "
                "vibration in them has settled (kinetic energy %.2g J of %.2g J)", more,
                scenario.run.quasi_static_above, dropped, kinetic);
  events.push_back({t, "modes_condensed", detail});
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
  layout.setDebris(x, d);
}

Simulation::Simulation(Scenario scenario, Model model)
    : impl_(std::make_unique<Impl>(std::move(scenario), std::move(model))) {
  Impl& s = *impl_;
  const RunSettings& run = s.scenario.run;
  if (!(run.duration > 0) || !(run.record_rate > 0) || !(run.step > 0) || !(run.control_rate >= 0)) {
    throw std::invalid_argument("run: duration, record_rate and step must be > 0, control_rate >= 0");
  }
  s.setInitialState();
  s.setUpChaser();
  s.setUpChannels();
  if (run.integrator == IntegratorType::kQuasiStatic) {
    // The condensed modes start at rest (their deflection is set by the first observe()).
    s.makeQuasiStatic(s.x.head(s.nq));
    Eigen::VectorXd v0 = s.x.segment(s.nq, s.nv);
    s.quasi_static->lockV(v0);
    s.x.segment(s.nq, s.nv) = v0;
  }
  s.f = [&s](double tt, const Eigen::VectorXd& xx, Eigen::VectorXd& dx) { s.evaluate(tt, xx, dx); };
  if (run.integrator != IntegratorType::kRk4) {
    AdaptiveOptions o;
    o.method = run.integrator == IntegratorType::kRk43          ? AdaptiveMethod::kRk43
               : run.integrator == IntegratorType::kQuasiStatic ? run.quasi_static_pair
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
    s.observe();
    s.record();
    s.decide();
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
    if (s.knowledge) {
      s.plan_check = s.knowledge->checkPlan(*cc, s.plan_q, s.plan_v);  // (the controllers' prediction)
    } else {
      Data data(s.model, s.model.hasFlexibleBodies());
      s.plan_check = std::make_unique<PlanCheck>(
          checkCapturePlan(s.model, data, cc->feasibility(), *cc->plan(), s.plan_q, s.plan_v, s.ee_frame));
    }
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
  return s.scenario.debris.enabled ? s.layout.debrisOf(s.x) : s.scenario.debris.initial;
}

const DebrisSensing* Simulation::sensing() const { return impl_->sensing.get(); }

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
    if (s.t >= s.settle_check) {
      s.condenseSettled();
      s.x_recorded = s.x;  // (the state a failure returns to: the one of the model now integrated)
    }
    while (s.t < t_next) {
      double t_piece = t_next;
      const double t_control = s.sampled ? s.control_index / run.control_rate : INFINITY;
      if (t_control < t_piece) t_piece = t_control;
      const double t_sense = s.sensing ? s.sensing->nextInstant() : INFINITY;
      if (t_sense < t_piece) t_piece = t_sense;
      if (s.adaptive) {
        s.adaptive->advance(s.f, s.t, t_piece, s.x, s.f0_valid ? &s.f0 : nullptr);
        s.f0_valid = false;
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
        if (s.quasi_static) {
          // The controllers see the condensed modes' deflection under the loads of this instant
          // (the accelerations of the last stage, under the forces held until now).
          s.inputs(s.t, s.x);
          s.ddq_qs = s.adaptive->lastDerivative().segment(s.nq, s.nv);
          s.quasi_static->deflect(s.model, s.data, s.q, s.v, s.ddq_qs, s.fext_used ? &s.fext : nullptr);
          s.x.head(s.nq) = s.q;
        }
        s.tau_before = s.tau_hold;
        s.sampleControl();
        ++s.control_index;
        if (s.quasi_static) {
          // The next piece starts from the last stage of this one (first same as last), under
          // the new forces.
          s.f0 = s.adaptive->lastDerivative();
          s.retargetDerivative();
          s.f0_valid = true;
        }
      }
    }
    s.observe();
    s.record();
    s.decide();
  } catch (const std::exception& e) {
    // The state stays the last recorded one (finite), not the one that failed.
    s.x = s.x_recorded;
    s.t = t_recorded;
    s.q = s.x.head(s.nq);
    s.v = s.x.segment(s.nq, s.nv);
    s.failure = e.what();
    s.f0_valid = false;
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
