#include "ui/timeline.hpp"

#include <algorithm>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace grapple::ui {

Timeline::Timeline(QWidget* parent) : QWidget(parent) {
  // The slider over the whole width, the controls under it.
  auto* rows = new QVBoxLayout(this);
  rows->setContentsMargins(4, 2, 4, 2);
  rows->setSpacing(0);
  slider_ = new QSlider(Qt::Horizontal, this);
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
