#include "ui/timeline.hpp"

#include <algorithm>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPolygonF>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolTip>
#include <QToolButton>
#include <QVBoxLayout>

namespace grapple::ui {

void paintMarkerShape(QPainter& p, MarkerShape shape, const QColor& color, QPointF at, double size) {
  const double h = size / 2;
  QPolygonF head;
  switch (shape) {
    case MarkerShape::kLine:
      return;
    case MarkerShape::kTriangleDown:
      head << QPointF(at.x() - h, at.y() - h) << QPointF(at.x() + h, at.y() - h) << QPointF(at.x(), at.y() + h);
      break;
    case MarkerShape::kTriangleUp:
      head << QPointF(at.x() - h, at.y() + h) << QPointF(at.x() + h, at.y() + h) << QPointF(at.x(), at.y() - h);
      break;
    case MarkerShape::kDiamond:
      head << QPointF(at.x() - h, at.y()) << QPointF(at.x(), at.y() - h) << QPointF(at.x() + h, at.y())
           << QPointF(at.x(), at.y() + h);
      break;
  }
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(color.darker(160), 1));
  p.setBrush(color);
  p.drawPolygon(head);
  p.restore();
}

// The timeline's slider: the events' markers painted over the groove, a click anywhere on it goes
// there (not a page step), and the markers' tooltips.
class TimelineSlider : public QSlider {
 public:
  explicit TimelineSlider(Timeline* timeline) : QSlider(Qt::Horizontal, timeline), timeline_(timeline) {
    setMinimumHeight(24);
    setPageStep(50);
  }

  // The x (slider coordinates) of a value, and the value at an x: along the groove, as the style
  // places the handle's centre.
  int xOf(int value) const {
    const auto [x0, span] = track();
    return x0 + QStyle::sliderPositionFromValue(minimum(), maximum(), value, span);
  }
  int valueAt(int x) const {
    const auto [x0, span] = track();
    return QStyle::sliderValueFromPosition(minimum(), maximum(), x - x0, span);
  }
  // Where the handle's centre can go: its x at the minimum and the length it travels.
  std::pair<int, int> track() const {
    QStyleOptionSlider opt;
    initStyleOption(&opt);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
    const QRect handle = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, this);
    return {groove.x() + handle.width() / 2, groove.width() - handle.width()};
  }
  // The marker nearest x within a few pixels; -1 if none.
  int markerAt(int x) const {
    int best = -1, best_d = 5;
    const auto& m = timeline_->markers_;
    for (int k = 0; k < static_cast<int>(m.size()); ++k) {
      const int d = std::abs(timeline_->markerX(m[k].time) - x);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    return best;
  }

 protected:
  void paintEvent(QPaintEvent* e) override {
    QSlider::paintEvent(e);
    if (timeline_->markers_.empty() || maximum() <= minimum()) return;
    QPainter p(this);
    for (const TimelineMarker& m : timeline_->markers_) {
      const int x = timeline_->markerX(m.time);
      p.fillRect(QRect(x - 1, 1, 3, height() - 2), m.color);
      paintMarkerShape(p, m.shape, m.color, QPointF(x + 0.5, 5), 9);
    }
  }
  void mousePressEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton && maximum() > minimum()) {
      const int x = qRound(e->position().x());
      const int marker = markerAt(x);
      // On a marker: its event's instant; elsewhere the instant under the mouse. The handle is
      // then under the mouse, so the press goes on as a drag.
      if (marker >= 0) {
        timeline_->setTime(timeline_->markers_[marker].time);
      } else {
        setValue(valueAt(x));
      }
    }
    QSlider::mousePressEvent(e);
  }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      const int marker = markerAt(help->pos().x());
      if (marker >= 0) {
        const TimelineMarker& m = timeline_->markers_[marker];
        QToolTip::showText(help->globalPos(), QString("t = %1 s: %2").arg(m.time, 0, 'f', 3).arg(m.text), this);
      } else {
        QToolTip::hideText();
      }
      return true;
    }
    return QSlider::event(e);
  }

 private:
  Timeline* timeline_;
};

Timeline::Timeline(QWidget* parent) : QWidget(parent) {
  // The slider over the whole width, the controls under it.
  auto* rows = new QVBoxLayout(this);
  rows->setContentsMargins(4, 2, 4, 2);
  rows->setSpacing(0);
  slider_ = new TimelineSlider(this);
  slider_->setToolTip(tr("Click: go there; the coloured marks are the run's events (Events panel)"));
  slider_->setObjectName("timelineSlider");
  slider_->setRange(0, 0);
  rows->addWidget(slider_);
  auto* layout = new QHBoxLayout;
  rows->addLayout(layout);
  auto button = [&](QStyle::StandardPixmap icon, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setIcon(style()->standardIcon(icon));
    b->setToolTip(tip);
    layout->addWidget(b);
    return b;
  };
  first_ = button(QStyle::SP_MediaSkipBackward, tr("First instant"));
  back_ = button(QStyle::SP_MediaSeekBackward, tr("One frame back"));
  replay_ = button(QStyle::SP_MediaPlay, tr("Replay the recording"));
  replay_->setCheckable(true);
  forward_ = button(QStyle::SP_MediaSeekForward, tr("One frame forward"));
  live_button_ = button(QStyle::SP_MediaSkipForward, tr("Live: follow the simulation"));
  live_button_->setCheckable(true);
  live_button_->setChecked(true);
  label_ = new QLabel(this);
  label_->setMinimumWidth(130);
  layout->addWidget(label_);
  loop_ = new QCheckBox(tr("Loop"), this);
  layout->addWidget(loop_);
  from_ = new QDoubleSpinBox(this);
  to_ = new QDoubleSpinBox(this);
  for (QDoubleSpinBox* s : {from_, to_}) {
    s->setRange(0, 1e6);
    s->setDecimals(2);
    s->setSuffix(" s");
    layout->addWidget(s);
  }
  to_->setValue(10);
  layout->addStretch(1);

  connect(first_, &QToolButton::clicked, this, [this] { setRow(0); });
  connect(back_, &QToolButton::clicked, this, [this] { setRow(row_ - 1); });
  connect(forward_, &QToolButton::clicked, this, [this] { setRow(row_ + 1); });
  connect(live_button_, &QToolButton::toggled, this, [this](bool on) { setLive(on); });
  connect(replay_, &QToolButton::toggled, this, [this](bool on) { setReplaying(on); });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (v != row_) setRow(v);
  });
  updateWidgets();
}

