// Debugging a capture in the real window under a (virtual) X display (capture_rigid, run to the
// end): the Events panel holds the worker's events, filters them by kind, and a click on one moves
// the timeline to its instant; the timeline marks each event on its groove (a click on a marker
// goes to its event, a click elsewhere on the groove to that instant, not a page further), the
// arrow keys step, Home/End jump, N / Shift+N go from event to event; every plot draws the events
// and shades the intervals where an actuator is at its limit (checked against the applied torques
// at their limits); one unit per value axis; no legend over its plot's data at 1280x800 and at
// 1920x1080 (screenshots of both); a click on a legend entry hides its curve; sane ranges before
// the run; a body's description as tooltip in the 3D view; the Mission panel's metrics and requirements equal grapple-cli's summary.json number for
// number; the system's energy continuous through the grasp but for the impact's loss; the window
// sized to the screen; grapple --help/--version without a display, and exit 2 with a clear message
// when there is none. With no X display the whole test is skipped (CTest reports "Skipped").
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolTip>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <qcustomplot.h>

#include "core/sim/mission.hpp"
#include "render/scene.hpp"
#include "ui/events_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/osg_widget.hpp"
#include "ui/plot_panel.hpp"
#include "ui/requirements_panel.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

using namespace grapple;

namespace {

const QString kScenario = GRAPPLE_SOURCE_DIR "/scenarios/capture_rigid.yaml";

const std::vector<double>& column(const ui::RunHistory& h, const char* name) {
  const int c = h.find(name);
  if (c < 0) qFatal("no channel %s", name);
  return h.columns[static_cast<std::size_t>(c)];
}

}  // namespace

