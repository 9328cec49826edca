#include "ui/campaign_panel.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/campaign/campaign.hpp"
#include "core/campaign/results.hpp"
#include "core/io/atomic_file.hpp"
#include "ui/main_window.hpp"

namespace grapple::ui {

namespace fs = std::filesystem;
using namespace grapple::core::campaign;

namespace {

// The outcomes, worst first: their order on a scatter's axis and their colours.
const std::vector<std::string> kOutcomes = {"failed", "missed", "aborted", "captured_out_of_spec", "captured"};
QColor outcomeColor(const std::string& o) {
  if (o == "captured") return QColor(40, 160, 60);
  if (o == "captured_out_of_spec") return QColor(230, 160, 20);
  if (o == "aborted") return QColor(120, 80, 200);
  if (o == "missed") return QColor(200, 50, 50);
  return QColor(90, 90, 90);
}
int outcomeIndex(const std::string& o) {
  const auto it = std::find(kOutcomes.begin(), kOutcomes.end(), o);
  return it == kOutcomes.end() ? 0 : static_cast<int>(it - kOutcomes.begin());
}

double toNumber(const std::string& s) {
  if (s == "true") return 1;
  if (s == "false") return 0;
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  return s.empty() || *end != '\0' ? NAN : x;
}

// Bins of one axis: the distinct values when few (a grid axis), else equal intervals.
struct Bins {
  std::vector<double> centers;
  bool distinct = false;
  double lo = 0, hi = 1;
  int of(double x) const {
    if (distinct) {
      const auto it = std::min_element(centers.begin(), centers.end(), [x](double a, double b) { return std::abs(a - x) < std::abs(b - x); });
      return static_cast<int>(it - centers.begin());
    }
    const int n = static_cast<int>(centers.size());
    return std::clamp(static_cast<int>((x - lo) / (hi - lo) * n), 0, n - 1);
  }
};
Bins binsOf(std::vector<double> x, int n) {
  Bins b;
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }), x.end());
  std::sort(x.begin(), x.end());
  std::vector<double> unique = x;
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  if (!unique.empty() && unique.size() <= 25) {
    b.distinct = true;
    b.centers = unique;
    return b;
  }
  b.lo = x.empty() ? 0 : x.front();
  b.hi = x.empty() || x.back() <= b.lo ? b.lo + 1 : x.back();
  for (int k = 0; k < n; ++k) b.centers.push_back(b.lo + (k + 0.5) * (b.hi - b.lo) / n);
  return b;
}

}  // namespace

int CampaignTable::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

CampaignTable readCampaignCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  CampaignTable t;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (quoted) {
      if (c == '"' && k + 1 < text.size() && text[k + 1] == '"') {
        cell += '"';
        ++k;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      row.push_back(cell);
      cell.clear();
      (any ? t.rows.push_back(row) : (void)(t.header = row));
      any = true;
      row.clear();
    } else if (c != '\r') {
      cell += c;
    }
  }
  return t;
}