void Timeline::setTimes(const std::vector<double>* times) {
  times_ = times;
  row_ = 0;
  setReplaying(false);
  setLive(true);
  rowsChanged();
}

void Timeline::rowsChanged() {
  const int n = times_ ? static_cast<int>(times_->size()) : 0;
  if (live_ && n > 0 && row_ != n - 1) {
    row_ = n - 1;
    updateWidgets();
    emit rowChanged(row_);
  } else {
    updateWidgets();
  }
}

void Timeline::setRow(int row) {
  const int n = times_ ? static_cast<int>(times_->size()) : 0;
  if (n == 0) return;
  row = std::clamp(row, 0, n - 1);
  if (live_) {
    live_ = false;
    live_button_->setChecked(false);
  }
  const bool changed = row != row_;
  row_ = row;
  replay_t_ = (*times_)[row_];
  updateWidgets();
  if (changed) emit rowChanged(row_);
}

void Timeline::setTime(double t) {
  if (times_ && !times_->empty()) setRow(rowAt(t));
}

void Timeline::setLive(bool live) {
  live_ = live;
  if (live_button_->isChecked() != live) live_button_->setChecked(live);
  if (live) {
    setReplaying(false);
    rowsChanged();
  }
}

void Timeline::setReplaying(bool on) {
  replaying_ = on;
  if (replay_->isChecked() != on) replay_->setChecked(on);
  replay_->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  if (on) {
    if (live_) {
      live_ = false;
      live_button_->setChecked(false);
    }
    if (times_ && !times_->empty()) replay_t_ = (*times_)[row_];
  }
}

void Timeline::setLoop(bool on, double from, double to) {
  loop_->setChecked(on);
  from_->setValue(from);
  to_->setValue(to);
}

int Timeline::rowAt(double t) const {
  const auto it = std::lower_bound(times_->begin(), times_->end(), t - 1e-9);
  return std::clamp(static_cast<int>(it - times_->begin()), 0, static_cast<int>(times_->size()) - 1);
}

void Timeline::advance(double dt_sim) {
  if (!replaying_ || !times_ || times_->empty()) return;
  double lo = times_->front(), hi = times_->back();
  if (loop_->isChecked()) {
    lo = std::max(lo, from_->value());
    hi = std::min(hi, to_->value());
  }
  replay_t_ += dt_sim;
  if (replay_t_ > hi + 1e-9) {
    if (loop_->isChecked()) {
      replay_t_ = lo;
    } else {
      replay_t_ = hi;
      setReplaying(false);
    }
  }
  if (replay_t_ < lo) replay_t_ = lo;
  const int r = rowAt(replay_t_);
  if (r != row_) {
    row_ = r;
    updateWidgets();
    emit rowChanged(row_);
  }
}

void Timeline::setMarkers(std::vector<TimelineMarker> markers) {
  markers_ = std::move(markers);
  slider_->update();
}

int Timeline::markerX(double t) const {
  const int n = times_ ? static_cast<int>(times_->size()) : 0;
  return static_cast<const TimelineSlider*>(slider_)->xOf(n > 0 ? rowAt(t) : 0);
}

// Events are compared by their recorded instant (several may share one: the grasp and the
// attachment): the next is the first whose instant is after the cursor's.
bool Timeline::nextEvent() {
  if (!times_ || times_->empty()) return false;
  for (const TimelineMarker& m : markers_) {
    if (rowAt(m.time) > row_) {
      setTime(m.time);
      return true;
    }
  }
  return false;
}

bool Timeline::previousEvent() {
  if (!times_ || times_->empty()) return false;
  for (auto it = markers_.rbegin(); it != markers_.rend(); ++it) {
    if (rowAt(it->time) < row_) {
      setTime(it->time);
      return true;
    }
  }
  return false;
}

double Timeline::time() const {
  return times_ && row_ < static_cast<int>(times_->size()) ? (*times_)[row_] : 0.0;
}

void Timeline::updateWidgets() {
  const int n = times_ ? static_cast<int>(times_->size()) : 0;
  const QSignalBlocker block(slider_);
  slider_->setRange(0, std::max(0, n - 1));
  slider_->setValue(row_);
  const double t_end = n > 0 ? times_->back() : 0.0;
  label_->setText(QString("%1 / %2 s").arg(time(), 0, 'f', 2).arg(t_end, 0, 'f', 2));
}

}  // namespace grapple::ui
