// The mission's outcome in the real window under a (virtual) X display: the status bar's outcome
// and the Requirements panel equal core::missionMetrics of a headless Simulation of the same
// scenario (bit-identical to the app's run), paused half-way ("running", the requirements so far)
// and at the end (capture_rigid: captured, every requirement met); with the bus attitude
// requirement tightened to 1e-6 deg the run is captured_out_of_spec, its row is violated, "Go to
// first violation" moves the timeline to the first violation's instant and a double-click on the
// row to its worst value's. With no X display the whole test is skipped (CTest reports "Skipped").
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <cmath>
#include <memory>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/mission.hpp"
#include "ui/main_window.hpp"
#include "ui/requirements_panel.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

using namespace grapple;

namespace {

const QString kScenario = GRAPPLE_SOURCE_DIR "/scenarios/capture_rigid.yaml";
using Overrides = std::vector<std::pair<std::string, std::string>>;

// What grapple-cli run does, stepped to `until` (the end if infinite): the metrics of that run.
core::MissionMetrics headless(const Overrides& set, double until = INFINITY) {
  const core::LoadedScenario loaded = core::loadScenario(kScenario.toStdString(), set);
  core::Simulation sim(loaded.scenario, loaded.model);
  while (!sim.finished() && sim.time() < until - 1e-12) sim.step();
  return core::missionMetrics(sim);
}

QString name(core::Outcome o) { return QString::fromUtf8(core::outcomeName(o).data(), int(core::outcomeName(o).size())); }

}  // namespace