CampaignPanel::CampaignPanel(MainWindow* window, QWidget* parent) : QWidget(parent), window_(window) {
  cli_ = QCoreApplication::applicationDirPath() + "/grapple-cli";
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  open_ = new QPushButton(tr("Open folder..."), this);
  open_->setToolTip(tr("A campaign's output folder (grapple-cli campaign run --out DIR)"));
  run_ = new QPushButton(tr("Run campaign..."), this);
  run_->setToolTip(tr("Run a campaign file on this machine's cores (grapple-cli campaign run)"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  top->addWidget(open_);
  top->addWidget(run_);
  top->addWidget(cancel_);
  top->addWidget(progress_, 1);
  layout->addLayout(top);
  status_ = new QLabel(tr("No campaign open."), this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  auto* choose = new QHBoxLayout;
  kind_ = new QComboBox(this);
  kind_->addItems({tr("Scatter"), tr("Heat map"), tr("Histogram")});
  x_ = new QComboBox(this);
  y_ = new QComboBox(this);
  metric_ = new QComboBox(this);
  x_->setToolTip(tr("Dispersed value on the horizontal axis"));
  y_->setToolTip(tr("Second dispersed value (vertical axis; scatter: the metric's axis when none)"));
  metric_->setToolTip(tr("Metric or outcome shown"));
  for (auto [label, box] : {std::pair{tr("Plot"), kind_}, {tr("x"), x_}, {tr("y"), y_}, {tr("of"), metric_}}) {
    choose->addWidget(new QLabel(label, this));
    choose->addWidget(box, box == kind_ ? 0 : 1);
  }
  layout->addLayout(choose);
  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(220);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->legend->setVisible(false);
  QFont small = plot_->legend->font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  plot_->legend->setFont(small);
  layout->addWidget(plot_, 1);
  auto* hint = new QLabel(tr("Click a point to run it again in the 3D view and the timeline."), this);
  hint->setEnabled(false);
  layout->addWidget(hint);

  for (QComboBox* b : {kind_, x_, y_, metric_}) connect(b, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(open_, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Open a campaign folder"), dir_);
    if (!d.isEmpty() && !openFolder(d)) QMessageBox::warning(this, tr("Not a campaign folder"), error_);
  });
  connect(run_, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Run a campaign"), MainWindow::scenarioDir() + "/campaigns",
                                                   tr("Campaigns (*.yaml *.yml)"));
    if (f.isEmpty()) return;
    const QString out = QFileDialog::getExistingDirectory(this, tr("Write its runs into"), QFileInfo(f).absolutePath());
    if (!out.isEmpty() && !startCampaign(f, out)) QMessageBox::warning(this, tr("Cannot run the campaign"), error_);
  });
  connect(cancel_, &QPushButton::clicked, this, &CampaignPanel::cancel);
  connect(plot_, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int index, QMouseEvent*) {
    for (int g = 0; g < plot_->graphCount() && g < static_cast<int>(point_runs_.size()); ++g) {
      if (plot_->graph(g) == p && index >= 0 && index < static_cast<int>(point_runs_[static_cast<std::size_t>(g)].size())) {
        rerun(point_runs_[static_cast<std::size_t>(g)][static_cast<std::size_t>(index)]);
      }
    }
  });
  poll_ = new QTimer(this);
  poll_->setInterval(300);
  connect(poll_, &QTimer::timeout, this, &CampaignPanel::pollProgress);
}

CampaignPanel::~CampaignPanel() {
  if (running()) {
    process_->terminate();
    process_->waitForFinished(5000);
  }
}

bool CampaignPanel::running() const { return process_ && process_->state() != QProcess::NotRunning; }

int CampaignPanel::progressValue() const { return progress_->value(); }

QStringList CampaignPanel::valueColumns() const {
  QStringList l;
  for (const std::string& c : value_columns_) l << QString::fromStdString(c);
  return l;
}

QStringList CampaignPanel::metricColumns() const {
  QStringList l{"outcome"};
  const int outcome = table_.column("outcome");
  for (int c = outcome + 1; c >= 1 && c < static_cast<int>(table_.header.size()); ++c) {
    if (table_.header[static_cast<std::size_t>(c)] != "error") l << QString::fromStdString(table_.header[static_cast<std::size_t>(c)]);
  }
  return l;
}

QString CampaignPanel::summaryText() const { return summary_; }

bool CampaignPanel::openFolder(const QString& dir) {
  dir_ = dir;
  try {
    reload();
  } catch (const std::exception& e) {
    error_ = QString::fromStdString(e.what());
    status_->setText(error_);
    return false;
  }
  return true;
}

void CampaignPanel::reload() {
  const MergeReport r = mergeCampaign(dir_.toStdString());
  const Manifest m = readManifest(dir_.toStdString());
  value_columns_ = m.columns;
  table_ = readCampaignCsv(dir_.toStdString() + "/runs.csv");
  total_runs_ = m.runs;
  summary_ = QString("%1: %2 of %3 runs done (%4 failed, %5 missing). Success %6 / %7 = %8 % (Wilson 95 %: %9 - %10 %)")
                 .arg(QString::fromStdString(m.name))
                 .arg(r.completed)
                 .arg(r.runs)
                 .arg(r.failed)
                 .arg(static_cast<long>(r.missing.size()))
                 .arg(r.successes)
                 .arg(r.completed)
                 .arg(100 * r.success_rate, 0, 'f', 1)
                 .arg(100 * r.wilson.low, 0, 'f', 1)
                 .arg(100 * r.wilson.high, 0, 'f', 1);
  status_->setText(summary_);
  progress_->setRange(0, static_cast<int>(std::max(1L, r.runs)));
  progress_->setValue(static_cast<int>(r.completed));
  fillCombos();
  redraw();
}

