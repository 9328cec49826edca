// The Campaign panel in the real window under a (virtual) X display: a campaign run from the panel
// on the local engine (progress to the end, then its results merged and shown), cancelled midway
// (the finished runs kept, the stop reported); the scatter has one point per run with the outcome
// of runs.csv, the heat map's cells are the success rates computed here from runs.csv, the
// histogram counts every value; a click on a point re-runs that run in the main window, and the
// run shown there is bit-identical to the campaign's (its closest hand-to-grasp-point distance
// and grasp time equal its summary's). A screenshot goes to the build folder.
// With no X display the whole test is skipped (CTest reports "Skipped").
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <QDockWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <qcustomplot.h>
#include <yaml-cpp/yaml.h>

#include "ui/campaign_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/sim_runner.hpp"

using namespace grapple;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

}  // namespace

class TestCampaignPanel : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  std::unique_ptr<ui::MainWindow> window_;
  QString file_, out_;
  ui::CampaignPanel* panel() const { return window_->campaign(); }

 private slots:
  void initTestCase() {
    QVERIFY(grapple::test::showMainWindow(window_, 1400, 900));
    auto* dock = window_->findChild<QDockWidget*>("dock:campaign");
    QVERIFY(dock);
    dock->show();  // closed by default: View > Panels > Campaign
    dock->raise();
    panel()->setCli(GRAPPLE_BINARY_DIR "/app/grapple-cli");
    // The rigid capture: its debris rate scaled x the grasp point moved; 6 runs.
    file_ = tmp_.filePath("campaign.yaml");
    std::ofstream(file_.toStdString()) << "format: 1\nname: panel\nscenario: " << kSource << "/scenarios/capture_rigid.yaml\n"
                                       << "seed: 3\ngrid:\n"
                                          "  - {key: debris.initial.rate_deg_s, name: rate_factor, values: [0.8, 1.0, 1.4], apply: multiply}\n"
                                          "  - {key: \"debris.target[0]\", values: [-0.01, 0.01]}\n";
    out_ = tmp_.filePath("out");
  }

  void RunFromThePanel_ProgressToTheEnd() {
    QSignalSpy finished(panel(), &ui::CampaignPanel::campaignFinished);
    QVERIFY2(panel()->startCampaign(file_, out_), qPrintable(panel()->lastError()));
    QVERIFY(panel()->running());
    QVERIFY(finished.wait(300000));
    QCOMPARE(finished.takeFirst().at(0).toInt(), 0);
    QCOMPARE(panel()->progressValue(), 6);
    QCOMPARE(static_cast<int>(panel()->table().rows.size()), 6);
    QVERIFY2(panel()->summaryText().contains("6 of 6 runs done"), qPrintable(panel()->summaryText()));
    QCOMPARE(panel()->valueColumns(), QStringList({"rate_factor", "debris.target[0]"}));
    QVERIFY(panel()->metricColumns().contains("min_ee_target_distance_m"));
  }

  void Cancel_KeepsTheFinishedRuns() {
    const QString out = tmp_.filePath("cancelled");
    QSignalSpy finished(panel(), &ui::CampaignPanel::campaignFinished);
    QVERIFY(panel()->startCampaign(file_, out));
    panel()->cancel();
    QVERIFY(finished.wait(60000));
    QVERIFY(finished.takeFirst().at(0).toInt() != 0);
    QVERIFY(panel()->summaryText().contains("of 6 runs done"));
    QVERIFY(!panel()->running());
    QVERIFY(panel()->openFolder(out_));  // back to the complete one
  }

  void Plots_MatchRunsCsv() {
    const ui::CampaignTable& t = panel()->table();
    const int outcome = t.column("outcome"), rate = t.column("rate_factor"), target = t.column("debris.target[0]");
    // Scatter of the outcome against the rate: one point per run, in its outcome's graph.
    panel()->setPlot(ui::CampaignPanel::PlotKind::kScatter, "rate_factor", "", "outcome");
    int points = 0;
    std::map<long, std::string> outcome_of;
    for (const auto& row : t.rows) outcome_of[std::atol(row[0].c_str())] = row[static_cast<std::size_t>(outcome)];
    for (int g = 0; g < panel()->plot()->graphCount(); ++g) {
      const QCPGraph* graph = panel()->plot()->graph(g);
      points += graph->dataCount();
      for (long run : panel()->pointRuns()[static_cast<std::size_t>(g)]) QCOMPARE(QString::fromStdString(outcome_of[run]), graph->name());
    }
    QCOMPARE(points, 6);
    // Heat map of the success rate over (rate, target): each cell is one run here (2 x 3 grid).
    panel()->setPlot(ui::CampaignPanel::PlotKind::kHeatMap, "rate_factor", "debris.target[0]", "outcome");
    QCPColorMap* map = nullptr;
    for (int k = 0; k < panel()->plot()->plottableCount(); ++k) map = map ? map : qobject_cast<QCPColorMap*>(panel()->plot()->plottable(k));
    QVERIFY(map);
    QCOMPARE(map->data()->keySize(), 3);
    QCOMPARE(map->data()->valueSize(), 2);
    const std::vector<double> rates = {0.8, 1.0, 1.4}, targets = {-0.01, 0.01};
    for (const auto& row : t.rows) {
      const auto i = std::find(rates.begin(), rates.end(), std::stod(row[static_cast<std::size_t>(rate)])) - rates.begin();
      const auto j = std::find(targets.begin(), targets.end(), std::stod(row[static_cast<std::size_t>(target)])) - targets.begin();
      QCOMPARE(map->data()->cell(static_cast<int>(i), static_cast<int>(j)), row[static_cast<std::size_t>(outcome)] == "captured" ? 1.0 : 0.0);
    }
    // Histogram of a metric: every run with a value counted once.
    panel()->setPlot(ui::CampaignPanel::PlotKind::kHistogram, "rate_factor", "", "min_ee_target_distance_m");
    auto* bars = qobject_cast<QCPBars*>(panel()->plot()->plottable(0));
    QVERIFY(bars);
    double total = 0;
    for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it) total += it->value;
    QCOMPARE(total, 6.0);
  }

  // A click on a point runs it again in the window: the same run, bit for bit.
  void ClickAPoint_RerunsItBitIdentical() {
    panel()->setPlot(ui::CampaignPanel::PlotKind::kScatter, "rate_factor", "", "min_ee_target_distance_m");
    QCustomPlot* plot = panel()->plot();
    plot->replot();
    QCPGraph* graph = nullptr;
    for (int g = 0; g < plot->graphCount() && !graph; ++g) {
      if (plot->graph(g)->dataCount() > 0) graph = plot->graph(g);
    }
    QVERIFY(graph);
    const int g = [&] {
      for (int k = 0; k < plot->graphCount(); ++k) {
        if (plot->graph(k) == graph) return k;
      }
      return -1;
    }();
    const auto point = graph->data()->at(0);
    const QPoint pixel(qRound(plot->xAxis->coordToPixel(point->key)), qRound(plot->yAxis->coordToPixel(point->value)));
    QSignalSpy started(panel(), &ui::CampaignPanel::rerunStarted);
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel);
    QCOMPARE(started.count(), 1);
    const long run = started.takeFirst().at(0).toLongLong();
    QCOMPARE(run, panel()->pointRuns()[static_cast<std::size_t>(g)][0]);
    QVERIFY(window_->scenarioPath().endsWith(QString("rerun/%1.yaml").arg(run, 6, 10, QChar('0'))));
    window_->setSpeed(0);
    QTRY_VERIFY_WITH_TIMEOUT(window_->runner()->status().finished, 300000);
    window_->tick();
    QTRY_VERIFY_WITH_TIMEOUT((window_->tick(), window_->history().rows() == window_->runner()->rows()), 30000);
    const ui::RunHistory& h = window_->history();
    const int c = h.find("distance.ee_target");
    QVERIFY(c >= 0);
    const double closest = *std::min_element(h.columns[static_cast<std::size_t>(c)].begin(), h.columns[static_cast<std::size_t>(c)].end());
    char name[32];
    std::snprintf(name, sizeof name, "/runs/%06ld/summary.json", run);
    const YAML::Node s = YAML::LoadFile(out_.toStdString() + name);
    QCOMPARE(closest, s["metrics"]["min_ee_target_distance_m"].as<double>());
    const double grasp = window_->runner()->status().capture_time;
    if (s["metrics"]["capture_time_s"].IsNull()) {
      QVERIFY(std::isnan(grasp));
    } else {
      QCOMPARE(grasp, s["metrics"]["capture_time_s"].as<double>());
    }
    // The picture: the rerun in the 3D view, the campaign's scatter beside it.
    panel()->setPlot(ui::CampaignPanel::PlotKind::kScatter, "rate_factor", "debris.target[0]", "min_ee_target_distance_m");
    QTest::qWait(300);
    window_->grab().save(GRAPPLE_BINARY_DIR "/test_campaign_panel.png");
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestCampaignPanel, "test_campaign_panel")
#include "test_campaign_panel.moc"
