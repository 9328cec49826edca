#include "ui/tuning_panel.hpp"

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QHeaderView>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/analysis/scenario_loops.hpp"
#include "core/io/load_error.hpp"
#include "core/io/scenario_schema.hpp"
#include "ui/main_window.hpp"
#include "ui/on_screen.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

namespace grapple::ui {

namespace {

using Range = TuningField::Range;

const QColor kColors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                          QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                          QColor(188, 189, 34), QColor(23, 190, 207)};

// A spin box for gains that span decades: shows the value with significant digits ("2.165e-06",
// "3803"), accepts what the user types in that form, and refuses a value above its maximum or a
// sign its minimum excludes (below the minimum it is incomplete, and reverted on leaving the box).
class GainSpinBox : public QDoubleSpinBox {
 public:
  explicit GainSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setDecimals(15);  // the value is kept; the text shows significant digits
    setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    setKeyboardTracking(false);
    setAccelerated(true);
    QLocale l = locale();  // "3803", not "3,803"
    l.setNumberOptions(QLocale::OmitGroupSeparator);
    setLocale(l);
  }
  QString textFromValue(double value) const override { return locale().toString(value, 'g', 10); }
  double valueFromText(const QString& text) const override { return locale().toDouble(strip(text)); }
  QValidator::State validate(QString& text, int& pos) const override {
    (void)pos;
    const QString t = strip(text);
    if (t.isEmpty()) return QValidator::Intermediate;
    if (t.startsWith(locale().negativeSign()) && minimum() >= 0) return QValidator::Invalid;
    const QString lower = t.toLower();
    if (t == locale().negativeSign() || t == locale().decimalPoint() || lower.endsWith('e') || lower.endsWith("e-") ||
        lower.endsWith("e+")) {
      return QValidator::Intermediate;
    }
    bool ok = false;
    const double v = locale().toDouble(t, &ok);
    if (!ok || !std::isfinite(v)) return QValidator::Invalid;
    if (v > maximum()) return QValidator::Invalid;
    if (v < minimum()) return QValidator::Intermediate;
    return QValidator::Acceptable;
  }
  void fixup(QString& text) const override { text = textFromValue(value()); }

 private:
  QString strip(QString text) const {
    if (!suffix().isEmpty() && text.endsWith(suffix())) text.chop(suffix().size());
    if (!prefix().isEmpty() && text.startsWith(prefix())) text.remove(0, prefix().size());
    return text.trimmed();
  }
};

// The 1-DOF joints (the PD loops' and the capture's), by velocity index: (idx_v, name).
std::vector<std::pair<int, std::string>> oneDofJoints(const core::Model& m) {
  std::vector<std::pair<int, std::string>> j;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) j.emplace_back(m.joint[b].idx_v, m.joint[b].name);
  }
  std::sort(j.begin(), j.end());
  return j;
}

// A field of the scenario key `section`.`key` (core/io/scenario_schema): its unit and range are
// the format's.
TuningField number(const char* section, const std::string& key, QString label,
                   std::function<double&(core::Scenario&)> value, QString tip = {}) {
  const std::string path = std::string(section) + "." + key;
  const core::ScenarioKey* k = core::scenarioKey(path);
  if (!k) throw std::logic_error("tuning: no scenario key " + path);
  TuningField f;
  f.key = key;
  f.label = std::move(label);
  f.unit = QString::fromStdString(k->unit);
  f.bounds = k->range;
  f.range = k->range.lo == 0 && std::isinf(k->range.hi) ? (k->range.lo_open ? Range::kPositive : Range::kNonNegative)
                                                         : Range::kAny;
  f.value = std::move(value);
  f.tip = std::move(tip);
  return f;
}
// The same for entry `index` of a list (a gain per joint): key "joint_kp[2]".
TuningField number(const char* section, const std::string& key, std::size_t index, QString label,
                   std::function<double&(core::Scenario&)> value, QString tip = {}) {
  TuningField f = number(section, key, std::move(label), std::move(value), std::move(tip));
  f.key = key + "[" + std::to_string(index) + "]";
  return f;
}

constexpr char kAttitude[] = "chaser.attitude_control", kJointPath[] = "controllers[joint_trajectory]",
               kCapture[] = "controllers[capture]", kAerial[] = "controllers[aerial]",
               kTorqueWindow[] = "controllers[torque_windows].windows[]";

QString seconds(double t) { return QString::number(t, 'g', 4); }

}  // namespace

double tuningMinimum(const TuningField& f) {
  const core::Bounds& b = f.bounds;
  return std::isfinite(b.lo) ? (b.lo_open ? b.lo + std::max(1e-12, std::abs(b.lo) * 1e-12) : b.lo) : -1e9;
}

double tuningMaximum(const TuningField& f) { return std::min(f.bounds.hi, 1e9); }