void CampaignPanel::fillCombos() {
  const QString x = x_->currentText(), y = y_->currentText(), metric = metric_->currentText();
  for (QComboBox* b : {x_, y_, metric_}) {
    b->blockSignals(true);
    b->clear();
  }
  x_->addItems(valueColumns());
  y_->addItem(tr("(none)"), QString());
  for (const QString& c : valueColumns()) y_->addItem(c, c);
  metric_->addItems(metricColumns());
  if (x_->findText(x) >= 0) x_->setCurrentIndex(x_->findText(x));
  if (y_->findText(y) >= 0) y_->setCurrentIndex(y_->findText(y));
  if (metric_->findText(metric) >= 0) metric_->setCurrentIndex(metric_->findText(metric));
  for (QComboBox* b : {x_, y_, metric_}) b->blockSignals(false);
}

void CampaignPanel::setPlot(PlotKind kind, const QString& x, const QString& y, const QString& metric) {
  for (QComboBox* b : {kind_, x_, y_, metric_}) b->blockSignals(true);
  kind_->setCurrentIndex(static_cast<int>(kind));
  x_->setCurrentIndex(std::max(0, x_->findText(x)));
  y_->setCurrentIndex(y.isEmpty() ? 0 : std::max(0, y_->findText(y)));
  metric_->setCurrentIndex(std::max(0, metric_->findText(metric)));
  for (QComboBox* b : {kind_, x_, y_, metric_}) b->blockSignals(false);
  redraw();
}

std::vector<double> CampaignPanel::numbers(int column) const {
  std::vector<double> v;
  for (const auto& row : table_.rows) {
    const std::string& s = column >= 0 && column < static_cast<int>(row.size()) ? row[static_cast<std::size_t>(column)] : std::string();
    v.push_back(table_.header[static_cast<std::size_t>(column)] == "outcome" ? outcomeIndex(s) : toNumber(s));
  }
  return v;
}

