// EventsPanel: what happened during the run (core::SimulationEvent: the capture window, the plan,
// the grasp and the attachment, aborts, joint and effort limits, integration failures), one row
// per event: time, kind (in its colour, as on the timeline and the plots) and detail, filtered by
// kind. A click on an event (or the keyboard's current row) asks the timeline for its instant
// (timeRequested). The window feeds it the worker's events; it never reads the simulation itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "ui/timeline.hpp"

class QComboBox;
class QLabel;
class QTableWidget;

namespace grapple::core {
struct SimulationEvent;
}

namespace grapple::ui {

// The colour of an event's kind, shared by the panel, the timeline's markers and the plots' lines:
// the capture's decisions blue, the grasp green, aborts and lost windows orange, limits red,
// failures black; kinds not listed grey.
QColor eventColor(const std::string& kind);
// The mark of an event's kind beside its colour (the timeline's head, the panel's icon): the
// camera's lost and regained measurements a triangle down and up, a replan a diamond, the others
// a plain line.
MarkerShape eventShape(const std::string& kind);

class EventsPanel : public QWidget {
  Q_OBJECT
 public:
  enum Column { kTime, kKind, kDetail, kColumns };

  explicit EventsPanel(QWidget* parent = nullptr);
  ~EventsPanel() override;

  // The run's events so far (in time order). Cheap when nothing was added.
  void setEvents(const std::vector<core::SimulationEvent>& events);
  void clear();
  // Shows only the events of `kind` (empty: every kind).
  void setFilter(const QString& kind);
  QString filter() const;

  QTableWidget* table() const { return table_; }
  QComboBox* filterBox() const { return filter_; }

 signals:
  void timeRequested(double t);

 private:
  void rebuild();

  std::unique_ptr<std::vector<core::SimulationEvent>> events_;  // a copy of the run's
  QComboBox* filter_;
  QTableWidget* table_;
  QLabel* count_;
};

}  // namespace grapple::ui