namespace {

using Joints = std::vector<std::pair<int, std::string>>;
// Where a controller lives in a Scenario (its index in `controllers`, captured).
using SpecOf = std::function<core::ControllerSpec&(core::Scenario&)>;

TuningPage attitudePage() {
  TuningPage p;
  p.title = QObject::tr("Attitude control");
  p.fields.push_back(number(kAttitude, "kp", "kp",
                            [](core::Scenario& x) -> double& { return x.chaser.attitude_control->kp; },
                            QObject::tr("bus angular acceleration -kp e - kd ω (e: rotation from the held attitude)")));
  p.fields.push_back(number(kAttitude, "kd", "kd",
                            [](core::Scenario& x) -> double& { return x.chaser.attitude_control->kd; }));
  p.fields.push_back(number(kAttitude, "torque_limit", QObject::tr("torque limit"),
                            [](core::Scenario& x) -> double& { return x.chaser.attitude_control->torque_limit; },
                            QObject::tr("per axis (thesis Table 8.1: 5 N m)")));
  TuningField ff;
  ff.key = "feedforward";
  ff.label = QObject::tr("arm reaction fed forward");
  ff.flag = [](core::Scenario& x) -> bool& { return x.chaser.attitude_control->feedforward; };
  ff.tip = QObject::tr("off: the thesis' AOCS, a plain PD torque that reacts once the bus has turned");
  p.fields.push_back(ff);
  return p;
}

void jointPathFields(TuningPage& p, const core::ControllerSpec& c, const SpecOf& spec) {
  p.title = QObject::tr("Joint path %1–%2 s").arg(seconds(c.start), seconds(c.start + c.duration));
  p.fields.push_back(number(kJointPath, "kp", "kp", [spec](core::Scenario& x) -> double& { return spec(x).kp; },
                            QObject::tr("tracking error dynamics ë + kd ė + kp e = 0")));
  p.fields.push_back(number(kJointPath, "kd", "kd", [spec](core::Scenario& x) -> double& { return spec(x).kd; }));
}

void torqueWindowFields(TuningPage& p, const core::ControllerSpec& c, const SpecOf& spec) {
  p.title = QObject::tr("Torque windows");
  for (std::size_t j = 0; j < c.windows.size(); ++j) {
    const std::string w = "windows[" + std::to_string(j) + "].";
    const QString name = QString::fromStdString(c.windows[j].joint);
    TuningField amplitude = number(kTorqueWindow, "amplitude", QObject::tr("%1 amplitude").arg(name),
                                   [spec, j](core::Scenario& x) -> double& { return spec(x).windows[j].amplitude; });
    TuningField divisor = number(kTorqueWindow, "divisor", QObject::tr("%1 divisor").arg(name),
                                 [spec, j](core::Scenario& x) -> double& { return spec(x).windows[j].divisor; },
                                 QObject::tr("τ = amplitude sin(t / divisor)"));
    amplitude.key = w + amplitude.key;
    divisor.key = w + divisor.key;
    p.fields.push_back(amplitude);
    p.fields.push_back(divisor);
  }
}

// The capture law joint_pd's gains, one Kp and one Kd per joint (the defaults filled into `cap`).
void captureJointFields(TuningPage& p, core::ControllerSpec::Capture& cap, const Joints& joints, const SpecOf& spec) {
  const bool central = cap.arm_pd == core::ArmPd::kCentralized;
  std::vector<double> kp, kd;  // (captureJointGains reads the file's lists while it fills these)
  core::captureJointGains(cap, joints.size(), kp, kd);
  cap.joint_kp = kp;
  cap.joint_kd = kd;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    const QString name = QString::fromStdString(joints[j].second);
    TuningField kp_j = number(kCapture, "joint_kp", j, QObject::tr("%1 Kp").arg(name),
                              [spec, j](core::Scenario& x) -> double& { return spec(x).capture.joint_kp[j]; },
                              QObject::tr("joint PD (%1)").arg(QString(core::wordOf(cap.arm_pd, core::kArmPdWords))));
    TuningField kd_j = number(kCapture, "joint_kd", j, QObject::tr("%1 Kd").arg(name),
                              [spec, j](core::Scenario& x) -> double& { return spec(x).capture.joint_kd[j]; });
    if (central) {  // the gains premultiplied by D(q0)
      kp_j.unit = "1/s²";
      kd_j.unit = "1/s";
    }
    p.fields.push_back(kp_j);
    p.fields.push_back(kd_j);
  }
}

void captureFields(TuningPage& p, core::ControllerSpec& c, const Joints& joints, const SpecOf& spec) {
  using Capture = core::ControllerSpec::Capture;
  auto& cap = c.capture;
  p.title = QObject::tr("Capture from %1 s").arg(seconds(c.start));
  auto add = [&](const char* key, const char* label, double Capture::*member, const char* tip = nullptr) {
    p.fields.push_back(number(kCapture, key, QObject::tr(label),
                              [spec, member](core::Scenario& x) -> double& { return spec(x).capture.*member; },
                              tip ? QObject::tr(tip) : QString()));
  };
  p.fields.push_back(number(kCapture, "kp", "kp", [spec](core::Scenario& x) -> double& { return spec(x).kp; },
                            QObject::tr("the hand's Cartesian error dynamics")));
  p.fields.push_back(number(kCapture, "kd", "kd", [spec](core::Scenario& x) -> double& { return spec(x).kd; }));
  if (cap.law == core::CaptureLaw::kJointPd) captureJointFields(p, cap, joints, spec);
  if (cap.law == core::CaptureLaw::kTransposeJacobian) {
    add("force_kp", "hand spring", &Capture::force_kp);
    add("force_kd", "hand damper", &Capture::force_kd);
  }
  add("posture_kp", "posture kp", &Capture::posture_kp, "null-space pull to the start pose");
  add("posture_kd", "posture kd", &Capture::posture_kd);
  add("post_kp", "after grasp kp", &Capture::post_kp, "joints held after the grasp (soft: they carry the debris)");
  add("post_kd", "after grasp kd", &Capture::post_kd);
  add("damping", "DLS damping λ_max", &Capture::damping, "damped least squares near singularities");
  add("singular_threshold", "damping below σ", &Capture::singular_threshold);
  if (cap.reaction_inverse == core::ReactionInverse::kAdjugate) {
    add("adjugate_limit", "adjugate limit", &Capture::adjugate_limit);
  }
  add("tolerance", "grasp distance", &Capture::tolerance);
  add("speed_tolerance", "grasp speed", &Capture::speed_tolerance);
  add("hold", "grasp hold", &Capture::hold);
}

void aerialFields(TuningPage& p, const core::ControllerSpec& c, const Joints& joints, const SpecOf& spec) {
  using Aerial = core::ControllerSpec::Aerial;
  p.title = QObject::tr("Aerial");
  static const char* kBase[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
  for (const char* key : {"kp", "kv"}) {
    const bool is_kp = std::string(key) == "kp";
    const std::size_t n = (is_kp ? c.aerial.kp : c.aerial.kv).size();
    for (std::size_t j = 0; j < n; ++j) {
      const QString name = j < 6                   ? QString(kBase[j])
                            : j - 6 < joints.size() ? QString::fromStdString(joints[j - 6].second)
                                                    : QString::number(j);
      p.fields.push_back(number(kAerial, key, j, QString("%1 %2").arg(name, is_kp ? "Kp" : "Kv"),
                                [spec, j, is_kp](core::Scenario& x) -> double& {
                                  return is_kp ? spec(x).aerial.kp[j] : spec(x).aerial.kv[j];
                                }));
    }
  }
  auto add = [&](const char* key, const char* label, double Aerial::*member) {
    p.fields.push_back(number(kAerial, key, QObject::tr(label),
                              [spec, member](core::Scenario& x) -> double& { return spec(x).aerial.*member; }));
  };
  add("max_rpm", "rotor speed limit", &Aerial::max_rpm);
  add("k_t", "thrust coefficient", &Aerial::k_t);
  add("k_p", "drag torque coefficient", &Aerial::k_p);
  add("rotor_time_constant", "rotor lag", &Aerial::rotor_time_constant);
  add("joint_time_constant", "joint lag", &Aerial::joint_time_constant);
}

}  // namespace