void CampaignPanel::redraw() {
  plot_->clearPlottables();
  plot_->clearItems();
  for (int k = plot_->plotLayout()->elementCount() - 1; k > 0; --k) {
    if (qobject_cast<QCPColorScale*>(plot_->plotLayout()->elementAt(k))) plot_->plotLayout()->removeAt(k);
  }
  plot_->plotLayout()->simplify();
  plot_->legend->setVisible(false);
  plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  point_runs_.clear();
  const int cx = table_.column(x_->currentText().toStdString());
  const QString y_name = y_->currentData().toString();
  const int cy = y_name.isEmpty() ? -1 : table_.column(y_name.toStdString());
  const std::string metric = metric_->currentText().toStdString();
  const int cm = table_.column(metric);
  const bool outcome = metric == "outcome";
  const auto kind = static_cast<PlotKind>(kind_->currentIndex());
  if (table_.rows.empty() || cm < 0 || (kind != PlotKind::kHistogram && cx < 0)) {
    plot_->replot();
    return;
  }
  const std::vector<double> m = numbers(cm);
  std::vector<long> runs;
  for (const auto& row : table_.rows) runs.push_back(std::atol(row[0].c_str()));
  auto outcomeTicks = [](QCPAxis* axis) {
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    for (std::size_t k = 0; k < kOutcomes.size(); ++k) t->addTick(static_cast<double>(k), QString::fromStdString(kOutcomes[k]));
    axis->setTicker(t);
  };

  if (kind == PlotKind::kHistogram) {
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setBrush(QColor(70, 120, 190, 160));
    std::vector<double> finite;
    for (double v : m) {
      if (std::isfinite(v)) finite.push_back(v);
    }
    const Bins b = outcome ? Bins{{0, 1, 2, 3, 4}, true} : binsOf(finite, 20);
    std::vector<double> count(b.centers.size(), 0);
    for (double v : finite) count[static_cast<std::size_t>(b.of(v))] += 1;
    const double width = b.distinct ? (b.centers.size() > 1 ? (b.centers.back() - b.centers.front()) / (b.centers.size() - 1) : 1) * 0.8
                                    : (b.hi - b.lo) / b.centers.size();
    bars->setWidth(outcome ? 0.8 : width);
    bars->setData(QVector<double>(b.centers.begin(), b.centers.end()), QVector<double>(count.begin(), count.end()));
    plot_->xAxis->setLabel(QString::fromStdString(metric));
    plot_->yAxis->setLabel(tr("runs"));
    if (outcome) outcomeTicks(plot_->xAxis);
    plot_->rescaleAxes();
    plot_->yAxis->setRangeLower(0);
    plot_->replot();
    return;
  }

  const std::vector<double> x = numbers(cx);
  plot_->xAxis->setLabel(x_->currentText());
  if (kind == PlotKind::kHeatMap && cy >= 0) {
    const std::vector<double> y = numbers(cy);
    const Bins bx = binsOf(x, 12), by = binsOf(y, 12);
    const int nx = static_cast<int>(bx.centers.size()), ny = static_cast<int>(by.centers.size());
    std::vector<double> sum(static_cast<std::size_t>(nx * ny), 0), n(static_cast<std::size_t>(nx * ny), 0);
    for (std::size_t k = 0; k < m.size(); ++k) {
      if (!std::isfinite(x[k]) || !std::isfinite(y[k])) continue;
      const double value = outcome ? (m[k] == outcomeIndex("captured") ? 1.0 : 0.0) : m[k];
      if (!std::isfinite(value)) continue;
      const std::size_t cell = static_cast<std::size_t>(bx.of(x[k]) + nx * by.of(y[k]));
      sum[cell] += value;
      n[cell] += 1;
    }
    // Cells drawn at their index; the axes labelled with the bins' values.
    auto* map = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map->data()->setSize(nx, ny);
    map->data()->setRange(QCPRange(0, std::max(1, nx - 1)), QCPRange(0, std::max(1, ny - 1)));
    for (int i = 0; i < nx; ++i) {
      for (int j = 0; j < ny; ++j) {
        const std::size_t cell = static_cast<std::size_t>(i + nx * j);
        map->data()->setCell(i, j, n[cell] > 0 ? sum[cell] / n[cell] : NAN);
      }
    }
    auto* scale = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale);
    scale->setLabel(outcome ? tr("success rate") : QString::fromStdString(metric) + tr(" (mean)"));
    map->setColorScale(scale);
    map->setGradient(QCPColorGradient::gpThermal);
    map->setInterpolate(false);
    map->rescaleDataRange(true);
    for (auto [axis, bins] : {std::pair{plot_->xAxis, &bx}, {plot_->yAxis, &by}}) {
      QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
      for (std::size_t k = 0; k < bins->centers.size(); ++k) t->addTick(static_cast<double>(k), QString::number(bins->centers[k], 'g', 3));
      axis->setTicker(t);
    }
    plot_->yAxis->setLabel(y_->currentText());
    plot_->rescaleAxes();
    plot_->xAxis->setRange(-0.5, nx - 0.5);
    plot_->yAxis->setRange(-0.5, ny - 0.5);
    plot_->replot();
    return;
  }

  // Scatter: y is the second value (points coloured by the metric) or the metric itself (points
  // coloured by outcome). One graph per colour; each graph's points sorted by x, as QCustomPlot
  // keeps them, so that a click's data index finds its run.
  const std::vector<double> outcomes = numbers(table_.column("outcome"));
  const std::vector<double> y = cy >= 0 ? numbers(cy) : m;
  std::vector<int> group(m.size());
  std::vector<std::pair<QString, QColor>> groups;
  if (cy < 0 || outcome) {
    for (const std::string& o : kOutcomes) groups.push_back({QString::fromStdString(o), outcomeColor(o)});
    for (std::size_t k = 0; k < m.size(); ++k) group[k] = static_cast<int>(outcomes[k]);
  } else {
    std::vector<double> finite;
    for (double v : m) {
      if (std::isfinite(v)) finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    constexpr int kBands = 6;
    QCPColorGradient gradient(QCPColorGradient::gpThermal);
    std::vector<double> edges;
    for (int b = 0; b <= kBands; ++b) edges.push_back(percentile(finite, static_cast<double>(b) / kBands));
    for (int b = 0; b < kBands; ++b) {
      groups.push_back({QString("%1 - %2").arg(edges[static_cast<std::size_t>(b)], 0, 'g', 3).arg(edges[static_cast<std::size_t>(b + 1)], 0, 'g', 3),
                        QColor::fromRgb(gradient.color((b + 0.5) / kBands, QCPRange(0, 1)))});
    }
    groups.push_back({tr("no value"), QColor(150, 150, 150)});
    for (std::size_t k = 0; k < m.size(); ++k) {
      if (!std::isfinite(m[k])) {
        group[k] = kBands;
        continue;
      }
      const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, m[k]);
      group[k] = static_cast<int>(it - (edges.begin() + 1));
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::size_t> idx;
    for (std::size_t k = 0; k < m.size(); ++k) {
      if (group[k] == static_cast<int>(g) && std::isfinite(x[k]) && std::isfinite(y[k])) idx.push_back(k);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    QCPGraph* graph = plot_->addGraph();
    graph->setName(groups[g].first);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, groups[g].second, groups[g].second, 7));
    graph->setSelectable(QCP::stSingleData);
    QVector<double> gx, gy;
    std::vector<long> gr;
    for (std::size_t k : idx) {
      gx << x[k];
      gy << y[k];
      gr.push_back(runs[k]);
    }
    graph->setData(gx, gy, true);
    point_runs_.push_back(gr);
    if (idx.empty()) graph->removeFromLegend();
  }
  plot_->legend->setVisible(true);
  plot_->yAxis->setLabel(cy >= 0 ? y_->currentText() : QString::fromStdString(metric));
  if (cy < 0 && outcome) outcomeTicks(plot_->yAxis);
  plot_->rescaleAxes();
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    const QCPRange r = a->range();
    const double pad = r.size() > 0 ? 0.05 * r.size() : 0.5;
    a->setRange(r.lower - pad, r.upper + pad);
  }
  plot_->replot();
}

