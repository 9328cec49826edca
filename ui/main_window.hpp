// MainWindow: the desktop application. The 3D view with the timeline under it, plot panels and
// information panels in docks (rearrangeable; the layout is remembered with QSettings), the File
// menu (open, recent, built-in scenarios, save, save as), the simulation controls (run, pause,
// step, reset, speed) and a status bar (simulated time, real-time factor, integrator step,
// capture state, the mission's outcome; the requirements as checked in the scenario panel). A timer at display rate pulls the newly recorded rows from the SimRunner into
// the plots and poses the 3D view at the timeline's instant.
#pragma once

#include <memory>
#include <vector>

#include <QMainWindow>
#include <QElapsedTimer>
#include <QString>
#include <QStringList>

#include "core/io/scenario_yaml.hpp"
#include "render/video.hpp"
#include "ui/plot_panel.hpp"

class QTimer;
class QLabel;
class QComboBox;
class QDoubleSpinBox;
class QMenu;
class QAction;

namespace grapple::render {
class CaptureScene;
}
namespace grapple::core {
struct Data;
struct MissionMetrics;
}

namespace grapple::ui {

class CampaignPanel;
class EventsPanel;
class ManipulabilityPanel;
class RequirementsPanel;
class TuningPanel;
class ScenarioEditor;

class OsgWidget;
class SimRunner;
struct RunStatus;
class Timeline;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads and opens a scenario. On a bad file: an error dialog with the loader's
  // "file:line: ..." message, the current scenario stays open, returns false.
  bool openScenario(const QString& path);
  const QString& scenarioPath() const { return path_; }
  const QString& lastError() const { return last_error_; }
  // The settings that could not be read at start (ignored: "window/state", "recent", ...).
  const QStringList& settingsProblems() const { return settings_problems_; }
  // Asks, for each document the scenario editor autosaved in a session that ended without
  // saving it (killed, crashed, closed), whether to restore it (into the editor, unsaved),
  // discard it or keep it for later. Modal; app/grapple calls it once the window is shown.
  void offerRecovery();
  // Key/value overrides applied when scenarios are loaded (as grapple-cli's --set).
  void setOverrides(std::vector<std::pair<std::string, std::string>> overrides) { overrides_ = std::move(overrides); }
  const std::vector<std::pair<std::string, std::string>>& overrides() const { return overrides_; }

  // Replaces the open scenario by `loaded` (already validated: the editor and the tuning panels
  // build it) and starts a fresh run of it; the path stays. If the Simulation cannot be built from
  // it, an error dialog (unless quiet), the current run stays, returns false with the reason in
  // lastError(). Emits scenarioReplaced() on success.
  bool applyScenario(core::LoadedScenario loaded, bool quiet = false);
  // Apply and rerun (the tuning panels): as applyScenario, the current run kept as the plots'
  // ghost, drawn as "previous run" (one ghost: the last run before this one).
  bool rerunKeepingGhost(core::LoadedScenario loaded, bool quiet = false);
  const RunHistory& ghost() const { return ghost_; }
  void clearGhost();
  void setGhostVisible(bool visible);
  TuningPanel* tuning() const { return tuning_; }
  // The open scenario as loaded (with the edits applied through applyScenario).
  const core::LoadedScenario& loaded() const { return loaded_; }

  // The window's default size: 90 % of the screen's available area, centred, unless a size was
  // remembered from the last session (QSettings).
  void fitToScreen();

  void setRunning(bool running);
  void stepOnce();
  void resetRun();
  // Simulated seconds per wall second; <= 0: as fast as possible.
  void setSpeed(double factor);

  // The figure set: every plot panel that is open, as PNG (its size on screen), PDF (vector) and CSV
  // into `folder` (named after the panels). Returns the files written; on a failure an error
  // dialog (unless quiet) and an empty list.
  QStringList exportFigureSet(const QString& folder, bool quiet = false);

  // The recorded run as an MP4 (render::exportVideo on a worker thread, with a progress dialog and
  // cancel unless quiet), drawn with the view's exaggeration and overlays; from the view's camera
  // as it is now if use_view_camera, else options.camera's preset. False with the reason in
  // lastError() (and a dialog unless quiet) if it failed; cancelled is not a failure.
  bool exportVideo(const QString& path, render::VideoOptions options, bool use_view_camera, bool quiet = false);
  // The 3D view at the instant shown, as a PNG of any size (off-screen, the view's camera).
  bool exportViewImage(const QString& path, int width, int height, bool quiet = false);
  // The open scenario's robot as URDF (core::writeUrdf). False with the reason in lastError() (and
  // a dialog unless quiet) if it cannot be written.
  bool exportRobot(const QString& path, bool quiet = false);
  // File > Repair non-physical inertias: URDF robots opened from now on load with their
  // non-physical inertias repaired (the scenario's chaser.inertia = repair), each repair reported.
  void setRepairInertia(bool on);

