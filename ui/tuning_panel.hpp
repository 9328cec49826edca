// TuningPanel: the controller tuning dock. One page per controller of the open scenario
// (the bus attitude control, then each entry of `controllers`), a form of its gains and limits
// with their units and the loader's ranges; "Apply and rerun" runs the scenario with the form's
// values (validated by the loader itself), the previous run kept as a ghost in the plots; "Save
// gains" writes them into the scenario file. Below the pages, for the PD loops of the scenario
// (the attitude control, the joint path's PD, the capture law joint_pd): the linearized closed
// loop at the instant shown on the timeline with the form's gains (core/analysis/scenario_loops):
// its poles with their damping ratios, and the acceleration sensitivity of each channel against
// the thesis' template 1/|W(jω)|, with γ_hard.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/analysis/closed_loop.hpp"
#include "core/analysis/robust.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/io/scenario_schema.hpp"
#include "core/io/scenario_yaml.hpp"
#include "ui/background_job.hpp"

class QCustomPlot;
class QDoubleSpinBox;
class QCheckBox;
class QLabel;
class QTabWidget;
class QTimer;
class QPushButton;
class QProgressBar;
class QTableWidget;
class QLineEdit;
class QHBoxLayout;
class QVBoxLayout;

namespace grapple::ui {

class MainWindow;

// One editable value of a controller, with the range the scenario loader accepts for its key.
struct TuningField {
  enum class Range { kAny, kNonNegative, kPositive };
  std::string key;      // as in the scenario file: "kp", "torque_limit", "joint_kp[2]"
  QString label;        // shown
  QString unit;         // shown as the suffix ("" for a ratio)
  Range range = Range::kNonNegative;  // of `bounds`, the scenario format's for the key
  core::Bounds bounds = core::bounds::kNonNegative;
  std::function<double&(core::Scenario&)> value;  // where it lives in the Scenario
  std::function<bool&(core::Scenario&)> flag;     // set instead for an on/off setting (a check box)
  QString tip;
};

struct TuningPage {
  QString title;
  int controller = -1;  // index in Scenario::controllers; -1: chaser.attitude_control
  std::vector<TuningField> fields;
};

// The pages of a scenario's controllers (the model gives the joints' names and counts). The
// capture law joint_pd's gains are listed even where the file leaves the defaults (filled in).
std::vector<TuningPage> tuningPages(core::Scenario& scenario, const core::Model& model);
// The smallest and largest value a field's box takes (the loader has no upper bounds: the boxes
// stop at 1e9).
double tuningMinimum(const TuningField& field);
double tuningMaximum(const TuningField& field);

class TuningPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TuningPanel(MainWindow* window, QWidget* parent = nullptr);
  ~TuningPanel() override;

  // Rebuilds the pages from the window's open scenario (on scenarioReplaced).
  void rebuild();
  int pageCount() const;
  QString pageTitle(int page) const;
  const TuningPage& page(int page) const { return pages_[static_cast<std::size_t>(page)]; }
  // The box of a field on a page (nullptr if none), and the check box of a flag.
  QDoubleSpinBox* field(int page, const std::string& key) const;
  QCheckBox* flag(int page, const std::string& key) const;

  // The open scenario with the form's values, validated as the loader validates a file (throws
  // core::LoadError).
  core::LoadedScenario edited() const;
  // Apply and rerun: the edited scenario replaces the open one and runs, the current run kept as
  // the plots' ghost. Save gains: the edited scenario written into the scenario file (atomic).
  // Both return false with the reason in lastError() (and a dialog unless quiet).
  bool applyAndRerun(bool quiet = false);
  bool saveGains(bool quiet = false);
  const QString& lastError() const { return last_error_; }

  // The closed loop of the form's gains at the instant shown, recomputed now (also done on every
  // edit and timeline move, after a short delay, on a background thread: the GUI never waits on
  // it). hasClosedLoop(): the scenario has a PD loop.
  void refreshAnalysis();
  bool hasClosedLoop() const { return has_loop_; }
  const core::ClosedLoopGains& closedLoopGains() const { return gains_; }
  const core::ClosedLoopAnalysis& analysis() const { return analysis_; }
  const Eigen::VectorXd& analysisConfiguration() const { return q_; }
  QCustomPlot* polePlot() const { return poles_plot_; }
  QCustomPlot* bodePlot() const { return bode_plot_; }
  QLabel* poleList() const { return pole_list_; }

