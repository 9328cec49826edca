// Timeline: the recorded run under the 3D view. A slider over the recorded instants, frame steps,
// a "live" mode that follows the newest instant while the simulation runs, replay of the recording
// at the simulation speed, and a loop window [from, to] for the replay. The run's events are
// marked on the slider's groove in their kind's colour (their kind and detail as tooltip); a
// click on the groove goes to that instant (on a marker: to its event's), the slider's keys step
// (arrows, Page Up/Down) and jump (Home, End), nextEvent()/previousEvent() go from event to event.
#pragma once

#include <vector>

#include <QColor>
#include <QPointF>
#include <QString>
#include <QWidget>

class QPainter;
class QSlider;
class QLabel;
class QToolButton;
class QDoubleSpinBox;
class QCheckBox;

namespace grapple::ui {

// How an event is marked beside its colour: a plain line, or a line with a triangle down
// (a measurement lost), up (regained) or a diamond (a replan) at its top.
enum class MarkerShape { kLine, kTriangleDown, kTriangleUp, kDiamond };
// Paints a shape's head (nothing for kLine) of `size` pixels centred at `at`.
void paintMarkerShape(QPainter& p, MarkerShape shape, const QColor& color, QPointF at, double size);

// An event drawn on the timeline.
struct TimelineMarker {
  double time;   // [s]
  QColor color;
  QString text;  // tooltip: kind and detail
  MarkerShape shape = MarkerShape::kLine;
};

class Timeline : public QWidget {
  Q_OBJECT
 public:
  explicit Timeline(QWidget* parent = nullptr);

  // The recorded instants (times of rows 0..n-1; held, not owned; may grow).
  void setTimes(const std::vector<double>* times);
  // New rows were recorded: in live mode the cursor moves to the newest.
  void rowsChanged();
  int row() const { return row_; }
  void setRow(int row);         // leaves live mode
  void setTime(double t);       // the first recorded instant at or after t (setRow)
  void setLive(bool live);
  bool live() const { return live_; }
  void setReplaying(bool on);
  bool replaying() const { return replaying_; }
  // Replay: advances the cursor by dt_sim simulated seconds (wrapping in the loop window).
  void advance(double dt_sim);
  void setLoop(bool on, double from, double to);
  double time() const;          // of the cursor [s]

  // The events to mark (in time order; held as a copy).
  void setMarkers(std::vector<TimelineMarker> markers);
  const std::vector<TimelineMarker>& markers() const { return markers_; }
  // The first event after the cursor's instant (before it); false if there is none.
  bool nextEvent();
  bool previousEvent();
  // The slider (its groove holds the markers); the x of `t` on it, in its own coordinates.
  QSlider* slider() const { return slider_; }
  int markerX(double t) const;

 signals:
  void rowChanged(int row);

 private:
  void updateWidgets();
  int rowAt(double t) const;

  friend class TimelineSlider;
  const std::vector<double>* times_ = nullptr;
  std::vector<TimelineMarker> markers_;
  int row_ = 0;
  bool live_ = true, replaying_ = false;
  double replay_t_ = 0;
  QSlider* slider_;
  QLabel* label_;
  QToolButton *first_, *back_, *forward_, *live_button_, *replay_;
  QCheckBox* loop_;
  QDoubleSpinBox *from_, *to_;
};

}  // namespace grapple::ui