class TestVisualDebug : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  std::vector<core::SimulationEvent> events_;

  std::vector<ui::PlotPanel*> visiblePlots() const {
    std::vector<ui::PlotPanel*> v;
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->isVisible() && !p->visibleRegion().isEmpty()) v.push_back(p);
    }
    return v;
  }

  // The legend of every plot on screen sits outside its data area (the axis rectangle).
  void checkLegends(const QString& shot) {
    window_->tick();
    QTest::qWait(300);
    for (ui::PlotPanel* p : visiblePlots()) {
      p->plot()->replot();
      QCPLegend* legend = p->plot()->legend;
      if (!legend->visible() || legend->itemCount() == 0) continue;
      const QRect data = p->plot()->axisRect()->rect();
      const QRect box = legend->outerRect();
      qInfo("%s: data %dx%d at (%d, %d), legend %dx%d at (%d, %d)", qPrintable(p->title()), data.width(), data.height(),
            data.x(), data.y(), box.width(), box.height(), box.x(), box.y());
      QVERIFY2(!box.intersects(data), qPrintable(p->title()));
      QVERIFY2(data.height() >= 40, qPrintable(p->title()));  // the data keep room
      // Every entry inside the plot's widget.
      QVERIFY2(p->plot()->rect().contains(box), qPrintable(p->title()));
    }
    QVERIFY(window_->grab().save(shot));
  }

 private slots:
  void initTestCase() {
    QSettings().clear();
    QVERIFY(grapple::test::showMainWindow(window_));
    window_->setSpeed(0);
    QVERIFY(window_->openScenario(kScenario));
  }

  // Before the run (one instant): no axis shows a degenerate range.
  void emptyPlotsHaveSaneRanges() {
    QTest::qWait(200);
    window_->tick();
    for (ui::PlotPanel* p : visiblePlots()) {
      p->refresh();
      const QCPRange x = p->plot()->xAxis->range();
      QVERIFY2(x.size() >= 1 - 1e-12, qPrintable(p->title()));
      for (QCPAxis* axis : p->plot()->axisRect()->axes(QCPAxis::atLeft | QCPAxis::atRight)) {
        if (!axis->visible()) continue;
        const QCPRange r = axis->range();
        qInfo("%s %s: [%g, %g]", qPrintable(p->title()), qPrintable(axis->label()), r.lower, r.upper);
        QVERIFY2(r.size() >= 0.1 * std::abs(r.center()) - 1e-12 && r.size() > 1e-6, qPrintable(p->title()));
      }
    }
  }

  void runToTheEnd() {
    window_->runner()->setRunning(true);
    QElapsedTimer clock;
    clock.start();
    while (!window_->runner()->status().finished && clock.elapsed() < 600000) QTest::qWait(50);
    QTest::qWait(100);
    window_->tick();
    const ui::RunStatus st = window_->runner()->status();
    QVERIFY(st.finished);
    QCOMPARE(window_->history().rows(), st.rows);
    events_ = st.events;
    QVERIFY(events_.size() >= 4);  // window, plan, capture, attach at least
  }

  // The panel lists the run's events; the filter keeps one kind; a click moves the timeline.
  void eventsPanelListsFiltersAndSeeks() {
    ui::EventsPanel* panel = window_->events();
    QTableWidget* table = panel->table();
    QCOMPARE(table->rowCount(), static_cast<int>(events_.size()));
    for (int r = 0; r < table->rowCount(); ++r) {
      QCOMPARE(table->item(r, ui::EventsPanel::kTime)->data(Qt::UserRole).toDouble(), events_[r].time);
      QCOMPARE(table->item(r, ui::EventsPanel::kKind)->text(), QString::fromStdString(events_[r].kind));
      QCOMPARE(table->item(r, ui::EventsPanel::kDetail)->text(), QString::fromStdString(events_[r].detail));
    }
    const auto capture = std::find_if(events_.begin(), events_.end(), [](const auto& e) { return e.kind == "capture"; });
    QVERIFY(capture != events_.end());
    QVERIFY(panel->filterBox()->findData("capture") >= 0);
    panel->filterBox()->setCurrentIndex(panel->filterBox()->findData("capture"));
    QCOMPARE(table->rowCount(), 1);
    window_->timeline()->setRow(0);
    const QRect cell = table->visualItemRect(table->item(0, ui::EventsPanel::kKind));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(window_->timeline()->time(), capture->time);
    panel->setFilter({});
    QCOMPARE(table->rowCount(), static_cast<int>(events_.size()));
  }

  // Markers on the groove in their kind's colour; clicks and keys move the timeline.
  void timelineMarkersClicksAndKeys() {
    ui::Timeline* tl = window_->timeline();
    QCOMPARE(tl->markers().size(), events_.size());
    for (std::size_t k = 0; k < events_.size(); ++k) {
      QCOMPARE(tl->markers()[k].time, events_[k].time);
      QCOMPARE(tl->markers()[k].color, ui::eventColor(events_[k].kind));
    }
    QSlider* slider = tl->slider();
    const int y = slider->height() / 2;
    // The plan's marker (alone at its instant): a click on it goes to its event.
    const auto plan = std::find_if(events_.begin(), events_.end(), [](const auto& e) { return e.kind == "plan"; });
    QVERIFY(plan != events_.end());
    tl->setRow(0);
    QTest::mouseClick(slider, Qt::LeftButton, {}, QPoint(tl->markerX(plan->time), y));
    QCOMPARE(tl->time(), plan->time);
    // Elsewhere on the groove: that instant (the handle's centre there), not a page step.
    const int rows = window_->history().rows();
    tl->setRow(0);
    const int x = tl->markerX(0.75 * window_->history().columns[0].back());
    QTest::mouseClick(slider, Qt::LeftButton, {}, QPoint(x, y));
    qInfo("click at 75 %%: row %d of %d", tl->row(), rows);
    QVERIFY(std::abs(tl->row() - int(0.75 * (rows - 1))) <= rows / 100 + 1);
    // Keys, the slider having the focus.
    slider->setFocus();
    const int at = tl->row();
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(tl->row(), at + 1);
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(tl->row(), at);
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(tl->row(), 0);
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(tl->row(), rows - 1);
    // From event to event (distinct instants; the grasp and the attachment share one).
    QTest::keyClick(slider, Qt::Key_Home);
    std::vector<double> instants;
    for (const auto& e : events_) {
      if (e.time > 0 && (instants.empty() || e.time > instants.back())) instants.push_back(e.time);
    }
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    for (double t : instants) {
      QTest::keyClick(window_.get(), Qt::Key_N);
      QCOMPARE(tl->time(), t);
    }
    for (auto it = instants.rbegin() + 1; it != instants.rend(); ++it) {
      QTest::keyClick(window_.get(), Qt::Key_N, Qt::ShiftModifier);
      QCOMPARE(tl->time(), *it);
    }
  }

  // Event lines on every plot; the shaded intervals are where the applied torques sit at their
  // limits (the bus' 5 N m per axis, each joint's effort limit), computed here from those channels.
  void plotsShowEventsAndLimits() {
    const ui::RunHistory& h = window_->history();
    const auto& t = column(h, "time");
    const auto& n = column(h, "limits.saturated");
    const core::Model& model = window_->runner()->model();
    std::vector<std::pair<const std::vector<double>*, double>> limited;
    for (const char* c : {"base.tx", "base.ty", "base.tz"}) limited.push_back({&column(h, c), 5.0});
    for (int b = 1; b < model.nbodies; ++b) {
      const core::Joint& j = model.joint[b];
      if (j.nv == 1 && std::isfinite(model.effort_limit[j.idx_v])) {
        limited.push_back({&column(h, ("joint." + j.name + ".torque").c_str()), model.effort_limit[j.idx_v]});
      }
    }
    int saturated_rows = 0, intervals = 0;
    for (std::size_t r = 0; r < t.size(); ++r) {
      const bool at_limit = std::any_of(limited.begin(), limited.end(), [&](const auto& l) {
        return std::abs((*l.first)[r]) >= l.second * (1 - 1e-9);
      });
      QCOMPARE(n[r] > 0, at_limit);
      saturated_rows += at_limit;
      intervals += at_limit && (r == 0 || !(n[r - 1] > 0));
    }
    qInfo("%d rows at a limit in %d intervals", saturated_rows, intervals);
    QVERIFY(intervals > 0);
    QCOMPARE(static_cast<int>(window_->saturatedIntervals().size()), intervals);
    double covered = 0;
    for (const auto& [a, b] : window_->saturatedIntervals()) covered += b - a;
    QVERIFY(std::abs(covered - saturated_rows * (t[1] - t[0])) < 1e-9 * t.back());
    for (ui::PlotPanel* p : window_->plots()) {
      QCOMPARE(p->eventLineCount(), static_cast<int>(events_.size()));
      QCOMPARE(p->shadedCount(), intervals);
    }
  }

  // One physical unit per value axis, labelled with it.
  void oneUnitPerAxis() {
    for (ui::PlotPanel* p : window_->plots()) {
      std::map<QCPAxis*, QString> unit_of;
      for (const std::string& name : p->shownChannels()) {
        const ui::RunHistory& h = window_->history();
        const QString unit = QString::fromStdString(h.channels[static_cast<std::size_t>(h.find(name))].unit);
        QCPAxis* axis = p->axisOf(name);
        QVERIFY(axis != nullptr);
        QCOMPARE(axis->label(), "[" + unit + "]");
        QVERIFY(axis->visible());
        const auto [it, added] = unit_of.emplace(axis, unit);
        QCOMPARE(it->second, unit);
      }
      std::set<QString> units;
      for (const auto& [axis, unit] : unit_of) QVERIFY2(units.insert(unit).second, qPrintable(p->title()));  // one axis per unit
    }
    ui::PlotPanel* tracking = window_->plots()[1];
    QCOMPARE(tracking->title(), QString("Tracking error"));
    QVERIFY(tracking->axisOf("plan.ee_error") != tracking->axisOf("joint.joint1.error"));  // m and rad apart
  }

  // A click on a legend entry hides its curve (and the axis range forgets it), a second shows it;
  // the hover text gives the values of the instant under the mouse.
  void legendHidesCurvesAndHoverShowsValues() {
    ui::PlotPanel* energy = window_->plots().front();
    QCOMPARE(energy->title(), QString("Energy"));
    energy->refresh();
    energy->plot()->replot();
    QCPGraph* graph = nullptr;
    for (int g = 0; g < energy->plot()->graphCount(); ++g) {
      if (energy->plot()->graph(g)->name() == "energy.system [J]") graph = energy->plot()->graph(g);
    }
    QVERIFY(graph != nullptr);
    QCPAbstractLegendItem* entry = energy->plot()->legend->itemWithPlottable(graph);
    QVERIFY(entry != nullptr);
    QVERIFY(graph->visible());
    QTest::mouseClick(energy->plot(), Qt::LeftButton, {}, entry->outerRect().center());
    QVERIFY(!graph->visible());
    QVERIFY(!energy->valuesAt(10).contains("energy.system"));
    QTest::mouseClick(energy->plot(), Qt::LeftButton, {}, entry->outerRect().center());
    QVERIFY(graph->visible());
    const ui::RunHistory& h = window_->history();
    const auto& t = column(h, "time");
    const std::size_t r = t.size() / 3;
    const QString text = energy->valuesAt(t[r] + 0.2 * (t[1] - t[0]));  // the nearest instant
    QVERIFY(text.startsWith(QString("t = %1 s").arg(t[r], 0, 'f', 3)));
    QVERIFY(text.contains(QString("energy.system = %1 J").arg(column(h, "energy.system")[r], 0, 'g', 6)));
  }

  void legendsNeverCoverData() {
    checkLegends(GRAPPLE_BINARY_DIR "/test_visual_debug_1280x800.png");
    window_->resize(1920, 1080);
    QTest::qWait(300);
    checkLegends(GRAPPLE_BINARY_DIR "/test_visual_debug_1920x1080.png");
    window_->resize(1280, 800);
    QTest::qWait(200);
  }

  // The Mission panel's numbers are summary.json's (grapple-cli run of the same scenario).
  void missionPanelEqualsSummaryJson() {
    QTemporaryDir dir;
    QProcess cli;
    cli.start(GRAPPLE_BINARY_DIR "/app/grapple-cli", {"run", kScenario, "--out", dir.path(), "--quiet"});
    QVERIFY(cli.waitForFinished(600000));
    QCOMPARE(cli.exitCode(), 0);
    QFile f(dir.filePath("summary.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject metrics = QJsonDocument::fromJson(f.readAll()).object()["metrics"].toObject();
    QTableWidget* table = window_->requirements()->metricsTable();
    QVERIFY(table->rowCount() >= 20);
    QStringList keys;
    for (int r = 0; r < table->rowCount(); ++r) {
      const QString key = table->item(r, 0)->text();
      const double value = table->item(r, 1)->data(Qt::UserRole).toDouble();
      QVERIFY2(metrics.contains(key), qPrintable(key));
      if (std::isnan(value)) {
        QVERIFY2(metrics[key].isNull(), qPrintable(key));
      } else {
        QCOMPARE(metrics[key].toDouble(), value);  // the shortest round-trip form in the JSON: bit for bit
      }
      keys << key;
    }
    // Every number summary.json's metrics hold is in the panel.
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
      if (it.value().isDouble() || it.value().isNull()) QVERIFY2(keys.contains(it.key()), qPrintable(it.key()));
    }
    const QJsonArray reqs = metrics["requirements"].toArray();
    QTableWidget* req = window_->requirements()->table();
    QCOMPARE(req->rowCount(), reqs.size());
    for (int r = 0; r < req->rowCount(); ++r) {
      const QJsonObject o = reqs[r].toObject();
      QCOMPARE(req->item(r, ui::RequirementsPanel::kName)->text(), o["requirement"].toString());
      QCOMPARE(req->item(r, ui::RequirementsPanel::kLimit)->data(Qt::UserRole).toDouble(), o["limit"].toDouble());
      QCOMPARE(req->item(r, ui::RequirementsPanel::kWorst)->data(Qt::UserRole).toDouble(), o["worst"].toDouble());
      QCOMPARE(req->item(r, ui::RequirementsPanel::kStatus)->text(), o["met"].toBool() ? QString("met") : QString("violated"));
      // "Go to worst" on the selected row: the timeline at its worst value's instant.
      req->setCurrentCell(r, ui::RequirementsPanel::kName);
      QTest::mouseClick(window_->requirements()->worstButton(), Qt::LeftButton);
      QCOMPARE(window_->timeline()->time(), o["worst_time_s"].toDouble());
    }
    QCOMPARE(window_->outcomeLabel()->text(), metrics["outcome"].toString());
  }

  // The system's energy through the grasp: it drops by the impact's loss (the CLI's
  // capture_energy_lost_J) plus the actuators' work over that recording interval, nothing else;
  // the integrated body's total jumps by the debris' energy.
  void systemEnergyContinuousAtTheGrasp() {
    const ui::RunHistory& h = window_->history();
    const auto attach = std::find_if(events_.begin(), events_.end(), [](const auto& e) { return e.kind == "attach"; });
    QVERIFY(attach != events_.end());
    const auto& t = column(h, "time");
    const auto k = static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), attach->time - 1e-9) - t.begin());
    const auto &sys = column(h, "energy.system"), &loss = column(h, "energy.impact_loss"),
               &w_in = column(h, "energy.input_work"), &w_ext = column(h, "energy.external_work"),
               &w_diss = column(h, "energy.dissipated"), &total = column(h, "energy.total"), &debris = column(h, "energy.debris");
    const double work = (w_in[k + 1] - w_in[k]) + (w_ext[k + 1] - w_ext[k]) - (w_diss[k + 1] - w_diss[k]);
    const double jump = sys[k + 1] - sys[k];
    qInfo("grasp at t = %.2f s: system %.6f -> %.6f J, impact loss %.6f J, work over the interval %.2e J; "
          "the integrated body's total %.6f -> %.6f J (debris %.6f J)", t[k], sys[k], sys[k + 1], loss[k + 1], work,
          total[k], total[k + 1], debris[k]);
    QVERIFY(loss[k] == 0 && loss[k + 1] > 0);
    QVERIFY(std::abs(jump - (work - loss[k + 1])) < 1e-3 * (loss[k + 1] + std::abs(work)) + 1e-9);
    QVERIFY(std::abs(total[k + 1] - total[k]) > 0.5 * debris[k]);  // what the engineer saw jump
  }

  // Hovering a body in the 3D view: its description as tooltip (the click's, describeAt).
  void bodyTooltipInTheView() {
    ui::OsgWidget* view = window_->view();
    QPoint on_body;
    QString expected;
    for (int y = view->height() / 8; y < view->height() && expected.isEmpty(); y += view->height() / 16) {
      for (int x = view->width() / 8; x < view->width() && expected.isEmpty(); x += view->width() / 16) {
        expected = view->describeAt(QPoint(x, y));
        on_body = QPoint(x, y);
      }
    }
    QVERIFY(!expected.isEmpty());
    QHelpEvent help(QEvent::ToolTip, on_body, view->mapToGlobal(on_body));
    QApplication::sendEvent(view, &help);
    QTRY_COMPARE(QToolTip::text(), expected);
    QToolTip::hideText();
  }

  // The capture plan in the 3D view, followed from the hand half-way through the plan: the path
  // drawn in the colours of its margins (pixels of those colours on screen), gone when its entry
  // of View > Show is unchecked; the window and trail entries switch the scene's options.
  void planInTheView() {
    double start = NAN, meeting = NAN;
    for (const auto& e : events_) {
      if (e.kind == "plan") start = e.time;
    }
    meeting = window_->runner()->status().planned_capture;
    QVERIFY(start > 0 && meeting > start);
    window_->view()->setCameraPreset(ui::OsgWidget::CameraPreset::kFollowEndEffector);
    const auto& t = column(window_->history(), "time");
    const int row = int(std::lower_bound(t.begin(), t.begin() + window_->history().rows(), start + 2) - t.begin());
    window_->timeline()->setRow(row);
    window_->tick();
    for (int k = 0; k < 4; ++k) {  // closer, as a user would with the wheel
      QWheelEvent wheel(QPointF(window_->view()->rect().center()), QPointF(window_->view()->mapToGlobal(window_->view()->rect().center())),
                        QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(window_->view(), &wheel);
      window_->tick();
      QCoreApplication::processEvents();
    }
    auto grabView = [&] {
      window_->tick();
      QCoreApplication::processEvents();
      return window_->view()->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    };
    // Pixels that the plan's toggle changes and that are, with the plan, in a colour of its
    // margin scale (red to green).
    auto planPixels = [](const QImage& on, const QImage& off) {
      std::vector<QColor> scale;
      for (double m = -0.05; m <= render::kMarginGood + 1e-9; m += 0.025) {
        const auto c = render::marginColor(m);
        scale.emplace_back(QColor::fromRgbF(c[0], c[1], c[2]));
      }
      int n = 0;
      for (int y = 0; y < on.height(); ++y) {
        const QRgb* a = reinterpret_cast<const QRgb*>(on.constScanLine(y));
        const QRgb* b = reinterpret_cast<const QRgb*>(off.constScanLine(y));
        for (int x = 0; x < on.width(); ++x) {
          if (a[x] == b[x]) continue;
          for (const QColor& c : scale) {
            if (std::abs(qRed(a[x]) - c.red()) + std::abs(qGreen(a[x]) - c.green()) + std::abs(qBlue(a[x]) - c.blue()) < 40) {
              ++n;
              break;
            }
          }
        }
      }
      return n;
    };
    QMenu* show = nullptr;
    for (QMenu* m : window_->findChildren<QMenu*>()) {
      if (m->title() == "&Show") show = m;
    }
    QVERIFY(show != nullptr);
    std::map<QString, QAction*> toggles;
    for (QAction* a : show->actions()) toggles[a->text()] = a;
    QAction* plan = nullptr;
    QAction* window = nullptr;
    QAction* trail = nullptr;
    for (const auto& [text, a] : toggles) {
      if (text.startsWith("Capture plan")) plan = a;
      if (text.startsWith("Capture window")) window = a;
      if (text.startsWith("Bus axes")) trail = a;
    }
    QVERIFY(plan && window && trail);
    QVERIFY(plan->isChecked() && window->isChecked() && trail->isChecked());
    const QImage on = grabView();
    QVERIFY(on.save(GRAPPLE_BINARY_DIR "/test_visual_debug_plan_view.png"));
    // The same instant as a picture for a report (File > Export view image: off-screen, the view's camera).
    QVERIFY(window_->exportViewImage(GRAPPLE_BINARY_DIR "/test_visual_debug_plan.png", 1280, 720, true));
    plan->trigger();
    QVERIFY(!window_->scene()->options().plan);
    const QImage off = grabView();
    const int drawn = planPixels(on, off);
    qInfo("pixels of the plan in its margin colours: %d", drawn);
    QVERIFY(drawn > 100);
    plan->trigger();
    window->trigger();
    trail->trigger();
    QVERIFY(window_->scene()->options().plan && !window_->scene()->options().window && !window_->scene()->options().trail);
    window->trigger();
    trail->trigger();
    QVERIFY(window_->scene()->options().window && window_->scene()->options().trail);
    window_->view()->setCameraPreset(ui::OsgWidget::CameraPreset::kWholeScene);
  }

  // The default window: 90 % of the screen's available area.
  void windowFitsTheScreen() {
    ui::MainWindow fresh;
    QSettings().remove("window/geometry");
    fresh.fitToScreen();
    const QRect area = fresh.screen()->availableGeometry();
    qInfo("screen %dx%d, window %dx%d, minimum %dx%d", area.width(), area.height(), fresh.width(), fresh.height(),
          fresh.minimumSizeHint().width(), fresh.minimumSizeHint().height());
    QVERIFY(fresh.width() >= area.width() * 85 / 100 && fresh.width() <= area.width());
    QVERIFY(fresh.height() >= area.height() * 85 / 100 && fresh.height() <= area.height());
    // The layout fits a 1280x800 screen.
    QVERIFY(window_->minimumSizeHint().width() <= 1280);
    QVERIFY(window_->minimumSizeHint().height() <= 800);
  }

  // No display needed for --help and --version; none at all: a clear message and exit 2.
  void commandLineWithoutDisplay() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(v);
    auto run = [&](const QStringList& args, int& code, QString& out, QString& err) {
      QProcess p;
      p.setProcessEnvironment(env);
      p.start(GRAPPLE_BINARY_DIR "/app/grapple", args);
      QVERIFY(p.waitForFinished(60000));
      code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
      out = QString::fromLocal8Bit(p.readAllStandardOutput());
      err = QString::fromLocal8Bit(p.readAllStandardError());
    };
    int code = 0;
    QString out, err;
    run({"--help"}, code, out, err);
    QCOMPARE(code, 0);
    QVERIFY(out.contains("usage: grapple"));
    run({"--version"}, code, out, err);
    QCOMPARE(code, 0);
    QVERIFY(out.startsWith("grapple 0."));
    run({}, code, out, err);
    QCOMPARE(code, 2);
    QVERIFY(err.contains("no display"));
    QVERIFY(err.contains("grapple-cli video"));
  }

  // --set and --compare read key=value as grapple-cli does (core::parseOverride): a value without
  // '=' is a usage error (exit 2) naming the option, before any window opens.
  void setWithoutValueIsAUsageError() {
    for (const char* option : {"--set", "--compare"}) {
      QProcess p;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("QT_QPA_PLATFORM", "offscreen");
      p.setProcessEnvironment(env);
      p.start(GRAPPLE_BINARY_DIR "/app/grapple", {option, "run.duration"});
      QVERIFY(p.waitForFinished(60000));
      QCOMPARE(p.exitStatus(), QProcess::NormalExit);
      QCOMPARE(p.exitCode(), 2);
      const QString err = QString::fromLocal8Bit(p.readAllStandardError());
      QVERIFY2(err.contains(QString(option) + " expects key=value, got 'run.duration'"), qPrintable(err));
    }
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestVisualDebug, "test_visual_debug")
#include "test_visual_debug.moc"