  // Synthesize: the structured H∞ synthesis (thesis §8.2.3, core/analysis/synthesis) of the capture
  // controller's joint PD (law joint_pd; decentralized or centralized as the file says) and of the
  // attitude control's kp, kd, mono-model at the configuration of the instant shown, on a
  // background thread (progress bar, Cancel). The result fills a table (γ_hard, γ_soft, whether Kp
  // and Kd are positive definite, the gains); useSynthesis() copies its gains into the form and
  // applies and reruns (the current run kept as the ghost). startSynthesis() returns false (reason
  // in lastError()) when the scenario has no joint_pd capture or a synthesis is running.
  // Multi-model: with instants typed in the box beside the button ("0, 20, 45" seconds, each
  // recorded already), the synthesis covers the configurations of the run at those instants at
  // once (γ_hard the worst of them, thesis eq. 8.11); empty: the instant shown.
  bool startSynthesis();
  void setSynthesisInstants(const QString& text);
  void cancelSynthesis();
  bool synthesisRunning() const { return synthesis_.running(); }
  const std::optional<core::SynthesisResult>& synthesisResult() const { return synthesis_result_; }
  const Eigen::VectorXd& synthesisConfiguration() const { return synthesis_q_.front(); }
  const std::vector<Eigen::VectorXd>& synthesisConfigurations() const { return synthesis_q_; }
  bool useSynthesis(bool quiet = false);
  QTableWidget* synthesisTable() const { return synthesis_table_; }

  // Certify ranges: the μ-analysis (thesis §8.3, core/analysis/robust) of the form's PD loops at
  // the configuration of the instant shown (the loops the pole map shows): the box of joint
  // angles, within the model's limits, all joints varying at once, in which the loop is
  // guaranteed to stay stable; on a background thread (the button cancels it while it runs). The
  // box fills a table and goes to certifiedBox (the manipulability map draws it and marks where
  // the run leaves it). Returns false (reason in lastError()) without a PD loop or while one runs.
  bool startCertification();
  bool certificationRunning() const { return certification_.running(); }
  const std::optional<core::CertifiedBox>& certification() const { return certified_; }
  QTableWidget* certificationTable() const { return certified_table_; }

 signals:
  void analysisUpdated();
  void synthesisFinished();
  // A certified joint box (core::CertifiedBox::box), or empty when there is none (a new
  // scenario, a failed or cancelled analysis).
  void certifiedBox(const std::vector<core::JointRange>& box);
  void certificationFinished();
  // Save gains wrote the scenario's file (the editor then knows the text on disk is its own).
  void scenarioFileWritten();

 public:
  // The closed-loop analysis again in 300 ms, from the newest inputs (skipped while off screen).
  void scheduleAnalysis();

 private:
  QHBoxLayout* buildButtons(QWidget* top);
  void buildResults(QWidget* top, QVBoxLayout* top_layout);
  void buildLoopPlots(QWidget* parent);
  void buildPage(std::size_t index);
  core::Scenario formScenario() const;  // the working copy with the form's values (unvalidated)
  void drawAnalysis(const QString& description);
  // The analysis' inputs taken now (the form, the instant shown) and the work, which may run on
  // another thread; applyAnalysis() shows a result.
  struct AnalysisResult {
    bool has_loop = false;
    core::ClosedLoopGains gains;
    core::ClosedLoopAnalysis analysis;
    Eigen::VectorXd q;
    QString description;
  };
  std::function<AnalysisResult()> analysisJob() const;
  void startAnalysis();
  void applyAnalysis(AnalysisResult r);
  void pollAnalysis();
  void pollSynthesis();
  void pollCertification();
  int capturePage() const;  // the page of the joint_pd capture controller, -1 if none

  MainWindow* window_;
  core::Scenario base_;             // the open scenario, joint_pd defaults filled in
  std::vector<TuningPage> pages_;
  std::vector<std::vector<QWidget*>> editors_;  // per page, per field: QDoubleSpinBox or QCheckBox
  QTabWidget* tabs_ = nullptr;
  QPushButton* apply_ = nullptr;
  QPushButton* save_ = nullptr;
  QLabel* message_ = nullptr;
  QWidget* loop_box_ = nullptr;
  QLabel* loop_title_ = nullptr;
  QLabel* pole_list_ = nullptr;
  QCustomPlot* poles_plot_ = nullptr;
  QCustomPlot* bode_plot_ = nullptr;
  QTimer* delay_ = nullptr;
  BackgroundJob<AnalysisResult> analysis_job_;
  bool again_ = false;  // inputs changed while a result was being computed
  QString last_error_;
  bool has_loop_ = false;
  core::ClosedLoopGains gains_;
  core::ClosedLoopAnalysis analysis_;
  Eigen::VectorXd q_;
  QPushButton* synthesize_ = nullptr;
  QPushButton* synthesis_cancel_ = nullptr;
  QPushButton* synthesis_use_ = nullptr;
  QProgressBar* synthesis_bar_ = nullptr;
  QTableWidget* synthesis_table_ = nullptr;
  BackgroundJob<core::SynthesisResult> synthesis_;
  std::optional<core::SynthesisResult> synthesis_result_;
  std::vector<Eigen::VectorXd> synthesis_q_{Eigen::VectorXd()};
  QLineEdit* synthesis_instants_ = nullptr;
  int synthesis_page_ = -1;
  QPushButton* certify_ = nullptr;
  QTableWidget* certified_table_ = nullptr;
  BackgroundJob<core::CertifiedBox> certification_;
  std::optional<core::CertifiedBox> certified_;
  double certified_time_ = 0;
};

}  // namespace grapple::ui