std::vector<TuningPage> tuningPages(core::Scenario& s, const core::Model& m) {
  std::vector<TuningPage> pages;
  const Joints joints = oneDofJoints(m);
  if (s.chaser.attitude_control) pages.push_back(attitudePage());
  for (std::size_t k = 0; k < s.controllers.size(); ++k) {
    core::ControllerSpec& c = s.controllers[k];
    TuningPage p;
    p.controller = static_cast<int>(k);
    const SpecOf spec = [k](core::Scenario& x) -> core::ControllerSpec& { return x.controllers[k]; };
    switch (c.type) {
      case core::ControllerType::kJointTrajectory: jointPathFields(p, c, spec); break;
      case core::ControllerType::kTorqueWindows: torqueWindowFields(p, c, spec); break;
      case core::ControllerType::kCapture: captureFields(p, c, joints, spec); break;
      case core::ControllerType::kAerial: aerialFields(p, c, joints, spec); break;
    }
    pages.push_back(std::move(p));
  }
  return pages;
}

// The row under the pages: apply, save, synthesize (with its instants, progress and cancel),
// certify.
QHBoxLayout* TuningPanel::buildButtons(QWidget* top) {
  auto* buttons = new QHBoxLayout;
  apply_ = new QPushButton(tr("Apply and rerun"), top);
  apply_->setObjectName("tuningApply");
  apply_->setToolTip(tr("Run the scenario with these values; the current run stays in the plots as \"previous run\""));
  save_ = new QPushButton(tr("Save gains"), top);
  save_->setObjectName("tuningSave");
  save_->setToolTip(tr("Write these values into the scenario file"));
  synthesize_ = new QPushButton(tr("Synthesize"), top);
  synthesize_->setObjectName("tuningSynthesize");
  synthesize_->setToolTip(tr("Structured H∞ synthesis (thesis §8.2.3) of the capture's joint PD and the attitude "
                             "control at the instant shown: the smallest gains meeting the templates W(s)"));
  synthesis_instants_ = new QLineEdit(top);
  synthesis_instants_->setObjectName("tuningSynthesisInstants");
  synthesis_instants_->setPlaceholderText(tr("at: the instant shown"));
  synthesis_instants_->setToolTip(tr("Multi-model synthesis: the run's instants [s] whose configurations the gains must "
                                     "serve at once, e.g. 0, 20, 45 (empty: the instant shown)"));
  synthesis_instants_->setMaximumWidth(150);
  synthesis_cancel_ = new QPushButton(tr("Cancel"), top);
  synthesis_cancel_->setObjectName("tuningSynthesisCancel");
  synthesis_cancel_->setVisible(false);
  synthesis_bar_ = new QProgressBar(top);
  synthesis_bar_->setObjectName("tuningSynthesisProgress");
  synthesis_bar_->setRange(0, 100);
  synthesis_bar_->setVisible(false);
  buttons->addWidget(apply_);
  buttons->addWidget(save_);
  buttons->addWidget(synthesize_);
  buttons->addWidget(synthesis_instants_);
  certify_ = new QPushButton(tr("Certify ranges (μ)"), top);
  certify_->setObjectName("tuningCertify");
  certify_->setToolTip(tr("μ-analysis (thesis §8.3) of these PD loops at the instant shown: the joint ranges in which "
                          "the loop is guaranteed to stay stable, drawn on the manipulability map"));
  buttons->addWidget(certify_);
  buttons->addWidget(synthesis_bar_, 1);
  buttons->addWidget(synthesis_cancel_);
  buttons->addStretch(1);
  connect(apply_, &QPushButton::clicked, this, [this] { applyAndRerun(); });
  connect(save_, &QPushButton::clicked, this, [this] { saveGains(); });
  connect(synthesize_, &QPushButton::clicked, this, [this] {
    if (!startSynthesis()) message_->setText(last_error_);
  });
  connect(synthesis_cancel_, &QPushButton::clicked, this, &TuningPanel::cancelSynthesis);
  connect(certify_, &QPushButton::clicked, this, [this] {
    if (certification_.running()) {
      certification_.cancel();
    } else if (!startCertification()) {
      message_->setText(last_error_);
    }
  });
  return buttons;
}

// Under the buttons: the synthesis' and the certification's tables, "use these gains", the message.
void TuningPanel::buildResults(QWidget* top, QVBoxLayout* top_layout) {
  // The results of an analysis: two columns, read-only, hidden until there is a result.
  auto resultTable = [&](const char* name, const QString& first, const QString& second, int height) {
    auto* t = new QTableWidget(0, 2, top);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels({first, second});
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setMaximumHeight(height);
    t->setVisible(false);
    top_layout->addWidget(t);
    return t;
  };
  synthesis_table_ = resultTable("tuningSynthesisTable", tr("Synthesis"), tr("Value"), 160);
  certified_table_ = resultTable("tuningCertifiedTable", tr("Joint"), tr("Guaranteed stable [deg] (limits)"), 180);
  synthesis_use_ = new QPushButton(tr("Use these gains and rerun"), top);
  synthesis_use_->setObjectName("tuningSynthesisUse");
  synthesis_use_->setVisible(false);
  top_layout->addWidget(synthesis_use_, 0, Qt::AlignLeft);
  connect(synthesis_use_, &QPushButton::clicked, this, [this] { useSynthesis(); });
  message_ = new QLabel(top);
  message_->setWordWrap(true);
  top_layout->addWidget(message_);
}