  // Pulls new rows, updates plots, the view and the status bar (the timer's job; public for tests).
  void tick();

  SimRunner* runner() const { return runner_.get(); }
  render::CaptureScene* scene() const { return scene_.get(); }
  OsgWidget* view() const { return view_; }
  Timeline* timeline() const { return timeline_; }
  const std::vector<PlotPanel*>& plots() const { return plots_; }
  ManipulabilityPanel* manipulability() const { return manipulability_; }
  // The campaign dock (View > Panels > Campaign, closed by default): a campaign folder's results,
  // or a campaign run.
  CampaignPanel* campaign() const { return campaign_; }
  // The scenario editor (its dock: View > Panels > Scenario editor; its undo stack: Edit menu).
  ScenarioEditor* editor() const { return editor_; }
  // The requirements as checked on the run (in the Scenario panel, under the summary) and the
  // status bar's outcome ("running" until the run ends; its reason as tooltip).
  RequirementsPanel* requirements() const { return requirements_; }
  QLabel* outcomeLabel() const { return outcome_; }
  // The run's events (its dock: View > Panels > Events), also marked on the timeline and on every
  // plot; the intervals where some actuator asks beyond its limit (limits.saturated > 0), shaded
  // on every plot, as [from, to] in seconds.
  EventsPanel* events() const { return events_; }
  const std::vector<std::pair<double, double>>& saturatedIntervals() const { return saturated_; }
  const RunHistory& history() const { return history_; }
  QString statusText() const;
  // The planned end-effector path recorded so far (inertial [m]), one point per driven row.
  std::vector<core::Vector3> plannedPath() const;
  // The planned path drawn at the instant shown (the whole capture plan once made).
  const std::vector<core::Vector3>& drawnPlannedPath() const { return path_planned_; }

  // The built-in scenarios folder ($GRAPPLE_SCENARIO_DIR, else the source tree's).
  static QString scenarioDir();
  static QString defaultScenario();

 signals:
  // A scenario was opened or replaced (applyScenario, reset); the run restarted.
  void scenarioReplaced();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildMenus();
  void buildDocks();
  void buildTuningDock();
  void buildGhostActions();
  void buildEditorDock();
  void buildCampaignDock();
  void buildEditMenu();
  // Writes the scenario to `path`: the editor's document if it differs from the file, else the
  // Scenario. Throws std::runtime_error.
  void writeScenario(const QString& path);
  void adopt(const QString& path, core::LoadedScenario loaded, std::unique_ptr<SimRunner> runner);
  void showRow(int row);
  void updateRecentMenu();
  void saveAs();
  void save();
  void updateRunActions();
  void finishTick(const RunStatus& st);
  void showMission(const RunStatus& st);
  // The new events and saturation intervals of rows [from, history.rows()) onto the timeline and plots.
  void showEvents(const RunStatus& st, int from);

  QString path_, last_error_;
  QStringList settings_problems_;
  std::vector<std::pair<std::string, std::string>> overrides_;
  core::LoadedScenario loaded_;
  std::unique_ptr<SimRunner> runner_;
  std::unique_ptr<render::CaptureScene> scene_;
  RunHistory history_;
  RunHistory ghost_;  // the previous run (rerunKeepingGhost), empty if none
  int shown_row_ = -1;
  std::vector<core::Vector3> path_actual_, path_planned_;  // reused every frame
  render::PlanOverlay plan_;                     // the capture plan drawn
  std::vector<core::Transform> trail_;           // the bus' recent poses drawn
  bool view_dirty_ = true;

  OsgWidget* view_ = nullptr;
  Timeline* timeline_ = nullptr;
  std::vector<PlotPanel*> plots_;
  ManipulabilityPanel* manipulability_ = nullptr;
  CampaignPanel* campaign_ = nullptr;
  TuningPanel* tuning_ = nullptr;
  QAction* ghost_show_ = nullptr;
  QAction* repair_inertia_ = nullptr;
  QAction* ghost_clear_ = nullptr;
  ScenarioEditor* editor_ = nullptr;
  QLabel* info_ = nullptr;       // the picked body
  QLabel* scenario_info_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* outcome_ = nullptr;
  RequirementsPanel* requirements_ = nullptr;
  EventsPanel* events_ = nullptr;
  std::size_t shown_events_ = 0;
  std::vector<std::pair<double, double>> saturated_;
  std::shared_ptr<const core::MissionMetrics> shown_mission_;  // what the panel and outcome show
  bool shown_finished_ = false;
  bool geometry_restored_ = false;
  QTimer* timer_ = nullptr;
  QComboBox* speed_ = nullptr;
  QDoubleSpinBox* exaggeration_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* show_menu_ = nullptr;
  QAction* run_action_ = nullptr;
  long last_tick_ms_ = 0;
  QElapsedTimer plot_clock_;
  qint64 plot_cost_ms_ = 0;  // the last refresh of the plots
  QElapsedTimer status_clock_;  // the status text's last change while running
};

}  // namespace grapple::ui
