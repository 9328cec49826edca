// The debris' estimate in the real window under a (virtual) X display (capture_rigid_camera, its
// first seconds): the Estimation plot draws estimate.error.x inside its ±3σ band (the band's edges
// equal to ∓estimate.sigma3.x at every recorded instant, live and when scrubbed), a magnitude's
// band from 0 to its 3σ, and the plot's option hides the bands; the 3D view draws the estimated
// debris as a ghost at the recorded estimated pose and the 3σ ellipsoid of the recorded position
// covariance (its semi-axes 3 √λ of the covariance, checked with Eigen's SVD of what is drawn
// against its eigen-solver on the channels), both hidden by View > Show's toggle and when there is
// no estimate; the camera's lost and regained measurements and replans have their own marks on
// the timeline and in the Events panel. Pictures of the view and of the plot go to the build folder.
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <algorithm>

#include <QDockWidget>
#include <QElapsedTimer>
#include <QMenu>
#include <QSettings>
#include <QTableWidget>
#include <cmath>
#include <memory>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <osg/MatrixTransform>
#include <osg/NodeVisitor>
#include <qcustomplot.h>

#include "core/io/scenario_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/channels.hpp"
#include "render/recording.hpp"
#include "render/scene.hpp"
#include "ui/events_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/osg_widget.hpp"
#include "ui/plot_panel.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"
#include "ui/video_export.hpp"

using namespace grapple;
namespace ch = core::channel;

namespace {

const QString kScenario = GRAPPLE_SOURCE_DIR "/scenarios/capture_rigid_camera.yaml";

const std::vector<double>& column(const ui::RunHistory& h, std::string_view name) {
  const int c = h.find(name);
  if (c < 0) qFatal("no channel %s", std::string(name).c_str());
  return h.columns[static_cast<std::size_t>(c)];
}

// The transform named `name` that is drawn (reached through the switches' active children); null
// if it is not drawn.
osg::MatrixTransform* drawn(osg::Node* root, const std::string& name) {
  struct Find : osg::NodeVisitor {
    std::string name;
    osg::MatrixTransform* found = nullptr;
    Find() : osg::NodeVisitor(TRAVERSE_ACTIVE_CHILDREN) {}
    void apply(osg::MatrixTransform& t) override {
      if (t.getName() == name && t.getNodeMask() != 0) found = &t;
      traverse(t);
    }
  } find;
  find.name = name;
  root->accept(find);
  return find.found;
}

}  // namespace

