#include "ui/events_panel.hpp"

#include <algorithm>
#include <map>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/sim/simulation.hpp"

namespace grapple::ui {

QColor eventColor(const std::string& kind) {
  static const std::map<std::string, QColor> colors{
      {"window", QColor(31, 119, 180)},          {"plan", QColor(23, 160, 207)},
      {"standoff", QColor(148, 103, 189)},       {"capture", QColor(44, 160, 44)},
      {"attach", QColor(20, 110, 20)},           {"no_window", QColor(240, 110, 20)},
      {"window_lost", QColor(240, 110, 20)},     {"abort", QColor(230, 80, 0)},
      {"window_reshaped", QColor(31, 119, 180)}, {"modes_condensed", QColor(140, 86, 75)},
      {"joint_limit", QColor(214, 39, 40)},      {"effort_limit", QColor(190, 30, 120)},
      {"integration_failure", QColor(0, 0, 0)},  {"measurement_lost", QColor(200, 40, 160)},
      {"measurement_regained", QColor(0, 150, 136)}, {"replan", QColor(70, 70, 200)}};
  const auto it = colors.find(kind);
  return it != colors.end() ? it->second : QColor(127, 127, 127);
}

MarkerShape eventShape(const std::string& kind) {
  if (kind == "measurement_lost") return MarkerShape::kTriangleDown;
  if (kind == "measurement_regained") return MarkerShape::kTriangleUp;
  if (kind == "replan") return MarkerShape::kDiamond;
  return MarkerShape::kLine;
}

EventsPanel::EventsPanel(QWidget* parent)
    : QWidget(parent), events_(std::make_unique<std::vector<core::SimulationEvent>>()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Kind"), this));
  filter_ = new QComboBox(this);
  filter_->setObjectName("events:filter");
  filter_->addItem(tr("every kind"), QString());
  filter_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(filter_);
  count_ = new QLabel(this);
  bar->addWidget(count_, 1);
  layout->addLayout(bar);
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName("events:table");
  table_->setHorizontalHeaderLabels({tr("Time [s]"), tr("Kind"), tr("Detail")});
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(kTime, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kKind, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kDetail, QHeaderView::Stretch);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(false);
  table_->setToolTip(tr("Click an event: the timeline goes there"));
  layout->addWidget(table_, 1);

  connect(filter_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  // A click, or the arrow keys moving the current row: the timeline follows.
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
    if (const QTableWidgetItem* t = row >= 0 ? table_->item(row, kTime) : nullptr) emit timeRequested(t->data(Qt::UserRole).toDouble());
  });
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (const QTableWidgetItem* t = table_->item(row, kTime)) emit timeRequested(t->data(Qt::UserRole).toDouble());
  });
  rebuild();
}

EventsPanel::~EventsPanel() = default;

void EventsPanel::clear() {
  events_->clear();
  rebuild();
}

void EventsPanel::setEvents(const std::vector<core::SimulationEvent>& events) {
  if (events.size() == events_->size()) return;  // events are only ever appended during a run
  *events_ = events;
  rebuild();
}

void EventsPanel::setFilter(const QString& kind) {
  const int i = filter_->findData(kind);
  filter_->setCurrentIndex(std::max(0, i));
}

QString EventsPanel::filter() const { return filter_->currentData().toString(); }

void EventsPanel::rebuild() {
  // The kinds present, for the filter (the choice kept).
  const QString chosen = filter();
  std::vector<std::string> kinds;
  for (const core::SimulationEvent& e : *events_) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) kinds.push_back(e.kind);
  }
  std::sort(kinds.begin(), kinds.end());
  {
    const QSignalBlocker block(filter_);
    filter_->clear();
    filter_->addItem(tr("every kind"), QString());
    for (const std::string& k : kinds) filter_->addItem(QString::fromStdString(k), QString::fromStdString(k));
    const int i = filter_->findData(chosen);
    filter_->setCurrentIndex(std::max(0, i));
  }
  const QString kind = filter();
  const QSignalBlocker block(table_);
  table_->setRowCount(0);
  int shown = 0;
  for (const core::SimulationEvent& e : *events_) {
    if (!kind.isEmpty() && QString::fromStdString(e.kind) != kind) continue;
    table_->insertRow(shown);
    auto* time = new QTableWidgetItem(QString::number(e.time, 'f', 3));
    time->setData(Qt::UserRole, e.time);
    time->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto* k = new QTableWidgetItem(QString::fromStdString(e.kind));
    const QColor c = eventColor(e.kind);
    k->setBackground(c);
    const QColor text = c.lightness() > 140 ? Qt::black : Qt::white;
    k->setForeground(text);
    if (const MarkerShape shape = eventShape(e.kind); shape != MarkerShape::kLine) {
      QPixmap mark(12, 12);
      mark.fill(Qt::transparent);
      QPainter p(&mark);
      paintMarkerShape(p, shape, text, QPointF(6, 6), 10);
      k->setIcon(QIcon(mark));
    }
    auto* detail = new QTableWidgetItem(QString::fromStdString(e.detail));
    detail->setToolTip(QString::fromStdString(e.detail));
    table_->setItem(shown, kTime, time);
    table_->setItem(shown, kKind, k);
    table_->setItem(shown, kDetail, detail);
    ++shown;
  }
  count_->setText(events_->empty() ? tr("no event yet") : tr("%1 of %2 events").arg(shown).arg(events_->size()));
}

}  // namespace grapple::ui