class TestMissionUi : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  ui::RequirementsPanel* panel_ = nullptr;

  // Runs the open scenario to `t` (the end if infinite) and lets the window show it.
  bool runTo(double t) {
    ui::SimRunner* r = window_->runner();
    if (std::isinf(t)) {
      r->setRunning(true);
    } else {
      r->runUntil(t);
    }
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 600000) {
      const ui::RunStatus st = r->status();
      if (st.finished || (!st.running && st.time >= t - 1e-9)) break;
      QTest::qWait(20);
    }
    window_->tick();
    const ui::RunStatus st = r->status();
    return st.mission_time == st.time && (std::isinf(t) ? st.finished : !st.finished && st.time >= t - 1e-9);
  }

  // The panel's table holds exactly `m`'s requirements (the numbers bit for bit).
  void compareTable(const core::MissionMetrics& m) {
    QTableWidget* table = panel_->table();
    QCOMPARE(table->rowCount(), static_cast<int>(m.requirements.size()));
    for (int r = 0; r < table->rowCount(); ++r) {
      const core::RequirementCheck& c = m.requirements[r];
      QCOMPARE(table->item(r, ui::RequirementsPanel::kName)->text(), QString::fromStdString(c.requirement));
      QCOMPARE(table->item(r, ui::RequirementsPanel::kLimit)->data(Qt::UserRole).toDouble(), c.limit);
      QVERIFY(table->item(r, ui::RequirementsPanel::kLimit)->text().endsWith(" " + QString::fromStdString(c.unit)));
      QCOMPARE(table->item(r, ui::RequirementsPanel::kWorst)->data(Qt::UserRole).toDouble(), c.worst);
      QCOMPARE(table->item(r, ui::RequirementsPanel::kStatus)->text(), c.met ? QString("met") : QString("violated"));
      const double first = table->item(r, ui::RequirementsPanel::kFirst)->data(Qt::UserRole).toDouble();
      if (c.met) {
        QVERIFY(std::isnan(first));
      } else {
        QCOMPARE(first, c.first_time);
      }
    }
  }

  int rowOf(const QString& requirement) const {
    for (int r = 0; r < panel_->table()->rowCount(); ++r) {
      if (panel_->table()->item(r, ui::RequirementsPanel::kName)->text() == requirement) return r;
    }
    return -1;
  }

 private slots:
  void initTestCase() {
    QSettings().clear();
    QVERIFY(grapple::test::showMainWindow(window_));
    window_->setSpeed(0);  // as fast as possible
    QVERIFY(window_->openScenario(kScenario));
    panel_ = window_->requirements();
    QVERIFY(panel_ != nullptr);
    QVERIFY(panel_->isVisible());  // in the scenario summary, in front by default
  }

  // Paused half-way: "running" (no colour), the requirements so far as the headless run's at the
  // same instant; at the end: captured, every requirement met, the button disabled.
  void capturedRunEqualsHeadless() {
    QCOMPARE(window_->outcomeLabel()->text(), QString("running"));
    QVERIFY(runTo(30.0));
    QCOMPARE(window_->outcomeLabel()->text(), QString("running"));
    compareTable(headless({}, 30.0));

    QVERIFY(runTo(INFINITY));
    const core::MissionMetrics m = headless({});
    QCOMPARE(m.outcome, core::Outcome::kCaptured);
    QCOMPARE(window_->outcomeLabel()->text(), name(m.outcome));
    QCOMPARE(window_->outcomeLabel()->toolTip(), QString::fromStdString(m.outcome_reason));
    QVERIFY(window_->outcomeLabel()->styleSheet().contains(ui::outcomeColor(m.outcome).name()));
    QCOMPARE(static_cast<int>(m.requirements.size()), 4);
    compareTable(m);
    QVERIFY(!panel_->firstViolationButton()->isEnabled());
  }

  // The bus attitude requirement tightened: out of spec, the row violated, the button and a
  // double-click move the timeline.
  void violationMovesTheTimeline() {
    const Overrides set = {{"requirements.bus_attitude_deg", "1e-6"}};
    window_->setOverrides(set);
    QVERIFY(window_->openScenario(kScenario));
    // A new run: the previous outcome is gone.
    QCOMPARE(window_->outcomeLabel()->text(), QString("running"));
    QCOMPARE(panel_->table()->item(0, ui::RequirementsPanel::kWorst)->data(Qt::UserRole).toDouble(), 0.0);
    QVERIFY(runTo(INFINITY));
    const core::MissionMetrics m = headless(set);
    QCOMPARE(m.outcome, core::Outcome::kCapturedOutOfSpec);
    QCOMPARE(window_->outcomeLabel()->text(), QString("captured_out_of_spec"));
    QCOMPARE(window_->outcomeLabel()->toolTip(), QString::fromStdString(m.outcome_reason));
    compareTable(m);
    const int row = rowOf("bus_attitude");
    QVERIFY(row >= 0);
    const core::RequirementCheck& bus = m.requirements[row];
    QVERIFY(!bus.met);
    QVERIFY(bus.first_time < bus.worst_time);  // so the two moves below are told apart
    double first = INFINITY;
    for (const core::Violation& v : m.violations) first = std::min(first, v.first_time);
    QCOMPARE(first, bus.first_time);

    QPushButton* go = panel_->firstViolationButton();
    QVERIFY(go->isEnabled());
    window_->timeline()->setRow(window_->runner()->rows() - 1);
    QTest::mouseClick(go, Qt::LeftButton);
    QCOMPARE(window_->timeline()->time(), bus.first_time);
    QVERIFY(!window_->timeline()->live());

    QTableWidget* table = panel_->table();
    table->scrollToItem(table->item(row, ui::RequirementsPanel::kName));
    const QRect cell = table->visualItemRect(table->item(row, ui::RequirementsPanel::kName));
    QVERIFY(table->viewport()->rect().contains(cell.center()));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());  // the press a double-click follows
    QCOMPARE(window_->timeline()->time(), bus.first_time);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(window_->timeline()->time(), bus.worst_time);
    QTest::mouseClick(go, Qt::LeftButton);
    QCOMPARE(window_->timeline()->time(), bus.first_time);

    QTest::qWait(200);
    window_->tick();
    QVERIFY(window_->grab().save(GRAPPLE_BINARY_DIR "/test_mission_ui.png"));
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestMissionUi, "test_mission_ui")
#include "test_mission_ui.moc"
