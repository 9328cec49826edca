#include "ui/main_window.hpp"

#include <cmath>
#include <filesystem>
#include <functional>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/dynamics/data.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/load_error.hpp"
#include "core/io/urdf.hpp"
#include "core/sim/channels.hpp"
#include "core/sim/mission.hpp"
#include "render/scene.hpp"
#include "ui/campaign_panel.hpp"
#include "ui/events_panel.hpp"
#include "ui/manipulability_panel.hpp"
#include "ui/osg_widget.hpp"
#include "ui/requirements_panel.hpp"
#include "ui/scenario_editor.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"
#include "ui/tuning_panel.hpp"
#include "ui/video_export.hpp"

namespace grapple::ui {

namespace {

constexpr int kMaxRecent = 8;

// The same loading path as grapple-cli: the scenario, then the Simulation built from it; what only
// the initial state reveals is reported against the file.
std::unique_ptr<SimRunner> makeRunner(const QString& path, const core::LoadedScenario& loaded) {
  try {
    return std::make_unique<SimRunner>(loaded);
  } catch (const std::invalid_argument& e) {
    throw core::LoadError(path.toStdString(), 0, e.what());
  }
}

// A panel whose controls need more room than a docked column may have (a 1280x800 screen): it
// scrolls instead of widening the window.
QScrollArea* scrollable(QWidget* panel) {
  auto* area = new QScrollArea;
  area->setFrameShape(QFrame::NoFrame);
  area->setWidgetResizable(true);
  area->setWidget(panel);
  return area;
}

}  // namespace

QString MainWindow::scenarioDir() {
  const QByteArray env = qgetenv("GRAPPLE_SCENARIO_DIR");
  return env.isEmpty() ? QString(GRAPPLE_SCENARIO_DIR) : QString::fromLocal8Bit(env);
}

QString MainWindow::defaultScenario() { return scenarioDir() + "/capture_flexible.yaml"; }

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("MainWindow");
  setWindowTitle("Grapple");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  view_ = new OsgWidget(central);
  view_->setObjectName("view3d");
  timeline_ = new Timeline(central);
  timeline_->setObjectName("timeline");
  layout->addWidget(view_, 1);
  layout->addWidget(timeline_);
  setCentralWidget(central);
  connect(timeline_, &Timeline::rowChanged, this, [this](int) { view_dirty_ = true; });
  connect(view_, &OsgWidget::picked, this, [this](const QString& text) {
    info_->setText(text.isEmpty() ? tr("Click a body in the 3D view.") : text);
    if (!text.isEmpty()) statusBar()->showMessage(text, 8000);
  });

  outcome_ = new QLabel(this);
  outcome_->setObjectName("outcome");
  statusBar()->addPermanentWidget(outcome_);
  status_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_);

  buildDocks();
  buildTuningDock();
  buildEditorDock();
  buildCampaignDock();
  buildMenus();
  buildEditMenu();
  buildGhostActions();

  // The remembered settings: a part that cannot be read (a corrupt or hand-edited settings file)
  // is ignored, its default used, and the status bar says which.
  QSettings settings;
  if (settings.status() == QSettings::FormatError) settings_problems_ << tr("the file's format");
  const QVariant geometry = settings.value("window/geometry"), state = settings.value("window/state");
  geometry_restored_ = geometry.isValid() && restoreGeometry(geometry.toByteArray());
  if (geometry.isValid() && !geometry_restored_) settings_problems_ << "window/geometry";
  const bool layout_restored = state.isValid() && restoreState(state.toByteArray());
  if (state.isValid() && !layout_restored) settings_problems_ << "window/state";
  const QVariant recent = settings.value("recent");
  if (recent.isValid() && recent.typeId() != QMetaType::QStringList && recent.typeId() != QMetaType::QString) {
    settings_problems_ << "recent";
    settings.remove("recent");
    updateRecentMenu();
  }
  if (!settings_problems_.isEmpty()) {
    const QString note = tr("Settings %1: %2 could not be read and %3 ignored (defaults used).")
                             .arg(settings.fileName(), settings_problems_.join(", "),
                                  settings_problems_.size() == 1 ? tr("was") : tr("were"));
    qWarning("grapple: %s", qPrintable(note));
    statusBar()->showMessage(note, 30000);
  }
  if (!layout_restored) {
    // The default layout's front tabs (energy, tracking, base drift, the scenario summary): a
    // dock raised before the window is shown does not stay in front, so once it is shown. The
    // tabs behind (manipulability map, tuning, editor) cost nothing until chosen.
    QTimer::singleShot(0, this, [this] {
      for (const char* name : {"plot:Energy", "plot:Tracking error", "plot:Base drift", "dock:mission"}) {
        if (auto* d = findChild<QDockWidget*>(name)) d->raise();
      }
      // The left column wide enough for the requirements' table, the events under it a third.
      if (auto* mission = findChild<QDockWidget*>("dock:mission")) {
        resizeDocks({mission}, {std::max(300, width() / 4)}, Qt::Horizontal);
        if (auto* events = findChild<QDockWidget*>("dock:events")) {
          resizeDocks({mission, events}, {2 * height() / 3, height() / 3}, Qt::Vertical);
        }
      }
    });
  }

  timer_ = new QTimer(this);
  timer_->setTimerType(Qt::PreciseTimer);
  connect(timer_, &QTimer::timeout, this, &MainWindow::tick);
  timer_->start(25);
}

