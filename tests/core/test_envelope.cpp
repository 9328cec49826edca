// The capture across the debris' envelope: the feasibility prediction of a plan (against its own
// refinement and against the run that flies it), the capture window (against a brute-force scan
// of start times), the abort monitor, honest outcomes (each requirement recomputed here from the
// channels), and the grid of tumbling rates x axes x phases on the rigid mission and a smaller
// one on the flexible chaser.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/analysis/envelope.hpp"
#include "core/control/task_space.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/load_error.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/feasibility.hpp"
#include "core/planning/path_shaping.hpp"
#include "core/planning/riding_bound.hpp"
#include "core/sim/mission.hpp"
#include "tests/support/capture_start.hpp"
#include "tests/support/simulate.hpp"

using namespace grapple::core;
using grapple::test::simulate;

namespace {

const std::string kScenarios = std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/";

const std::vector<double>& channel(const Simulation& sim, const char* name) {
  const int c = sim.recorder().find(name);
  if (c < 0) qFatal("no channel %s", name);
  return sim.recorder().column(c);
}

// The requirements of a run recomputed from its channels and events, independently of
// sim/mission: the worst value of each over its phase (hand: from the plan that grasped to the
// grasp; bus: until the grasp; joints: the whole run).
struct Recomputed {
  bool grasped = false;
  double hand = 0, bus_attitude = 0, bus_torque = 0, joints = 0;
  bool meets(const Requirements& r) const {
    return hand <= *r.hand_to_plan && bus_attitude <= *r.bus_attitude_deg && bus_torque <= *r.bus_torque &&
           joints <= *r.joint_torque;
  }
};

Recomputed recompute(const Simulation& sim) {
  Recomputed r;
  double t_grasp = INFINITY, t_plan = 0;
  for (const SimulationEvent& e : sim.events()) {
    if (e.kind == "capture") t_grasp = e.time;
  }
  for (const SimulationEvent& e : sim.events()) {
    if (e.kind == "plan" && e.time <= t_grasp) t_plan = e.time;
  }
  r.grasped = std::isfinite(t_grasp);
  const auto& t = channel(sim, "time");
  const auto& hand = channel(sim, "plan.ee_error");
  const auto& att = channel(sim, "base.attitude_error");
  const auto& bus = channel(sim, "base.torque_demand");
  const auto& arm = channel(sim, "arm.torque_demand");
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] <= t_grasp + 1e-9) {
      if (t[k] >= t_plan - 1e-9 && !std::isnan(hand[k])) r.hand = std::max(r.hand, hand[k]);
      r.bus_attitude = std::max(r.bus_attitude, std::abs(att[k]));
      r.bus_torque = std::max(r.bus_torque, bus[k]);
    }
    r.joints = std::max(r.joints, arm[k]);
  }
  return r;
}

const SimulationEvent* lastEvent(const Simulation& sim, const char* kind) {
  const SimulationEvent* e = nullptr;
  for (const SimulationEvent& x : sim.events()) {
    if (x.kind == kind) e = &x;
  }
  return e;
}

using AtStart = grapple::test::CaptureStart;

}  // namespace

class TestEnvelope : public QObject {
  Q_OBJECT

