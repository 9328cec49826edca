#include "ui/requirements_panel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/sim/mission.hpp"

namespace grapple::ui {

namespace {

constexpr int kWorstTimeRole = Qt::UserRole + 1;  // on the Worst cell: when it happened [s]

QString number(double v) { return QString::number(v, 'g', 3); }

QTableWidgetItem* cell(const QString& text, const QString& tip) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  item->setToolTip(tip);
  return item;
}

}  // namespace

QColor outcomeColor(core::Outcome o) {
  switch (o) {
    case core::Outcome::kCaptured: return QColor(46, 160, 67);
    case core::Outcome::kCapturedOutOfSpec: return QColor(230, 170, 0);
    case core::Outcome::kAborted: return QColor(240, 110, 20);
    case core::Outcome::kMissed: return QColor(210, 40, 40);
    case core::Outcome::kFailed: return QColor(70, 70, 70);
  }
  return {};
}

QColor outcomeTextColor(core::Outcome o) { return outcomeColor(o).lightness() > 140 ? Qt::black : Qt::white; }

bool outcomeDecided(const core::MissionMetrics& m, bool finished) {
  return (finished && m.has_capture) || m.outcome == core::Outcome::kFailed;
}

QString outcomeText(const core::MissionMetrics& m, bool finished) {
  if (!m.has_capture && m.outcome != core::Outcome::kFailed) return QObject::tr("no outcome");
  if (!outcomeDecided(m, finished)) return QObject::tr("running");
  const std::string_view name = core::outcomeName(m.outcome);
  return QString::fromUtf8(name.data(), static_cast<int>(name.size()));
}

RequirementsPanel::RequirementsPanel(QWidget* parent)
    : QWidget(parent), first_violation_(std::numeric_limits<double>::quiet_NaN()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 0, 6, 6);
  auto* title = new QLabel(tr("<b>Requirements</b>"), this);
  layout->addWidget(title);
  outcome_ = new QLabel(this);
  outcome_->setObjectName("requirements:outcome");
  outcome_->setWordWrap(true);
  outcome_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(outcome_);
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName("requirements:table");
  table_->setHorizontalHeaderLabels({tr("Requirement"), tr("Limit"), tr("Worst"), tr("Status"), tr("First\nviolation")});
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kFirst, QHeaderView::Stretch);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setToolTip(tr("Double-click a requirement: the timeline goes to its worst value"));
  table_->setMinimumHeight(120);
  layout->addWidget(table_, 1);
  auto* buttons = new QHBoxLayout;
  goto_first_ = new QPushButton(tr("Go to first violation"), this);
  goto_first_->setObjectName("requirements:first_violation");
  goto_first_->setEnabled(false);
  buttons->addWidget(goto_first_);
  goto_worst_ = new QPushButton(tr("Go to worst"), this);
  goto_worst_->setObjectName("requirements:worst");
  goto_worst_->setToolTip(tr("The instant of the selected requirement's worst value"));
  goto_worst_->setEnabled(false);
  buttons->addWidget(goto_worst_);
  layout->addLayout(buttons);
  layout->addWidget(new QLabel(tr("<b>Metrics</b> (as in summary.json)"), this));
  metrics_ = new QTableWidget(0, 2, this);
  metrics_->setObjectName("requirements:metrics");
  metrics_->setHorizontalHeaderLabels({tr("Metric"), tr("Value")});
  metrics_->verticalHeader()->hide();
  metrics_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  metrics_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  metrics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  layout->addWidget(metrics_, 1);
  connect(goto_worst_, &QPushButton::clicked, this, [this] {
    const int row = std::max(0, table_->currentRow());
    if (const QTableWidgetItem* worst = table_->item(row, kWorst)) emit timeRequested(worst->data(kWorstTimeRole).toDouble());
  });

  connect(goto_first_, &QPushButton::clicked, this, [this] {
    if (!std::isnan(first_violation_)) emit timeRequested(first_violation_);
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (const QTableWidgetItem* worst = table_->item(row, kWorst)) emit timeRequested(worst->data(kWorstTimeRole).toDouble());
  });
  clear();
}

