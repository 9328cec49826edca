// The controller tuning panels, driven in the real window under a (virtual) X display:
// one page per controller (capture_rigid.yaml: attitude control, joint path, capture;
// kremer_aerial.yaml: the aerial law); every field's range is the loader's (its minimum accepted,
// below refused, by the loader itself); the closed-loop poles shown are analyzeClosedLoop's for
// the gains in the form (built here independently) and move with a gain; apply-and-rerun changes
// the run and leaves the first run as a ghost in every plot, equal to its data; saving writes the
// gain into the file. Screenshots of the panel and of a plot with its ghost go to the build folder.
// With no X display the whole test is skipped (CTest reports "Skipped").
#include "tests/support/fault_places.hpp"
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <cstring>

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSettings>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <cmath>
#include <filesystem>
#include <memory>
#include <qcustomplot.h>

#include "core/dynamics/data.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/load_error.hpp"
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>

#include "ui/main_window.hpp"
#include "ui/manipulability_panel.hpp"
#include "ui/plot_panel.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"
#include "ui/tuning_panel.hpp"

using namespace grapple;

namespace {

const QString kScenarios = GRAPPLE_SOURCE_DIR "/scenarios/";

void runUntil(ui::MainWindow& w, double t) {
  w.setSpeed(0);
  w.runner()->runUntil(t);
  QTRY_VERIFY_WITH_TIMEOUT(w.runner()->status().time >= t - 1e-9 && !w.runner()->status().running, 300000);
  w.tick();
  QCoreApplication::processEvents();
}

// The gains of capture_rigid.yaml's loops built here from the thesis' structure: the bus
// rotation block kp H_ωω, kd H_ωω of the mass matrix, the path's joints D_mm diag(kp), diag(kd).
core::ClosedLoopGains expectedGains(const core::Model& m, const Eigen::VectorXd& q, double att_kp, double att_kd,
                                    const std::vector<int>& joints, double kp, double kd) {
  core::Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D = core::massMatrix(m, d, q);
  core::ClosedLoopGains g;
  g.Kp = Eigen::MatrixXd::Zero(m.nv, m.nv);
  g.Kd = Eigen::MatrixXd::Zero(m.nv, m.nv);
  for (int r = 3; r < 6; ++r) {
    for (int c = 3; c < 6; ++c) {
      g.Kp(r, c) = att_kp * D(r, c);
      g.Kd(r, c) = att_kd * D(r, c);
    }
    g.actuated.push_back(r);
    g.template_omega.push_back(0.0698);
    g.template_xi.push_back(0.707);
  }
  for (int r : joints) {
    for (int c : joints) {
      g.Kp(r, c) = D(r, c) * kp;
      g.Kd(r, c) = D(r, c) * kd;
    }
    g.actuated.push_back(r);
    g.template_omega.push_back(0.698);
    g.template_xi.push_back(0.707);
  }
  return g;
}

double maxPoleDistance(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]) / std::max(1.0, std::abs(b[k])));
  return worst;
}

}  // namespace

