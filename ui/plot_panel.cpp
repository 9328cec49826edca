#include "ui/plot_panel.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <QBuffer>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryFile>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/io/atomic_file.hpp"
#include "core/sim/channels.hpp"
#include "ui/on_screen.hpp"

namespace grapple::ui {

namespace {

bool startsWith(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
// Whether n is one of the channels.
template <class... Names>
bool isOneOf(const std::string& n, Names... names) {
  return ((n == names) || ...);
}

// A value axis' range over data spanning r (found: there is data): 5 % margins; constant data
// ±10 % of its value (±1 if zero); no data [-1, 1]. Never the ±1e-9 of a degenerate range.
QCPRange valueRange(const QCPRange& r, bool found) {
  if (!found) return QCPRange(-1, 1);
  if (r.size() <= 1e-12 * std::abs(r.center()) || r.size() == 0) {
    const double pad = r.center() != 0 ? 0.1 * std::abs(r.center()) : 1.0;
    return QCPRange(r.center() - pad, r.center() + pad);
  }
  return QCPRange(r.lower - 0.05 * r.size(), r.upper + 0.05 * r.size());
}

const QColor kColors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                          QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                          QColor(188, 189, 34), QColor(23, 190, 207)};

}  // namespace

int RunHistory::find(std::string_view name) const {
  for (std::size_t c = 0; c < channels.size(); ++c) {
    if (channels[c].name == name) return static_cast<int>(c);
  }
  return -1;
}

std::vector<PlotPreset> plotPresets() {
  namespace ch = core::channel;
  return {
      // The whole system's energy and its parts (the chaser's, the debris', the impact's loss), the
      // actuators' work and the balance's error; kinetic, elastic, potential and the integrated
      // body's total on demand.
      {"Energy",
       [](const std::string& n) {
         return isOneOf(n, ch::kEnergySystem, ch::kEnergyChaser, ch::kEnergyDebris, ch::kEnergyImpactLoss,
                        ch::kEnergyInputWork, ch::kEnergyError);
       }},
      {"Tracking error",
       [](const std::string& n) {
         return isOneOf(n, ch::kPlanHandError, ch::kHandTargetDistance) || ch::isJoint(n, ch::kError);
       }},
      {"Base drift", [](const std::string& n) { return isOneOf(n, ch::kBasePositionError, ch::kBaseAttitudeError); }},
      {"Joint angles", [](const std::string& n) { return ch::isJoint(n, ch::kPosition); }},
      {"Joint rates", [](const std::string& n) { return ch::isJoint(n, ch::kVelocity); }},
      {"Joint torques", [](const std::string& n) { return ch::isJoint(n, ch::kTorque); }},
      {"Base torques and fuel",
       [](const std::string& n) {
         const auto& t = ch::kBaseTorque;
         return isOneOf(n, t[0], t[1], t[2], ch::kBaseFuel);
       }},
      {"Modal coordinates", [](const std::string& n) { return startsWith(n, ch::kModeGroup); }},
      {"Momentum", [](const std::string& n) { return startsWith(n, ch::kMomentumGroup); }},
      // With a camera: the estimate's position errors, each in its 3σ band.
      {"Estimation",
       [](const std::string& n) {
         const auto& e = ch::kEstimateError;
         return isOneOf(n, e[0], e[1], e[2]);
       }},
  };
}

PlotPanel::PlotPanel(const QString& title, std::function<bool(const std::string&)> defaults, QWidget* parent)
    : QWidget(parent), title_(title), defaults_(std::move(defaults)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  chooser_ = new QToolButton(this);
  chooser_->setText(tr("Channels"));
  chooser_->setPopupMode(QToolButton::InstantPopup);
  menu_ = new QMenu(chooser_);
  chooser_->setMenu(menu_);
  follow_button_ = new QToolButton(this);
  follow_button_->setText(tr("Follow"));
  follow_button_->setCheckable(true);
  follow_button_->setChecked(true);
  follow_button_->setToolTip(tr("Keep the whole run in view (off once you zoom or pan)"));
  connect(follow_button_, &QToolButton::toggled, this, [this](bool on) { setFollow(on); });
  bar->addWidget(chooser_);
  bar->addWidget(follow_button_);
  bar->addStretch(1);
  layout->addLayout(bar);

  plot_ = new QCustomPlot(this);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setNoAntialiasingOnDrag(true);
  // Raster plotting of long runs: thin, aliased polylines are ~10x faster than antialiased ones.
  plot_->setNotAntialiasedElements(QCP::aePlottables);
  plot_->setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
  plot_->xAxis->setLabel("time [s]");
  // The legend under the axes, in as many columns as fit: it never covers the data.
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->axisRect()->insetLayout()->simplify();
  plot_->plotLayout()->addElement(1, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  plot_->plotLayout()->setRowSpacing(0);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  plot_->legend->setFont(small);
  plot_->legend->setRowSpacing(-3);
  plot_->legend->setColumnSpacing(6);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setBrush(Qt::NoBrush);
  plot_->legend->setMargins(QMargins(4, 0, 4, 2));
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  connect(plot_, &QCustomPlot::legendClick, this, [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
    auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
    if (!entry) return;
    for (std::size_t k = 0; k < live_.size(); ++k) {
      if (live_[k] == entry->plottable()) setCurveVisible(history_->channels[static_cast<std::size_t>(shown_[k])].name, !live_[k]->visible());
    }
  });
  // The values at the mouse's instant.
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    if (!history_ || !plot_->axisRect()->rect().contains(e->pos())) return;
    QToolTip::showText(e->globalPosition().toPoint(), valuesAt(plot_->xAxis->pixelToCoord(e->position().x())), plot_);
  });
  plot_->setMinimumHeight(140);
  plot_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(plot_, &QWidget::customContextMenuRequested, this, &PlotPanel::contextMenu);
  cursor_ = new QCPItemStraightLine(plot_);
  cursor_->setPen(QPen(QColor(200, 30, 30), 1, Qt::DashLine));
  cursor_->point1->setCoords(0, 0);
  cursor_->point2->setCoords(0, 1);
  // The user takes over the view: stop following.
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { follow_button_->setChecked(false); });
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (plot_->axisRect()->rect().contains(e->pos())) follow_button_->setChecked(false);
  });
  layout->addWidget(plot_, 1);
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::reset(const RunHistory* history) {
  history_ = history;
  shown_.clear();
  QSettings settings;
  const QString key = "plots/" + title_;
  if (settings.contains(key)) {
    const QStringList names = settings.value(key).toStringList();
    for (const QString& n : names) {
      const int c = history_->find(n.toStdString());
      if (c > 0) shown_.push_back(c);
    }
  }
  if (shown_.empty()) {
    for (std::size_t c = 1; c < history_->channels.size(); ++c) {
      if (defaults_(history_->channels[c].name)) shown_.push_back(static_cast<int>(c));
    }
  }
  rebuildMenu();
  rebuildGraphs();
}

