// RequirementsPanel (the Mission panel): the mission's requirements as checked on the recorded run
// (core::missionMetrics; by default the thesis' Table 8.1): each one's limit, its worst value,
// met or violated, and its first violation, under the outcome and its reason; then the run's
// metrics, the numbers and names of summary.json's `metrics` (core::metricValues). "Go to first
// violation" asks the timeline for the earliest violation's instant, "Go to worst" (or a
// double-click on a row) for the instant of the selected requirement's worst value (timeRequested). The window feeds it the metrics
// the simulation's worker computes (SimRunner's RunStatus::mission), never computing them itself.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace grapple::core {
struct MissionMetrics;
enum class Outcome;
}  // namespace grapple::core

namespace grapple::ui {

// The outcome's colour (captured green, captured_out_of_spec amber, aborted orange, missed red,
// failed dark grey), shared by the status bar and the panel.
QColor outcomeColor(core::Outcome o);
// The text on that colour (black on the light ones, white on the dark ones).
QColor outcomeTextColor(core::Outcome o);
// The outcome as the status bar and the panel show it: its name (summary.json's metrics.outcome)
// once the run has ended, "running" before; "no outcome" for a run without a capture controller.
QString outcomeText(const core::MissionMetrics& m, bool finished);
// Whether that outcome is final (the run ended with a capture controller, or failed).
bool outcomeDecided(const core::MissionMetrics& m, bool finished);

class RequirementsPanel : public QWidget {
  Q_OBJECT
 public:
  // Table columns (the unit in Limit's); each cell of Limit, Worst and First violation holds its
  // number (Qt::UserRole).
  enum Column { kName, kLimit, kWorst, kStatus, kFirst, kColumns };

  explicit RequirementsPanel(QWidget* parent = nullptr);

  // Shows `m`, computed at simulated time `t`; `finished`: the run is over (the outcome is final).
  void setMetrics(const core::MissionMetrics& m, double t, bool finished);
  // Empties the panel (a scenario replaced or rerun, until its first metrics).
  void clear();

  QTableWidget* table() const { return table_; }
  QPushButton* firstViolationButton() const { return goto_first_; }
  // Goes to the selected requirement's worst value (the first row's if none is selected).
  QPushButton* worstButton() const { return goto_worst_; }
  // The run's metrics: key (summary.json's), value (its number in Qt::UserRole), description.
  QTableWidget* metricsTable() const { return metrics_; }
  QLabel* outcomeLabel() const { return outcome_; }
  // The earliest first violation among the requirements shown [s]; NaN if every one is met.
  double firstViolationTime() const { return first_violation_; }

 signals:
  void timeRequested(double t);

 private:
  QLabel* outcome_;
  QTableWidget* table_;
  QPushButton* goto_first_;
  QPushButton* goto_worst_;
  QTableWidget* metrics_;
  double first_violation_;
};

}  // namespace grapple::ui