// The closed loop: poles (complex plane, with the list) and the sensitivity against 1/|W|.
void TuningPanel::buildLoopPlots(QWidget* parent) {
  loop_box_ = new QWidget(parent);
  auto* loop_layout = new QVBoxLayout(loop_box_);
  loop_layout->setContentsMargins(0, 0, 0, 0);
  loop_title_ = new QLabel(loop_box_);
  loop_title_->setWordWrap(true);
  loop_layout->addWidget(loop_title_);
  auto* row = new QHBoxLayout;
  poles_plot_ = new QCustomPlot(loop_box_);
  poles_plot_->setObjectName("tuningPoles");
  poles_plot_->setMinimumSize(220, 180);
  poles_plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  poles_plot_->xAxis->setLabel("Re λ [rad/s]");
  poles_plot_->yAxis->setLabel("Im λ [rad/s]");
  row->addWidget(poles_plot_, 3);
  auto* list_scroll = new QScrollArea(loop_box_);
  list_scroll->setWidgetResizable(true);
  pole_list_ = new QLabel(list_scroll);
  pole_list_->setObjectName("tuningPoleList");
  pole_list_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  pole_list_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  list_scroll->setWidget(pole_list_);
  list_scroll->setMinimumWidth(150);
  row->addWidget(list_scroll, 2);
  loop_layout->addLayout(row, 1);
  bode_plot_ = new QCustomPlot(loop_box_);
  bode_plot_->setObjectName("tuningBode");
  bode_plot_->setMinimumHeight(200);
  bode_plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  bode_plot_->xAxis->setLabel("ω [rad/s]");
  bode_plot_->yAxis->setLabel("|T_w→a(jω)|");
  for (QCPAxis* a : {bode_plot_->xAxis, bode_plot_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    a->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    a->setNumberFormat("eb");
    a->setNumberPrecision(0);
  }
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  bode_plot_->legend->setFont(small);
  bode_plot_->legend->setRowSpacing(-3);
  bode_plot_->legend->setBrush(QColor(255, 255, 255, 190));
  bode_plot_->legend->setVisible(true);
  bode_plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  loop_layout->addWidget(bode_plot_, 2);
}

TuningPanel::TuningPanel(MainWindow* window, QWidget* parent)
    : QWidget(parent),
      window_(window),
      analysis_job_(this, 30, [this] { pollAnalysis(); }),
      synthesis_(this, 50, [this] { pollSynthesis(); }),
      certification_(this, 50, [this] { pollCertification(); }) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* top = new QWidget(split);
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  tabs_ = new QTabWidget(top);
  tabs_->setObjectName("tuningPages");
  tabs_->setDocumentMode(true);
  tabs_->setMinimumHeight(170);  // a few rows of the form
  top_layout->addWidget(tabs_, 1);
  top_layout->addLayout(buildButtons(top));
  buildResults(top, top_layout);
  buildLoopPlots(split);
  split->addWidget(top);
  split->addWidget(loop_box_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);
  layout->addWidget(split);

  delay_ = new QTimer(this);
  delay_->setSingleShot(true);
  delay_->setInterval(300);
  connect(delay_, &QTimer::timeout, this, [this] {
    if (!onScreen(this)) return;  // the dock's visibilityChanged schedules it when shown
    if (analysis_job_.running()) {
      again_ = true;  // computed again from the newest inputs when this one is done
      return;
    }
    startAnalysis();
  });
  connect(window_, &MainWindow::scenarioReplaced, this, &TuningPanel::rebuild);
  connect(window_->timeline(), &Timeline::rowChanged, this, [this](int) { scheduleAnalysis(); });
}

TuningPanel::~TuningPanel() = default;  // the jobs cancel and wait

int TuningPanel::capturePage() const {
  for (int k = 0; k < pageCount(); ++k) {
    if (field(k, "joint_kp[0]")) return k;
  }
  return -1;
}

bool TuningPanel::startSynthesis() {
  last_error_.clear();
  const int page = capturePage();
  SimRunner* runner = window_->runner();
  if (synthesis_.running()) last_error_ = tr("A synthesis is running.");
  else if (page < 0) last_error_ = tr("Synthesize needs a capture controller with the law joint_pd.");
  else if (!runner) last_error_ = tr("No run to take the configuration from.");
  if (!last_error_.isEmpty()) return false;
  const core::Model& m = window_->loaded().model;
  // The instants: typed (multi-model), else the one shown.
  std::vector<int> rows;
  static const std::vector<double> kNoTime;
  const std::vector<double>& time = window_->history().columns.empty() ? kNoTime : window_->history().columns[0];
  for (const QString& item : synthesis_instants_->text().split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const double t = item.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(t)) {
      last_error_ = tr("Synthesis instants: '%1' is not a time in seconds (expected e.g. 0, 20, 45).").arg(item.trimmed());
      return false;
    }
    const auto it = std::lower_bound(time.begin(), time.end(), t - 1e-9);
    if (it == time.end()) {
      last_error_ = tr("Synthesis instants: t = %1 s is not recorded yet (run to it first).").arg(t);
      return false;
    }
    rows.push_back(static_cast<int>(it - time.begin()));
  }
  if (rows.empty()) rows.push_back(std::max(0, window_->timeline()->row()));
  synthesis_q_.clear();
  QStringList at;
  for (int row : rows) {
    const render::Snapshot snap = runner->snapshot(row);
    Eigen::VectorXd q = snap.q;
    for (const core::FlexibleBody& f : m.flex) {
      if (f.nf > 0) q.segment(f.idx_q, f.nf).setZero();
    }
    synthesis_q_.push_back(q);
    at << QString::number(snap.time, 'f', 2);
  }
  const core::Scenario& s = window_->loaded().scenario;
  core::SynthesisStructure st;
  st.centralized = s.controllers[static_cast<std::size_t>(pages_[static_cast<std::size_t>(page)].controller)].capture.arm_pd == core::ArmPd::kCentralized;
  st.base = s.chaser.attitude_control && s.chaser.attitude_control->active() && m.base_mode == core::BaseMode::kFloating
                ? core::SynthesisStructure::Base::kAttitudeScalar
                : core::SynthesisStructure::Base::kNone;
  // The joints' roll-off as the file flies it, fixed (grapple-cli design --rolloff tune tunes it).
  const std::vector<double>& rolloff = s.controllers[static_cast<std::size_t>(pages_[static_cast<std::size_t>(page)].controller)].capture.joint_rolloff;
  if (!rolloff.empty()) st.rolloff = core::SynthesisStructure::Rolloff::kFixed, st.rolloff_omega = rolloff;
  synthesis_page_ = page;
  auto model = std::make_shared<const core::Model>(m);
  synthesis_.start([model, qs = synthesis_q_, st](const auto& progress) {
    core::SynthesisOptions opt;
    opt.progress = progress;
    return core::synthesize(*model, qs, st, opt);
  });
  synthesize_->setEnabled(false);
  synthesis_cancel_->setVisible(true);
  synthesis_bar_->setValue(0);
  synthesis_bar_->setVisible(true);
  message_->setText(rows.size() == 1 ? tr("Synthesizing at t = %1 s ...").arg(at.front())
                                     : tr("Synthesizing over %1 configurations (t = %2 s) ...").arg(rows.size()).arg(at.join(", ")));
  return true;
}