void PlotPanel::rebuildMenu() {
  menu_->clear();
  if (!history_) return;
  // One submenu per group ("joint.joint2" -> "joint"), channels checkable.
  std::map<std::string, QMenu*> groups;
  for (std::size_t c = 1; c < history_->channels.size(); ++c) {
    const std::string& name = history_->channels[c].name;
    const std::string group = name.substr(0, name.find('.'));
    QMenu*& sub = groups[group];
    if (!sub) sub = menu_->addMenu(QString::fromStdString(group));
    QAction* a = sub->addAction(QString::fromStdString(name + " [" + history_->channels[c].unit + "]"));
    a->setCheckable(true);
    a->setChecked(std::find(shown_.begin(), shown_.end(), int(c)) != shown_.end());
    const int channel = static_cast<int>(c);
    connect(a, &QAction::toggled, this, [this, channel](bool on) {
      auto it = std::find(shown_.begin(), shown_.end(), channel);
      if (on && it == shown_.end()) shown_.push_back(channel);
      if (!on && it != shown_.end()) shown_.erase(it);
      rebuildGraphs();
      saveChoice();
    });
  }
}

void PlotPanel::saveChoice() const {
  QSettings settings;
  QStringList names;
  for (int c : shown_) names << QString::fromStdString(history_->channels[c].name);
  settings.setValue("plots/" + title_, names);
}