class TestTuning : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  QTemporaryDir tmp_;
  ui::TuningPanel* tuning() { return window_->tuning(); }
  QDockWidget* tuningDock() { return window_->findChild<QDockWidget*>("dock:tuning"); }

 private slots:
  void initTestCase() {
    QSettings().clear();
    QVERIFY(tmp_.isValid());
    QVERIFY(grapple::test::showMainWindow(window_, 1600, 1000));
    // A copy of capture_rigid.yaml (the gains get saved into it).
    const core::LoadedScenario src = core::loadScenario((kScenarios + "capture_rigid.yaml").toStdString());
    core::saveScenario(src.scenario, tmp_.filePath("capture_rigid.yaml").toStdString());
    QVERIFY(window_->openScenario(tmp_.filePath("capture_rigid.yaml")));
    tuningDock()->show();
    tuningDock()->raise();
    QCoreApplication::processEvents();
  }

  void listsOnePagePerController() {
    const core::Scenario& s = window_->loaded().scenario;
    QCOMPARE(s.controllers.size(), std::size_t(2));
    QCOMPARE(tuning()->pageCount(), 3);  // the attitude control, then each controller
    QVERIFY(tuning()->pageTitle(0).contains("Attitude"));
    QVERIFY(tuning()->pageTitle(1).contains("Joint path"));
    QVERIFY(tuning()->pageTitle(2).contains("Capture"));
    QDoubleSpinBox* kp = tuning()->field(0, "kp");
    QVERIFY(kp);
    QCOMPARE(kp->value(), 0.1);
    QVERIFY(kp->suffix().contains("1/s²"));
    QCOMPARE(tuning()->field(0, "torque_limit")->value(), 5.0);
    QVERIFY(tuning()->field(0, "torque_limit")->suffix().contains("N m"));
    QVERIFY(tuning()->flag(0, "feedforward") && tuning()->flag(0, "feedforward")->isChecked());
    QCOMPARE(tuning()->field(1, "kp")->value(), 0.487);
    QCOMPARE(tuning()->field(1, "kd")->value(), 0.987);
    QCOMPARE(tuning()->field(2, "kp")->value(), 4.0);
    QCOMPARE(tuning()->field(2, "post_kd")->value(), 0.2);
    QVERIFY(tuning()->field(2, "tolerance")->suffix().contains("m"));
    QVERIFY(!tuning()->field(2, "joint_kp[0]"));  // resolved acceleration: no joint PD
  }

  // Every field's box: its minimum is what the loader accepts, just below is refused by the
  // loader (the scenario written as YAML and read back), and the box refuses it too.
  void fieldRangesAreTheLoaders_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("joint_pd");
    QTest::newRow("capture_rigid") << "capture_rigid.yaml" << false;
    QTest::newRow("capture_rigid, joint_pd") << "capture_rigid.yaml" << true;
    QTest::newRow("kremer_aerial") << "kremer_aerial.yaml" << false;
    QTest::newRow("valverde torque windows") << "valverde_three_joint.yaml" << false;
  }
  void fieldRangesAreTheLoaders() {
    QFETCH(QString, file);
    QFETCH(bool, joint_pd);
    core::LoadedScenario loaded = core::loadScenario((kScenarios + file).toStdString());
    if (joint_pd) loaded.scenario.controllers[1].capture.law = core::CaptureLaw::kJointPd;
    std::vector<ui::TuningPage> pages = ui::tuningPages(loaded.scenario, loaded.model);
    QVERIFY(!pages.empty());
    const std::string path = loaded.scenario.file;
    int checked = 0, joint_fields = 0;
    for (const ui::TuningPage& page : pages) {
      for (const ui::TuningField& f : page.fields) {
        if (!f.value) continue;
        if (f.key.rfind("joint_kp", 0) == 0) ++joint_fields;
        const std::string what = page.title.toStdString() + " " + f.key;
        core::Scenario s = loaded.scenario;
        f.value(s) = ui::tuningMinimum(f);
        try {
          core::loadScenarioText(core::scenarioToYaml(s), path);
        } catch (const core::LoadError& e) {
          QFAIL(qPrintable(QString::fromStdString(what + ": the loader refuses the minimum: " + e.what())));
        }
        if (f.range == ui::TuningField::Range::kAny) continue;
        f.value(s) = f.range == ui::TuningField::Range::kPositive ? 0.0 : -1e-9;
        bool refused = false;
        try {
          core::loadScenarioText(core::scenarioToYaml(s), path);
        } catch (const core::LoadError&) {
          refused = true;
        }
        if (!refused) QFAIL(qPrintable(QString::fromStdString(what + ": the loader accepts a value below the box's minimum")));
        ++checked;
      }
    }
    qInfo("%s: %zu pages, %d fields checked against the loader", qPrintable(file), pages.size(), checked);
    QVERIFY(checked >= 2);
    if (joint_pd) QCOMPARE(joint_fields, 6);  // the thesis' defaults filled in, one per joint
  }

  void outOfRangeIsRefused() {
    QDoubleSpinBox* kp = tuning()->field(0, "kp");
    QDoubleSpinBox* limit = tuning()->field(0, "torque_limit");
    QCOMPARE(kp->minimum(), 0.0);
    QVERIFY(limit->minimum() > 0);
    kp->setValue(-3);
    QCOMPARE(kp->value(), 0.0);  // clamped
    kp->setValue(0.1);
    // Typed: a sign the range excludes cannot be typed; too large a value neither.
    QString text = "-5";
    int pos = 2;
    QCOMPARE(kp->validate(text, pos), QValidator::Invalid);
    text = "2e9";
    pos = 3;
    QCOMPARE(kp->validate(text, pos), QValidator::Invalid);
    text = "0";
    pos = 1;
    QCOMPARE(limit->validate(text, pos), QValidator::Intermediate);  // > 0 expected: not accepted
    text = "2.5e-1";
    pos = 6;
    QCOMPARE(kp->validate(text, pos), QValidator::Acceptable);
    // Typing into the box: "0" in the torque limit is reverted on Enter.
    limit->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(limit->findChild<QLineEdit*>(), "0");
    QTest::keyClick(limit->findChild<QLineEdit*>(), Qt::Key_Return);
    limit->clearFocus();
    QCoreApplication::processEvents();
    QCOMPARE(limit->value(), 5.0);
    limit->findChild<QLineEdit*>()->selectAll();
    QTest::keyClicks(limit->findChild<QLineEdit*>(), "4.5");
    QTest::keyClick(limit->findChild<QLineEdit*>(), Qt::Key_Return);
    QCOMPARE(limit->value(), 4.5);
    limit->setValue(5);
  }

  // The poles shown are those of analyzeClosedLoop for the form's gains at the configuration of
  // the instant shown, built here independently; they move when a gain changes.
  void polesAreTheClosedLoopsOfTheForm() {
    window_->timeline()->setRow(0);
    tuning()->refreshAnalysis();
    QVERIFY(tuning()->hasClosedLoop());
    const core::Model& m = window_->loaded().model;
    const Eigen::VectorXd q = window_->runner()->snapshot(0).q;
    QVERIFY((tuning()->analysisConfiguration() - q).norm() < 1e-15);  // rigid: nothing zeroed
    std::vector<int> joints;
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1) joints.push_back(m.joint[b].idx_v);
    }
    std::sort(joints.begin(), joints.end());
    const core::ClosedLoopAnalysis a0 = core::analyzeClosedLoop(m, q, expectedGains(m, q, 0.1, 0.6, joints, 0.487, 0.987));
    const core::ClosedLoopAnalysis& shown = tuning()->analysis();
    qInfo("capture_rigid at t = 0: %zu poles, stable %d, gamma_hard %.3f; pole distance to the independent loop %.1e",
          shown.poles.size(), shown.stable, shown.gamma_hard, maxPoleDistance(shown.poles, a0.poles));
    QCOMPARE(shown.poles.size(), std::size_t(2 * m.nv));
    QVERIFY(maxPoleDistance(shown.poles, a0.poles) < 1e-9);
    QVERIFY(std::abs(shown.gamma_hard - a0.gamma_hard) < 1e-9 * std::max(1.0, a0.gamma_hard));
    // What is drawn: the poles plot's first graph holds every pole.
    QCPGraph* drawn = tuning()->polePlot()->graph(0);
    QCOMPARE(drawn->dataCount(), int(a0.poles.size()));
    for (int k = 0; k < drawn->dataCount(); ++k) {
      const double re = drawn->data()->at(k)->key, im = drawn->data()->at(k)->value;
      double best = INFINITY;
      for (const auto& p : a0.poles) best = std::min(best, std::abs(p - std::complex<double>(re, im)));
      QVERIFY(best < 1e-9);
    }
    // The sensitivity: one graph per channel (3 bus + 6 joints) and a bound per template.
    QCOMPARE(tuning()->bodePlot()->graphCount(), 9 + 2);
    QVERIFY(tuning()->poleList()->text().contains("color:#d62728"));  // the least damped marked

    // A gain edited in the form: the poles move (before any rerun), and match again.
    tuning()->field(0, "kp")->setValue(0.4);
    tuning()->field(1, "kd")->setValue(2.0);
    tuning()->refreshAnalysis();
    const core::ClosedLoopAnalysis a1 = core::analyzeClosedLoop(m, q, expectedGains(m, q, 0.4, 0.6, joints, 0.487, 2.0));
    QVERIFY(maxPoleDistance(tuning()->analysis().poles, a1.poles) < 1e-9);
    QVERIFY(maxPoleDistance(tuning()->analysis().poles, a0.poles) > 1e-3);
    tuning()->field(0, "kp")->setValue(0.1);
    tuning()->field(1, "kd")->setValue(0.987);
    tuning()->refreshAnalysis();
    tuning()->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_panel.png");
  }

  // Apply and rerun with a changed attitude gain: the run changes, and every plot holds the first
  // run as its ghost, equal to that run's data.
  void applyAndRerunKeepsTheFirstRunAsGhost() {
    runUntil(*window_, 6.0);
    const ui::RunHistory first = window_->history();
    QCOMPARE(first.rows(), 301);
    QVERIFY(window_->ghost().rows() == 0);
    tuning()->field(0, "kp")->setValue(2.0);
    tuning()->flag(0, "feedforward")->setChecked(false);
    QVERIFY(tuning()->applyAndRerun(true));
    QCOMPARE(window_->loaded().scenario.chaser.attitude_control->kp, 2.0);
    QCOMPARE(tuning()->field(0, "kp")->value(), 2.0);  // the pages rebuilt from the new scenario
    runUntil(*window_, 6.0);
    const ui::RunHistory& second = window_->history();
    // The rerun starts running at once (flat out here): it may be past 6 s before runUntil asks
    // it to stop there, so compare the instants both runs have.
    QVERIFY(second.rows() >= 301);
    // The ghost is the first run, whole.
    const ui::RunHistory& ghost = window_->ghost();
    QCOMPARE(ghost.rows(), first.rows());
    QCOMPARE(ghost.columns.size(), first.columns.size());
    for (std::size_t c = 0; c < first.columns.size(); ++c) {  // bit for bit (NaN where a channel is empty)
      QCOMPARE(ghost.columns[c].size(), first.columns[c].size());
      QVERIFY(std::memcmp(ghost.columns[c].data(), first.columns[c].data(), first.columns[c].size() * sizeof(double)) == 0);
    }
    // The run changed: the bus attitude error differs after a few seconds.
    const int ce = second.find("base.attitude_error");
    QVERIFY(ce > 0);
    double diff = 0, scale = 0;
    for (int r = 150; r < first.rows(); ++r) {
      diff = std::max(diff, std::abs(second.columns[ce][r] - first.columns[ce][r]));
      scale = std::max(scale, std::abs(first.columns[ce][r]));
    }
    qInfo("bus attitude error after 3 s: first run max %.3g deg, largest difference %.3g deg", scale, diff);
    QVERIFY(diff > 1e-3 * std::max(scale, 1e-3));
    // Every plot: one ghost graph per shown channel, equal to the first run's data.
    int panels = 0, graphs = 0;
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->shownChannels().empty()) continue;
      ++panels;
      QCOMPARE(p->ghost(), &window_->ghost());
      for (const std::string& name : p->shownChannels()) {
        QCPGraph* g = p->ghostGraph(name);
        QVERIFY2(g, qPrintable(p->title() + ": no ghost of " + QString::fromStdString(name)));
        const int c = first.find(name);
        QCOMPARE(g->dataCount(), first.rows());
        for (int r = 0; r < first.rows(); ++r) {
          QCOMPARE(g->data()->at(r)->key, first.columns[0][r]);
          QCOMPARE(g->data()->at(r)->value, first.columns[c][r]);
        }
        ++graphs;
      }
      QCOMPARE(p->pointCount(), second.rows() * int(p->shownChannels().size()));  // live graphs only
      bool legend = false;
      for (int i = 0; i < p->plot()->legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(p->plot()->legend->item(i));
        if (item && item->plottable()->name() == "previous run") legend = true;
      }
      QVERIFY(legend);
    }
    qInfo("%d panels, %d ghost graphs equal to the first run", panels, graphs);
    QVERIFY(panels >= 7);
    // A plot with its ghost, as on screen and exported; the CSV stays the current run's.
    ui::PlotPanel* drift = nullptr;
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->title() == "Base drift") drift = p;
    }
    QVERIFY(drift);
    drift->refresh();
    drift->plot()->replot();
    drift->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_ghost.png");
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->title() != "Base torques and fuel") continue;
      if (auto* dock = qobject_cast<QDockWidget*>(p->parentWidget())) dock->raise();
      QCoreApplication::processEvents();
      p->refresh();
      p->plot()->replot();
      p->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_ghost_torques.png");
    }
    QVERIFY(drift->exportPng(GRAPPLE_BINARY_DIR "/test_tuning_ghost_export.png", 800, 450));
    const QString csv = tmp_.filePath("drift.csv");
    QVERIFY(drift->exportCsv(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), second.rows() + 1);
    QVERIFY(!lines[0].contains("previous"));
    // Hidden and shown again (View menu), then cleared.
    window_->setGhostVisible(false);
    QVERIFY(!drift->ghostGraph("base.attitude_error"));
    window_->setGhostVisible(true);
    QVERIFY(drift->ghostGraph("base.attitude_error"));
    tuning()->field(0, "kp")->setValue(0.1);
    tuning()->flag(0, "feedforward")->setChecked(true);
  }

  void savingWritesTheGains() {
    tuning()->field(0, "kd")->setValue(0.77);
    tuning()->field(1, "kp")->setValue(0.5);
    QVERIFY(tuning()->saveGains(true));
    const std::string path = window_->scenarioPath().toStdString();
    QVERIFY(!grapple::test::temporaryLeftBeside(path));
    const core::LoadedScenario back = core::loadScenario(path);
    QCOMPARE(back.scenario.chaser.attitude_control->kd, 0.77);
    QCOMPARE(back.scenario.controllers[0].kp, 0.5);
    QCOMPARE(back.scenario.controllers[0].kd, 0.987);
    QCOMPARE(back.scenario.controllers[1].capture.post_kd, 0.2);
    // Unsaved elsewhere: the open run is unchanged until applied.
    QCOMPARE(window_->loaded().scenario.chaser.attitude_control->kd, 0.6);
  }

  // Synthesize on capture_rigid with the capture law joint_pd: the result (computed on a background
  // thread) is the controller whose norm the table shows, recomputed here independently; "Use"
  // puts its gains into the scenario and reruns with the ghost. A second synthesis is cancelled.
  void synthesizeUsesTheDesignedGains() {
    window_->clearGhost();
    core::LoadedScenario src = core::loadScenario((kScenarios + "capture_rigid.yaml").toStdString());
    src.scenario.controllers[1].capture.law = core::CaptureLaw::kJointPd;
    core::saveScenario(src.scenario, tmp_.filePath("capture_joint_pd.yaml").toStdString());
    QVERIFY(window_->openScenario(tmp_.filePath("capture_joint_pd.yaml")));
    window_->timeline()->setRow(0);
    QCoreApplication::processEvents();
    QVERIFY(tuning()->startSynthesis());
    QVERIFY(!tuning()->startSynthesis());  // one at a time
    QVERIFY(window_->findChild<QProgressBar*>("tuningSynthesisProgress")->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!tuning()->synthesisRunning(), 120000);
    QTRY_VERIFY_WITH_TIMEOUT(tuning()->synthesisResult().has_value(), 5000);
    const core::SynthesisResult r = *tuning()->synthesisResult();
    QVERIFY(!r.cancelled);
    const core::Model& m = window_->loaded().model;
    const double again = core::evaluateController(m, tuning()->synthesisConfiguration(), r.gains).upper;
    qInfo("synthesis at t = 0 in the panel: gamma_hard %.5f (recomputed %.5f), gamma_soft %.3f, attitude kp %.4g kd %.4g",
          r.gamma_hard, again, r.gamma_soft, r.attitude_kp, r.attitude_kd);
    QVERIFY(std::abs(again - r.gamma_hard) < 1e-5 * again);
    QTableWidget* table = tuning()->synthesisTable();
    QVERIFY(table->isVisible());
    QVERIFY(table->item(0, 1)->text().startsWith(QString::number(r.gamma_hard, 'g', 5)));
    QCOMPARE(table->rowCount(), 4 + 2 + 6);
    tuning()->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_synthesis.png");
    runUntil(*window_, 1.0);
    const int first_rows = window_->history().rows();
    QVERIFY(tuning()->useSynthesis(true));
    const core::Scenario& now = window_->loaded().scenario;
    QCOMPARE(now.chaser.attitude_control->kp, r.attitude_kp);
    QCOMPARE(now.chaser.attitude_control->kd, r.attitude_kd);
    for (Eigen::Index j = 0; j < 6; ++j) {
      QCOMPARE(now.controllers[1].capture.joint_kp[static_cast<std::size_t>(j)], r.joint_kp[j]);
      QCOMPARE(now.controllers[1].capture.joint_kd[static_cast<std::size_t>(j)], r.joint_kd[j]);
    }
    QCOMPARE(window_->ghost().rows(), first_rows);
    // Cancel: stops soon, says so, offers nothing to use.
    QVERIFY(tuning()->startSynthesis());
    tuning()->cancelSynthesis();
    QTRY_VERIFY_WITH_TIMEOUT(!tuning()->synthesisRunning(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(tuning()->synthesisResult().has_value() && tuning()->synthesisResult()->cancelled, 5000);
    QVERIFY(!window_->findChild<QPushButton*>("tuningSynthesisUse")->isVisible());
  }

  // Multi-model synthesis over two instants of the run: γ_hard is the worst of the two
  // configurations' norms, each recomputed here; instants that are not times or not recorded
  // yet are refused with a reason.
  void synthesizeOverSeveralInstants() {
    window_->clearGhost();
    QVERIFY(window_->openScenario(tmp_.filePath("capture_joint_pd.yaml")));
    runUntil(*window_, 20.0);
    tuning()->setSynthesisInstants("0, abc");
    QVERIFY(!tuning()->startSynthesis());
    QVERIFY2(tuning()->lastError().contains("'abc' is not a time"), qPrintable(tuning()->lastError()));
    tuning()->setSynthesisInstants("0, 1e6");
    QVERIFY(!tuning()->startSynthesis());
    QVERIFY2(tuning()->lastError().contains("not recorded yet"), qPrintable(tuning()->lastError()));
    tuning()->setSynthesisInstants("0, 20");
    QVERIFY(tuning()->startSynthesis());
    QTRY_VERIFY_WITH_TIMEOUT(!tuning()->synthesisRunning(), 300000);
    QTRY_VERIFY_WITH_TIMEOUT(tuning()->synthesisResult().has_value(), 5000);
    tuning()->setSynthesisInstants("");
    const core::SynthesisResult r = *tuning()->synthesisResult();
    QVERIFY(!r.cancelled);
    QCOMPARE(tuning()->synthesisConfigurations().size(), std::size_t(2));
    QCOMPARE(r.gamma_hard_each.size(), std::size_t(2));
    const core::Model& m = window_->loaded().model;
    double worst = 0;
    for (std::size_t k = 0; k < 2; ++k) {
      const double each = core::evaluateController(m, tuning()->synthesisConfigurations()[k], r.gains).upper;
      QVERIFY(std::abs(each - r.gamma_hard_each[k]) < 1e-5 * each);
      worst = std::max(worst, each);
    }
    qInfo("multi-model synthesis at t = 0 and 20 s: gamma_hard %.5f (each %.5f, %.5f), gamma_soft %.3f", r.gamma_hard,
          r.gamma_hard_each[0], r.gamma_hard_each[1], r.gamma_soft);
    QVERIFY(std::abs(worst - r.gamma_hard) < 1e-5 * worst);
    QVERIFY(!tuning()->synthesisConfigurations()[0].isApprox(tuning()->synthesisConfigurations()[1]));
  }

  // Certify ranges on capture_rigid at t = 0: the box the table lists is the μ-analysis' of the
  // form's loops at that configuration (recomputed here); the manipulability map draws it for
  // its two joints, and the run's points outside it (the arm unfolds by ~120° from there) are
  // marked from the first recorded instant any joint leaves it (found here from the channels).
  void certifiedBoxIsDrawnAndTheRunMarkedWhereItLeavesIt() {
    window_->clearGhost();
    QVERIFY(window_->openScenario(tmp_.filePath("capture_rigid.yaml")));
    runUntil(*window_, 30.0);
    window_->timeline()->setRow(0);
    tuning()->refreshAnalysis();
    QTRY_VERIFY_WITH_TIMEOUT(tuning()->hasClosedLoop() && tuning()->analysisConfiguration().size() > 0, 20000);
    auto* dock = window_->findChild<QDockWidget*>("dock:manipulability");
    dock->show();
    dock->raise();
    auto* map = window_->findChild<ui::ManipulabilityPanel*>();
    map->setSpace(ui::ManipulabilityPanel::Space::kJoints);
    QVERIFY(tuning()->startCertification());
    QVERIFY(!tuning()->startCertification());  // one at a time
    QTRY_VERIFY_WITH_TIMEOUT(!tuning()->certificationRunning(), 120000);
    QVERIFY(tuning()->certification().has_value());
    const core::CertifiedBox c = *tuning()->certification();
    QVERIFY(c.certified);
    const core::Model& m = window_->loaded().model;
    const core::CertifiedBox again = core::certifyBox(m, tuning()->analysisConfiguration(), tuning()->closedLoopGains(),
                                                      core::jointLimitRanges(m), core::RobustOptions());
    QCOMPARE(again.box.size(), c.box.size());
    for (std::size_t k = 0; k < c.box.size(); ++k) {
      QCOMPARE(c.box[k].body, again.box[k].body);
      QCOMPARE(c.box[k].lower, again.box[k].lower);
      QCOMPARE(c.box[k].upper, again.box[k].upper);
      QVERIFY(c.box[k].lower >= c.limits[k].lower - 1e-12 && c.box[k].upper <= c.limits[k].upper + 1e-12);
    }
    QCOMPARE(tuning()->certificationTable()->rowCount(), static_cast<int>(c.box.size()));
    qInfo("certified at t = 0: %s = [%.1f, %.1f] deg ... (mu %.3g)", m.joint[c.box[1].body].name.c_str(),
          c.box[1].lower * 180 / M_PI, c.box[1].upper * 180 / M_PI, c.step_mu.back());
    // The first instant outside, and the points outside, from the recorded channels.
    QTRY_VERIFY_WITH_TIMEOUT(map->hasCertifiedBox(), 5000);
    window_->timeline()->setRow(window_->history().rows() - 1);
    QCoreApplication::processEvents();
    const ui::RunHistory& h = window_->history();
    double first = NAN;
    int outside = 0;
    for (int k = 0; k < h.rows(); ++k) {
      bool out = false;
      for (const core::JointRange& r : c.box) {
        const double x = h.columns[h.find("joint." + m.joint[r.body].name + ".position")][k];
        out = out || x < r.lower || x > r.upper;
      }
      if (!out) continue;
      ++outside;
      if (std::isnan(first)) first = h.columns[0][k];
    }
    QVERIFY(outside > 0);
    QTRY_COMPARE_WITH_TIMEOUT(map->pointsOutsideBox(), outside, 5000);
    QCOMPARE(map->leavesBoxAt(), first);
    QVERIFY(map->boxNote().contains(QString::number(first, 'f', 2)));
    QTest::qWait(200);  // the queued replot
    map->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_certified_box.png");
    // Over the arm plane: the hand along the rectangle's edges; its first corner (both joints at
    // their lower bounds, the others as shown) recomputed here.
    map->setSpace(ui::ManipulabilityPanel::Space::kArmPlane);
    QCoreApplication::processEvents();
    QTRY_COMPARE_WITH_TIMEOUT(map->pointsOutsideBox(), outside, 5000);  // the hand's points there
    const std::vector<Eigen::Vector2d> outline = map->boxOutline();
    QCOMPARE(outline.size(), std::size_t(201));
    {
      const core::JointRange *ra = nullptr, *rb = nullptr;
      for (const core::JointRange& r : c.box) {
        if (m.joint[r.body].idx_v == map->jointA()) ra = &r;
        if (m.joint[r.body].idx_v == map->jointB()) rb = &r;
      }
      QVERIFY(ra && rb);
      Eigen::VectorXd q = window_->runner()->snapshot(window_->timeline()->row()).q;
      q[m.joint[ra->body].idx_q] = ra->lower;
      q[m.joint[rb->body].idx_q] = rb->lower;
      core::Data d(m, false);
      core::forwardKinematics(m, d, q);
      const core::Vector3 p = core::framePose(m, d, m.frameId(window_->loaded().scenario.run.end_effector)).p;
      const core::ArmPlane& pl = map->plane();
      const Eigen::Vector2d st((p - pl.origin).dot(pl.u), (p - pl.origin).dot(pl.v));
      QVERIFY2((outline.front() - st).norm() < 1e-9, qPrintable(QString("%1 %2 vs %3 %4").arg(outline.front().x()).arg(outline.front().y()).arg(st.x()).arg(st.y())));
      QVERIFY((outline.front() - outline.back()).norm() < 1e-9);  // closed
    }
    QTest::qWait(200);
    map->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_certified_box_plane.png");
    tuning()->grab().save(GRAPPLE_BINARY_DIR "/test_tuning_certified_table.png");
    // A new scenario: the box (of the old loops) is gone.
    QVERIFY(window_->openScenario(tmp_.filePath("capture_rigid.yaml")));
    QTRY_VERIFY_WITH_TIMEOUT(!map->hasCertifiedBox(), 5000);
  }

  // Tabbed behind the Scenario dock, the panel is "visible" to Qt with nothing of it on screen:
  // moving through the run then analyses nothing (it used to, every 300 ms, behind the 3D view,
  // taking the CPU the view's frames needed); chosen again, it analyses the instant shown.
  void analysisWaitsWhileTabbedAway() {
    auto* scenario_dock = window_->findChild<QDockWidget*>("dock:scenario");
    QVERIFY(scenario_dock);
    tuningDock()->raise();
    window_->runner()->runUntil(1.0);
    QVERIFY(window_->runner()->waitUntil(1.0, 60));
    window_->tick();
    QVERIFY(window_->history().rows() > 10);
    scenario_dock->raise();
    QTRY_VERIFY(tuning()->visibleRegion().isEmpty());
    QVERIFY(tuning()->isVisible());  // what Qt says of a dock tabbed away
    QSignalSpy analysed(tuning(), &ui::TuningPanel::analysisUpdated);
    for (int row = 1; row <= 10; ++row) {
      window_->timeline()->setRow(row);
      QTest::qWait(100);
    }
    QTest::qWait(600);  // twice the panel's delay
    QCOMPARE(analysed.count(), 0);
    tuningDock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 10000);
    QVERIFY((tuning()->analysisConfiguration() - window_->runner()->snapshot(10).q).norm() < 1e-15);
  }

  void kremerAerialHasOnePage() {
    window_->clearGhost();
    QVERIFY(window_->openScenario(kScenarios + "kremer_aerial.yaml"));
    QCOMPARE(window_->ghost().rows(), 0);
    QCOMPARE(tuning()->pageCount(), 1);
    QVERIFY(tuning()->pageTitle(0).contains("Aerial"));
    QCOMPARE(tuning()->field(0, "kp[2]")->value(), 30.0);
    QCOMPARE(tuning()->field(0, "kv[7]")->value(), 24.0);
    QVERIFY(tuning()->field(0, "max_rpm")->suffix().contains("rpm"));
    QVERIFY(!tuning()->hasClosedLoop());  // computed torque in flight: no PD loop analysed
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestTuning, "test_tuning")

#include "test_tuning.moc"