void TuningPanel::cancelSynthesis() { synthesis_.cancel(); }

void TuningPanel::pollSynthesis() {
  synthesis_bar_->setValue(static_cast<int>(std::lround(100 * synthesis_.progress())));
  if (!synthesis_.finished()) return;
  synthesis_bar_->setVisible(false);
  synthesis_cancel_->setVisible(false);
  synthesize_->setEnabled(true);
  try {
    synthesis_result_ = synthesis_.take();
  } catch (const std::exception& e) {
    synthesis_result_.reset();
    last_error_ = QString::fromStdString(e.what());
    message_->setText(tr("Synthesis failed: %1").arg(last_error_));
    emit synthesisFinished();
    return;
  }
  const core::SynthesisResult& r = *synthesis_result_;
  std::vector<std::pair<QString, QString>> rows;
  auto num = [](double x) { return QString::number(x, 'g', 5); };
  rows.emplace_back(tr("γ_hard = ‖W T‖∞"), num(r.gamma_hard) + (r.feasible ? tr(" (templates met)") : tr(" (templates NOT met)")));
  if (r.gamma_hard_each.size() > 1) {
    QStringList each;
    for (double g : r.gamma_hard_each) each << num(g);
    rows.emplace_back(tr("γ_hard per configuration"), each.join(", "));
  }
  rows.emplace_back(tr("γ_soft"), num(r.gamma_soft));
  rows.emplace_back(tr("Kp positive definite"), r.kp_positive_definite ? tr("yes") : tr("NO (min eigenvalue %1)").arg(num(r.kp_min_eigenvalue)));
  rows.emplace_back(tr("Kd positive definite"), r.kd_positive_definite ? tr("yes") : tr("NO (min eigenvalue %1)").arg(num(r.kd_min_eigenvalue)));
  if (r.attitude_kp > 0) {
    rows.emplace_back(tr("attitude kp"), num(r.attitude_kp));
    rows.emplace_back(tr("attitude kd"), num(r.attitude_kd));
  }
  for (Eigen::Index j = 0; j < r.joint_kp.size(); ++j) {
    rows.emplace_back(tr("joint %1 Kp, Kd").arg(j + 1), num(r.joint_kp[j]) + ", " + num(r.joint_kd[j]));
  }
  if (r.joint_rolloff.size() > 0) {
    QStringList w;
    for (Eigen::Index j = 0; j < r.joint_rolloff.size(); ++j) w << num(r.joint_rolloff[j]);
    rows.emplace_back(tr("joint roll-off [rad/s]"), w.join(", "));
  }
  synthesis_table_->setRowCount(static_cast<int>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    synthesis_table_->setItem(static_cast<int>(k), 0, new QTableWidgetItem(rows[k].first));
    synthesis_table_->setItem(static_cast<int>(k), 1, new QTableWidgetItem(rows[k].second));
  }
  synthesis_table_->resizeColumnToContents(0);
  synthesis_table_->setVisible(true);
  synthesis_use_->setVisible(!r.cancelled);
  message_->setText(r.cancelled ? tr("Synthesis cancelled (best point so far shown).")
                                : tr("Synthesis done: %1 evaluations, %2.").arg(r.evaluations).arg(QString::fromStdString(r.message)));
  emit synthesisFinished();
}

void TuningPanel::setSynthesisInstants(const QString& text) { synthesis_instants_->setText(text); }

bool TuningPanel::startCertification() {
  last_error_.clear();
  if (certification_.running()) last_error_ = tr("A μ-analysis is running.");
  else if (!has_loop_) last_error_ = tr("Certify ranges needs a PD loop (attitude control or a joint PD).");
  if (!last_error_.isEmpty()) return false;
  const core::Model& m = window_->loaded().model;
  auto model = std::make_shared<const core::Model>(m);
  certification_.start([model, q = q_, gains = gains_](const auto& progress) {
    core::RobustOptions opt;
    opt.progress = progress;
    return core::certifyBox(*model, q, gains, core::jointLimitRanges(*model), opt);
  });
  SimRunner* runner = window_->runner();
  certified_time_ = runner ? runner->snapshot(std::max(0, window_->timeline()->row())).time : 0;
  certify_->setText(tr("Cancel μ"));
  message_->setText(tr("μ-analysis at t = %1 s ...").arg(certified_time_, 0, 'f', 2));
  return true;
}