std::vector<std::string> PlotPanel::shownChannels() const {
  std::vector<std::string> names;
  for (int c : shown_) names.push_back(history_->channels[c].name);
  return names;
}

void PlotPanel::showChannels(const std::vector<std::string>& names) {
  shown_.clear();
  for (const auto& n : names) {
    const int c = history_ ? history_->find(n) : -1;
    if (c > 0) shown_.push_back(c);
  }
  rebuildMenu();
  rebuildGraphs();
  saveChoice();
}

void PlotPanel::rebuildGraphs() {
  plot_->clearGraphs();
  live_.clear();
  ghost_graphs_.clear();
  bands_.clear();
  // One value axis per unit: the first on the left, the second on the right, more alternately
  // beside them.
  for (std::size_t k = 2; k < value_axes_.size(); ++k) plot_->axisRect()->removeAxis(value_axes_[k]);
  units_.clear();
  for (int c : shown_) {
    const QString u = QString::fromStdString(history_->channels[static_cast<std::size_t>(c)].unit);
    if (!units_.contains(u)) units_ << u;
  }
  value_axes_ = {plot_->yAxis, plot_->yAxis2};
  for (int k = 2; k < units_.size(); ++k) {
    value_axes_.push_back(plot_->axisRect()->addAxis(k % 2 == 0 ? QCPAxis::atLeft : QCPAxis::atRight));
  }
  plot_->yAxis2->setVisible(units_.size() > 1);
  plot_->yAxis2->setTickLabels(true);
  for (int k = 0; k < units_.size(); ++k) value_axes_[static_cast<std::size_t>(k)]->setLabel("[" + units_[k] + "]");
  if (units_.isEmpty()) plot_->yAxis->setLabel({});
  auto axisFor = [this](int channel) {
    const int k = units_.indexOf(QString::fromStdString(history_->channels[static_cast<std::size_t>(channel)].unit));
    return value_axes_[static_cast<std::size_t>(std::max(0, k))];
  };
  // The previous run first, so that the live graphs are drawn over it.
  if (ghost_ && ghost_visible_ && ghost_->rows() > 0) {
    for (std::size_t k = 0; k < shown_.size(); ++k) {
      const int c = ghost_->find(history_->channels[static_cast<std::size_t>(shown_[k])].name);
      if (c <= 0) continue;
      QCPGraph* g = plot_->addGraph(plot_->xAxis, axisFor(shown_[k]));
      QColor color = kColors[k % std::size(kColors)];
      color = QColor::fromHsvF(color.hsvHueF(), 0.35 * color.hsvSaturationF(), std::min(1.0, 0.4 + color.valueF()));
      g->setPen(QPen(color, 1.2, Qt::DashLine));
      g->setAdaptiveSampling(true);
      const auto& t = ghost_->columns[0];
      const auto& y = ghost_->columns[static_cast<std::size_t>(c)];
      QVector<QCPGraphData> data(static_cast<int>(t.size()));
      for (std::size_t i = 0; i < t.size(); ++i) data[int(i)] = QCPGraphData(t[i], y[i]);
      g->data()->set(data, true);
      g->removeFromLegend();
      ghost_graphs_.emplace_back(history_->channels[static_cast<std::size_t>(shown_[k])].name, g);
    }
  }
  // The 3σ bands under the curves: the upper graph filled down to the lower one.
  for (std::size_t k = 0; k < shown_.size(); ++k) {
    const core::channel::ErrorBound* bound = core::channel::errorBound(history_->channels[static_cast<std::size_t>(shown_[k])].name);
    const int sigma3 = bound ? history_->find(bound->sigma3) : -1;
    if (sigma3 <= 0) continue;
    Band b{k, sigma3, bound->magnitude, nullptr, nullptr};
    QColor fill = kColors[k % std::size(kColors)];
    QColor edge = fill;
    fill.setAlpha(45);
    edge.setAlpha(110);
    b.lower = plot_->addGraph(plot_->xAxis, axisFor(shown_[k]));
    b.upper = plot_->addGraph(plot_->xAxis, axisFor(shown_[k]));
    for (QCPGraph* g : {b.lower, b.upper}) {
      g->setPen(QPen(edge, 1, Qt::DotLine));
      g->removeFromLegend();
      g->setVisible(bands_visible_ && !hidden_.count(history_->channels[static_cast<std::size_t>(shown_[k])].name));
    }
    b.upper->setBrush(fill);
    b.upper->setChannelFillGraph(b.lower);
    addBandRows(b, 0, history_->rows());
    bands_.push_back(b);
  }
  for (std::size_t k = 0; k < shown_.size(); ++k) {
    const int c = shown_[k];
    QCPGraph* g = plot_->addGraph(plot_->xAxis, axisFor(c));
    live_.push_back(g);
    const core::ChannelInfo& info = history_->channels[c];
    // Legend: the name without the common group, with the unit.
    g->setName(QString::fromStdString(info.name + " [" + info.unit + "]"));
    g->setPen(QPen(kColors[k % std::size(kColors)], 1));
    g->setAdaptiveSampling(true);
    const auto& t = history_->columns[0];
    const auto& y = history_->columns[c];
    QVector<QCPGraphData> data(static_cast<int>(t.size()));
    for (std::size_t i = 0; i < t.size(); ++i) data[int(i)] = QCPGraphData(t[i], y[i]);
    g->data()->set(data, true);
    if (hidden_.count(info.name)) {
      g->setVisible(false);
      if (auto* entry = plot_->legend->itemWithPlottable(g)) entry->setTextColor(Qt::gray);
    }
  }
  // One legend entry for the whole previous run, last: an empty graph, grey dashed.
  if (!ghost_graphs_.empty()) {
    QCPGraph* sample = plot_->addGraph();
    sample->setName(tr("previous run"));
    sample->setPen(QPen(QColor(140, 140, 140), 1.2, Qt::DashLine));
  }
  plot_->legend->setVisible(!shown_.empty() && shown_.size() <= 12);
  layoutLegend();
  dirty_ = true;
  if (follow_) setFollow(true);
}

