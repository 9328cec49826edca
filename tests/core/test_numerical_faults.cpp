// Numerical faults end a run cleanly: a step that blows up (fixed-step RK4 beyond the stability
// limit of the flexible chaser's fastest modes, ~1070 rad/s), a solver that finds no solution (the capture planner's transversality equation
// H(t_f) = 0 with no root in the horizon) and a singular arm configuration. Each run ends — no
// hang — with an event and the reason; the recorded channels hold no NaN or infinity, and the
// state the Simulation reports afterwards is the last recorded one, finite.
#include <QtTest>

#include <cstring>

#include <functional>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"

using namespace grapple::core;

namespace {

const std::string kScenarios = GRAPPLE_SOURCE_DIR "/scenarios/";

struct Outcome {
  double end_time = 0;          // [s] simulated time reached
  double duration = 0;          // [s] run.duration
  std::string failure;
  std::vector<std::string> event_kinds;
  bool channels_finite = true;  // every recorded value
  bool state_finite = true;     // q(), v() after the run
  int rows = 0;
  double last_row_time = 0;
};

// Runs a built-in scenario with --set overrides and, optionally, an edit of its document (for
// what --set cannot reach: a field of a list item).
Outcome run(const std::string& file, const Overrides& set, const std::function<void(YAML::Node&)>& edit = {}) {
  YAML::Node doc = readScenarioDocument(kScenarios + file, set);
  if (edit) edit(doc);
  LoadedScenario loaded = loadScenarioDocument(kScenarios + file, doc);
  Simulation sim(loaded.scenario, loaded.model);
  sim.run();
  Outcome o;
  o.end_time = sim.time();
  o.duration = sim.endTime();
  o.failure = sim.failure();
  for (const SimulationEvent& e : sim.events()) o.event_kinds.push_back(e.kind);
  const Recorder& r = sim.recorder();
  o.rows = r.rows();
  for (int c = 0; c < r.channels(); ++c) {
    // Channels that are empty (NaN) by definition part of the time: the capture plan's while the
    // hand does not fly one, a joint path's reference and error once the capture drives the joints.
    const std::string& name = r.info(c).name;
    const auto ends = [&](const char* suffix) {
      const std::size_t n = std::strlen(suffix);
      return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    if (name.rfind("plan.", 0) == 0 || (name.rfind("joint.", 0) == 0 && (ends(".reference") || ends(".error")))) continue;
    for (int k = 0; k < r.rows(); ++k) o.channels_finite = o.channels_finite && std::isfinite(r.at(k, c));
  }
  o.state_finite = sim.q().allFinite() && sim.v().allFinite();
  o.last_row_time = r.rows() ? r.at(r.rows() - 1, 0) : 0;
  return o;
}

bool has(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

}  // namespace

class TestNumericalFaults : public QObject {
  Q_OBJECT

 private slots:
  // RK4 at 20 ms on modes of ~1070 rad/s (stability needs h ω < 2.8): the state overflows within
  // a few steps; the run stops at the first recording instant it reaches non-finite.
  void FixedStepBlowsUp_EndsWithAnEvent() {
    const Outcome o = run("capture_flexible.yaml", {{"run.integrator", "rk4"}, {"run.step", "0.02"},
                                                    {"run.duration", "30"}});
    QVERIFY2(o.failure.find("no longer finite") != std::string::npos, o.failure.c_str());
    QVERIFY(has(o.event_kinds, "integration_failure"));
    QVERIFY(o.end_time < o.duration);
    QCOMPARE(o.end_time, o.last_row_time);  // the state is the last recorded row's
    QVERIFY(o.channels_finite);
    QVERIFY(o.state_finite);
  }

  // The capture planner's transversality equation has no root within a 0.5 s horizon (the hand
  // cannot reach the debris that fast at these weights). Planned once the run is under way (the
  // capture starts at 1 s): the run stops there with the planner's reason. Planned on the initial
  // state: the Simulation refuses to start, with the same reason (grapple-cli reports it against
  // the file).
  void TransversalityWithoutRoot_EndsWithAnEvent() {
    const Outcome o = run("grasp_rigid.yaml", {{"run.duration", "5"}}, [](YAML::Node& doc) {
      doc["controllers"][0]["horizon"] = 0.5;
      doc["controllers"][0]["start"] = 1.0;
    });
    QVERIFY2(o.failure.find("transversality") != std::string::npos, o.failure.c_str());
    QVERIFY(o.failure.find("horizon") != std::string::npos);
    QVERIFY(has(o.event_kinds, "integration_failure"));
    QVERIFY(o.end_time >= 1.0 - 0.1 && o.end_time < o.duration);
    QVERIFY(o.channels_finite);
    QVERIFY(o.state_finite);
    try {
      run("grasp_rigid.yaml", {{"run.duration", "5"}}, [](YAML::Node& doc) { doc["controllers"][0]["horizon"] = 0.5; });
      QFAIL("a capture without a plan at t = 0 started");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("transversality") != std::string::npos, e.what());
    }
  }

  // The arm stretched (elbow and wrist straight: a singular Jacobian) when the capture law
  // starts: the damped pseudo-inverse keeps every channel finite to the end of the run.
  void SingularConfiguration_StaysFinite() {
    const Outcome o = run("grasp_rigid.yaml", {{"chaser.initial.joints.joint3.position", "0"},
                                               {"chaser.initial.joints.joint5.position", "0"},
                                               {"run.duration", "4"}});
    if (!o.failure.empty()) QVERIFY(has(o.event_kinds, "integration_failure"));
    QVERIFY(o.end_time > 0);
    QVERIFY(o.channels_finite);
    QVERIFY(o.state_finite);
  }
};

QTEST_APPLESS_MAIN(TestNumericalFaults)
#include "test_numerical_faults.moc"