void TuningPanel::pollCertification() {
  if (!certification_.finished()) {
    message_->setText(tr("μ-analysis at t = %1 s ... %2 %").arg(certified_time_, 0, 'f', 2)
                          .arg(std::lround(100 * certification_.progress())));
    return;
  }
  certify_->setText(tr("Certify ranges (μ)"));
  try {
    certified_ = certification_.take();
  } catch (const std::exception& e) {  // cancelled (core::RobustCancelled), or a model μ cannot analyse
    certified_.reset();
    certified_table_->setVisible(false);
    last_error_ = QString::fromStdString(e.what());
    message_->setText(tr("μ-analysis: %1").arg(last_error_));
    emit certifiedBox({});
    emit certificationFinished();
    return;
  }
  const core::CertifiedBox& c = *certified_;
  const core::Model& m = window_->loaded().model;
  constexpr double kDeg = M_PI / 180;
  certified_table_->setRowCount(static_cast<int>(c.box.size()));
  for (std::size_t k = 0; k < c.box.size(); ++k) {
    const bool fixed = std::find(c.fixed.begin(), c.fixed.end(), c.box[k].body) != c.fixed.end();
    const QString range = QString("[%1, %2]  (%3, %4)%5")
                              .arg(c.box[k].lower / kDeg, 0, 'f', 1)
                              .arg(c.box[k].upper / kDeg, 0, 'f', 1)
                              .arg(c.limits[k].lower / kDeg, 0, 'f', 1)
                              .arg(c.limits[k].upper / kDeg, 0, 'f', 1)
                              .arg(fixed ? tr(" — D(q) does not depend on it") : QString());
    certified_table_->setItem(static_cast<int>(k), 0, new QTableWidgetItem(QString::fromStdString(m.joint[c.box[k].body].name)));
    certified_table_->setItem(static_cast<int>(k), 1, new QTableWidgetItem(range));
  }
  certified_table_->resizeColumnToContents(0);
  certified_table_->setVisible(true);
  if (!c.nominal_stable) {
    message_->setText(tr("μ-analysis at t = %1 s: the loop is unstable at this configuration: no range is guaranteed.")
                          .arg(certified_time_, 0, 'f', 2));
  } else {
    message_->setText(tr("μ-analysis at t = %1 s: μ upper bound %2 (at %3 rad/s) over the limits; the box shown is "
                         "guaranteed stable.")
                          .arg(certified_time_, 0, 'f', 2)
                          .arg(c.final_sweep.upper_peak, 0, 'g', 4)
                          .arg(c.final_sweep.omega_peak, 0, 'g', 4));
  }
  emit certifiedBox(c.certified ? c.box : std::vector<core::JointRange>{});
  emit certificationFinished();
}

bool TuningPanel::useSynthesis(bool quiet) {
  if (!synthesis_result_ || synthesis_page_ < 0 || synthesis_page_ >= pageCount()) {
    last_error_ = tr("No synthesis result to use.");
    return false;
  }
  const core::SynthesisResult& r = *synthesis_result_;
  for (Eigen::Index j = 0; j < r.joint_kp.size(); ++j) {
    QDoubleSpinBox* kp = field(synthesis_page_, "joint_kp[" + std::to_string(j) + "]");
    QDoubleSpinBox* kd = field(synthesis_page_, "joint_kd[" + std::to_string(j) + "]");
    if (!kp || !kd) {
      last_error_ = tr("The capture page changed since the synthesis.");
      return false;
    }
    kp->setValue(r.joint_kp[j]);
    kd->setValue(r.joint_kd[j]);
  }
  if (r.attitude_kp > 0 && pageCount() > 0 && pages_.front().controller == -1) {
    field(0, "kp")->setValue(r.attitude_kp);
    field(0, "kd")->setValue(r.attitude_kd);
  }
  return applyAndRerun(quiet);
}

int TuningPanel::pageCount() const { return static_cast<int>(pages_.size()); }

QString TuningPanel::pageTitle(int page) const { return tabs_->tabText(page); }

QDoubleSpinBox* TuningPanel::field(int page, const std::string& key) const {
  if (page < 0 || page >= pageCount()) return nullptr;
  const auto& fields = pages_[static_cast<std::size_t>(page)].fields;
  for (std::size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].key == key) return qobject_cast<QDoubleSpinBox*>(editors_[static_cast<std::size_t>(page)][k]);
  }
  return nullptr;
}

QCheckBox* TuningPanel::flag(int page, const std::string& key) const {
  if (page < 0 || page >= pageCount()) return nullptr;
  const auto& fields = pages_[static_cast<std::size_t>(page)].fields;
  for (std::size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].key == key) return qobject_cast<QCheckBox*>(editors_[static_cast<std::size_t>(page)][k]);
  }
  return nullptr;
}

void TuningPanel::rebuild() {
  const int current = tabs_->currentIndex();
  while (tabs_->count() > 0) {
    QWidget* w = tabs_->widget(0);
    tabs_->removeTab(0);
    delete w;
  }
  editors_.clear();
  // A certified box holds for the gains and the model it was computed with: gone with them.
  if (certification_.running()) {
    certification_.cancel();
  } else if (certified_) {
    certified_.reset();
    certified_table_->setVisible(false);
    emit certifiedBox({});
  }
  base_ = window_->loaded().scenario;
  pages_ = tuningPages(base_, window_->loaded().model);
  for (std::size_t k = 0; k < pages_.size(); ++k) buildPage(k);
  if (current >= 0 && current < tabs_->count()) tabs_->setCurrentIndex(current);
  apply_->setEnabled(!pages_.empty());
  save_->setEnabled(!pages_.empty());
  if (pages_.empty()) message_->setText(tr("The scenario has no controller to tune."));
  refreshAnalysis();
}