void PlotPanel::setGhost(const RunHistory* ghost) {
  ghost_ = ghost;
  if (history_) rebuildGraphs();
}

void PlotPanel::setGhostVisible(bool visible) {
  if (visible == ghost_visible_) return;
  ghost_visible_ = visible;
  if (history_) rebuildGraphs();
}

void PlotPanel::addBandRows(const Band& b, int from, int to) {
  const auto& t = history_->columns[0];
  const auto& s3 = history_->columns[static_cast<std::size_t>(b.sigma3)];
  QVector<QCPGraphData> upper, lower;
  upper.reserve(to - from);
  lower.reserve(to - from);
  for (int i = from; i < to; ++i) {
    upper.append(QCPGraphData(t[i], s3[i]));
    lower.append(QCPGraphData(t[i], b.magnitude ? (std::isnan(s3[i]) ? s3[i] : 0.0) : -s3[i]));
  }
  b.upper->data()->add(upper, true);
  b.lower->data()->add(lower, true);
}

std::pair<QCPGraph*, QCPGraph*> PlotPanel::band(const std::string& channel) const {
  for (const Band& b : bands_) {
    if (history_->channels[static_cast<std::size_t>(shown_[b.shown])].name == channel) return {b.upper, b.lower};
  }
  return {nullptr, nullptr};
}

void PlotPanel::setBandsVisible(bool visible) {
  bands_visible_ = visible;
  for (const Band& b : bands_) {
    const bool on = visible && live_[b.shown]->visible();
    b.upper->setVisible(on);
    b.lower->setVisible(on);
  }
  dirty_ = true;
  refresh();
}

