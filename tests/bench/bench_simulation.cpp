// Whole scenarios, as `grapple-cli run` runs them (recording included, no output files): the
// counter sim_s_per_s is the real-time factor. The rigid mission scenario must run >= 500x real
// time, the complete flexible one >= 50x.
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "core/analysis/envelope.hpp"
#include "core/analysis/manipulability.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/control/aerial_controller.hpp"
#include "core/control/capture_controller.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/planning/feasibility.hpp"
#include "core/planning/riding_bound.hpp"
#include "core/sim/simulation.hpp"
#include "tests/support/capture_start.hpp"

using namespace grapple::core;

namespace {

void runScenario(benchmark::State& state, const char* file,
                 const std::vector<std::pair<std::string, std::string>>& set = {}) {
  const LoadedScenario loaded = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/" + file, set);
  double simulated = 0;
  for (auto _ : state) {
    Simulation sim(loaded.scenario, loaded.model);
    sim.run();
    if (!sim.failure().empty()) state.SkipWithError(sim.failure().c_str());
    simulated += sim.time();
    benchmark::DoNotOptimize(sim.recorder().rows());
  }
  state.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}

void Scenario_CaptureRigid(benchmark::State& s) { runScenario(s, "capture_rigid.yaml"); }
void Scenario_CaptureFlexible(benchmark::State& s) { runScenario(s, "capture_flexible.yaml"); }
// The same with the integrator chosen. Arg: 0 rk43 integrating every mode, 1 ros34pw2 (linearly
// implicit in the modal stiffness and damping) at the file's tolerances, 2 ros34pw2 at rtol 1e-5,
// atol 1e-7 (the loosest that keeps the hand's path within 0.5 mm of rk43's), 3 the file's
// (quasi_static: each body's coupled modes above 100 rad/s condensed to their static deflection,
// the rest by RK4(3)), 4 quasi_static condensing the whole model's coupled modes above 100 rad/s.
void Scenario_CaptureFlexibleIntegrator(benchmark::State& s) {
  std::vector<std::pair<std::string, std::string>> set;
  if (s.range(0) < 3) set.push_back({"run.integrator", s.range(0) == 0 ? "rk43" : "ros34pw2"});
  if (s.range(0) == 2) set.insert(set.end(), {{"run.rtol", "1e-5"}, {"run.atol", "1e-7"}});
  if (s.range(0) == 4) set.push_back({"run.quasi_static_modes", "whole"});
  runScenario(s, "capture_flexible.yaml", set);
}
void Scenario_PlanarFreeVibration(benchmark::State& s) { runScenario(s, "planar_free_vibration.yaml"); }

// One call of the capture controller in the state of grasp_rigid.yaml (with `set`) at t = 1 s,
// the plan already made; the aim: <= 20 µs per call.
void benchCapture(benchmark::State& state, const std::vector<std::pair<std::string, std::string>>& set) {
  LoadedScenario l = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/grasp_rigid.yaml", set);
  const Simulation sim(l.scenario, l.model);  // the initial state
  const Model& m = sim.model();
  Data data(m, m.hasFlexibleBodies());
  const ControllerSpec* spec = nullptr;
  for (const ControllerSpec& c : l.scenario.controllers) if (c.type == ControllerType::kCapture) spec = &c;
  CaptureController controller(m, *spec, l.scenario.chaser, l.scenario.debris.properties, m.frameId("tool"), sim.q());
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(m.nv);
  const DebrisState debris = l.scenario.debris.initial;
  ControlContext ctx{m, data, 0.0, sim.q(), sim.v(), nullptr, tau};
  ctx.debris = &debris;
  controller.update(ctx);  // plans
  ctx.t = 1.0;
  for (auto _ : state) {
    tau.setZero();
    controller.update(ctx);
    benchmark::DoNotOptimize(tau.data());
  }
}

// Resolved acceleration through the free-floating dynamics, base attitude held. Arg: 0 the rigid
// chaser, 1 the complete flexible one.
void Controller_Capture(benchmark::State& state) {
  benchCapture(state, state.range(0) ? std::vector<std::pair<std::string, std::string>>{{"chaser.robot", "robots/chaser.yaml"}}
                                     : std::vector<std::pair<std::string, std::string>>{});
}

// The thesis' loops (law joint_pd, decentralized) on the rigid chaser.
void Controller_CaptureJointPd(benchmark::State& state) {
  benchCapture(state, {{"controllers", "[{type: capture, law: joint_pd}]"}});
}

// The capture window's pieces on capture_rigid.yaml at the capture's start (t = 40 s): the check
// of one plan (its prediction through the model at the check's step, 0.04 s), and the whole window
// search as the controller runs it (plans from each start over the scenario's tumbling periods,
// candidates at 0.2 s, slower durations, stopping at the first feasible meeting).
// With `shaped_cell`, the debris tumbles at 6 deg/s about its minor principal axis (phase 0): a
// cell of the envelope where none of the thesis' paths is feasible and the search reshapes them
// against the bus torque (planning/path_shaping.hpp).
using grapple::test::CaptureStart;  // (tests/support/capture_start.hpp)

void Planning_CheckPlan(benchmark::State& state) {
  const CaptureStart s;
  const Model& m = s.sim->model();
  Data d(m, false);
  const int ee = s.ee;
  forwardKinematics(m, d, s.sim->q());
  HandState hand;
  hand.position = framePose(m, d, ee).p;
  hand.axis = framePose(m, d, ee).R.col(2);
  DebrisTrajectory traj(s.loaded.scenario.debris.properties, s.sim->debris(), 0.01);
  CapturePlannerOptions po;
  po.align = s.loaded.scenario.controllers[1].capture.align;  // the scenario's: the pointing rows too
  const CapturePlan plan(s.loaded.scenario.debris.properties, traj.state(12), hand, po);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(m.nv);
  for (auto _ : state) benchmark::DoNotOptimize(checkCapturePlan(m, d, s.options, plan, s.sim->q(), v, ee).margin);
  state.counters["plan_s"] = plan.captureTime();
}

// Arg: the threads predicting at once (WindowSearchOptions::threads; wall time, the speed-up on
// more cores).
void benchWindowSearch(benchmark::State& state, bool shaped_cell) {
  const CaptureStart s(shaped_cell);
  WindowSearchOptions ws = s.search();  // the scenario's, as the controller makes it
  ws.threads = static_cast<int>(state.range(0));
  int candidates = 0, shaped = 0;
  for (auto _ : state) {
    const CaptureWindow w = s.window(ws);
    candidates = w.candidates;
    shaped = w.shaped;
    if (!w.found) state.SkipWithError("no window found");
    benchmark::DoNotOptimize(w.meeting);
  }
  state.counters["candidates"] = candidates;
  state.counters["shaped"] = shaped;
}

void Planning_WindowSearch(benchmark::State& state) { benchWindowSearch(state, false); }
void Planning_WindowSearchShaped(benchmark::State& state) { benchWindowSearch(state, true); }

// The bound on the bus torque of riding the grasp point (planning/riding_bound) over the window
// search's span from the capture's start (capture_rigid: 4 deg/s, three tumbling periods, a grid
// of 0.1 s): what a search that finds no window adds to say whether any plan could.
void Planning_RidingBound(benchmark::State& state) {
  const CaptureStart s;
  const Model& m = s.sim->model();
  Data d(m, false);
  const ControllerSpec::Capture& c = s.loaded.scenario.controllers[1].capture;
  const double span = windowSearchSpan(c.window.horizon, c.window.periods, s.sim->debris().w_B.norm());
  int samples = 0;
  for (auto _ : state) {
    const RidingBound b = ridingBusTorqueBound(m, d, s.options, c.align, s.loaded.scenario.debris.properties, s.sim->debris(),
                                               s.sim->q(), s.sim->v(), s.ee, span);
    samples = b.samples;
    benchmark::DoNotOptimize(b.torque);
  }
  state.counters["samples"] = samples;
}

// One call of the joint-path servo (computed torque through the whole dynamics, the bus held) on
// the complete flexible chaser unfolding its arm (capture_flexible.yaml at t = 10 s).
void Controller_JointServoFlexible(benchmark::State& state) {
  LoadedScenario l = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/capture_flexible.yaml");
  const Simulation sim(l.scenario, l.model);
  const Model& m = sim.model();
  Data data(m, m.hasFlexibleBodies());
  const auto controllers = makeControllers(m, l.scenario, sim.q(), endEffectorFrame(m, l.scenario));
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(m.nv);
  const Eigen::VectorXd v = Eigen::VectorXd::Constant(m.nv, 0.01);
  ControlContext ctx{m, data, 10.0, sim.q(), v, nullptr, tau};
  for (auto _ : state) {
    tau.setZero();
    controllers.front()->update(ctx);
    benchmark::DoNotOptimize(tau.data());
  }
}

// The aerial manipulator's computed torque + allocation + lags (kremer_aerial.yaml), per call.
void Controller_Aerial(benchmark::State& state) {
  LoadedScenario l = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/kremer_aerial.yaml");
  const Simulation sim(l.scenario, l.model);
  const Model& m = sim.model();
  Data data(m);
  AerialController controller(m, l.scenario.controllers.front(), sim.q());
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(m.nv);
  ControlContext ctx{m, data, 0.0, sim.q(), sim.v(), nullptr, tau};
  for (auto _ : state) {
    tau.setZero();
    ctx.t += 0.002;
    controller.update(ctx);
    benchmark::DoNotOptimize(tau.data());
  }
}

// A 200 x 200 manipulability map of the free-floating MDA arm over joints 2 and 3 (generalized
// Jacobian, position rows), on 1 or 2 threads (the aim: < 1 s).
void Analysis_ManipulabilityMap(benchmark::State& state) {
  const Model m = loadModelFile(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml");
  ManipulabilityOptions o;
  o.frame = m.frameId("tool");
  o.jacobian = ManipulabilityJacobian::kGeneralized;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
  q[3] = 1;
  const int j2 = m.joint[m.bodyOfJoint("joint2")].idx_v, j3 = m.joint[m.bodyOfJoint("joint3")].idx_v;
  for (auto _ : state) {
    const ManipulabilityMap map = jointManipulabilityMap(m, q, o, j2, -M_PI, M_PI, 200, j3, -M_PI, M_PI, 200,
                                                         static_cast<int>(state.range(0)));
    benchmark::DoNotOptimize(map.yoshikawa.data());
  }
}

}  // namespace

BENCHMARK(Analysis_ManipulabilityMap)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Controller_Capture)->Arg(0)->Arg(1);
BENCHMARK(Controller_CaptureJointPd);
BENCHMARK(Controller_JointServoFlexible);
BENCHMARK(Controller_Aerial);
BENCHMARK(Planning_CheckPlan)->Unit(benchmark::kMillisecond);
BENCHMARK(Planning_WindowSearch)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(2);
BENCHMARK(Planning_WindowSearchShaped)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime()->Arg(1)->Arg(2);
BENCHMARK(Planning_RidingBound)->Unit(benchmark::kMillisecond);
BENCHMARK(Scenario_CaptureRigid)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_CaptureFlexible)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_CaptureFlexibleIntegrator)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_PlanarFreeVibration)->Unit(benchmark::kMillisecond)->UseRealTime();
