// Timeline: the recorded run under the 3D view. A slider over the recorded instants, frame steps,
// a "live" mode that follows the newest instant while the simulation runs, replay of the recording
// at the simulation speed, and a loop window [from, to] for the replay.
#pragma once

#include <vector>

#include <QWidget>

class QSlider;
class QLabel;
class QToolButton;
class QDoubleSpinBox;
class QCheckBox;

namespace grapple::ui {

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

 signals:
  void rowChanged(int row);

 private:
  void updateWidgets();
  int rowAt(double t) const;

  const std::vector<double>* times_ = nullptr;
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