QCPGraph* PlotPanel::ghostGraph(const std::string& channel) const {
  for (const auto& [name, g] : ghost_graphs_) {
    if (name == channel) return g;
  }
  return nullptr;
}

void PlotPanel::appendRows(int from) {
  if (!history_) return;
  const auto& t = history_->columns[0];
  const int to = history_->rows();
  if (from >= to) return;
  for (std::size_t k = 0; k < shown_.size(); ++k) {
    const auto& y = history_->columns[shown_[k]];
    QVector<QCPGraphData> data;
    data.reserve(to - from);
    for (int i = from; i < to; ++i) data.append(QCPGraphData(t[i], y[i]));
    live_[k]->data()->add(data, true);
  }
  for (const Band& b : bands_) addBandRows(b, from, to);
  dirty_ = true;
}

void PlotPanel::setFollow(bool follow) {
  follow_ = follow;
  if (follow_ && follow_button_->isChecked() != follow) follow_button_->setChecked(true);
  dirty_ = true;
}

void PlotPanel::setCursorTime(double t) {
  if (t == cursor_t_) return;
  cursor_t_ = t;
  cursor_->point1->setCoords(t, 0);
  cursor_->point2->setCoords(t, 1);
  dirty_ = true;
}

void PlotPanel::refresh(bool now) {
  if (!dirty_ || !onScreen(this)) return;
  if (follow_ && history_ && history_->rows() > 0) {
    // At least a second of time, each value axis over its visible curves.
    const double t0 = history_->columns[0].front();
    plot_->xAxis->setRange(t0, std::max(history_->columns[0].back(), t0 + 1));
    for (QCPAxis* axis : value_axes_) {
      bool found = false;
      QCPRange r;
      for (int g = 0; g < plot_->graphCount(); ++g) {
        QCPGraph* graph = plot_->graph(g);
        if (graph->valueAxis() != axis || !graph->visible()) continue;
        bool ok = false;
        const QCPRange gr = graph->data()->valueRange(ok);
        if (!ok) continue;
        r = found ? QCPRange(std::min(r.lower, gr.lower), std::max(r.upper, gr.upper)) : gr;
        found = true;
      }
      axis->setRange(valueRange(r, found));
    }
  }
  plot_->replot(now ? QCustomPlot::rpRefreshHint : QCustomPlot::rpQueuedReplot);
  dirty_ = false;
}

void PlotPanel::setCurveVisible(const std::string& channel, bool visible) {
  for (std::size_t k = 0; k < live_.size(); ++k) {
    if (history_->channels[static_cast<std::size_t>(shown_[k])].name != channel) continue;
    live_[k]->setVisible(visible);
    if (auto* entry = plot_->legend->itemWithPlottable(live_[k])) entry->setTextColor(visible ? Qt::black : Qt::gray);
    if (QCPGraph* ghost = ghostGraph(channel)) ghost->setVisible(visible);
  }
  if (const auto [upper, lower] = band(channel); upper) {
    upper->setVisible(visible && bands_visible_);
    lower->setVisible(visible && bands_visible_);
  }
  if (visible) {
    hidden_.erase(channel);
  } else {
    hidden_.insert(channel);
  }
  dirty_ = true;
  refresh();
}

QCPAxis* PlotPanel::axisOf(const std::string& channel) const {
  for (std::size_t k = 0; k < live_.size(); ++k) {
    if (history_->channels[static_cast<std::size_t>(shown_[k])].name == channel) return live_[k]->valueAxis();
  }
  return nullptr;
}

QString PlotPanel::valuesAt(double t) const {
  if (!history_ || history_->rows() == 0) return {};
  const auto& time = history_->columns[0];
  auto it = std::lower_bound(time.begin(), time.end(), t);
  if (it == time.end() || (it != time.begin() && t - *(it - 1) < *it - t)) --it;  // the nearest instant
  const auto row = static_cast<std::size_t>(it - time.begin());
  QString text = QString("t = %1 s").arg(time[row], 0, 'f', 3);
  for (std::size_t k = 0; k < live_.size(); ++k) {
    if (!live_[k]->visible()) continue;
    const core::ChannelInfo& info = history_->channels[static_cast<std::size_t>(shown_[k])];
    text += QString("\n%1 = %2 %3")
                .arg(QString::fromStdString(info.name))
                .arg(history_->columns[static_cast<std::size_t>(shown_[k])][row], 0, 'g', 6)
                .arg(QString::fromStdString(info.unit));
  }
  return text;
}