 private slots:
  // The prediction converges with its step (the margins are those of the motion, not of the
  // discretization), and the peak torques it predicts are those the controller then asks while
  // flying the same plan (capture_rigid: the window's plan, flown from the state at its start).
  void Prediction_ConvergesAndMatchesTheFlight() {
    AtStart s;
    const Model& m = s.sim->model();
    Data d(m, false);
    DebrisTrajectory traj(s.loaded.scenario.debris.properties, s.sim->debris(), 0.01);
    CapturePlannerOptions po;
    const CapturePlan plan(s.loaded.scenario.debris.properties, traj.state(12), s.hand(), po);
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(m.nv);
    FeasibilityOptions o = s.options;
    o.step = 0.04;
    const PlanCheck a = checkCapturePlan(m, d, o, plan, s.sim->q(), v, s.ee);
    o.step = 0.01;
    const PlanCheck b = checkCapturePlan(m, d, o, plan, s.sim->q(), v, s.ee);
    qInfo("plan of %.2f s: joints %.3f / %.3f N m, bus %.4f / %.4f N m, sigma %.4f / %.4f, clearance %.4f / %.4f "
          "(steps 0.04 / 0.01 s); %s", plan.captureTime(), a.joint_torque, b.joint_torque, a.bus_torque, b.bus_torque,
          a.sigma_min, b.sigma_min, a.clearance, b.clearance, b.reason().c_str());
    QVERIFY(b.joint_torque > 0.1 && b.bus_torque > 0.01);
    QVERIFY(std::abs(a.joint_torque - b.joint_torque) < 0.03 * b.joint_torque);
    QVERIFY(std::abs(a.bus_torque - b.bus_torque) < 0.03 * b.bus_torque);
    QVERIFY(std::abs(a.sigma_min - b.sigma_min) < 0.01 * b.sigma_min);
    QVERIFY(std::abs(a.clearance - b.clearance) < 0.01);

    // The flight: capture_rigid as it is, its window's plan predicted vs the torques asked.
    // (The gripper's tolerance tightened to 1 mm: the hand then rides the grasp point to the planned
    // meeting and beyond for the hold, the span the prediction covers, instead of closing during
    // the last centimetre of the two-stage slide.)
    const auto sim = simulate("capture_rigid.yaml", {{"controllers[1].tolerance", "0.001"}});
    const MissionMetrics mm = missionMetrics(*sim);
    QVERIFY2(mm.grasped, mm.outcome_reason.c_str());
    const double t_plan = lastEvent(*sim, "plan")->time;
    const auto& t = channel(*sim, "time");
    const auto& arm = channel(*sim, "arm.torque_demand");
    const auto& bus = channel(*sim, "base.torque_demand");
    double arm_flown = 0, bus_flown = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] >= t_plan && t[k] <= mm.capture_time) {
        arm_flown = std::max(arm_flown, arm[k]);
        bus_flown = std::max(bus_flown, bus[k]);
      }
    }
    // The prediction of that plan from the stand-off pose, as the window search made it.
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid.yaml");
    Simulation at(l.scenario, l.model);
    while (at.time() < t_plan - 1e-9) at.step();
    CapturePlannerOptions fo;
    const SimulationEvent* window = lastEvent(*sim, "window");
    QVERIFY(window);
    fo.final_time = sim->plannedRendezvousTime() - t_plan;
    if (sim->plannedRendezvousTime() < sim->plannedCaptureTime()) {  // the window chose the two-stage plan
      fo.approach_distance = l.scenario.controllers[1].capture.approach.distance;
      fo.approach_time = l.scenario.controllers[1].capture.approach.duration;
    }
    Data da(at.model(), false);
    forwardKinematics(at.model(), da, at.q());
    HandState h;
    h.position = framePose(at.model(), da, s.ee).p;
    h.axis = framePose(at.model(), da, s.ee).R.col(2);
    fo.align = l.scenario.controllers[1].capture.align;
    const CapturePlan flown(l.scenario.debris.properties, at.debris(), h, fo);
    o.step = 0.02;
    const PlanCheck p = checkCapturePlan(at.model(), da, o, flown, at.q(), at.v(), s.ee);
    qInfo("%s\npredicted: joints %.3f N m, bus %.4f N m; asked in flight: joints %.3f N m, bus %.4f N m",
          window->detail.c_str(), p.joint_torque, p.bus_torque, arm_flown, bus_flown);
    QVERIFY(p.feasible);
    QVERIFY(std::abs(p.joint_torque - arm_flown) < 0.1 * arm_flown + 0.2);
    QVERIFY(std::abs(p.bus_torque - bus_flown) < 0.1 * bus_flown + 0.1);
  }

  // The bus torque of riding the grasp point (planning/riding_bound) against the run that rides
  // it: capture_rigid flown with the gripper's tolerance below what tracking achieves (1e-6 m), so
  // that the hand rides the grasp point past the planned meeting until the abort monitor gives up
  // on the grasp. At each instant of the hold after the meeting, the torque the bound's inverse
  // kinematics and dynamics find is the one the capture law asked in flight; the bound (the least,
  // over the meetings of the window search's span, of the hold's peak) is no more than the flown
  // hold's peak.
  void RidingBound_AgainstTheFlight() {
    AtStart s;
    const Model& m = s.sim->model();
    Data d(m, false);
    const DebrisProperties& P = s.loaded.scenario.debris.properties;
    const auto sim = simulate("capture_rigid.yaml", {{"controllers[1].tolerance", "1.0e-6"}, {"run.duration", "90"}});
    const MissionMetrics mm = missionMetrics(*sim);
    QVERIFY(!mm.grasped);
    const double meeting = sim->plannedCaptureTime(), hold = s.options.hold;
    const auto& t = channel(*sim, "time");
    const auto& bus = channel(*sim, "base.torque_demand");
    const auto& error = channel(*sim, "plan.ee_error");
    GraspRider rider(m, s.options, true, P, s.sim->debris(), s.sim->q(), s.sim->v(), s.ee);
    QCOMPARE(rider.redundancy(), 1);
    double flown_peak = 0, worst = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] < meeting || t[k] > meeting + hold) continue;
      QVERIFY(error[k] < 1e-4);  // riding it
      const RidingSample& r = rider.ride(d, t[k] - 40);
      QVERIFY(r.certified);
      const double riding = r.bus_torque.cwiseAbs().maxCoeff();
      flown_peak = std::max(flown_peak, bus[k]);
      worst = std::max(worst, std::abs(riding - bus[k]));
      QVERIFY2(std::abs(riding - bus[k]) < 0.03 * bus[k] + 0.02,
               qPrintable(QString("t = %1 s: riding %2 N m, flown %3 N m").arg(t[k]).arg(riding).arg(bus[k])));
      QVERIFY(r.torque <= riding + 1e-12);  // the roll's acceleration can only lower it
    }
    const double span = windowSearchSpan(2200, 3, s.sim->debris().w_B.norm());
    const RidingBound b = ridingBusTorqueBound(m, d, s.options, true, P, s.sim->debris(), s.sim->q(), s.sim->v(), s.ee, span);
    qInfo("hold from the meeting at %.2f s: bus asked up to %.3f N m in flight, riding %.3f N m off at worst; bound over "
          "the %.0f s span %.3f N m (meeting %.1f s after 40 s; %d samples, %d not ridden)",
          meeting, flown_peak, worst, span, b.torque, b.meeting, b.samples, b.samples - b.ridden);
    QVERIFY(b.computed);
    QVERIFY(b.torque > 0);
    QVERIFY(b.torque <= flown_peak + 1e-9);
  }

  // The riding torque is the rate of the system's angular momentum about its centre of mass
  // (dynamics/energy: the bodies' momenta, a second algorithm): its integral over two seconds of
  // riding equals the momentum's change between the configurations and rates found at both ends.
  void RidingBound_MomentumBalance() {
    AtStart s;
    const Model& m = s.sim->model();
    Data d(m, false);
    const DebrisProperties& P = s.loaded.scenario.debris.properties;
    GraspRider rider(m, s.options, true, P, s.sim->debris(), s.sim->q(), s.sim->v(), s.ee);
    const double t0 = 33, T = 2, h = 0.005;  // about the mission's meeting (73.4 s)
    const Matrix3 R = quatToMatrix(s.sim->q().segment<4>(3).normalized());  // the bus' held attitude
    Vector3 integral = Vector3::Zero(), L0 = Vector3::Zero(), L1 = Vector3::Zero();
    double peak = 0;
    for (int k = 0; k <= static_cast<int>(std::lround(T / h)); ++k) {
      const RidingSample& r = rider.ride(d, t0 + k * h);
      QVERIFY(r.certified);
      const Vector3 tau = R * r.bus_torque;
      peak = std::max(peak, tau.norm());
      integral += (k == 0 || k == std::lround(T / h) ? 0.5 : 1.0) * h * tau;
      if (k == 0) L0 = angularMomentumAboutCom(m, d, r.q, r.v);
      L1 = angularMomentumAboutCom(m, d, r.q, r.v);
    }
    qInfo("over %.0f s of riding: integral of the torque (%.5f %.5f %.5f) N m s, change of momentum (%.5f %.5f %.5f); peak %.3f N m",
          T, integral.x(), integral.y(), integral.z(), (L1 - L0).x(), (L1 - L0).y(), (L1 - L0).z(), peak);
    QVERIFY(peak > 0.1);
    QVERIFY(((L1 - L0) - integral).norm() < 1e-3 * peak * T);
  }

  // By hand: a point mass m carried by three massless prismatic joints on a bus of mass M that
  // does not turn. With the centre of mass c fixed (no momentum), L = m (1 + m/M) (p - c) × ṗ, so
  // riding a point p(t) on the debris' circle (a steady spin ω about a principal axis through its
  // centre d: p̈ = -ω² (p - d)) asks τ = m (1 + m/M) (p - c) × p̈ = -m (1 + m/M) ω² (d - c) × (p - d).
  // No redundancy (3 joints, 3 rows): the bound is the smallest sampled window peak, here
  // m (1 + m/M) ω² |d - c| r |sin φ| at its least over the hold's windows.
  void RidingBound_PointMassByHand() {
    const Model m = loadModelYamlString(R"(format: 1
model:
  name: cartesian
  base: {name: bus, mode: floating, mass: 990, inertia: {xx: 500, yy: 500, zz: 500}}
  links:
    - {name: sx, mass: 0, joint: {name: x, type: prismatic, parent: bus, axis: [1, 0, 0]}}
    - {name: sy, mass: 0, joint: {name: y, type: prismatic, parent: sx, axis: [0, 1, 0]}}
    - {name: tool, mass: 10, joint: {name: z, type: prismatic, parent: sy, axis: [0, 0, 1]}}
)", "cartesian.yaml");
    Data d(m, false);
    const int ee = m.frameId("tool");
    QVERIFY(ee >= 0);
    DebrisProperties P;
    P.mass = 1000;
    P.inertia = Vector3(800, 900, 1000).asDiagonal();
    P.target_B = Vector3(1, 0, 0);  // r = 1 m from the centre of mass
    DebrisState debris;
    debris.r_W = Vector3(3, 0, 0);
    debris.w_B = Vector3(0, 0, 0.1);  // about the principal z axis: p̈ = -ω² (p - d)
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq), v = Eigen::VectorXd::Zero(m.nv);
    q[3] = 1;  // the bus' attitude: identity
    FeasibilityOptions o;
    o.bus_torque_limit = 5;
    GraspRider rider(m, o, false, P, debris, q, v, ee);
    QCOMPARE(rider.redundancy(), 0);
    const Vector3 c = centerOfMass(m, d, q);
    const double k = 10 * (1 + 10.0 / 990), w2 = 0.01;
    for (double t = 0; t < 40; t += 1.3) {
      const RidingSample& r = rider.ride(d, t);
      QVERIFY(r.certified);
      const double phi = 0.1 * t;
      const Vector3 p_d(std::cos(phi), std::sin(phi), 0);
      const Vector3 expected = -k * w2 * (debris.r_W - c).cross(p_d);
      QVERIFY2((r.bus_torque - expected).norm() < 1e-6 * (1 + expected.norm()),
               qPrintable(QString("t = %1 s: %2 N m, by hand %3 N m").arg(t).arg(r.bus_torque.z()).arg(expected.z())));
      QCOMPARE(r.torque, r.bus_torque.cwiseAbs().maxCoeff());
    }
    // The bound: over meetings in [0, 20] s (φ from 0 to 2.1 rad: |sin φ| least at 0), the hold of
    // 1 s from φ = 0 has its peak at its end: the windows' least is at k = 0, sampled at 0.9 s
    // (step 0.1 s): k ω² |d - c| sin(0.09).
    const RidingBound b = ridingBusTorqueBound(m, d, o, false, P, debris, q, v, ee, 20, 0.1);
    const double expected = k * w2 * (debris.r_W - c).norm() * std::sin(0.09);
    qInfo("point mass: bound %.6f N m at the meeting %.2f s; by hand %.6f N m", b.torque, b.meeting, expected);
    QVERIFY(b.computed);
    QVERIFY(std::abs(b.torque - expected) < 1e-6 * expected);
    QCOMPARE(b.meeting, 0.0);
  }

  // The pointing task (capture.align): a plan that aligns is predicted to bring the hand's approach
  // axis onto the inward grasp axis by the meeting; the run that flies it grasps with the two axes
  // as close (recomputed here from the channels: the hand's roll-pitch-yaw and the debris'
  // quaternion); without it the gripper meets the grasp point at whatever angle the posture gives.
  void Align_PredictedAndFlown() {
    AtStart s;
    const Model& m = s.sim->model();
    Data d(m, false);
    DebrisTrajectory traj(s.loaded.scenario.debris.properties, s.sim->debris(), 0.01);
    forwardKinematics(m, d, s.sim->q());
    HandState hand = s.hand();
    hand.axis = framePose(m, d, s.ee).R.col(2);
    CapturePlannerOptions po;
    po.align = true;
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(m.nv);
    const CapturePlan aligned(s.loaded.scenario.debris.properties, traj.state(12), hand, po);
    po.align = false;
    const CapturePlan unaligned(s.loaded.scenario.debris.properties, traj.state(12), hand, po);
    FeasibilityOptions o = s.options;
    o.step = 0.02;
    const PlanCheck a = checkCapturePlan(m, d, o, aligned, s.sim->q(), v, s.ee);
    const PlanCheck b = checkCapturePlan(m, d, o, unaligned, s.sim->q(), v, s.ee);
    qInfo("approach axis from the grasp axis over the hold: %.3f deg aligned, %.1f deg not; bus %.3f / %.3f N m",
          a.axis_error_deg, b.axis_error_deg, a.bus_torque, b.bus_torque);
    QVERIFY(a.axis_error_deg < 0.5);
    QVERIFY(b.axis_error_deg > 5);

    const auto sim = simulate("capture_rigid.yaml", {{"controllers[1].align", "true"}});
    const MissionMetrics mm = missionMetrics(*sim);
    QVERIFY2(mm.grasped, mm.outcome_reason.c_str());
    const auto& t = channel(*sim, "time");
    const std::size_t k = static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), mm.capture_time - 1e-9) - t.begin());
    QVERIFY(k < t.size());
    const Vector3 rpy(channel(*sim, "ee.roll")[k], channel(*sim, "ee.pitch")[k], channel(*sim, "ee.yaw")[k]);
    const Vector4 Q(channel(*sim, "debris.qw")[k], channel(*sim, "debris.qx")[k], channel(*sim, "debris.qy")[k],
                    channel(*sim, "debris.qz")[k]);
    const Vector3 tool = rpyToMatrix(rpy * (M_PI / 180)).col(2);
    const Vector3 inward = -(quatToMatrix(Q.normalized()) * s.loaded.scenario.debris.properties.target_B.normalized());
    const double angle = std::acos(std::clamp(tool.dot(inward), -1.0, 1.0)) * 180 / M_PI;
    qInfo("flown: grasp at %.2f s, approach axis %.3f deg from the grasp axis; %s", mm.capture_time, angle,
          lastEvent(*sim, "capture")->detail.c_str());
    QVERIFY(angle < 0.5);
  }

  // The window search against brute force: every start time on a fine grid (0.5 s), each with
  // the same candidate durations, checked whole (no early stop): the search's window is feasible,
  // and the earliest feasible meeting of the fine grid is no earlier than the search's by more
  // than the search's grid spacing.
  void Window_AgainstBruteForce() {
    AtStart s;
    const Model& m = s.sim->model();
    Data d(m, false);
    const WindowSearchOptions ws;
    CapturePlannerOptions po;
    const DebrisProperties& P = s.loaded.scenario.debris.properties;
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(m.nv);
    const CaptureWindow w = searchCaptureWindow(m, d, s.options, ws, po, P, s.sim->debris(), 40, s.sim->q(), v, s.ee);
    qInfo("%s", w.reason().c_str());
    QVERIFY(w.found);
    QVERIFY(w.check.feasible);
    DebrisTrajectory traj(P, s.sim->debris(), 0.01);
    double first = INFINITY;
    FeasibilityOptions o = s.options;
    o.step = ws.step;
    const double dt = std::max(ws.min_step, ws.step_deg * M_PI / 180 / s.sim->debris().w_B.norm());
    for (double t0 = 0; t0 <= w.span && 40 + t0 < first; t0 += 0.5) {
      double t_f = 0;
      for (double factor : ws.durations) {
        CapturePlannerOptions fo = po;
        if (factor != 1) fo.final_time = factor * t_f;
        const CapturePlan plan(P, traj.state(t0), s.hand(), fo);
        if (factor == 1) t_f = plan.captureTime();
        if (checkCapturePlan(m, d, o, plan, s.sim->q(), v, s.ee).feasible) first = std::min(first, 40 + t0 + plan.captureTime());
      }
    }
    qInfo("brute force: earliest feasible meeting at %.2f s; the search's at %.2f s (its grid: %.2f s)", first, w.meeting, dt);
    QVERIFY(std::isfinite(first));
    QVERIFY(w.meeting >= first - 1e-9);
    QVERIFY(w.meeting <= first + dt + 1e-9);
  }

  // The start times predicted on several threads give the serial scan's window to the last bit on
  // the cell of Shaping_PredictedAndFlown over one tumbling period: no thesis' path feasible, every
  // start scanned, the seeds the bus torque stopped collected in the scan's order and shaped (the
  // mission as it is, where the scan stops at the earliest feasible meeting: test_threads, also
  // under ThreadSanitizer).
  void WindowSearch_Shaped_ThreadsGiveTheSerialResult() {
    const AtStart s(true);
    WindowSearchOptions ws;
    ws.periods = 1;
    std::vector<CaptureWindow> w;
    for (int threads : {1, 3}) {  // (three on two cores: the starts shared unevenly)
      ws.threads = threads;
      w.push_back(s.window(ws));
    }
    qInfo("%s", w[0].reason().c_str());
    QVERIFY(w[0].shaped > 0);
    QCOMPARE(w[1].reason(), w[0].reason());
    QCOMPARE(w[1].found, w[0].found);
    QCOMPARE(w[1].candidates, w[0].candidates);
    QCOMPARE(w[1].shaped, w[0].shaped);
    QVERIFY(w[1].check.margin == w[0].check.margin && w[1].check.bus_torque == w[0].check.bus_torque);
    QVERIFY(w[1].start == w[0].start && w[1].meeting == w[0].meeting && w[1].best_start == w[0].best_start);
    QVERIFY(w[1].shape == w[0].shape);
  }

  // A candidate feasible at the search's step (0.2 s) is confirmed at the check's own (0.04 s)
  // before it is chosen. The cell: 6 deg/s about body (1 1 0), phase 180. There the thesis' path
  // from t = 193.4 s asks 4.50 N m of the bus at 0.2 s steps (within the 90 % a plan may use) and
  // 5.01 at 0.04 s steps; chosen unconfirmed, it failed its check at its start, the search made
  // anew from there chose it again, and the flight asked 5.23 N m (captured out of spec). Now the
  // window found is one whose plan is feasible at the fine step, no window is lost, and the run is
  // captured with every requirement met.
  void Window_ConfirmedAtTheCheckStep() {
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid.yaml");
    const EnvelopeGrid grid = EnvelopeGrid::standard(l.scenario.debris.properties);
    QCOMPARE(grid.axes[4].name, std::string("body (1 1 0)"));
    l.scenario.debris.initial = envelopeDebrisState(l.scenario.debris, grid.axes[4].axis, 6, 180);
    l.scenario.run.duration = 215;
    Simulation sim(l.scenario, l.model);
    sim.run();
    const MissionMetrics mm = missionMetrics(sim);
    qInfo("%s; %s: %s", lastEvent(sim, "window")->detail.c_str(), std::string(outcomeName(mm.outcome)).c_str(),
          mm.outcome_reason.c_str());
    QVERIFY(lastEvent(sim, "window_lost") == nullptr);
    QCOMPARE(mm.outcome, Outcome::kCaptured);
  }

  // The shaping of one plan (planning/path_shaping): on the cell of the envelope below, a thesis'
  // plan (34 s after the capture's start, meeting 19.3 s later; from the chaser at rest at
  // 39.9 s) asks the bus more than its limit; shaped, it asks less and is feasible, the check returned is the one a new prediction of the
  // shaped plan gives, and the plan still leaves the hand's state and meets the grasp point's.
  void Shaping_LowersTheBusTorqueOfAPlan() {
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid.yaml");
    const EnvelopeGrid grid = EnvelopeGrid::standard(l.scenario.debris.properties);
    l.scenario.debris.initial = envelopeDebrisState(l.scenario.debris, grid.axes[0].axis, 4, 0);
    l.scenario.run.duration = 39.9;  // (the window search starts at 40 s)
    Simulation at(l.scenario, l.model);
    at.run();
    const Model& m = at.model();
    Data d(m, false);
    const ControllerSpec& spec = l.scenario.controllers[1];
    FeasibilityOptions o = FeasibilityOptions::from(spec, l.scenario.chaser, l.scenario.debris.properties, l.scenario.debris.size);
    o.step = WindowSearchOptions{}.step;
    const int ee = m.frameId("tool");
    forwardKinematics(m, d, at.q());
    HandState h;
    h.position = framePose(m, d, ee).p;
    h.axis = framePose(m, d, ee).R.col(2);
    CapturePlannerOptions po;
    po.align = spec.capture.align;
    po.final_time = 19.3;
    DebrisTrajectory traj(l.scenario.debris.properties, at.debris(), po.debris_step);
    CapturePlan plan(l.scenario.debris.properties, traj.state(34), h, po);
    const CapturePlan plain = plan;
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(m.nv);
    const ShapedPlan shaped = shapeAgainstBusTorque(m, d, o, ShapingOptions{}, plan, at.q(), v, ee);
    qInfo("bus torque %.3f N m -> %.3f in %d predictions: %s", shaped.bus_torque_before, shaped.check.bus_torque,
          shaped.predictions, shaped.check.reason().c_str());
    QVERIFY(!shaped.hopeless);
    QVERIFY(shaped.bus_torque_before > o.bus_torque_limit);
    QVERIFY(shaped.check.feasible);
    QVERIFY(shaped.check.bus_torque <= o.torque_margin * o.bus_torque_limit);
    QCOMPARE(plan.options().shape, shaped.shape);
    FeasibilityOptions whole = o;
    whole.stop_at_violation = false;
    const PlanCheck again = checkCapturePlan(m, d, whole, plan, at.q(), v, ee);
    QCOMPARE(again.bus_torque, shaped.check.bus_torque);
    QCOMPARE(again.margin, shaped.check.margin);
    for (double t : {0.0, plan.rendezvousTime()}) {
      QVERIFY((plan.at(t).position - plain.at(t).position).norm() < 1e-9);
      QVERIFY((plan.at(t).velocity - plain.at(t).velocity).norm() < 1e-9);
      QVERIFY((plan.at(t).acceleration - plain.at(t).acceleration).norm() < 1e-9);
    }
    QVERIFY((plan.at(0.5 * plan.rendezvousTime()).position - plain.at(0.5 * plan.rendezvousTime()).position).norm() > 1e-3);
    o.hold_bus = false;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, shapeAgainstBusTorque(m, d, o, ShapingOptions{}, plan, at.q(), v, ee));
  }

  // The shaping against the bus torque, end to end, on a cell of the envelope where none of the
  // thesis' paths is feasible (6 deg/s about the debris' minor principal axis, phase 0): the
  // window search finds a reshaped plan whose path asked more than the bus' limit as it came and
  // is predicted within 90 % of it now (at the check's 0.04 s step); predicted again from the
  // chaser's state at the window's start, and then flown by the capture controller, the bus
  // torque is the predicted one (within 10 % + 0.1 N m),
  // and the run is captured with every requirement met.
  void Shaping_PredictedAndFlown() {
    const AtStart s(true);
    const Model& m = s.sim->model();
    const FeasibilityOptions& o = s.options;
    const CapturePlannerOptions po = s.planner();
    const int ee = s.ee;
    const CaptureWindow w = s.window(s.search());
    qInfo("%s", w.reason().c_str());
    QVERIFY(w.found);
    QVERIFY(w.shape.rows() > 0);
    QVERIFY(w.unshaped_bus_torque > o.bus_torque_limit);
    QVERIFY(w.check.bus_torque <= o.torque_margin * o.bus_torque_limit);

    // Flown: the scenario from t = 0 with this debris; its window is the one above. At the
    // window's start, the window's plan predicted from the state then (the search predicted it
    // from the stand-off pose, the hand at rest and the bus drifting).
    LoadedScenario l = s.loaded;
    l.scenario.run.duration = w.meeting + 5;
    Simulation sim(l.scenario, l.model);
    while (sim.time() < w.start - 1e-9) sim.step();
    Data ds(m, false);
    forwardKinematics(m, ds, sim.q());
    HandState h;
    h.position = framePose(m, ds, ee).p;
    h.axis = framePose(m, ds, ee).R.col(2);
    CapturePlannerOptions fo = po;
    fo.final_time = w.duration;
    fo.approach_distance = w.approach_distance;
    fo.shape = w.shape;
    const CapturePlan plan(l.scenario.debris.properties, sim.debris(), h, fo);
    const PlanCheck fine = checkCapturePlan(m, ds, o, plan, sim.q(), sim.v(), ee);
    sim.run();
    const MissionMetrics mm = missionMetrics(sim);
    qInfo("%s: %s", std::string(outcomeName(mm.outcome)).c_str(), mm.outcome_reason.c_str());
    QCOMPARE(mm.outcome, Outcome::kCaptured);
    const SimulationEvent* window = lastEvent(sim, "window");
    QVERIFY(window && window->detail.find("shaped against the bus torque") != std::string::npos);
    const double t_plan = lastEvent(sim, "plan")->time;
    const auto& t = channel(sim, "time");
    const auto& bus = channel(sim, "base.torque_demand");
    double flown = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] >= t_plan && t[k] <= mm.capture_time) flown = std::max(flown, bus[k]);
    }
    qInfo("bus torque: %.3f N m as the thesis' path, %.3f shaped (search), %.3f predicted at 0.04 s, %.3f flown",
          w.unshaped_bus_torque, w.check.bus_torque, fine.bus_torque, flown);
    QVERIFY(std::abs(fine.bus_torque - w.check.bus_torque) < 0.1 * w.check.bus_torque + 0.1);
    QVERIFY(std::abs(flown - fine.bus_torque) < 0.1 * fine.bus_torque + 0.1);
  }

  // The window's plan is the plan flown: the search predicts a later start's plan from the hand at
  // rest at the pose held, and the plan made at the window's start begins from the hand holding its
  // pose, with the hold's zero acceleration. It used to match the acceleration the forces gave the
  // hand there, the joints' answer to the flexible arm's vibration (1.2 mm/s² at 52 s of
  // capture_flexible), which moved the 24 s plan by millimetres: it came 17 mm from the debris' box
  // where 20 mm are required, the window was lost at its start (`window_lost`) and the search made
  // anew flew the plan of the next second (on the flexible envelope's cell at 4 °/s about the
  // minor principal axis, every window was lost so, by 2.5 cm, and the run missed). Now the window
  // opens as predicted and its plan passes its check from the state it starts from.
  void WindowStart_TheFlownPlanIsThePredictedOne() {
    LoadedScenario l = loadScenario(kScenarios + "capture_flexible.yaml", {{"run.duration", "60"}});
    Simulation sim(l.scenario, l.model);
    while (sim.plans() == 0 && sim.step()) {
    }
    const SimulationEvent* window = lastEvent(sim, "window");
    const SimulationEvent* plan = lastEvent(sim, "plan");
    QVERIFY(window != nullptr && plan != nullptr);
    qInfo("t = %.2f s: %s", window->time, window->detail.c_str());
    qInfo("t = %.2f s: %s", plan->time, plan->detail.c_str());
    const SimulationEvent* lost = lastEvent(sim, "window_lost");
    QVERIFY2(lost == nullptr, lost ? lost->detail.c_str() : "");
    QCOMPARE(window->time, 40.0);  // (the one search, at the capture law's start)
    const PlanCheck* check = sim.planCheck();
    QVERIFY(check != nullptr);
    QVERIFY2(check->feasible, check->reason().c_str());
  }

  // A window lost at its start is reshaped rather than given up: on the realistic mission with
  // the sensors' seeds of run 8 of scenarios/campaigns/realistic_rigid_seeds.yaml, the window
  // found at 40 s (predicted from the stand-off pose within 95 % of the bus' share) asks the bus
  // 5.08 N m from the chaser's state at its start (the sensors' noise in its motion meanwhile);
  // a search made anew from there found only the grasp face's next pass, after the run's end
  // (a miss). Now the plan is reshaped from that state: predicted within the share from there
  // (the plan check of the state at the plan's start, independently of the event), flown, and
  // the run is captured with every requirement met.
  void WindowLostAtItsStart_IsReshaped() {
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid_realistic.yaml",
                                    {{"sensors.camera.seed", "563474579"}, {"sensors.encoders.seed", "602371202"},
                                     {"sensors.gyro.seed", "1978897917"}, {"sensors.star_tracker.seed", "643954052"},
                                     {"actuators.seed", "1527076098"}, {"run.duration", "100"}});
    Simulation sim(l.scenario, l.model);
    while (sim.plans() == 0 && sim.step()) {
    }
    const SimulationEvent* reshaped = lastEvent(sim, "window_reshaped");
    QVERIFY(reshaped != nullptr);
    qInfo("%s", reshaped->detail.c_str());
    QVERIFY(lastEvent(sim, "window_lost") == nullptr);
    // The plan as made (before the camera's images correct its end): predicted from the state at
    // its start with the controllers' knowledge.
    const PlanCheck* check = sim.planCheck();
    QVERIFY(check != nullptr);
    const FeasibilityOptions o = FeasibilityOptions::from(l.scenario.controllers[1], l.scenario.chaser,
                                                          l.scenario.debris.properties, l.scenario.debris.size);
    QVERIFY2(check->feasible, check->reason().c_str());
    QVERIFY(check->bus_torque <= o.torque_margin * o.bus_torque_limit);
    sim.run();
    const MissionMetrics m = missionMetrics(sim);
    qInfo("%s: %s", std::string(outcomeName(m.outcome)).c_str(), m.outcome_reason.c_str());
    QCOMPARE(m.outcome, Outcome::kCaptured);
  }

  // No window: a debris whose grasp face never turns to the chaser (spinning about its grasp
  // axis, the face up): `missed`, the reason naming the constraint, no grasp; and the run is not
  // reported captured. (One tumbling period searched, not the file's three: the face turns the
  // same way on each, and every start of a search that finds nothing is predicted.)
  void NoWindow_IsAMissWithItsReason() {
    const auto sim = simulate("capture_rigid.yaml", {{"debris.initial.rate_deg_s", "[0, 0, 4]"},
                                                     {"controllers[1].window.periods", "1"}, {"run.duration", "140"}});
    const MissionMetrics m = missionMetrics(*sim);
    qInfo("%s: %s", std::string(outcomeName(m.outcome)).c_str(), m.outcome_reason.c_str());
    QCOMPARE(m.outcome, Outcome::kMissed);
    QVERIFY(!m.captured() && !m.grasped);
    QVERIFY(lastEvent(*sim, "no_window"));
    QVERIFY(m.outcome_reason.find("limited by") != std::string::npos);
  }

  // Abort and retreat: the monitor's plan-error threshold set below what tracking achieves makes
  // every attempt abort: events `abort` and `standoff`, retries used, the gripper never closes,
  // outcome `aborted`; the hand is back at the stand-off pose after each retreat.
  void Abort_RetreatsAndRetries() {
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid.yaml", {{"run.duration", "200"}});
    ControllerSpec::Capture::Abort& a = l.scenario.controllers[1].capture.abort;
    a.plan_error = 1.0e-7;
    a.retries = 1;
    a.retreat_time = 6;
    const auto sim = std::make_unique<Simulation>(l.scenario, l.model);
    sim->run();
    const MissionMetrics m = missionMetrics(*sim);
    int aborts = 0, standoffs = 0, plans = 0;
    for (const SimulationEvent& e : sim->events()) {
      aborts += e.kind == "abort";
      standoffs += e.kind == "standoff";
      plans += e.kind == "plan";
    }
    qInfo("%d plans, %d aborts, %d returns to the stand-off pose; %s: %s", plans, aborts, standoffs,
          std::string(outcomeName(m.outcome)).c_str(), m.outcome_reason.c_str());
    QCOMPARE(m.outcome, Outcome::kAborted);
    QVERIFY(!m.grasped);
    QCOMPARE(aborts, 2);  // the first attempt and the retry
    QCOMPARE(plans, 2);
    QVERIFY(standoffs >= 1);
    QVERIFY(m.outcome_reason.find("from the plan") != std::string::npos);
    // Retreating: phase 3, then waiting or stopped at the stand-off pose, the joints back where
    // they were at the start (the stand-off pose) within a millimetre of hand motion.
    const auto& phase = channel(*sim, "capture.phase");
    QVERIFY(std::find(phase.begin(), phase.end(), 3.0) != phase.end());
    QCOMPARE(phase.back(), 4.0);  // stopped: no retry left
    const auto& x = channel(*sim, "ee.x");
    const auto& t = channel(*sim, "time");
    const std::size_t at40 = static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), 40.0 - 1e-9) - t.begin());
    QVERIFY(std::abs(x.back() - x[at40]) < 0.02);  // the bus drifts a little meanwhile
  }

  // A saturation abort says whether the loop itself diverges. Sampled at 10 Hz, a joint-space
  // derivative gain of 30 s⁻¹ puts the discrete loop's pole at 1 - k_d T = -2 on the rigid arm
  // (computed torque: the model is exact), outside the unit circle at the Nyquist frequency: the
  // torques grow to their limits flipping their sign every period, and the reason says so. At the
  // file's 50 Hz and gains, a debris too fast for the plan (6 °/s, no window search) saturates the
  // torques too, but smoothly: the same abort without that diagnosis.
  void Abort_SaturationNamesAnUnstableSampledLoop() {
    const Overrides common{{"controllers[1].window.search", "false"}, {"controllers[1].abort.retries", "0"},
                           {"controllers[1].abort.plan_error", "1"}, {"run.duration", "43"}};
    Overrides unstable = common, fast = common;
    unstable.insert(unstable.end(), {{"run.control_rate", "10"}, {"controllers[1].kd", "30"}});
    fast.emplace_back("debris.initial.rate_deg_s", "[0, 6, 0]");
    const MissionMetrics u = missionMetrics(*simulate("capture_rigid.yaml", unstable));
    const MissionMetrics f = missionMetrics(*simulate("capture_rigid.yaml", fast));
    qInfo("unstable loop: %s\nfast debris: %s", u.outcome_reason.c_str(), f.outcome_reason.c_str());
    QCOMPARE(u.outcome, Outcome::kAborted);
    QCOMPARE(f.outcome, Outcome::kAborted);
    QVERIFY(u.outcome_reason.find("torques at their limit") != std::string::npos);
    QVERIFY(f.outcome_reason.find("torques at their limit") != std::string::npos);
    QVERIFY(u.outcome_reason.find("flip their sign") != std::string::npos);
    QVERIFY(f.outcome_reason.find("flip their sign") == std::string::npos);
  }

  // Honest outcomes on the issue's cases: a requirement the run cannot meet makes a grasp
  // `captured_out_of_spec` with the violation listed, never `captured`.
  void Outcome_OutOfSpecListsTheViolation() {
    const auto sim = simulate("capture_rigid.yaml", {{"requirements.bus_attitude_deg", "1.0e-6"}});
    const MissionMetrics m = missionMetrics(*sim);
    qInfo("%s", m.outcome_reason.c_str());
    QVERIFY(m.grasped);
    QCOMPARE(m.outcome, Outcome::kCapturedOutOfSpec);
    QVERIFY(!m.captured());
    QCOMPARE(m.violations.size(), std::size_t(1));
    QCOMPARE(m.violations[0].requirement, std::string("bus_attitude"));
    QVERIFY(m.violations[0].worst > 1e-6);
    const Recomputed r = recompute(*sim);
    QCOMPARE(m.violations[0].worst, r.bus_attitude);
    // Switched off, it is no longer checked.
    const auto off = simulate("capture_rigid.yaml", {{"requirements.bus_attitude_deg", "off"}});
    const MissionMetrics mo = missionMetrics(*off);
    QCOMPARE(mo.outcome, Outcome::kCaptured);
    QCOMPARE(mo.requirements.size(), std::size_t(3));
  }

  // Window and abort settings that would make the search endless or absurd are refused with the
  // file and line.
  void Window_BadSettingsRefused() {
    const std::string path = kScenarios + "capture_rigid.yaml";
    for (const auto& [section, key, value] : {std::tuple{"window", "step_deg", "1e-9"}, std::tuple{"window", "min_step", "0"},
                                              std::tuple{"window", "horizon", "1e6"}, std::tuple{"window", "torque_margin", "2"},
                                              std::tuple{"abort", "retries", "-1"}, std::tuple{"abort", "plan_error", "nan"}}) {
      YAML::Node doc = readScenarioDocument(path);
      doc["controllers"][1][section][key] = YAML::Load(value);
      try {
        loadScenarioDocument(path, doc);
        QFAIL(qPrintable(QString("accepted %1.%2 = %3").arg(section, key, value)));
      } catch (const LoadError& e) {
        const std::string what = e.what();
        qInfo("%s", what.c_str());
        QVERIFY(what.find(std::string(section) + "." + key) != std::string::npos);
        QVERIFY(what.find(path) != std::string::npos);
      }
    }
  }

  // The task-space law shared by the capture controller and the plan's prediction, against the
  // SVD: above the threshold the damped inverse is the exact pseudo-inverse; below it each
  // singular value σ_i is inverted as σ_i / (σ_i² + λ²); the resolved acceleration meets the hand's
  // demand exactly and its posture part is the projection of the pull on A's null space (from the
  // SVD's null-space basis).
  void TaskSpace_AgainstSvd() {
    std::srand(7);
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(3, 6);
    double sigma = 0;
    const Eigen::MatrixXd P = dampedPseudoInverse(A, 0.05, 0.05, &sigma);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullU | Eigen::ComputeFullV);
    QVERIFY(std::abs(sigma - svd.singularValues().minCoeff()) < 1e-14);
    QVERIFY(sigma > 0.05);
    QVERIFY((P - A.completeOrthogonalDecomposition().pseudoInverse()).norm() < 1e-12);
    const Vector3 a(0.3, -0.2, 0.1);
    const Eigen::VectorXd pull = Eigen::VectorXd::Random(6);
    const Eigen::VectorXd ddq = resolvedAcceleration(A, P, a, pull);
    QVERIFY((A * ddq - a).norm() < 1e-12);
    const Eigen::MatrixXd V2 = svd.matrixV().rightCols(3);
    QVERIFY((ddq - P * a - V2 * V2.transpose() * pull).norm() < 1e-12);
    // Nearly singular: the last row almost the first.
    Eigen::MatrixXd B = A;
    B.row(2) = A.row(0) + 0.01 * A.row(2);
    const Eigen::MatrixXd Q = dampedPseudoInverse(B, 0.05, 0.05, &sigma);
    const Eigen::JacobiSVD<Eigen::MatrixXd> sb(B, Eigen::ComputeThinU | Eigen::ComputeThinV);
    QVERIFY(sigma < 0.05);
    const double lambda2 = 0.05 * 0.05 * (1 - (sigma / 0.05) * (sigma / 0.05));
    Eigen::VectorXd inv = sb.singularValues();
    for (Eigen::Index i = 0; i < inv.size(); ++i) inv[i] = inv[i] / (inv[i] * inv[i] + lambda2);
    QVERIFY((Q - sb.matrixV() * inv.asDiagonal() * sb.matrixU().transpose()).norm() < 1e-10);
  }

  // The envelope of the rigid mission: tumbling rate 0.5 to 8 deg/s x six axes x two phases. Every
  // run ends in a defined outcome with a reason; none is `captured` with a requirement (recomputed
  // here from the channels) violated; the success rate is printed per rate, with what limits the
  // others.
  void Envelope_Rigid() {
    LoadedScenario l = loadScenario(kScenarios + "capture_rigid.yaml");
    const EnvelopeGrid grid = EnvelopeGrid::standard(l.scenario.debris.properties);
    QCOMPARE(grid.size(), std::size_t(72));
    // Measured: 60 of 60 up to 6 deg/s (55 before the pointing reference stopped jumping where the
    // grasp axis passes the antipode of the hand's, 44 before the path shaping; README). The floor
    // is the goal, 95 %.
    checkEnvelope(l, grid, 2, 0.95);
  }

  // A smaller grid on the flexible chaser: 2 and 4 deg/s, the principal axes and body x, phase 0.
  void Envelope_Flexible() {
    LoadedScenario l = loadScenario(kScenarios + "capture_flexible.yaml");
    EnvelopeGrid grid = EnvelopeGrid::standard(l.scenario.debris.properties);
    grid.rates_deg_s = {2, 4};
    grid.axes.resize(4);
    grid.phases_deg = {0};
    // measured: 8 of 8 (7 before a window's plan started from the hold's zero acceleration, 6 before
    // the pointing reference stopped jumping)
    checkEnvelope(l, grid, 2, 0.85);
  }

 private:
  // floor: the least fraction of the runs up to 6 deg/s that must end `captured`.
  static void checkEnvelope(const LoadedScenario& l, const EnvelopeGrid& grid, int threads, double floor) {
    // The requirements recomputed on each run's own channels, as it ends.
    std::vector<Recomputed> again(grid.size());
    const std::vector<EnvelopeCell> cells =
        runEnvelope(l.scenario, l.model, grid, threads, 60, {},
                    [&](std::size_t i, const EnvelopeCell&, const Simulation& sim) { again[i] = recompute(sim); });
    QCOMPARE(cells.size(), grid.size());
    std::map<double, std::pair<int, int>> by_rate;
    std::map<std::string, int> limits;
    for (const EnvelopeCell& c : cells) {
      QVERIFY2(c.outcome != Outcome::kFailed, c.reason.c_str());
      QVERIFY(!c.reason.empty());
      QVERIFY2(c.outcome == Outcome::kCaptured || !c.limiting.empty(), c.reason.c_str());
      const Recomputed& r = again[static_cast<std::size_t>(&c - cells.data())];
      QCOMPARE(r.grasped, c.outcome == Outcome::kCaptured || c.outcome == Outcome::kCapturedOutOfSpec);
      if (c.outcome == Outcome::kCaptured) {
        QVERIFY2(r.meets(l.scenario.requirements), c.reason.c_str());
        QVERIFY(std::isfinite(c.grasp_time));
      }
      if (c.outcome == Outcome::kCapturedOutOfSpec) QVERIFY2(!r.meets(l.scenario.requirements), c.reason.c_str());
      by_rate[c.rate_deg_s].first += c.outcome == Outcome::kCaptured;
      ++by_rate[c.rate_deg_s].second;
      if (c.outcome != Outcome::kCaptured) ++limits[std::string(outcomeName(c.outcome)) + ": " + c.limiting];
    }
    int captured = 0, up_to_6 = 0, n_up_to_6 = 0;
    for (const auto& [rate, n] : by_rate) {
      qInfo("%5.2f deg/s: captured in %d of %d runs", rate, n.first, n.second);
      captured += n.first;
      if (rate <= 6) {
        up_to_6 += n.first;
        n_up_to_6 += n.second;
      }
    }
    for (const auto& [what, n] : limits) qInfo("  %3d x %s", n, what.c_str());
    qInfo("%s: captured in %d of %zu runs (%.1f %%); up to 6 deg/s %d of %d (%.1f %%)", l.scenario.name.c_str(), captured,
          cells.size(), 100.0 * captured / cells.size(), up_to_6, n_up_to_6, 100.0 * up_to_6 / std::max(1, n_up_to_6));
    QVERIFY2(up_to_6 >= floor * n_up_to_6, "fewer captures up to 6 deg/s than measured when the test was written");
  }
};

QTEST_APPLESS_MAIN(TestEnvelope)
#include "test_envelope.moc"