class TestEstimationView : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  ui::PlotPanel* estimation_ = nullptr;

  int rowAt(double t) const {
    const auto& time = column(window_->history(), ch::kTime);
    return int(std::lower_bound(time.begin(), time.end(), t - 1e-9) - time.begin());
  }
  QAction* showToggle(const QString& prefix) const {
    for (QMenu* m : window_->findChildren<QMenu*>()) {
      if (m->title() != "&Show") continue;
      for (QAction* a : m->actions()) {
        if (a->text().startsWith(prefix)) return a;
      }
    }
    return nullptr;
  }

 private slots:
  void initTestCase() {
    QSettings().clear();
    QVERIFY(grapple::test::showMainWindow(window_));
    window_->setSpeed(0);
    // The first seconds (the estimate converging from its prior), the debris turning the other
    // way and the camera's range cut to 6 m: the grasp point, 6.16 m away at first, is out of
    // range (measurement_lost at 0 s) until it has turned towards the camera (regained).
    window_->setOverrides({{"run.duration", "8"}, {"debris.initial.rate_deg_s", "[0, -4, 0]"}, {"sensors.camera.max_range", "6"}});
    QVERIFY(window_->openScenario(kScenario));
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->title() == "Estimation") estimation_ = p;
    }
    QVERIFY(estimation_ != nullptr);
    qobject_cast<QDockWidget*>(estimation_->parentWidget())->raise();
    // Live: the rows come while the panel shows.
    window_->runner()->setRunning(true);
    QElapsedTimer clock;
    clock.start();
    while (!window_->runner()->status().finished && clock.elapsed() < 60000) {
      window_->tick();
      QTest::qWait(20);
    }
    window_->tick();
    QVERIFY(window_->runner()->status().finished);
    qInfo("run of %.1f s recorded in %lld ms", window_->runner()->status().time, clock.elapsed());
  }

  // estimate.error.x in its band: the upper edge +3σ and the lower -3σ of the same row, filled
  // between in the curve's colour, translucent; the rows appended live all there.
  void bandAroundTheError() {
    const ui::RunHistory& h = window_->history();
    const auto shown = estimation_->shownChannels();
    QVERIFY(std::find(shown.begin(), shown.end(), std::string(ch::kEstimateError[0])) != shown.end());
    const auto [upper, lower] = estimation_->band(std::string(ch::kEstimateError[0]));
    QVERIFY(upper && lower);
    QCOMPARE(upper->channelFillGraph(), lower);
    QCOMPARE(upper->dataCount(), h.rows());
    QCOMPARE(lower->dataCount(), h.rows());
    QVERIFY(upper->brush().style() != Qt::NoBrush && upper->brush().color().alpha() < 128);
    const auto& t = column(h, ch::kTime);
    const auto& s3 = column(h, ch::kEstimateSigma3[0]);
    const auto& e = column(h, ch::kEstimateError[0]);
    int inside = 0;
    for (int row : {1, h.rows() / 3, h.rows() / 2, h.rows() - 1}) {
      QCOMPARE(upper->data()->at(row)->key, t[row]);
      QCOMPARE(upper->data()->at(row)->value, s3[row]);
      QCOMPARE(lower->data()->at(row)->value, -s3[row]);
      QVERIFY(s3[row] > 0);
      inside += std::abs(e[row]) <= s3[row];
    }
    QCOMPARE(inside, 4);
    // The prior's 3σ at first, smaller once images came.
    const double prior3 = 3 * window_->runner()->scenario().sensors.camera->sigma_position;
    QVERIFY(std::abs(upper->data()->at(0)->value - prior3) < 1e-12);
    QVERIFY(s3.back() < 0.5 * s3.front());
    // The y and z errors have theirs; the range error (no bound) none.
    QVERIFY(estimation_->band(std::string(ch::kEstimateError[2])).first != nullptr);
    // A magnitude: from 0 to its 3σ.
    std::vector<std::string> names = shown;
    names.emplace_back(ch::kEstimateTargetError);
    names.emplace_back(ch::kEstimateRangeError);
    estimation_->showChannels(names);
    QVERIFY(estimation_->band(std::string(ch::kEstimateRangeError)).first == nullptr);
    const auto [mu, ml] = estimation_->band(std::string(ch::kEstimateTargetError));
    QVERIFY(mu && ml);
    const int row = h.rows() / 2;
    QCOMPARE(mu->data()->at(row)->value, column(h, ch::kEstimateTargetSigma3)[row]);
    QCOMPARE(ml->data()->at(row)->value, 0.0);
    estimation_->showChannels(shown);
    // Scrubbing back leaves the bands whole.
    window_->timeline()->setRow(h.rows() / 4);
    window_->tick();
    QCOMPARE(estimation_->band(std::string(ch::kEstimateError[0])).first->dataCount(), h.rows());
    estimation_->refresh();
    QVERIFY(estimation_->plot()->toPixmap(900, 380).save(GRAPPLE_BINARY_DIR "/test_estimation_view_plot.png"));
  }

  // The option hides every band and shows them again; a hidden curve hides its band.
  void bandsHidden() {
    const std::string x(ch::kEstimateError[0]);
    estimation_->setBandsVisible(false);
    QVERIFY(!estimation_->band(x).first->visible() && !estimation_->band(x).second->visible());
    estimation_->setBandsVisible(true);
    QVERIFY(estimation_->band(x).first->visible() && estimation_->band(x).second->visible());
    estimation_->setCurveVisible(x, false);
    QVERIFY(!estimation_->band(x).first->visible());
    estimation_->setCurveVisible(x, true);
    QVERIFY(estimation_->band(x).first->visible());
  }

  // The ghost at the recorded estimated pose, the ellipsoid at the estimated centre of mass with
  // A Aᵀ = 9 P and semi-axes 3 √λ(P), P from the recorded channels.
  void ghostAndEllipsoid() {
    const ui::RunHistory& h = window_->history();
    const int row = rowAt(1.0);  // before the first image: the prior, predicted
    window_->timeline()->setRow(row);
    window_->tick();
    render::CaptureScene* scene = window_->scene();
    QVERIFY(scene->options().estimate);
    QVERIFY(scene->estimateShown());
    osg::MatrixTransform* ghost = drawn(scene->root(), "debris_estimate");
    osg::MatrixTransform* ellipsoid = drawn(scene->root(), "estimate_ellipsoid");
    QVERIFY(ghost && ellipsoid);
    QVERIFY(ghost->getNumChildren() > 0);
    core::Vector3 r;
    core::Vector4 q;
    Eigen::Matrix3d P;
    for (int k = 0; k < 3; ++k) r[k] = column(h, ch::kEstimatePosition[k])[row];
    for (int k = 0; k < 4; ++k) q[k] = column(h, ch::kEstimateAttitude[k])[row];
    for (int k = 0; k < 6; ++k) {
      const auto [i, j] = ch::kEstimateCovarianceEntry[k];
      P(i, j) = P(j, i) = column(h, ch::kEstimateCovariance[k])[row];
    }
    // The ghost: rotation R(q) and translation r (OSG's matrices act on row vectors).
    const osg::Matrixd G = ghost->getMatrix();
    const Eigen::Matrix3d R = core::quatToMatrix(q);
    for (int i = 0; i < 3; ++i) {
      QVERIFY(std::abs(G(3, i) - r[i]) < 1e-9);
      for (int j = 0; j < 3; ++j) QVERIFY(std::abs(G(j, i) - R(i, j)) < 1e-9);
    }
    // The true debris elsewhere by the estimate's error.
    osg::MatrixTransform* truth = drawn(scene->root(), "debris");
    QVERIFY(truth != nullptr);
    for (int i = 0; i < 3; ++i) {
      QVERIFY(std::abs(truth->getMatrix()(3, i) - G(3, i) + column(h, ch::kEstimateError[i])[row]) < 1e-9);
    }
    // The ellipsoid: x = r + A u, |u| <= 1.
    const osg::Matrixd E = ellipsoid->getMatrix();
    Eigen::Matrix3d A;
    for (int i = 0; i < 3; ++i) {
      QVERIFY(std::abs(E(3, i) - r[i]) < 1e-9);
      for (int j = 0; j < 3; ++j) A(i, j) = E(j, i);
    }
    const Eigen::Vector3d drawn_axes = Eigen::JacobiSVD<Eigen::Matrix3d>(A).singularValues();  // descending
    const Eigen::Vector3d lambda = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(P).eigenvalues();  // ascending
    qInfo("3-sigma semi-axes drawn %.4g %.4g %.4g m; from the covariance %.4g %.4g %.4g m", drawn_axes[0], drawn_axes[1],
          drawn_axes[2], 3 * std::sqrt(lambda[2]), 3 * std::sqrt(lambda[1]), 3 * std::sqrt(lambda[0]));
    for (int k = 0; k < 3; ++k) QVERIFY(std::abs(drawn_axes[k] - 3 * std::sqrt(lambda[2 - k])) < 1e-9 * drawn_axes[0]);
    QVERIFY(((A * A.transpose()) - 9 * P).norm() < 1e-9 * P.norm());
    QVERIFY((scene->estimateEllipsoidAxes() - A).norm() < 1e-9 * A.norm());
    // A picture of the estimate from 8 m, on the chaser's side (off-screen, as File > Save 3D view).
    render::VideoOptions o;
    o.width = 1280;
    o.height = 720;
    o.scene = scene->options();
    o.time_label = true;
    o.fixed_camera = render::CameraPose{r + core::Vector3(-6.5, -4.5, 3.0), r, core::Vector3::UnitZ()};
    QString error;
    window_->runner()->withRecording([&](const render::Recording& recording) {
      error = ui::runScreenshot(window_->runner()->model(), window_->runner()->scenario(), recording, row, o,
                                GRAPPLE_BINARY_DIR "/test_estimation_view.png");
    });
    QVERIFY2(error.isEmpty(), qPrintable(error));
  }

  // View > Show's toggle hides both and shows them again; no estimate (NaN channels: after the
  // grasp, or without a camera): nothing drawn.
  void toggleAndNoEstimate() {
    QAction* toggle = showToggle("Estimated debris");
    QVERIFY(toggle && toggle->isChecked());
    toggle->trigger();
    window_->tick();
    render::CaptureScene* scene = window_->scene();
    QVERIFY(!scene->options().estimate && !scene->estimateShown());
    QVERIFY(!drawn(scene->root(), "debris_estimate") && !drawn(scene->root(), "estimate_ellipsoid"));
    QVERIFY(scene->estimateEllipsoidAxes().isZero());
    toggle->trigger();
    window_->tick();
    QVERIFY(scene->estimateShown() && drawn(scene->root(), "debris_estimate"));
    render::Snapshot s = window_->runner()->snapshot(window_->timeline()->row());
    QVERIFY(s.has_estimate);
    s.has_estimate = false;
    scene->update(s);
    QVERIFY(!scene->estimateShown() && !drawn(scene->root(), "estimate_ellipsoid"));
    window_->tick();
    // A scenario without a camera: no ghost in its scene at all, even for a snapshot with an estimate.
    core::LoadedScenario rigid = core::loadScenario(GRAPPLE_SOURCE_DIR "/scenarios/capture_rigid.yaml");
    render::CaptureScene plain(rigid.model, rigid.scenario);
    plain.update(window_->runner()->snapshot(0));
    QVERIFY(!plain.estimateShown() && !drawn(plain.root(), "debris_estimate") && !drawn(plain.root(), "estimate_ellipsoid"));
  }

  // The camera's events and replans: their own colour and head on the timeline, an icon in the
  // Events panel; the other kinds a plain line.
  void eventMarks() {
    for (const char* kind : {"measurement_lost", "measurement_regained", "replan"}) {
      QVERIFY(ui::eventShape(kind) != ui::MarkerShape::kLine);
      QVERIFY(ui::eventColor(kind) != ui::eventColor("some_unknown_kind"));
    }
    QVERIFY(ui::eventShape("measurement_lost") != ui::eventShape("measurement_regained"));
    QVERIFY(ui::eventShape("replan") != ui::eventShape("measurement_lost"));
    QCOMPARE(ui::eventShape("plan"), ui::MarkerShape::kLine);
    const auto& events = window_->runner()->status().events;
    int measurement = 0;
    for (const auto& e : events) measurement += e.kind == "measurement_lost" || e.kind == "measurement_regained";
    qInfo("%d measurement events in the run", measurement);
    QVERIFY(measurement >= 2);
    const auto& markers = window_->timeline()->markers();
    QCOMPARE(markers.size(), events.size());
    QTableWidget* table = window_->events()->table();
    QCOMPARE(table->rowCount(), int(events.size()));
    for (std::size_t k = 0; k < events.size(); ++k) {
      QCOMPARE(markers[k].shape, ui::eventShape(events[k].kind));
      QCOMPARE(markers[k].color, ui::eventColor(events[k].kind));
      const bool marked = ui::eventShape(events[k].kind) != ui::MarkerShape::kLine;
      QCOMPARE(!table->item(int(k), ui::EventsPanel::kKind)->icon().isNull(), marked);
    }
  }
};

GRAPPLE_GUI_TEST_MAIN(TestEstimationView, "test_estimation_view")
#include "test_estimation_view.moc"