void PlotPanel::setEvents(const std::vector<TimelineMarker>& events, const std::vector<std::pair<double, double>>& saturated) {
  for (QCPAbstractItem* item : marks_) plot_->removeItem(item);
  marks_.clear();
  // Under the curves (the grid's layer), clipped to the axes.
  for (const auto& [from, to] : saturated) {
    auto* rect = new QCPItemRect(plot_);
    rect->setLayer("grid");
    for (QCPItemPosition* p : {rect->topLeft, rect->bottomRight}) {
      p->setTypeX(QCPItemPosition::ptPlotCoords);
      p->setTypeY(QCPItemPosition::ptAxisRectRatio);
      p->setAxes(plot_->xAxis, plot_->yAxis);
      p->setAxisRect(plot_->axisRect());
    }
    rect->topLeft->setCoords(from, 0);
    rect->bottomRight->setCoords(to, 1);
    rect->setPen(Qt::NoPen);
    rect->setBrush(QColor(255, 110, 0, 50));
    marks_.push_back(rect);
  }
  shaded_ = static_cast<int>(saturated.size());
  for (const TimelineMarker& e : events) {
    auto* line = new QCPItemStraightLine(plot_);
    line->setLayer("grid");
    QColor c = e.color;
    c.setAlpha(170);
    line->setPen(QPen(c, 1));
    line->point1->setCoords(e.time, 0);
    line->point2->setCoords(e.time, 1);
    marks_.push_back(line);
  }
  event_lines_ = static_cast<int>(events.size());
  dirty_ = true;
}

// The legend's columns: as many as its widest entry allows in the plot's width.
void PlotPanel::layoutLegend() {
  QCPLegend* legend = plot_->legend;
  int widest = 0;
  for (int i = 0; i < legend->itemCount(); ++i) {
    if (const QCPAbstractLegendItem* item = legend->item(i)) widest = std::max(widest, item->minimumOuterSizeHint().width());  // cells may be empty
  }
  const int columns = widest > 0 ? std::max(1, (plot_->width() - 8) / (widest + legend->columnSpacing())) : 1;
  if (columns != legend->wrap()) {
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  }
}

void PlotPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  layoutLegend();
}

int PlotPanel::pointCount() const {
  int n = 0;
  for (const QCPGraph* g : live_) n += g->dataCount();
  return n;
}

