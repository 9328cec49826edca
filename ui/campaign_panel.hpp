// CampaignPanel: the Campaign dock. Opens a campaign's output folder (merged on opening: runs.csv,
// campaign.json) or runs a campaign file on the local engine (`grapple-cli campaign run`, a
// process of its own, with progress from the runs it has finished and a cancel button); shows the
// success rate with its Wilson 95 % interval and one of three plots: a scatter of a metric or the
// outcome against a dispersed value (or, with a second dispersed value, the points coloured by
// it), a heat map of a metric's mean or the success rate over two dispersed values, and a
// histogram of a metric. A click on a point re-runs that run in the main window, its scenario
// drawn again from the campaign's seed (the scenario as run if the campaign file is gone), so
// the 3D view and the timeline show it bit for bit as the campaign ran it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <QString>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QProcess;
class QProgressBar;
class QPushButton;
class QTimer;

namespace grapple::ui {

class MainWindow;

// runs.csv as read back: its header and one row of cells per run.
struct CampaignTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const;
};
// Reads a CSV file written by `campaign merge` (quoted cells allowed). Throws std::runtime_error.
CampaignTable readCampaignCsv(const std::string& path);

class CampaignPanel : public QWidget {
  Q_OBJECT
 public:
  enum class PlotKind { kScatter, kHeatMap, kHistogram };

  CampaignPanel(MainWindow* window, QWidget* parent = nullptr);
  ~CampaignPanel() override;

  // Merges and shows a campaign folder. False (with the reason in lastError()) if it is not one.
  bool openFolder(const QString& dir);
  // Runs a campaign file into `out` with grapple-cli (whose path setCli gives; by default the one
  // beside the application); the folder is shown as the runs finish.
  bool startCampaign(const QString& file, const QString& out);
  void cancel();
  bool running() const;
  void setCli(const QString& path) { cli_ = path; }

  // The plot: kind, the dispersed value(s) on the axes ("" for none) and the metric (or "outcome").
  void setPlot(PlotKind kind, const QString& x, const QString& y, const QString& metric);
  // Re-runs run i in the main window (what a click on its point does).
  bool rerun(long run);

  const CampaignTable& table() const { return table_; }
  QStringList valueColumns() const;
  QStringList metricColumns() const;
  QString folder() const { return dir_; }
  QString summaryText() const;
  const QString& lastError() const { return error_; }
  QCustomPlot* plot() const { return plot_; }
  // The run of each point drawn, per graph of the scatter (in drawing order).
  const std::vector<std::vector<long>>& pointRuns() const { return point_runs_; }
  int progressValue() const;

 signals:
  void campaignFinished(int exit_code);
  void rerunStarted(long run);

 private:
  void reload();
  void redraw();
  void pollProgress();
  void fillCombos();
  std::vector<double> numbers(int column) const;

  MainWindow* window_;
  QString dir_, cli_, error_, summary_;
  CampaignTable table_;
  std::vector<std::string> value_columns_;
  std::vector<std::vector<long>> point_runs_;
  QProcess* process_ = nullptr;
  QTimer* poll_ = nullptr;
  long total_runs_ = 0;
  std::set<long> seen_;
  long seen_success_ = 0;

  QPushButton* open_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QComboBox* kind_ = nullptr;
  QComboBox* x_ = nullptr;
  QComboBox* y_ = nullptr;
  QComboBox* metric_ = nullptr;
  QCustomPlot* plot_ = nullptr;
};

}  // namespace grapple::ui