MainWindow::~MainWindow() {
  timer_->stop();
  runner_.reset();  // joins the worker
  view_->setScene(nullptr);
}

void MainWindow::buildDocks() {
  QDockWidget* first = nullptr;
  QDockWidget* second = nullptr;
  QDockWidget* third = nullptr;
  int k = 0;
  for (const PlotPreset& p : plotPresets()) {
    auto* dock = new QDockWidget(p.title, this);
    dock->setObjectName("plot:" + p.title);
    auto* panel = new PlotPanel(p.title, p.defaults, dock);
    panel->setObjectName("plot:" + p.title);
    dock->setWidget(panel);
    plots_.push_back(panel);
    connect(dock, &QDockWidget::visibilityChanged, panel, [panel](bool) { panel->refresh(); });
    // Three panels side by side on the right (energy, tracking, base drift), the others as tabs.
    if (k < 3) {
      addDockWidget(Qt::RightDockWidgetArea, dock, Qt::Vertical);
      (k == 0 ? first : k == 1 ? second : third) = dock;
    } else {
      tabifyDockWidget(k % 3 == 0 ? first : k % 3 == 1 ? second : third, dock);
    }
    ++k;
  }
  // The manipulability map (thesis §8.1.2), tabbed with the third column.
  auto* manip_dock = new QDockWidget(tr("Manipulability"), this);
  manip_dock->setObjectName("dock:manipulability");
  manipulability_ = new ManipulabilityPanel(manip_dock);
  manip_dock->setWidget(manipulability_);
  connect(manip_dock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
    if (!shown) return;
    view_dirty_ = true;  // the paths it skipped (ManipulabilityPanel::setPaths), at the next tick
    manipulability_->resume();
  });
  tabifyDockWidget(third, manip_dock);
  first->raise();
  second->raise();
  third->raise();

  auto* info_dock = new QDockWidget(tr("Selection"), this);
  info_dock->setObjectName("dock:selection");
  info_ = new QLabel(tr("Click a body in the 3D view."), info_dock);
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  info_->setMargin(6);
  info_dock->setWidget(info_);
  addDockWidget(Qt::LeftDockWidgetArea, info_dock);
  // The scenario summary.
  auto* scen_dock = new QDockWidget(tr("Scenario"), this);
  scen_dock->setObjectName("dock:scenario");
  scenario_info_ = new QLabel(scen_dock);
  scenario_info_->setWordWrap(true);
  scenario_info_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  scenario_info_->setMargin(6);
  scen_dock->setWidget(scenario_info_);
  // The mission at a glance: the outcome, the requirements as checked on the run, the metrics; in
  // front of the scenario's tabs, the run's events under them.
  auto* mission_dock = new QDockWidget(tr("Mission"), this);
  mission_dock->setObjectName("dock:mission");
  requirements_ = new RequirementsPanel(mission_dock);
  requirements_->setObjectName("requirements");
  mission_dock->setWidget(requirements_);
  connect(requirements_, &RequirementsPanel::timeRequested, this, [this](double t) { timeline_->setTime(t); });
  auto* events_dock = new QDockWidget(tr("Events"), this);
  events_dock->setObjectName("dock:events");
  events_ = new EventsPanel(events_dock);
  events_->setObjectName("events");
  events_dock->setWidget(events_);
  connect(events_, &EventsPanel::timeRequested, this, [this](double t) { timeline_->setTime(t); });
  addDockWidget(Qt::LeftDockWidgetArea, mission_dock);
  splitDockWidget(mission_dock, events_dock, Qt::Vertical);  // before the tabs: a tab would split as a tab
  tabifyDockWidget(mission_dock, scen_dock);
  tabifyDockWidget(mission_dock, info_dock);
  mission_dock->raise();
  resizeDocks({first}, {560}, Qt::Horizontal);
}

// The scenario editor, tabbed behind the scenario summary.
void MainWindow::buildEditorDock() {
  auto* dock = new QDockWidget(tr("Scenario editor"), this);
  dock->setObjectName("dock:editor");
  editor_ = new ScenarioEditor(this, dock);
  dock->setWidget(scrollable(editor_));
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  if (auto* summary = findChild<QDockWidget*>("dock:scenario")) tabifyDockWidget(summary, dock);
  if (auto* mission = findChild<QDockWidget*>("dock:mission")) mission->raise();
  connect(editor_, &ScenarioEditor::statusMessage, this, [this](const QString& m) { statusBar()->showMessage(m, 15000); });
}

// The campaign panel: on the right, closed until chosen in View > Panels (the default layout stays
// as it was).
void MainWindow::buildCampaignDock() {
  auto* dock = new QDockWidget(tr("Campaign"), this);
  dock->setObjectName("dock:campaign");
  campaign_ = new CampaignPanel(this, dock);
  campaign_->setObjectName("campaign");
  dock->setWidget(campaign_);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  dock->hide();
}

// Edit: the editor's undo and redo, after File.
void MainWindow::buildEditMenu() {
  auto* edit = new QMenu(tr("&Edit"), this);
  const QList<QAction*> menus = menuBar()->actions();
  menuBar()->insertMenu(menus.size() > 1 ? menus[1] : nullptr, edit);
  QAction* undo = editor_->undoStack()->createUndoAction(edit, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = editor_->undoStack()->createRedoAction(edit, tr("&Redo"));
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo);
  edit->addAction(redo);
}