namespace {
// Writes the plot as an image (PNG) or a vector document (PDF) of width x height. The document is
// made first (the PDF in the system's temporary folder), then written atomically to the target
// (core::writeFileAtomically): a failure leaves the previous file and says why.
bool exportPlot(QCustomPlot* plot, bool pdf, const QString& path, int width, int height, QString* error) {
  if (width < 16 || height < 16 || width > 20000 || height > 20000) {
    if (error) {
      *error = QObject::tr("a size between 16 and 20000 %1 is expected, got %2x%3")
                   .arg(pdf ? "points" : "pixels").arg(width).arg(height);
    }
    return false;
  }
  QByteArray bytes;
  bool made = false;
  if (pdf) {
    QTemporaryFile tmp(QDir::tempPath() + "/grapple-plot-XXXXXX.pdf");
    if (tmp.open() && plot->savePdf(tmp.fileName(), width, height)) {
      tmp.seek(0);
      bytes = tmp.readAll();
      made = !bytes.isEmpty();
    }
  } else {
    QBuffer buffer(&bytes);
    made = buffer.open(QIODevice::WriteOnly) && plot->toPixmap(width, height).save(&buffer, "PNG");
  }
  if (!made) {
    if (error) *error = QObject::tr("cannot write %1: the %2 could not be made").arg(path, pdf ? "PDF" : "image");
    return false;
  }
  try {
    core::writeFileAtomically(path.toStdString(), bytes.toStdString());
  } catch (const std::runtime_error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}
}  // namespace

bool PlotPanel::exportPng(const QString& path, int width, int height, QString* error) {
  return exportPlot(plot_, false, path, width, height, error);
}

bool PlotPanel::exportPdf(const QString& path, int width, int height, QString* error) {
  return exportPlot(plot_, true, path, width, height, error);
}

bool PlotPanel::exportCsv(const QString& path, QString* error) const {
  if (!history_) {
    if (error) *error = tr("no run to export");
    return false;
  }
  std::ostringstream out;
  out.precision(17);
  std::vector<int> cols{0};
  for (int c : shown_) {
    if (c != 0) cols.push_back(c);
  }
  for (std::size_t k = 0; k < cols.size(); ++k) {
    const core::ChannelInfo& info = history_->channels[static_cast<std::size_t>(cols[k])];
    out << (k ? "," : "") << info.name << " [" << info.unit << "]";
  }
  out << "\n";
  for (int r = 0; r < history_->rows(); ++r) {
    for (std::size_t k = 0; k < cols.size(); ++k) out << (k ? "," : "") << history_->columns[static_cast<std::size_t>(cols[k])][static_cast<std::size_t>(r)];
    out << "\n";
  }
  try {
    core::writeFileAtomically(path.toStdString(), out.str());
  } catch (const std::runtime_error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

void PlotPanel::contextMenu(const QPoint& at) {
  QMenu menu(this);
  const QString base = title_.toLower().replace(' ', '_');
  auto sizeOf = [this](const QString& what, int& w, int& h) {
    bool ok = false;
    const QString text = QInputDialog::getText(this, what, tr("Size (width x height):"), QLineEdit::Normal,
                                               QString("%1x%2").arg(plot_->width()).arg(plot_->height()), &ok);
    const QStringList parts = text.split('x');
    if (!ok || parts.size() != 2) return false;
    w = parts[0].trimmed().toInt();
    h = parts[1].trimmed().toInt();
    return true;
  };
  auto report = [this](bool ok, const QString& error) {
    if (!ok) QMessageBox::warning(this, tr("Export"), error);
  };
  // PNG and PDF: a size, a file, then the export (a refusal shown with its reason).
  auto figure = [=, this](bool pdf) {
    const QString kind = pdf ? "PDF" : "PNG";
    int w = 0, h = 0;
    if (!sizeOf(tr("Export %1").arg(kind), w, h)) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(kind), base + (pdf ? ".pdf" : ".png"),
                                                      pdf ? tr("PDF documents (*.pdf)") : tr("PNG images (*.png)"));
    QString error;
    if (!path.isEmpty()) report(pdf ? exportPdf(path, w, h, &error) : exportPng(path, w, h, &error), error);
  };
  if (ghost_) {
    QAction* show = menu.addAction(tr("Show the previous run"));
    show->setCheckable(true);
    show->setChecked(ghost_visible_);
    connect(show, &QAction::toggled, this, [this](bool on) { emit ghostVisibilityRequested(on); });
    menu.addAction(tr("Clear the previous run"), this, [this] { emit ghostClearRequested(); });
    menu.addSeparator();
  }
  if (!bands_.empty()) {
    QAction* bands = menu.addAction(tr("Show the 3σ bands"));
    bands->setCheckable(true);
    bands->setChecked(bands_visible_);
    connect(bands, &QAction::toggled, this, [this](bool on) { setBandsVisible(on); });
    menu.addSeparator();
  }
  menu.addAction(tr("Export PNG..."), this, [=] { figure(false); });
  menu.addAction(tr("Export PDF..."), this, [=] { figure(true); });
  menu.addAction(tr("Export CSV..."), this, [=, this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), base + ".csv", tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty()) report(exportCsv(path, &error), error);
  });
  menu.exec(plot_->mapToGlobal(at));
}

}  // namespace grapple::ui
