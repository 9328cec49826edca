// The threaded analyses are deterministic and independent of one another: a manipulability map
// (joint grid or workspace plane, rigid or flexible robot) is bit-identical on 1, 2 and 3
// threads, and the GUI's background jobs — a map, a closed-loop analysis, a Simulation, each on
// its own thread at the same time, as the Manipulability and Tuning panels and the worker run
// them — give bit for bit what each gives alone (no shared mutable state in the core); the capture
// window's scan of start times gives the serial scan's window on any number of threads. Built
// under ThreadSanitizer too (scripts/sanitize.sh), where any data race fails the test.
#include <QtTest>

#include <cstring>
#include <future>
#include <thread>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/manipulability.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"
#include "tests/support/capture_start.hpp"

using namespace grapple::core;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

bool sameMap(const ManipulabilityMap& a, const ManipulabilityMap& b) {
  return a.a_values == b.a_values && a.b_values == b.b_values && sameBits(a.yoshikawa, b.yoshikawa) &&
         sameBits(a.condition, b.condition);
}

// The MDA arm (free-floating, rigid) in its pre-grasp pose, maps of joints 2 and 3.
struct Arm {
  Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
  Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
  ManipulabilityOptions o;
  int a = 0, b = 0;
  Arm() {
    q[3] = 1;
    q[m.joint[m.bodyOfJoint("joint2")].idx_q] = 2.1;
    q[m.joint[m.bodyOfJoint("joint3")].idx_q] = -1.6;
    o.frame = m.frameId("tool");
    o.jacobian = ManipulabilityJacobian::kGeneralized;
    a = m.joint[m.bodyOfJoint("joint2")].idx_v;
    b = m.joint[m.bodyOfJoint("joint3")].idx_v;
  }
  ManipulabilityMap plane(int threads) const {
    const ArmPlane p = armPlane(m, q, o, a, b);
    return planeManipulabilityMap(m, q, o, a, b, p.origin, p.u, p.v, -p.reach, p.reach, 23, -p.reach, p.reach, 19,
                                  threads);
  }
};

ClosedLoopAnalysis chaserLoop(const Model& m) {
  Eigen::VectorXd q0 = Eigen::VectorXd::Zero(m.nq);
  q0[3] = 1;
  const ClosedLoopGains g = thesisGains(m, q0, 0.0698, 0.707, {3803, 7246, 5575, 373, 3967, 0.006},
                                        {1973, 2507, 1822, 1222, 898, 0.03}, false, 0.698, 0.707);
  return analyzeClosedLoop(m, q0, g, 1e-3, 1e3, 40);
}

Eigen::MatrixXd runChannels(const LoadedScenario& loaded) {
  Simulation sim(loaded.scenario, loaded.model);
  sim.run();
  const Recorder& r = sim.recorder();
  Eigen::MatrixXd x(r.rows(), r.channels());
  for (int k = 0; k < r.rows(); ++k) {
    for (int c = 0; c < r.channels(); ++c) x(k, c) = r.at(k, c);
  }
  return x;
}

}  // namespace

class TestThreads : public QObject {
  Q_OBJECT

 private slots:
  void PlaneMap_SameOnAnyNumberOfThreads() {
    const Arm arm;
    const ManipulabilityMap one = arm.plane(1);
    int reached = 0;
    for (int k = 0; k < one.yoshikawa.size(); ++k) reached += std::isfinite(one.yoshikawa.data()[k]) ? 1 : 0;
    QVERIFY(reached > 50);  // the map is not empty (unreachable points are NaN)
    QVERIFY(sameMap(one, arm.plane(2)));
    QVERIFY(sameMap(one, arm.plane(3)));
  }