void MainWindow::writeScenario(const QString& path) {
  if (editor_ && editor_->isModified()) {
    editor_->saveTo(path);
  } else {
    core::saveScenario(runner_->scenario(), path.toStdString());
    if (editor_ && QFileInfo(path).absoluteFilePath() == QFileInfo(path_).absoluteFilePath()) editor_->fileWrittenHere();
  }
}

void MainWindow::buildMenus() {
  // File
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open scenario..."), QKeySequence::Open, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open scenario"), QFileInfo(path_).absolutePath(),
                                                   tr("Scenarios (*.yaml *.yml)"));
    if (!p.isEmpty()) openScenario(p);
  });
  recent_menu_ = file->addMenu(tr("Open &recent"));
  QMenu* builtin = file->addMenu(tr("&Built-in scenarios"));
  const QDir dir(scenarioDir());
  for (const QString& f : dir.entryList({"*.yaml"}, QDir::Files, QDir::Name)) {
    builtin->addAction(f, this, [this, p = dir.filePath(f)] { openScenario(p); });
  }
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
  file->addAction(tr("Save &as..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
  file->addSeparator();
  file->addAction(tr("Export &figure set..."), this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export the open plots into"), QDir::homePath());
    if (!folder.isEmpty()) exportFigureSet(folder);
  });
  file->addAction(tr("Export &video..."), this, [this] {
    if (!runner_) return;
    VideoExportDialog dialog(QDir(QDir::homePath()).filePath(QFileInfo(path_).completeBaseName() + ".mp4"),
                             runner_->status().time, this);
    if (dialog.exec() == QDialog::Accepted) exportVideo(dialog.path(), dialog.options(), dialog.useViewCamera());
  });
  file->addAction(tr("Export &robot as URDF..."), this, [this] {
    if (!runner_) return;
    const QString p = QFileDialog::getSaveFileName(
        this, tr("Export the robot as"),
        QDir(QDir::homePath()).filePath(QString::fromStdString(runner_->model().name) + ".urdf"),
        tr("URDF (*.urdf)"));
    if (!p.isEmpty()) exportRobot(p);
  });
  file->addAction(tr("Save 3D view as &image..."), this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, tr("Save the 3D view as"),
                                                   QDir(QDir::homePath()).filePath(QFileInfo(path_).completeBaseName() + ".png"),
                                                   tr("PNG image (*.png)"));
    if (p.isEmpty()) return;
    bool ok = false;
    const QString size = QInputDialog::getText(this, tr("Image size"), tr("Width x height in pixels:"), QLineEdit::Normal,
                                               "3840x2160", &ok);
    if (!ok) return;
    const QStringList wh = size.toLower().split('x');
    const int w = wh.size() == 2 ? wh[0].trimmed().toInt() : 0, h = wh.size() == 2 ? wh[1].trimmed().toInt() : 0;
    exportViewImage(p, w, h);
  });
  file->addSeparator();
  repair_inertia_ = file->addAction(tr("Repair non-physical &inertias (URDF robots)"));
  repair_inertia_->setObjectName("repairInertia");
  repair_inertia_->setCheckable(true);
  repair_inertia_->setToolTip(tr("Load URDF links whose inertia no body can have with the nearest physical "
                                 "inertia (each repair is reported) instead of refusing the robot"));
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  updateRecentMenu();

  // Simulation
  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  QToolBar* bar = addToolBar(tr("Simulation"));
  bar->setObjectName("toolbar:simulation");
  run_action_ = sim->addAction(tr("&Run"), this, [this] {
    setRunning(!(runner_ && runner_->status().running));
  });
  run_action_->setShortcut(Qt::Key_Space);
  QAction* step = sim->addAction(tr("S&tep"), this, &MainWindow::stepOnce);
  step->setShortcut(Qt::Key_Period);
  QAction* reset = sim->addAction(tr("R&eset"), this, &MainWindow::resetRun);
  reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  // The timeline from the keyboard: from event to event anywhere in the window; frame steps and
  // the ends while the 3D view or the timeline has the focus (elsewhere the arrows move in lists).
  sim->addSeparator();
  QAction* next = sim->addAction(tr("&Next event"), this, [this] { timeline_->nextEvent(); });
  next->setShortcut(Qt::Key_N);
  QAction* previous = sim->addAction(tr("Pre&vious event"), this, [this] { timeline_->previousEvent(); });
  previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_N));
  const std::pair<QKeySequence, std::function<void()>> keys[] = {
      {QKeySequence(Qt::Key_Left), [this] { timeline_->setRow(timeline_->row() - 1); }},
      {QKeySequence(Qt::Key_Right), [this] { timeline_->setRow(timeline_->row() + 1); }},
      {QKeySequence(Qt::Key_Home), [this] { timeline_->setRow(0); }},
      {QKeySequence(Qt::Key_End), [this] { timeline_->setRow(history_.rows() - 1); }}};
  for (const auto& [key, go] : keys) {
    auto* shortcut = new QShortcut(key, centralWidget(), nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, go);
  }
  bar->addAction(run_action_);
  bar->addAction(step);
  bar->addAction(reset);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Speed "), bar));
  speed_ = new QComboBox(bar);
  speed_->setObjectName("speed");
  const double speeds[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100};
  for (double s : speeds) speed_->addItem(QString("x%1").arg(s), s);
  speed_->addItem(tr("as fast as possible"), 0.0);
  speed_->setCurrentIndex(3);
  connect(speed_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (runner_) runner_->setSpeed(speed_->itemData(i).toDouble());
  });
  bar->addWidget(speed_);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Deformation x"), bar));
  exaggeration_ = new QDoubleSpinBox(bar);
  exaggeration_->setObjectName("exaggeration");
  exaggeration_->setRange(0, 1000);
  exaggeration_->setDecimals(1);
  bool exaggeration_ok = true;
  const double exaggeration = QSettings().value("view/exaggeration", 10.0).toDouble(&exaggeration_ok);
  if (exaggeration_ok && std::isfinite(exaggeration) && exaggeration >= 0 && exaggeration <= 1000) {
    exaggeration_->setValue(exaggeration);
  } else {
    exaggeration_->setValue(10.0);
    settings_problems_ << "view/exaggeration";
  }
  exaggeration_->setToolTip(tr("Display exaggeration of the flexible deformation"));
  connect(exaggeration_, &QDoubleSpinBox::valueChanged, this, [this](double f) {
    if (scene_) scene_->setExaggeration(f);
    QSettings().setValue("view/exaggeration", f);
    view_dirty_ = true;
  });
  bar->addWidget(exaggeration_);

  // View
  view_menu_ = menuBar()->addMenu(tr("&View"));
  QMenu* camera = view_menu_->addMenu(tr("&Camera"));
  auto* group = new QActionGroup(this);
  const std::pair<QString, OsgWidget::CameraPreset> presets[] = {
      {tr("Whole scene"), OsgWidget::CameraPreset::kWholeScene},
      {tr("Follow the end effector"), OsgWidget::CameraPreset::kFollowEndEffector},
      {tr("From the base"), OsgWidget::CameraPreset::kFromBase},
      {tr("From the debris"), OsgWidget::CameraPreset::kFromDebris}};
  int key = Qt::Key_1;
  for (const auto& [name, preset] : presets) {
    QAction* a = camera->addAction(name, this, [this, p = preset] { view_->setCameraPreset(p); });
    a->setShortcut(QKeySequence(Qt::CTRL | key++));
    a->setCheckable(true);
    a->setChecked(preset == OsgWidget::CameraPreset::kWholeScene);
    group->addAction(a);
  }
  QMenu* show = show_menu_ = view_menu_->addMenu(tr("&Show"));
  struct Toggle {
    QString name;
    bool render::SceneOptions::*flag;
  };
  const Toggle toggles[] = {{tr("Body frames"), &render::SceneOptions::frames},
                            {tr("Velocity vectors"), &render::SceneOptions::velocities},
                            {tr("Momentum vectors"), &render::SceneOptions::momentum},
                            {tr("Centre of mass"), &render::SceneOptions::com},
                            {tr("End-effector paths"), &render::SceneOptions::paths},
                            {tr("Stars"), &render::SceneOptions::stars},
                            {tr("Earth direction"), &render::SceneOptions::earth},
                            {tr("Manipulability ellipsoid"), &render::SceneOptions::ellipsoid},
                            {tr("Workspace (reachable points)"), &render::SceneOptions::workspace},
                            {tr("Collision geometry (robots with their own shapes)"), &render::SceneOptions::collision},
                            {tr("Capture plan, coloured by its margin (red: at a limit, green: far)"), &render::SceneOptions::plan},
                            {tr("Capture window, stand-off and approach points"), &render::SceneOptions::window},
                            {tr("Bus axes and their trail"), &render::SceneOptions::trail},
                            {tr("Estimated debris (ghost) and its 3σ position ellipsoid"), &render::SceneOptions::estimate}};
  for (const Toggle& t : toggles) {
    QAction* a = show->addAction(t.name);
    a->setCheckable(true);
    a->setChecked(render::SceneOptions{}.*(t.flag));
    connect(a, &QAction::toggled, this, [this, flag = t.flag](bool on) {
      if (!scene_) return;
      render::SceneOptions o = scene_->options();
      o.*flag = on;
      scene_->setOptions(o);
      view_dirty_ = true;
    });
  }
  view_menu_->addSeparator();
  QMenu* panels = view_menu_->addMenu(tr("&Panels"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) panels->addAction(d->toggleViewAction());
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("recent").toStringList();
  for (const QString& p : recent) recent_menu_->addAction(p, this, [this, p] { openScenario(p); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

bool MainWindow::openScenario(const QString& path) {
  try {
    auto overrides = overrides_;
    if (repair_inertia_ && repair_inertia_->isChecked()) overrides.emplace_back("chaser.inertia", "repair");
    core::LoadedScenario loaded = core::loadScenario(path.toStdString(), overrides);
    std::unique_ptr<SimRunner> runner = makeRunner(path, loaded);
    adopt(path, std::move(loaded), std::move(runner));
    clearGhost();  // another scenario: the previous run no longer compares
    last_error_.clear();
    return true;
  } catch (const std::exception& e) {  // LoadError: "file:line: what, expected"
    last_error_ = QString::fromStdString(e.what());
    QMessageBox box(QMessageBox::Critical, tr("Cannot open the scenario"),
                    tr("The scenario could not be opened; %1 stays open.")
                        .arg(path_.isEmpty() ? tr("nothing") : QFileInfo(path_).fileName()),
                    QMessageBox::Ok, this);
    box.setObjectName("scenarioError");
    box.setInformativeText(last_error_);
    box.exec();
    return false;
  }
}

void MainWindow::adopt(const QString& path, core::LoadedScenario loaded, std::unique_ptr<SimRunner> runner) {
  // The old run first (its worker joined), then the new scene.
  runner_.reset();
  view_->setScene(nullptr);
  loaded_ = std::move(loaded);
  runner_ = std::move(runner);
  path_ = QFileInfo(path).absoluteFilePath();
  scene_ = std::make_unique<render::CaptureScene>(runner_->model(), runner_->scenario());
  scene_->setExaggeration(exaggeration_->value());
  for (const std::string& w : scene_->warnings()) statusBar()->showMessage(QString::fromStdString(w), 10000);
  // Keep the overlay choices of the menu.
  render::SceneOptions o;
  bool* flags[] = {&o.frames, &o.velocities, &o.momentum, &o.com, &o.paths, &o.stars, &o.earth, &o.ellipsoid, &o.workspace,
                   &o.collision, &o.plan, &o.window, &o.trail, &o.estimate};
  const QList<QAction*> toggles = show_menu_->actions();
  for (int k = 0; k < int(std::size(flags)) && k < toggles.size(); ++k) *flags[k] = toggles[k]->isChecked();
  scene_->setOptions(o);
  history_ = RunHistory{};
  history_.channels = runner_->channels();
  history_.columns.assign(history_.channels.size(), {});
  for (auto& c : history_.columns) c.reserve(runner_->expectedRows());
  runner_->takeRows(history_.columns);
  timeline_->setTimes(&history_.columns[0]);
  for (PlotPanel* p : plots_) p->reset(&history_);
  shown_row_ = -1;
  plan_ = render::PlanOverlay{};  // the old run's
  view_dirty_ = true;
  runner_->setSpeed(speed_->currentData().toDouble());
  scene_->update(runner_->snapshot(0));
  manipulability_->setModel(runner_->model(), scene_->endEffectorFrame());
  manipulability_->setConfiguration(runner_->snapshot(0).q);
  view_->setScene(scene_.get());
  requirements_->clear();
  shown_mission_.reset();
  events_->clear();
  shown_events_ = 0;
  saturated_.clear();
  timeline_->setMarkers({});
  for (PlotPanel* p : plots_) p->setEvents({}, {});
  showEvents(runner_->status(), 0);  // the initial instant's

  const core::Scenario& s = runner_->scenario();
  const core::Model& m = runner_->model();
  setWindowTitle(QString("Grapple - %1").arg(QString::fromStdString(s.name)));
  scenario_info_->setText(
      QString("<b>%1</b><br>%2<br><br>file: %3<br>robot: %4 (%5 base, %6 DOF, %7 modal coordinates, %8 kg)<br>"
              "integrator: %9, %10 s, recorded at %11 Hz<br>debris: %12")
          .arg(QString::fromStdString(s.name).toHtmlEscaped(), QString::fromStdString(s.description).toHtmlEscaped(),
               QFileInfo(path_).fileName(), QString::fromStdString(m.name).toHtmlEscaped(),
               QString::fromUtf8(core::baseModeName(m.base_mode).data(), int(core::baseModeName(m.base_mode).size())))
          .arg(m.nv)
          .arg(m.nflex)
          .arg(m.totalMass(), 0, 'f', 1)
          .arg(core::integratorName(s.run.integrator))
          .arg(s.run.duration)
          .arg(s.run.record_rate)
          .arg(s.debris.enabled ? QString("%1 kg").arg(s.debris.properties.mass) : tr("none")));

  QSettings settings;
  QStringList recent = settings.value("recent").toStringList();
  recent.removeAll(path_);
  recent.prepend(path_);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent", recent);
  updateRecentMenu();
  updateRunActions();
  tick();
  emit scenarioReplaced();
}

bool MainWindow::applyScenario(core::LoadedScenario loaded, bool quiet) {
  try {
    std::unique_ptr<SimRunner> fresh = makeRunner(path_, loaded);
    adopt(path_, std::move(loaded), std::move(fresh));
    last_error_.clear();
    return true;
  } catch (const std::exception& e) {
    last_error_ = QString::fromStdString(e.what());
    if (!quiet) QMessageBox::critical(this, tr("Cannot run the edited scenario"), last_error_);
    return false;
  }
}

void MainWindow::buildTuningDock() {
  // The controller tuning panels, tabbed with the scenario information.
  auto* dock = new QDockWidget(tr("Tuning"), this);
  dock->setObjectName("dock:tuning");
  tuning_ = new TuningPanel(this, dock);
  connect(tuning_, &TuningPanel::scenarioFileWritten, this, [this] {
    if (editor_) editor_->fileWrittenHere();
  });
  tuning_->setObjectName("tuning");
  dock->setWidget(scrollable(tuning_));
  connect(dock, &QDockWidget::visibilityChanged, tuning_, [this](bool shown) {
    if (shown) tuning_->scheduleAnalysis();
  });
  connect(manipulability_, &ManipulabilityPanel::spaceChanged, this, [this] {
    if (runner_ && runner_->rows() > 0) showRow(std::clamp(shown_row_, 0, runner_->rows() - 1));
  });
  // The μ-certified joint box goes onto the manipulability map, the run's points outside it marked.
  connect(tuning_, &TuningPanel::certifiedBox, this, [this](const std::vector<core::JointRange>& box) {
    manipulability_->setCertifiedBox(box);
    if (runner_ && runner_->rows() > 0) showRow(std::clamp(shown_row_, 0, runner_->rows() - 1));
  });
  if (auto* scen = findChild<QDockWidget*>("dock:scenario")) {
    tabifyDockWidget(scen, dock);
  } else {
    addDockWidget(Qt::LeftDockWidgetArea, dock);
  }
  if (auto* mission = findChild<QDockWidget*>("dock:mission")) mission->raise();
}

void MainWindow::buildGhostActions() {
  view_menu_->addSeparator();
  ghost_show_ = view_menu_->addAction(tr("Show the p&revious run"));
  ghost_show_->setCheckable(true);
  ghost_show_->setChecked(true);
  ghost_show_->setEnabled(false);
  ghost_show_->setToolTip(tr("The run before the last \"Apply and rerun\", dashed in the plots"));
  connect(ghost_show_, &QAction::toggled, this, &MainWindow::setGhostVisible);
  ghost_clear_ = view_menu_->addAction(tr("C&lear the previous run"), this, &MainWindow::clearGhost);
  ghost_clear_->setEnabled(false);
  for (PlotPanel* p : plots_) {
    connect(p, &PlotPanel::ghostVisibilityRequested, this, &MainWindow::setGhostVisible);
    connect(p, &PlotPanel::ghostClearRequested, this, &MainWindow::clearGhost);
  }
}

bool MainWindow::rerunKeepingGhost(core::LoadedScenario loaded, bool quiet) {
  RunHistory previous = history_;
  if (!applyScenario(std::move(loaded), quiet)) return false;
  ghost_ = std::move(previous);
  for (PlotPanel* p : plots_) p->setGhost(&ghost_);
  ghost_show_->setEnabled(true);
  ghost_clear_->setEnabled(true);
  return true;
}

void MainWindow::clearGhost() {
  ghost_ = RunHistory{};
  for (PlotPanel* p : plots_) p->setGhost(nullptr);
  if (ghost_show_) ghost_show_->setEnabled(false);
  if (ghost_clear_) ghost_clear_->setEnabled(false);
}

void MainWindow::setGhostVisible(bool visible) {
  for (PlotPanel* p : plots_) p->setGhostVisible(visible);
  if (ghost_show_ && ghost_show_->isChecked() != visible) ghost_show_->setChecked(visible);
}

void MainWindow::fitToScreen() {
  if (geometry_restored_) return;
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  if (!screen) return;
  const QRect area = screen->availableGeometry();
  const QSize size(area.width() * 9 / 10, area.height() * 9 / 10);
  resize(size);
  move(area.center() - QPoint(size.width() / 2, size.height() / 2));
}

void MainWindow::setRunning(bool running) {
  if (!runner_) return;
  if (running && runner_->status().finished) return;
  runner_->setRunning(running);
  if (running) timeline_->setLive(true);
  updateRunActions();
}

void MainWindow::stepOnce() {
  if (!runner_) return;
  runner_->stepOnce();
  timeline_->setLive(true);
  updateRunActions();
}

void MainWindow::resetRun() {
  if (!runner_) return;
  core::LoadedScenario copy = loaded_;
  applyScenario(std::move(copy));
}

void MainWindow::setSpeed(double factor) {
  int best = speed_->count() - 1;
  for (int i = 0; i < speed_->count(); ++i) {
    if (std::abs(speed_->itemData(i).toDouble() - factor) < 1e-12) best = i;
  }
  speed_->setCurrentIndex(best);
  if (runner_) runner_->setSpeed(factor);
}

void MainWindow::updateRunActions() {
  const bool running = runner_ && runner_->status().running;
  run_action_->setText(running ? tr("&Pause") : tr("&Run"));
  run_action_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void MainWindow::tick() {
  if (!runner_) return;
  const RunStatus st = runner_->status();
  // New rows: into the history, the plots and the timeline.
  const int from = history_.rows();
  if (st.rows > from) {
    runner_->takeRows(history_.columns);
    for (PlotPanel* p : plots_) p->appendRows(from);
    timeline_->rowsChanged();
    showEvents(st, from);
  }
  // Replay of the recording at the chosen speed.
  const long now = static_cast<long>(QDateTime::currentMSecsSinceEpoch());
  const double dt_wall = last_tick_ms_ > 0 ? std::min(0.2, (now - last_tick_ms_) / 1000.0) : 0.0;
  last_tick_ms_ = now;
  const double speed = speed_->currentData().toDouble();
  timeline_->advance(dt_wall * (speed > 0 ? speed : 1.0));

  const int row = timeline_->row();
  if (row != shown_row_ || view_dirty_) showRow(row);
  // The plots at most every 80 ms, and at most a sixth of the GUI thread: the 3D view gets the
  // frame rate. A replot costs a few ms at first and grows with the recording (each curve's points
  // are walked again): at the 100000 rows a run flat out records in 20 s, every 80 ms took the 3D
  // view down to 20 frames/s.
  if (plot_clock_.isValid() && plot_clock_.elapsed() < std::max<qint64>(80, 5 * plot_cost_ms_)) return finishTick(st);
  plot_clock_.start();
  for (PlotPanel* p : plots_) {
    p->setCursorTime(timeline_->time());
    p->refresh(true);
  }
  plot_cost_ms_ = plot_clock_.elapsed();
  finishTick(st);
}

void MainWindow::finishTick(const RunStatus& st) {
  // While the run goes, the status text (time, real-time factor) at most 4 times a second: each new
  // text re-lays out the status bar on the next pass of the event loop, which composes the whole
  // window once more (15-20 ms of software OpenGL at 1280x800) apart from the 3D view's frame.
  if (!st.running || !status_clock_.isValid() || status_clock_.elapsed() >= 250) {
    status_->setText(statusText());
    status_clock_.start();
  }
  if (st.mission != shown_mission_ || st.finished != shown_finished_) showMission(st);
  if (run_action_->text() != (st.running ? tr("&Pause") : tr("&Run"))) updateRunActions();
}

void MainWindow::showEvents(const RunStatus& st, int from) {
  bool changed = st.events.size() != shown_events_;
  // The saturation intervals, extended over the new rows.
  if (const int c = history_.find(core::channel::kLimitsSaturated); c >= 0) {
    const auto& t = history_.columns[0];
    const auto& n = history_.columns[static_cast<std::size_t>(c)];
    // Each row at a limit stands for the recording interval around it: a single row shows.
    const double half = history_.rows() > 1 ? 0.5 * (t[1] - t[0]) : 0.0;
    for (int r = from; r < history_.rows(); ++r) {
      if (!(n[r] > 0)) continue;
      if (!saturated_.empty() && r > 0 && n[r - 1] > 0) {
        saturated_.back().second = t[r] + half;
      } else {
        saturated_.push_back({t[r] - half, t[r] + half});
      }
      changed = true;
    }
  }
  if (!changed) return;
  shown_events_ = st.events.size();
  events_->setEvents(st.events);
  std::vector<TimelineMarker> markers;
  markers.reserve(st.events.size());
  for (const core::SimulationEvent& e : st.events) {
    markers.push_back({e.time, eventColor(e.kind), QString::fromStdString(e.kind + ": " + e.detail), eventShape(e.kind)});
  }
  for (PlotPanel* p : plots_) p->setEvents(markers, saturated_);
  timeline_->setMarkers(std::move(markers));
}

// The worker's newest metrics (once a second while the run goes, and when it stops): the outcome
// in the status bar, the requirements in their panel.
void MainWindow::showMission(const RunStatus& st) {
  shown_mission_ = st.mission;
  shown_finished_ = st.finished;
  const core::MissionMetrics& m = *st.mission;
  const bool decided = outcomeDecided(m, st.finished);
  outcome_->setText(outcomeText(m, st.finished));
  outcome_->setToolTip(decided ? QString::fromStdString(m.outcome_reason) : tr("The outcome is known when the run ends"));
  outcome_->setStyleSheet(decided ? QString("QLabel { background: %1; color: %2; font-weight: bold; padding: 0 6px; }")
                                        .arg(outcomeColor(m.outcome).name(), outcomeTextColor(m.outcome).name())
                                  : QString());
  requirements_->setMetrics(m, st.mission_time, st.finished);
}

void MainWindow::showRow(int row) {
  const render::Snapshot s = runner_->snapshot(row);
  scene_->update(s);
  manipulability_->setConfiguration(s.q);
  runner_->paths(row, path_actual_, path_planned_);
  scene_->setPaths(path_actual_, path_planned_);
  runner_->overlays(row, scene_->options().trail_seconds, plan_, trail_);
  scene_->setPlan(plan_.number > 0 ? &plan_ : nullptr);
  scene_->setBaseTrail(trail_);
  manipulability_->setPaths(history_, row, path_actual_, path_planned_);
  view_->sceneChanged();
  shown_row_ = row;
  view_dirty_ = false;
}

std::vector<core::Vector3> MainWindow::plannedPath() const {
  return runner_ ? runner_->plannedPoints() : std::vector<core::Vector3>{};
}

bool MainWindow::exportVideo(const QString& path, render::VideoOptions options, bool use_view_camera, bool quiet) {
  if (!runner_) return false;
  if (use_view_camera) options.fixed_camera = view_->cameraPose();
  options.scene = scene_->options();
  options.exaggeration = scene_->exaggeration();
  // A copy of the run (a few MB) so the physics can go on meanwhile; model and scenario copied
  // too: the export outlives nothing it reads.
  std::unique_ptr<render::Recording> recording;
  runner_->withRecording([&](const render::Recording& r) { recording = std::make_unique<render::Recording>(r); });
  const core::Model model = runner_->model();
  const core::Scenario scenario = runner_->scenario();
  const ExportJob job = runVideoExport(this, model, scenario, *recording, options, path, quiet);
  if (!job.error.isEmpty()) {
    last_error_ = job.error;
    if (!quiet) QMessageBox::critical(this, tr("Cannot export the video"), job.error);
    return false;
  }
  last_error_.clear();
  statusBar()->showMessage(job.result.cancelled ? tr("Video export cancelled")
                                                : tr("Wrote %1: %2 frames in %3 s")
                                                      .arg(path)
                                                      .arg(job.result.frames)
                                                      .arg(job.result.seconds, 0, 'f', 1),
                           10000);
  return true;
}

bool MainWindow::exportViewImage(const QString& path, int width, int height, bool quiet) {
  if (!runner_) return false;
  render::VideoOptions o;
  o.width = width;
  o.height = height;
  o.fixed_camera = view_->cameraPose();
  o.scene = scene_->options();
  o.exaggeration = scene_->exaggeration();
  o.time_label = false;  // a picture for a report: the caption says when
  std::unique_ptr<render::Recording> recording;  // a copy: the physics never waits on drawing
  runner_->withRecording([&](const render::Recording& r) { recording = std::make_unique<render::Recording>(r); });
  const QString error = runScreenshot(runner_->model(), runner_->scenario(), *recording, std::max(0, shown_row_), o, path);
  if (!error.isEmpty()) {
    last_error_ = error;
    if (!quiet) QMessageBox::critical(this, tr("Cannot save the image"), error);
    return false;
  }
  last_error_.clear();
  statusBar()->showMessage(tr("Wrote %1 (%2x%3)").arg(path).arg(width).arg(height), 10000);
  return true;
}

bool MainWindow::exportRobot(const QString& path, bool quiet) {
  if (!runner_) return false;
  try {
    core::writeFileAtomically(path.toStdString(), core::writeUrdf(runner_->model()));
  } catch (const std::exception& e) {
    last_error_ = QString::fromStdString(e.what());
    if (!quiet) QMessageBox::critical(this, tr("Cannot export the robot"), last_error_);
    return false;
  }
  last_error_.clear();
  statusBar()->showMessage(tr("Wrote %1").arg(path), 10000);
  return true;
}

void MainWindow::setRepairInertia(bool on) { repair_inertia_->setChecked(on); }

QStringList MainWindow::exportFigureSet(const QString& folder, bool quiet) {
  QStringList written;
  QString error;
  for (PlotPanel* p : plots_) {
    auto* dock = qobject_cast<QDockWidget*>(p->parentWidget());
    if (dock != nullptr && dock->isHidden()) continue;  // closed by the user
    const QString base = QDir(folder).filePath(p->title().toLower().replace(' ', '_'));
    const int w = std::max(p->plot()->width(), 400), h = std::max(p->plot()->height(), 250);
    if (!p->exportPng(base + ".png", w, h, &error) || !p->exportPdf(base + ".pdf", w, h, &error) ||
        !p->exportCsv(base + ".csv", &error)) {
      if (!quiet) QMessageBox::warning(this, tr("Export figure set"), error);
      return {};
    }
    written << base + ".png" << base + ".pdf" << base + ".csv";
  }
  statusBar()->showMessage(tr("%1 files written in %2").arg(written.size()).arg(folder), 5000);
  return written;
}

QString MainWindow::statusText() const {
  if (!runner_) return {};
  const RunStatus st = runner_->status();
  QString capture;
  if (!std::isnan(st.capture_time)) {
    capture = tr("captured at %1 s").arg(st.capture_time, 0, 'f', 2);
  } else if (!std::isnan(st.planned_capture)) {
    capture = tr("capture planned at %1 s").arg(st.planned_capture, 0, 'f', 2);
  } else if (!runner_->scenario().debris.enabled) {
    capture = tr("no debris");
  } else if (history_.find(core::channel::kPlanHandError) >= 0) {
    capture = tr("approaching");
  } else {
    capture = tr("no capture controller");
  }
  const QString state = !st.failure.empty() ? tr("FAILED: %1").arg(QString::fromStdString(st.failure))
                        : st.finished       ? tr("finished")
                        : st.running        ? tr("running")
                                            : tr("paused");
  return tr("t = %1 / %2 s   |   x%3 real time   |   step %4 ms   |   %5   |   %6")
      .arg(st.time, 0, 'f', 2)
      .arg(st.end_time, 0, 'f', 1)
      .arg(st.real_time_factor, 0, 'f', st.real_time_factor < 10 ? 2 : 0)
      .arg(st.step * 1000, 0, 'f', 3)
      .arg(capture, state);
}

void MainWindow::save() {
  if (path_.isEmpty()) return;
  if (editor_ && editor_->fileChangedOnDisk() &&
      QMessageBox::question(this, tr("Scenario changed on disk"),
                            tr("%1 was changed on disk by another program since it was opened. Overwrite it?").arg(path_),
                            QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Save) {
    return;
  }
  try {
    writeScenario(path_);
    statusBar()->showMessage(tr("Saved %1").arg(path_), 5000);
  } catch (const std::exception& e) {
    QMessageBox::critical(this, tr("Cannot save"), QString::fromStdString(e.what()));
  }
}

void MainWindow::saveAs() {
  if (!runner_) return;
  const QString p = QFileDialog::getSaveFileName(this, tr("Save scenario as"), path_, tr("Scenarios (*.yaml)"));
  if (p.isEmpty()) return;
  try {
    writeScenario(p);
    path_ = QFileInfo(p).absoluteFilePath();
    statusBar()->showMessage(tr("Saved %1").arg(path_), 5000);
  } catch (const std::exception& e) {
    QMessageBox::critical(this, tr("Cannot save"), QString::fromStdString(e.what()));
  }
}

void MainWindow::offerRecovery() {
  for (const ScenarioEditor::Recovery& r : ScenarioEditor::pendingRecoveries()) {
    QMessageBox box(QMessageBox::Question, tr("Unsaved edits found"),
                    tr("The scenario editor holds unsaved edits of %1 (autosaved %2) from a session that ended "
                       "without saving them. Restore them?")
                        .arg(r.scenario, r.saved),
                    QMessageBox::NoButton, this);
    box.setObjectName("recoveryQuestion");
    QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("Not now"), QMessageBox::RejectRole);  // asked again at the next start
    box.exec();
    if (box.clickedButton() == discard) {
      ScenarioEditor::discardRecovery(r.autosave);
    } else if (box.clickedButton() == restore) {
      if (!editor_->recover(r.autosave)) {
        QMessageBox::warning(this, tr("Cannot recover"), editor_->lastError());
        continue;
      }
      if (QDockWidget* d = findChild<QDockWidget*>("dock:editor")) d->raise();
      return;  // one document at a time: the others are offered at the next start
    }
  }
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  QMainWindow::closeEvent(e);
}

}  // namespace grapple::ui