bool CampaignPanel::rerun(long run) {
  try {
    const Manifest m = readManifest(dir_.toStdString());
    std::string path = dir_.toStdString() + "/" + runFolder(run) + "/scenario.yaml";
    if (fs::exists(m.campaign_file)) {
      // Drawn again from the seed: run i's values are a function of (seed, i) alone.
      const Campaign c = loadCampaign(m.campaign_file);
      const std::string dir = dir_.toStdString() + "/rerun";
      fs::create_directories(dir);
      path = dir + "/" + fs::path(runFolder(run)).filename().string() + ".yaml";
      core::writeFileAtomically(path, scenarioText(c, drawRun(c, run)));
    }
    if (!window_->openScenario(QString::fromStdString(path))) {
      error_ = window_->lastError();
      return false;
    }
  } catch (const std::exception& e) {
    error_ = QString::fromStdString(e.what());
    QMessageBox::warning(this, tr("Cannot run it again"), error_);
    return false;
  }
  window_->setRunning(true);
  emit rerunStarted(run);
  return true;
}

bool CampaignPanel::startCampaign(const QString& file, const QString& out) {
  if (running()) {
    error_ = tr("A campaign is already running");
    return false;
  }
  try {
    total_runs_ = loadCampaign(file.toStdString()).runs;  // its errors here, with file and line
  } catch (const std::exception& e) {
    error_ = QString::fromStdString(e.what());
    return false;
  }
  dir_ = out;
  seen_.clear();
  seen_success_ = 0;
  delete process_;
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
    poll_->stop();
    pollProgress();
    run_->setEnabled(true);
    open_->setEnabled(true);
    cancel_->setEnabled(false);
    try {
      reload();
    } catch (const std::exception& e) {
      error_ = QString::fromStdString(e.what());
    }
    if (code != 0) status_->setText(tr("Stopped (exit code %1); run it again to resume. ").arg(code) + summary_);
    emit campaignFinished(code);
  });
  process_->start(cli_, {"campaign", "run", file, "--out", out, "--quiet"});
  if (!process_->waitForStarted(10000)) {
    error_ = tr("cannot start %1").arg(cli_);
    return false;
  }
  progress_->setRange(0, static_cast<int>(total_runs_));
  progress_->setValue(0);
  run_->setEnabled(false);
  open_->setEnabled(false);
  cancel_->setEnabled(true);
  status_->setText(tr("Running %1 ...").arg(file));
  poll_->start();
  return true;
}

void CampaignPanel::cancel() {
  if (running()) process_->terminate();  // the engine stops its runs; the finished ones stay
}

// The runs finished so far (their folders appear atomically): progress and success rate.
void CampaignPanel::pollProgress() {
  const fs::path runs = fs::path(dir_.toStdString()) / "runs";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(runs, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    const long run = std::atol(name.c_str());
    if (seen_.count(run)) continue;
    try {
      seen_success_ += readRunRecord((e.path() / "summary.json").string()).success;
      seen_.insert(run);
    } catch (const std::exception&) {
    }
  }
  const long n = static_cast<long>(seen_.size());
  progress_->setValue(static_cast<int>(std::min(n, total_runs_)));
  if (running()) {
    status_->setText(tr("Running: %1 / %2 runs, success %3 %").arg(n).arg(total_runs_).arg(n ? 100.0 * seen_success_ / n : 0.0, 0, 'f', 1));
  }
}

}  // namespace grapple::ui