  // The flexible chaser: each thread's Data holds the flexible bodies' terms.
  void JointMap_Flexible_SameOnAnyNumberOfThreads() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[3] = 1;
    ManipulabilityOptions o;
    o.frame = m.frameId("tool");
    o.jacobian = ManipulabilityJacobian::kGeneralized;
    const int a = m.joint[m.bodyOfJoint("joint2")].idx_v, b = m.joint[m.bodyOfJoint("joint3")].idx_v;
    auto map = [&](int threads) { return jointManipulabilityMap(m, q, o, a, 0.5, 2.5, 11, b, -2.5, -0.5, 9, threads); };
    const ManipulabilityMap one = map(1);
    QVERIFY(one.yoshikawa.allFinite() && one.yoshikawa.minCoeff() >= 0 && one.yoshikawa.maxCoeff() > 0);
    QVERIFY(sameMap(one, map(2)));
    QVERIFY(sameMap(one, map(3)));
  }

  // The capture window of capture_rigid.yaml at the capture's start (t = 40 s): the start times
  // predicted on 1, 2 and 3 threads, the scan stopping at the earliest feasible meeting. The same
  // window, its check and its reason, to the last bit (test_envelope: a cell where every start is
  // scanned and the seeds shaped).
  void WindowSearch_SameOnAnyNumberOfThreads() {
    const grapple::test::CaptureStart s;
    WindowSearchOptions ws = s.search();
    auto search = [&](int threads) {
      ws.threads = threads;
      return s.window(ws);
    };
    const CaptureWindow one = search(1);
    QVERIFY(one.found);
    for (int threads : {2, 3}) {
      const CaptureWindow w = search(threads);
      QCOMPARE(w.reason(), one.reason());
      QCOMPARE(w.candidates, one.candidates);
      QVERIFY(w.start == one.start && w.meeting == one.meeting && w.duration == one.duration);
      QVERIFY(w.check.margin == one.check.margin && w.check.times == one.check.times && w.check.margins == one.check.margins);
    }
  }

  // The search's threads as a scenario gives them: a file that leaves them (0) searches on every
  // core of the machine; a campaign's run or an envelope's cell, themselves run a core each, on one
  // (searchWindowsOnOneThread); a number the file gives stays.
  void WindowSearch_ThreadsOfAScenario() {
    const grapple::test::CaptureStart s;
    Scenario scenario = s.loaded.scenario;
    ControllerSpec& capture = scenario.controllers[1];
    QCOMPARE(capture.capture.window.threads, 0);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    QCOMPARE(WindowSearchOptions::from(capture).threads, cores);
    searchWindowsOnOneThread(scenario);
    QCOMPARE(WindowSearchOptions::from(capture).threads, 1);
    capture.capture.window.threads = 3;
    searchWindowsOnOneThread(scenario);
    QCOMPARE(WindowSearchOptions::from(capture).threads, 3);
  }

  // The same where no thesis' path is feasible (the debris at 6 deg/s about its minor principal
  // axis; the 50 s after the capture's start): every start scanned, the candidates the bus torque
  // stopped flown again and the seeds shaped, each stage a wave of threads at a time.
  void WindowSearch_Shaped_SameOnTwoThreads() {
    const grapple::test::CaptureStart s(true);
    WindowSearchOptions ws;
    ws.horizon = 50;
    ws.periods = 1;
    const CaptureWindow one = s.window(ws);
    ws.threads = 2;
    const CaptureWindow two = s.window(ws);
    QVERIFY(one.found && one.shaped > 0);
    QCOMPARE(two.reason(), one.reason());
    QVERIFY(two.start == one.start && two.meeting == one.meeting && two.shape == one.shape);
    QVERIFY(two.check.margin == one.check.margin && two.check.bus_torque == one.check.bus_torque);
  }

  // What the GUI runs at once: the worker's Simulation, the Manipulability panel's map (itself on
  // two threads) and the Tuning panel's closed-loop analysis, each on a std::async thread with
  // its own copy of the model, as the panels do; then each alone. Bit-identical.
  void BackgroundJobs_Concurrent_EqualAlone() {
    const Arm arm;
    const Model chaser = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    const LoadedScenario grasp = loadScenario(kSource + "/scenarios/grasp_rigid.yaml", {{"run.duration", "2"}});

    auto map = std::async(std::launch::async, [arm] { return arm.plane(2); });
    auto loop = std::async(std::launch::async, [chaser] { return chaserLoop(chaser); });
    auto run = std::async(std::launch::async, [grasp] { return runChannels(grasp); });
    const ManipulabilityMap map_together = map.get();
    const ClosedLoopAnalysis loop_together = loop.get();
    const Eigen::MatrixXd run_together = run.get();

    QVERIFY(sameMap(map_together, arm.plane(2)));
    const ClosedLoopAnalysis loop_alone = chaserLoop(chaser);
    QCOMPARE(loop_together.poles.size(), loop_alone.poles.size());
    QVERIFY(std::memcmp(loop_together.poles.data(), loop_alone.poles.data(),
                        loop_alone.poles.size() * sizeof(loop_alone.poles[0])) == 0);
    QVERIFY(sameBits(loop_together.sensitivity, loop_alone.sensitivity));
    QCOMPARE(loop_together.gamma_hard, loop_alone.gamma_hard);
    const Eigen::MatrixXd run_alone = runChannels(grasp);
    QVERIFY(run_alone.rows() > 100);
    QVERIFY(sameBits(run_together, run_alone));
  }
};

QTEST_APPLESS_MAIN(TestThreads)
#include "test_threads.moc"
