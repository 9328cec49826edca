// The GUI's worker (SimRunner): its run is bit-identical to the CLI's (Simulation::run on the same
// scenario and settings), single steps advance one recording interval, and paced runs never get
// ahead of the wall clock times the speed. No display needed.
#include <QtTest>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"
#include "ui/sim_runner.hpp"

using namespace grapple;

namespace {

const std::string kScenarios = GRAPPLE_SOURCE_DIR "/scenarios/";

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

class TestSimRunner : public QObject {
  Q_OBJECT
 private slots:
  void runIsBitIdenticalToTheCli_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("duration");
    QTest::newRow("grasp_rigid (capture controller)") << "grasp_rigid.yaml" << "6";
    QTest::newRow("capture_flexible (30 DOF, quasi_static)") << "capture_flexible.yaml" << "1.5";
  }
  void runIsBitIdenticalToTheCli() {
    QFETCH(QString, file);
    QFETCH(QString, duration);
    const std::vector<std::pair<std::string, std::string>> set = {{"run.duration", duration.toStdString()}};
    const core::LoadedScenario loaded = core::loadScenario(kScenarios + file.toStdString(), set);

    core::Simulation cli(loaded.scenario, loaded.model);  // what grapple-cli run does
    cli.run();

    ui::SimRunner runner(loaded);
    runner.setSpeed(0);  // as fast as possible
    runner.setRunning(true);
    QVERIFY(runner.waitUntil(cli.time(), 300));
    QTRY_VERIFY_WITH_TIMEOUT(runner.status().finished, 10000);
    const core::Recorder& r = cli.recorder();
    QCOMPARE(runner.rows(), r.rows());
    std::vector<std::vector<double>> columns;
    QCOMPARE(runner.takeRows(columns), r.rows());
    QCOMPARE(runner.takeRows(columns), r.rows());  // taken once
    QCOMPARE(static_cast<int>(columns.size()), r.channels());
    for (int c = 0; c < r.channels(); ++c) {
      for (int k = 0; k < r.rows(); ++k) {
        if (!sameBits(columns[c][k], r.at(k, c))) {
          QFAIL(qPrintable(QString("%1 differs at row %2: %3 vs %4")
                               .arg(QString::fromStdString(r.info(c).name))
                               .arg(k)
                               .arg(columns[c][k], 0, 'g', 17)
                               .arg(r.at(k, c), 0, 'g', 17)));
        }
      }
    }
    // The last snapshot holds the final state exactly.
    const render::Snapshot s = runner.snapshot(runner.rows() - 1);
    QCOMPARE(s.q.size(), cli.q().size());
    for (int k = 0; k < s.q.size(); ++k) QVERIFY(sameBits(s.q[k], cli.q()[k]));
  }

  void stepAdvancesOneRecordingInterval() {
    const core::LoadedScenario loaded = core::loadScenario(kScenarios + "grasp_rigid.yaml");
    ui::SimRunner runner(loaded);
    QCOMPARE(runner.rows(), 1);  // the initial instant
    runner.stepOnce();
    runner.stepOnce();
    QTRY_COMPARE_WITH_TIMEOUT(runner.rows(), 3, 10000);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    QCOMPARE(runner.rows(), 3);  // and no further: it is paused
    const double dt = 1.0 / loaded.scenario.run.record_rate;
    QVERIFY(std::abs(runner.status().time - 2 * dt) < 1e-12);
    QVERIFY(!runner.status().running);
    // Scrubbing reads any recorded instant: row 1 is at dt.
    QVERIFY(std::abs(runner.snapshot(1).time - dt) < 1e-12);
  }

  void runUntilPausesThere() {
    const core::LoadedScenario loaded = core::loadScenario(kScenarios + "grasp_rigid.yaml");
    ui::SimRunner runner(loaded);
    runner.setSpeed(0);
    runner.runUntil(1.0);
    QTRY_VERIFY_WITH_TIMEOUT(runner.status().time >= 1.0 && !runner.status().running, 30000);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    QCOMPARE(runner.rows(), 51);
    QCOMPARE(runner.status().time, 1.0);
  }

  void pacedRunFollowsTheWallClock() {
    const core::LoadedScenario loaded = core::loadScenario(kScenarios + "grasp_rigid.yaml");
    ui::SimRunner runner(loaded);
    runner.setSpeed(2.0);
    const auto start = std::chrono::steady_clock::now();
    runner.setRunning(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double t = runner.status().time;
    runner.setRunning(false);
    // Never ahead of 2 x wall time (plus one recording interval); not stalled either.
    QVERIFY2(t <= 2.0 * wall + 1.0 / loaded.scenario.run.record_rate + 1e-9, qPrintable(QString::number(t)));
    QVERIFY2(t >= 0.5, qPrintable(QString::number(t)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int rows = runner.rows();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    QCOMPARE(runner.rows(), rows);  // paused means paused
  }
};

QTEST_GUILESS_MAIN(TestSimRunner)
#include "test_sim_runner.moc"