void RequirementsPanel::clear() {
  table_->setRowCount(0);
  metrics_->setRowCount(0);
  goto_worst_->setEnabled(false);
  outcome_->setText(tr("No run yet."));
  first_violation_ = std::numeric_limits<double>::quiet_NaN();
  goto_first_->setEnabled(false);
  goto_first_->setToolTip({});
}

void RequirementsPanel::setMetrics(const core::MissionMetrics& m, double t, bool finished) {
  const QString text = outcomeText(m, finished);
  const bool decided = outcomeDecided(m, finished);
  if (!m.has_capture && m.outcome != core::Outcome::kFailed) {
    outcome_->setText(tr("No capture controller: no requirements to check."));
  } else {
    const QString shown = decided ? QString("<span style=\"background-color:%1; color:%2\">&nbsp;%3&nbsp;</span>")
                                        .arg(outcomeColor(m.outcome).name(), outcomeTextColor(m.outcome).name(), text)
                                  : text;
    outcome_->setText(tr("<b>%1</b> (t = %2 s)<br>%3")
                          .arg(shown)
                          .arg(t, 0, 'f', 2)
                          .arg(decided ? QString::fromStdString(m.outcome_reason).toHtmlEscaped()
                                       : tr("so far, the requirements below")));
  }

  table_->setRowCount(static_cast<int>(m.requirements.size()));
  first_violation_ = std::numeric_limits<double>::quiet_NaN();
  QString first_name;
  for (int r = 0; r < static_cast<int>(m.requirements.size()); ++r) {
    const core::RequirementCheck& c = m.requirements[r];
    const QString unit = QString::fromStdString(c.unit);
    const QString description = QString::fromStdString(c.description);
    table_->setItem(r, kName, cell(QString::fromStdString(c.requirement), description));
    auto* limit = cell(number(c.limit) + " " + unit, description);
    limit->setData(Qt::UserRole, c.limit);
    table_->setItem(r, kLimit, limit);
    auto* worst = cell(number(c.worst), tr("%1 %2 at t = %3 s (double-click: go there)")
                                            .arg(c.worst, 0, 'g', 6)
                                            .arg(unit)
                                            .arg(c.worst_time, 0, 'f', 2));
    worst->setData(Qt::UserRole, c.worst);
    worst->setData(kWorstTimeRole, c.worst_time);
    table_->setItem(r, kWorst, worst);
    auto* status = cell(c.met ? tr("met") : tr("violated"), description);
    status->setBackground(c.met ? outcomeColor(core::Outcome::kCaptured) : outcomeColor(core::Outcome::kMissed));
    status->setForeground(Qt::white);
    table_->setItem(r, kStatus, status);
    auto* first = cell(c.met ? QString("-") : QString("%1 s").arg(c.first_time, 0, 'f', 2),
                       c.met ? QString() : tr("first beyond the limit at t = %1 s").arg(c.first_time, 0, 'f', 3));
    first->setData(Qt::UserRole, c.met ? std::numeric_limits<double>::quiet_NaN() : c.first_time);
    table_->setItem(r, kFirst, first);
    if (!c.met && !(c.first_time >= first_violation_)) {
      first_violation_ = c.first_time;
      first_name = QString::fromStdString(c.requirement);
    }
  }
  goto_worst_->setEnabled(table_->rowCount() > 0);
  const std::vector<core::MetricValue> values = core::metricValues(m);
  metrics_->setRowCount(static_cast<int>(values.size()));
  for (int r = 0; r < static_cast<int>(values.size()); ++r) {
    const QString description = QString::fromStdString(values[r].description);
    metrics_->setItem(r, 0, cell(QString::fromStdString(values[r].key), description));
    auto* value = cell(std::isnan(values[r].value) ? QString("-") : QString::number(values[r].value, 'g', 4), description);
    value->setData(Qt::UserRole, values[r].value);
    value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    metrics_->setItem(r, 1, value);
  }
  goto_first_->setEnabled(!std::isnan(first_violation_));
  goto_first_->setToolTip(std::isnan(first_violation_)
                              ? tr("Every requirement is met")
                              : tr("%1 at t = %2 s").arg(first_name).arg(first_violation_, 0, 'f', 3));
}

}  // namespace grapple::ui