void TuningPanel::buildPage(std::size_t index) {
  const TuningPage& page = pages_[index];
  auto* scroll = new QScrollArea(tabs_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* form_widget = new QWidget(scroll);
  auto* form = new QFormLayout(form_widget);
  form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  std::vector<QWidget*> editors;
  for (const TuningField& f : page.fields) {
    QWidget* editor = nullptr;
    if (f.flag) {
      auto* box = new QCheckBox(form_widget);
      box->setChecked(f.flag(base_));
      connect(box, &QCheckBox::toggled, this, [this] {
        message_->setText(tr("Edited: \"Apply and rerun\" to see it run."));
        scheduleAnalysis();
      });
      editor = box;
    } else {
      auto* spin = new GainSpinBox(form_widget);
      spin->setRange(tuningMinimum(f), tuningMaximum(f));
      if (!f.unit.isEmpty()) spin->setSuffix(" " + f.unit);
      spin->setValue(f.value(base_));
      const QString range = f.bounds.text().empty() ? tr("any value") : QString::fromStdString(f.bounds.text());
      spin->setToolTip((f.tip.isEmpty() ? QString() : f.tip + "\n") + tr("%1: %2%3").arg(QString::fromStdString(f.key), range,
                                                                                     f.unit.isEmpty() ? "" : " [" + f.unit + "]"));
      connect(spin, &QDoubleSpinBox::valueChanged, this, [this] {
        message_->setText(tr("Edited: \"Apply and rerun\" to see it run."));
        scheduleAnalysis();
      });
      editor = spin;
    }
    editor->setObjectName(QString::fromStdString(f.key));
    form->addRow(f.label, editor);
    editors.push_back(editor);
  }
  scroll->setWidget(form_widget);
  tabs_->addTab(scroll, page.title);
  editors_.push_back(std::move(editors));
}

core::Scenario TuningPanel::formScenario() const {
  core::Scenario s = base_;
  for (std::size_t p = 0; p < pages_.size(); ++p) {
    for (std::size_t k = 0; k < pages_[p].fields.size(); ++k) {
      const TuningField& f = pages_[p].fields[k];
      if (f.flag) {
        f.flag(s) = static_cast<QCheckBox*>(editors_[p][k])->isChecked();
      } else {
        f.value(s) = static_cast<QDoubleSpinBox*>(editors_[p][k])->value();
      }
    }
  }
  return s;
}

core::LoadedScenario TuningPanel::edited() const {
  core::Scenario s = formScenario();
  std::string path = s.file;
  if (path.empty()) {  // built in code: the robot by its full path
    s.chaser.robot = s.chaser.robot_path;
    path = "edited.yaml";
  }
  core::LoadedScenario out = core::loadScenarioText(core::scenarioToYaml(s), path);
  out.scenario.file = s.file;
  return out;
}

bool TuningPanel::applyAndRerun(bool quiet) {
  core::LoadedScenario loaded;
  try {
    loaded = edited();
  } catch (const std::exception& e) {
    last_error_ = QString::fromStdString(e.what());
    message_->setText(tr("Refused: %1").arg(last_error_));
    if (!quiet) QMessageBox::warning(this, tr("Apply and rerun"), last_error_);
    return false;
  }
  if (!window_->rerunKeepingGhost(std::move(loaded), quiet)) {
    last_error_ = window_->lastError();
    message_->setText(tr("Refused: %1").arg(last_error_));
    return false;
  }
  window_->setRunning(true);
  last_error_.clear();
  message_->setText(tr("Running with the new values; the previous run is drawn dashed in the plots."));
  return true;
}

bool TuningPanel::saveGains(bool quiet) {
  const QString path = window_->scenarioPath();
  try {
    if (path.isEmpty()) throw std::runtime_error("no scenario file is open");
    const core::LoadedScenario loaded = edited();
    core::saveScenario(loaded.scenario, path.toStdString());
    emit scenarioFileWritten();
  } catch (const std::exception& e) {
    last_error_ = QString::fromStdString(e.what());
    message_->setText(tr("Not saved: %1").arg(last_error_));
    if (!quiet) QMessageBox::warning(this, tr("Save gains"), last_error_);
    return false;
  }
  last_error_.clear();
  message_->setText(tr("Saved into %1.").arg(path));
  return true;
}

void TuningPanel::scheduleAnalysis() {
  if (!delay_->isActive()) delay_->start();
}

std::function<TuningPanel::AnalysisResult()> TuningPanel::analysisJob() const {
  SimRunner* runner = window_->runner();
  if (!runner || pages_.empty()) return [] { return AnalysisResult{}; };
  const render::Snapshot snap = runner->snapshot(std::max(0, window_->timeline()->row()));
  auto model = std::make_shared<const core::Model>(window_->loaded().model);
  return [model, snap, scenario = formScenario()] {
    const core::Model& m = *model;
    AnalysisResult r;
    r.q = snap.q;
    for (const core::FlexibleBody& f : m.flex) {
      if (f.nf > 0) r.q.segment(f.idx_q, f.nf).setZero();
    }
    try {
      std::optional<core::ScenarioLoops> loops;
      if (r.q.size() == m.nq) loops = core::scenarioLoops(scenario, m, r.q, core::jointPdControllerAt(scenario, snap.time));
      r.has_loop = loops.has_value();
      if (r.has_loop) {
        r.gains = std::move(loops->gains);
        r.analysis = core::analyzeClosedLoop(m, r.q, r.gains, 1e-3, 1e3, 200);
      }
      r.description = QObject::tr("<b>Closed loop at t = %1 s</b>: %2")
                          .arg(snap.time, 0, 'f', 2)
                          .arg(loops ? QString::fromStdString(loops->description) : QString());
    } catch (const std::exception& e) {
      r.has_loop = false;
      r.description = QObject::tr("No closed-loop analysis: %1").arg(QString::fromStdString(e.what()).toHtmlEscaped());
    }
    return r;
  };
}

void TuningPanel::startAnalysis() {
  analysis_job_.start([job = analysisJob()](const auto&) { return job(); });
}

void TuningPanel::refreshAnalysis() {
  analysis_job_.discard();  // its result is older than this one
  again_ = false;
  applyAnalysis(analysisJob()());
}

void TuningPanel::applyAnalysis(AnalysisResult r) {
  has_loop_ = r.has_loop;
  gains_ = std::move(r.gains);
  analysis_ = std::move(r.analysis);
  q_ = std::move(r.q);
  loop_box_->setVisible(has_loop_);
  drawAnalysis(r.description);
  emit analysisUpdated();
}

void TuningPanel::pollAnalysis() {
  if (!analysis_job_.finished()) return;
  applyAnalysis(analysis_job_.take());
  if (again_) {
    again_ = false;
    startAnalysis();
  }
}

void TuningPanel::drawAnalysis(const QString& description) {
  poles_plot_->clearGraphs();
  poles_plot_->clearItems();
  bode_plot_->clearGraphs();
  if (!has_loop_) {
    loop_title_->setText(description);
    pole_list_->clear();
    poles_plot_->replot();
    bode_plot_->replot();
    return;
  }
  const core::ClosedLoopAnalysis& a = analysis_;
  // The least damped of the moving poles (a zero pole: a free direction, not a mode).
  int least = -1;
  for (std::size_t k = 0; k < a.poles.size(); ++k) {
    if (a.frequency[k] < 1e-9) continue;
    if (least < 0 || a.damping[k] < a.damping[static_cast<std::size_t>(least)]) least = static_cast<int>(k);
  }
  QVector<double> re, im;
  for (const auto& p : a.poles) {
    re << p.real();
    im << p.imag();
  }
  QCPGraph* all = poles_plot_->addGraph();
  all->setLineStyle(QCPGraph::lsNone);
  all->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(31, 119, 180), 8));
  all->setData(re, im, false);
  double radius = 1e-3;
  for (std::size_t k = 0; k < a.poles.size(); ++k) radius = std::max(radius, a.frequency[k]);
  if (least >= 0) {
    const auto p = a.poles[static_cast<std::size_t>(least)];
    QCPGraph* worst = poles_plot_->addGraph();
    worst->setLineStyle(QCPGraph::lsNone);
    worst->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(214, 39, 40), 2), Qt::NoBrush, 12));
    worst->setData({p.real(), p.real()}, {p.imag(), -p.imag()}, false);
    // The rays of that damping ratio.
    const double z = std::clamp(a.damping[static_cast<std::size_t>(least)], -1.0, 1.0);
    for (double sign : {1.0, -1.0}) {
      auto* ray = new QCPItemLine(poles_plot_);
      ray->start->setCoords(0, 0);
      ray->end->setCoords(-z * radius * 1.2, sign * std::sqrt(1 - z * z) * radius * 1.2);
      ray->setPen(QPen(QColor(214, 39, 40, 120), 1, Qt::DashLine));
    }
  }
  auto* imag_axis = new QCPItemStraightLine(poles_plot_);
  imag_axis->point1->setCoords(0, 0);
  imag_axis->point2->setCoords(0, 1);
  imag_axis->setPen(QPen(QColor(150, 150, 150), 1));
  poles_plot_->xAxis->setRange(-1.1 * radius, std::max(0.1 * radius, 1.1 * radius * (a.stable ? 0.1 : 1.0)));
  poles_plot_->yAxis->setRange(-1.1 * radius, 1.1 * radius);
  poles_plot_->replot();

  // The list: one line per pole of non-negative imaginary part.
  QString list = tr("<table cellspacing=0 cellpadding=1><tr><th align=right>ω [rad/s]</th><th align=right>ζ</th></tr>");
  int free = 0;
  for (std::size_t k = 0; k < a.poles.size(); ++k) {
    if (a.frequency[k] < 1e-9) {
      ++free;
      continue;
    }
    if (a.poles[k].imag() < -1e-12) continue;
    const bool worst = static_cast<int>(k) == least ||
                       (least >= 0 && std::abs(a.poles[k] - std::conj(a.poles[static_cast<std::size_t>(least)])) < 1e-12);
    const QString style = worst ? " style='color:#d62728;font-weight:bold'" : "";
    list += QString("<tr%1><td align=right>%2</td><td align=right>%3</td></tr>")
                .arg(style)
                .arg(a.frequency[k], 0, 'g', 4)
                .arg(a.damping[k], 0, 'f', 3);
  }
  list += "</table>";
  if (free > 0) list += tr("%1 poles at 0 (free directions)").arg(free);
  pole_list_->setText(list);

  // The sensitivity of each channel, and the templates' bounds 1/|W|.
  const core::Model& m = window_->loaded().model;
  QVector<double> w(static_cast<int>(a.omega.size()));
  for (std::size_t k = 0; k < a.omega.size(); ++k) w[int(k)] = a.omega[k];
  for (Eigen::Index i = 0; i < a.sensitivity.rows(); ++i) {
    const int v = gains_.actuated[static_cast<std::size_t>(i)];
    QString name;
    if (m.base_mode != core::BaseMode::kFixed && v < 6) {
      name = QString("bus %1").arg(QStringList{"x", "y", "z", "θx", "θy", "θz"}[v]);
    } else {
      for (int b = 1; b < m.nbodies; ++b) {
        if (m.joint[b].nv == 1 && m.joint[b].idx_v == v) name = QString::fromStdString(m.joint[b].name);
      }
    }
    QVector<double> y(w.size());
    for (int k = 0; k < w.size(); ++k) y[k] = std::max(a.sensitivity(i, k), 1e-12);
    QCPGraph* g = bode_plot_->addGraph();
    g->setName(name);
    g->setPen(QPen(kColors[i % std::size(kColors)], 1.2));
    g->setData(w, y, true);
  }
  std::vector<double> templates;
  for (Eigen::Index i = 0; i < a.bound.rows(); ++i) {
    const double wt = gains_.template_omega[static_cast<std::size_t>(i)];
    if (std::find(templates.begin(), templates.end(), wt) != templates.end()) continue;
    templates.push_back(wt);
    QVector<double> y(w.size());
    for (int k = 0; k < w.size(); ++k) y[k] = a.bound(i, k);
    QCPGraph* g = bode_plot_->addGraph();
    g->setName(tr("1/|W| (ω = %1 rad/s)").arg(wt));
    g->setPen(QPen(Qt::black, 1.6, templates.size() == 1 ? Qt::DashLine : Qt::DashDotLine));
    g->setData(w, y, true);
  }
  bode_plot_->rescaleAxes();
  bode_plot_->replot();

  QString summary = description;
  summary += tr("; %1 poles, %2").arg(a.poles.size()).arg(a.stable ? tr("stable") : tr("<b>unstable</b>"));
  if (least >= 0) {
    summary += tr("; least damped ζ = %1 at %2 rad/s")
                   .arg(a.damping[static_cast<std::size_t>(least)], 0, 'f', 3)
                   .arg(a.frequency[static_cast<std::size_t>(least)], 0, 'g', 3);
  }
  summary += tr("; <b>γ_hard = %1</b> (≤ 1: the thesis' templates W(s) met)").arg(a.gamma_hard, 0, 'g', 3);
  loop_title_->setText(summary);
}

}  // namespace grapple::ui
