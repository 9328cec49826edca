#include "ui/manipulability_panel.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/sim/channels.hpp"
#include "ui/on_screen.hpp"

namespace grapple::ui {

ManipulabilityPanel::ManipulabilityPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  joint_a_ = new QComboBox(this);
  joint_b_ = new QComboBox(this);
  jacobian_ = new QComboBox(this);
  jacobian_->addItem(tr("fixed base J_m"));
  jacobian_->addItem(tr("free-floating J*"));
  space_ = new QComboBox(this);
  space_->addItem(tr("joint space"));
  space_->addItem(tr("arm plane"));
  space_->setToolTip(tr("Over the two joints, or over the plane they move the hand in (blank: out of reach)"));
  row->addWidget(space_);
  row->addWidget(new QLabel(tr("x"), this));
  row->addWidget(joint_a_);
  row->addWidget(new QLabel(tr("y"), this));
  row->addWidget(joint_b_);
  row->addWidget(jacobian_);
  row->addStretch();
  layout->addLayout(row);
  plot_ = new QCustomPlot(this);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  color_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  auto* scale = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale);
  scale->setType(QCPAxis::atRight);
  scale->axis()->setLabel(tr("w = sqrt(det J Jᵀ)"));
  color_->setColorScale(scale);
  QCPColorGradient gradient(QCPColorGradient::gpThermal);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);  // out of reach: the background
  color_->setGradient(gradient);
  color_->setInterpolate(false);
  actual_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
  actual_->setPen(QPen(QColor(255, 140, 40), 2));
  actual_->setName(tr("path"));
  planned_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
  planned_->setPen(QPen(QColor(120, 255, 120), 1.5, Qt::DashLine));
  planned_->setName(tr("planned"));
  box_rect_ = new QCPItemRect(plot_);
  box_rect_->setPen(QPen(QColor(80, 220, 255), 2, Qt::DashLine));
  box_rect_->setBrush(Qt::NoBrush);
  box_rect_->setVisible(false);
  box_curve_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
  box_curve_->setPen(QPen(QColor(80, 220, 255), 2, Qt::DashLine));
  box_curve_->setName(tr("certified box"));
  outside_ = plot_->addGraph();
  outside_->setName(tr("outside the certified box"));
  outside_->setLineStyle(QCPGraph::lsNone);
  outside_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(QColor(230, 30, 30)), QBrush(QColor(230, 30, 30)), 4));
  marker_ = plot_->addGraph();
  marker_->setLineStyle(QCPGraph::lsNone);
  marker_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(Qt::cyan, 2), Qt::NoBrush, 12));
  plot_->xAxis->setLabel(tr("joint [rad]"));
  plot_->yAxis->setLabel(tr("joint [rad]"));
  layout->addWidget(plot_, 1);
  box_note_ = new QLabel(this);
  box_note_->setObjectName("manipulabilityBoxNote");
  box_note_->setWordWrap(true);
  box_note_->setVisible(false);
  layout->addWidget(box_note_);
  poll_ = new QTimer(this);
  poll_->setInterval(50);
  connect(poll_, &QTimer::timeout, this, &ManipulabilityPanel::poll);
  auto restart = [this] {
    shown_ = false;
    dirty_ = true;
    if (!pending_.valid() && onScreen(this)) startMap();
  };
  connect(joint_a_, &QComboBox::currentIndexChanged, this, restart);
  connect(joint_b_, &QComboBox::currentIndexChanged, this, restart);
  connect(jacobian_, &QComboBox::currentIndexChanged, this, restart);
  connect(joint_a_, &QComboBox::currentIndexChanged, this, [this] { drawBox(); });
  connect(joint_b_, &QComboBox::currentIndexChanged, this, [this] { drawBox(); });
  connect(space_, &QComboBox::currentIndexChanged, this, [this, restart] {
    actual_->data()->clear();
    planned_->data()->clear();
    outside_->data()->clear();
    drawBox();
    restart();
    setConfiguration(q_);
    emit spaceChanged();
  });
}

ManipulabilityPanel::~ManipulabilityPanel() {
  if (pending_.valid()) pending_.wait();
}

void ManipulabilityPanel::setModel(const core::Model& model, int ee_frame) {
  if (pending_.valid()) pending_.wait();
  pending_ = {};
  model_ = std::make_shared<const core::Model>(model);
  ee_frame_ = ee_frame;
  shown_ = false;
  joint_v_.clear();
  joint_q_.clear();
  for (int b = 1; b < model.nbodies; ++b) {
    if (model.joint[b].nv == 1 && model.joint[b].nq == 1) {
      joint_v_.push_back(model.joint[b].idx_v);
      joint_q_.push_back(model.joint[b].idx_q);
    }
  }
  q_ = Eigen::VectorXd();
  const QSignalBlocker ba(joint_a_), bb(joint_b_), bj(jacobian_);
  fillJointChoices();
  jacobian_->setCurrentIndex(model.base_mode == core::BaseMode::kFloating ? 1 : 0);
  jacobian_->setEnabled(model.base_mode == core::BaseMode::kFloating);
  color_->data()->clear();
  marker_->data()->clear();
  setCertifiedBox({});  // it held for the previous model
  plot_->replot();
}

void ManipulabilityPanel::setCertifiedBox(const std::vector<core::JointRange>& box) {
  box_ = box;
  leaves_at_ = NAN;
  outside_->data()->clear();
  drawBox();
  box_note_->setVisible(!box_.empty());
  box_note_->setText(boxNote());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

// The rectangle of the two joints shown (joint space, both in the box).
void ManipulabilityPanel::drawBox() {
  const core::JointRange *a = nullptr, *b = nullptr;
  if (model_) {
    for (const core::JointRange& r : box_) {
      if (model_->joint[r.body].idx_v == jointA()) a = &r;
      if (model_->joint[r.body].idx_v == jointB()) b = &r;
    }
  }
  const bool shown = a && b && space() == Space::kJoints;
  box_rect_->setVisible(shown);
  if (shown) {
    box_rect_->topLeft->setCoords(a->lower, b->upper);
    box_rect_->bottomRight->setCoords(a->upper, b->lower);
  }
  // In the arm plane: the hand along the rectangle's four edges (core::frameAlongJointBox).
  box_curve_->data()->clear();
  if (a && b && space() == Space::kArmPlane && q_.size() == model_->nq) {
    QVector<double> t, x, y;
    for (const core::Vector3& p : core::frameAlongJointBox(*model_, q_, ee_frame_, model_->joint[a->body].idx_q, a->lower,
                                                           a->upper, model_->joint[b->body].idx_q, b->lower, b->upper, 50)) {
      const Eigen::Vector2d st = toPlane(p);
      t.push_back(t.size());
      x.push_back(st.x());
      y.push_back(st.y());
    }
    box_curve_->setData(t, x, y, true);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<Eigen::Vector2d> ManipulabilityPanel::boxOutline() const {
  std::vector<Eigen::Vector2d> out;
  for (auto it = box_curve_->data()->constBegin(); it != box_curve_->data()->constEnd(); ++it) out.emplace_back(it->key, it->value);
  return out;
}

int ManipulabilityPanel::pointsOutsideBox() const { return outside_->data()->size(); }

QString ManipulabilityPanel::boxNote() const {
  if (box_.empty()) return {};
  if (std::isnan(leaves_at_)) return tr("Dashed: the joint box (about the centre of the joint limits) the μ-analysis guarantees stable. The run stays inside it.");
  return tr("Dashed: the joint box (about the centre of the joint limits) the μ-analysis guarantees stable. Red: the run outside it, from t = %1 s: "
            "stability there is not guaranteed by the analysis.")
      .arg(leaves_at_, 0, 'f', 2);
}

void ManipulabilityPanel::fillJointChoices() {
  joint_a_->clear();
  joint_b_->clear();
  for (std::size_t k = 0; k < joint_v_.size(); ++k) {
    QString name;
    for (int b = 1; b < model_->nbodies; ++b) {
      if (model_->joint[b].idx_v == joint_v_[k] && model_->joint[b].nv == 1) name = QString::fromStdString(model_->joint[b].name);
    }
    joint_a_->addItem(name);
    joint_b_->addItem(name);
  }
  // The thesis maps θ2, θ3 (the manipulability hardly depends on θ1, the base's symmetry).
  const int n = joint_a_->count();
  joint_a_->setCurrentIndex(n >= 3 ? 1 : 0);
  joint_b_->setCurrentIndex(n >= 3 ? 2 : std::min(1, n - 1));
}

int ManipulabilityPanel::jointA() const {
  const int k = joint_a_->currentIndex();
  return k >= 0 && k < static_cast<int>(joint_v_.size()) ? joint_v_[k] : -1;
}
int ManipulabilityPanel::jointB() const {
  const int k = joint_b_->currentIndex();
  return k >= 0 && k < static_cast<int>(joint_v_.size()) ? joint_v_[k] : -1;
}

core::ManipulabilityOptions ManipulabilityPanel::options() const {
  core::ManipulabilityOptions o;
  o.frame = ee_frame_;
  o.jacobian = jacobian_->currentIndex() == 1 ? core::ManipulabilityJacobian::kGeneralized
                                              : core::ManipulabilityJacobian::kFixedBase;
  o.task = core::ManipulabilityTask::kPosition;
  return o;
}

void ManipulabilityPanel::setConfiguration(const Eigen::VectorXd& q) {
  if (!model_ || q.size() != model_->nq) return;
  q_ = q;
  for (const core::FlexibleBody& f : model_->flex) {
    if (f.nf > 0) q_.segment(f.idx_q, f.nf).setZero();  // the rigid-equivalent arm
  }
  const int a = joint_a_->currentIndex(), b = joint_b_->currentIndex();
  if (a >= 0 && b >= 0) {
    if (space() == Space::kJoints) {
      marker_xy_ = {q_[joint_q_[a]], q_[joint_q_[b]]};
    } else {
      updatePlaneNow();
      marker_xy_ = toPlane(hand_now_);
    }
    marker_->data()->clear();
    marker_->addData(marker_xy_.x(), marker_xy_.y());
    if (!box_.empty() && space() == Space::kArmPlane) drawBox();  // the plane moved with the arm
  }
  // Recompute when another joint moved by more than 0.02 rad since the map's configuration.
  if (map_q_.size() == q_.size()) {
    for (std::size_t k = 0; k < joint_q_.size(); ++k) {
      if (static_cast<int>(k) == a || static_cast<int>(k) == b) continue;
      if (std::abs(q_[joint_q_[k]] - map_q_[joint_q_[k]]) > 0.02) dirty_ = true;
    }
  } else {
    dirty_ = true;
  }
  // Maps are computed only for a panel on screen (both cores for a moment), at most once a second
  // while the arm moves (the poll timer starts the next one); a hidden panel waits.
  if (dirty_ && !pending_.valid() && onScreen(this)) {
    if (std::chrono::steady_clock::now() - last_start_ >= std::chrono::seconds(1)) startMap();
    else poll_->start();
  }
  if (onScreen(this)) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ManipulabilityPanel::startMap() {
  if (!model_ || q_.size() != model_->nq || ee_frame_ < 0) return;
  const int a = jointA(), b = jointB();
  if (a < 0 || b < 0 || a == b) return;
  dirty_ = false;
  last_start_ = std::chrono::steady_clock::now();
  map_q_ = q_;
  auto lim = [&](int v, bool upper) {
    int qi = -1;
    for (std::size_t k = 0; k < joint_v_.size(); ++k) {
      if (joint_v_[k] == v) qi = joint_q_[k];
    }
    const double x = upper ? model_->upper_position_limit[qi] : model_->lower_position_limit[qi];
    return std::isfinite(x) ? x : (upper ? M_PI : -M_PI);
  };
  const double a0 = lim(a, false), a1 = lim(a, true), b0 = lim(b, false), b1 = lim(b, true);
  if (space() == Space::kJoints) {
    pending_ = std::async(std::launch::async, [model = model_, q = q_, o = options(), a, b, a0, a1, b0, b1] {
      return core::jointManipulabilityMap(*model, q, o, a, a0, a1, kGrid, b, b0, b1, kGrid, 2);
    });
  } else {
    core::ArmPlane plane;
    try {
      plane = core::armPlane(*model_, q_, options(), a, b);
    } catch (const std::exception&) {
      return;  // not two revolute joints: no plane
    }
    // The plane in the frame of joint a's parent body, which carries it as the arm moves.
    carried_ = core::carryArmPlane(*model_, q_, plane, a);
    plane_now_ = plane;
    const double r = 1.05 * plane.reach;
    pending_ = std::async(std::launch::async, [model = model_, q = q_, o = options(), a, b, plane, r] {
      return core::planeManipulabilityMap(*model, q, o, a, b, plane.origin, plane.u, plane.v, -r, r, kGrid, -r, r,
                                          kGrid, 2);
    });
  }
  poll_->start();
}

void ManipulabilityPanel::poll() {
  if (!pending_.valid()) {
    if (dirty_ && onScreen(this) && std::chrono::steady_clock::now() - last_start_ >= std::chrono::seconds(1)) startMap();
    if (!pending_.valid() && (!dirty_ || !onScreen(this))) poll_->stop();  // resume() starts it again
    return;
  }
  if (pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  try {
    showMap(pending_.get());
  } catch (const std::exception&) {
    shown_ = false;  // (a configuration the analysis refuses: nothing drawn)
  }
  pending_ = {};
  if (!dirty_) poll_->stop();  // else the next map starts a second after this one did
}

void ManipulabilityPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  resume();
}

void ManipulabilityPanel::resume() {
  if (dirty_ && !pending_.valid()) startMap();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ManipulabilityPanel::finishPending() {
  if (dirty_ && !pending_.valid()) startMap();
  while (pending_.valid()) {
    pending_.wait();
    poll();
  }
}

void ManipulabilityPanel::showMap(core::ManipulabilityMap map) {
  shown_map_ = std::move(map);
  shown_ = true;
  const auto& m = shown_map_;
  const int na = static_cast<int>(m.a_values.size()), nb = static_cast<int>(m.b_values.size());
  color_->data()->setSize(na, nb);
  color_->data()->setRange(QCPRange(m.a_values.front(), m.a_values.back()), QCPRange(m.b_values.front(), m.b_values.back()));
  for (int i = 0; i < na; ++i) {
    for (int j = 0; j < nb; ++j) color_->data()->setCell(i, j, m.yoshikawa(i, j));
  }
  color_->rescaleDataRange(true);
  if (space() == Space::kJoints) {
    plot_->xAxis->setLabel(joint_a_->currentText() + tr(" [rad]"));
    plot_->yAxis->setLabel(joint_b_->currentText() + tr(" [rad]"));
  } else {
    plot_->xAxis->setLabel(tr("s [m] (in the arm plane, from %1's axis)").arg(joint_a_->currentText()));
    plot_->yAxis->setLabel(tr("t [m]"));
  }
  plot_->xAxis->setRange(m.a_values.front(), m.a_values.back());
  plot_->yAxis->setRange(m.b_values.front(), m.b_values.back());
  plot_->replot();
}

ManipulabilityPanel::Space ManipulabilityPanel::space() const {
  return space_->currentIndex() == 1 ? Space::kArmPlane : Space::kJoints;
}

void ManipulabilityPanel::setSpace(Space space) { space_->setCurrentIndex(space == Space::kArmPlane ? 1 : 0); }

int ManipulabilityPanel::pathPoints(bool planned) const {
  return (planned ? planned_ : actual_)->data()->size();
}

// The plane and the hand at the configuration shown.
void ManipulabilityPanel::updatePlaneNow() {
  if (!model_ || q_.size() != model_->nq || ee_frame_ < 0) return;
  plane_now_ = core::armPlaneAt(*model_, q_, carried_, ee_frame_, &hand_now_);
}

Eigen::Vector2d ManipulabilityPanel::toPlane(const core::Vector3& x) const {
  return {(x - plane_now_.origin).dot(plane_now_.u), (x - plane_now_.origin).dot(plane_now_.v)};
}

void ManipulabilityPanel::setPaths(const RunHistory& history, int row, const std::vector<core::Vector3>& hand_actual,
                                   const std::vector<core::Vector3>& hand_planned) {
  if (!onScreen(this) || !model_) return;
  QVector<double> x, y;
  // At most ~4000 points a curve (every k-th, the last kept): the map is 80 cells wide.
  constexpr int kMaxPoints = 4000;
  auto fill = [&](QCPCurve* curve) {
    if (x.size() > kMaxPoints) {
      const int k = (int(x.size()) + kMaxPoints - 1) / kMaxPoints;
      int n = 0;
      for (int i = 0; i < x.size(); i += k, ++n) x[n] = x[i], y[n] = y[i];
      x[n] = x.back(), y[n] = y.back();
      x.resize(n + 1);
      y.resize(n + 1);
    }
    curve->setData(x, y);
    x.clear();
    y.clear();
  };
  if (space() == Space::kArmPlane) {
    for (const core::Vector3& p : hand_actual) {
      const Eigen::Vector2d st = toPlane(p);
      x.push_back(st.x());
      y.push_back(st.y());
    }
    fill(actual_);
    for (const core::Vector3& p : hand_planned) {
      const Eigen::Vector2d st = toPlane(p);
      x.push_back(st.x());
      y.push_back(st.y());
    }
    fill(planned_);
  } else {
    const std::string na = joint_a_->currentText().toStdString(), nb = joint_b_->currentText().toStdString();
    const int n = std::min(row + 1, history.rows());
    namespace ch = core::channel;
    for (ch::Name kind : {ch::kPosition, ch::kReference}) {  // (the combos list one-coordinate joints)
      const int ca = history.find(ch::joint(na, 0, 1, kind)), cb = history.find(ch::joint(nb, 0, 1, kind));
      if (ca >= 0 && cb >= 0) {
        for (int k = 0; k < n; ++k) {
          const double va = history.columns[ca][k], vb = history.columns[cb][k];
          if (std::isnan(va) || std::isnan(vb)) continue;
          x.push_back(va);
          y.push_back(vb);
        }
      }
      fill(kind == ch::kPosition ? actual_ : planned_);
    }
  }
  // The run's points outside the certified box: any of the box's joints out of its range.
  outside_->data()->clear();
  leaves_at_ = NAN;
  if (!box_.empty()) {
    std::vector<int> cols;
    namespace ch = core::channel;
    for (const core::JointRange& r : box_) {
      const core::Joint& j = model_->joint[r.body];
      cols.push_back(history.find(ch::joint(j.name, 0, j.nv, ch::kPosition)));
    }
    const std::string na = joint_a_->currentText().toStdString(), nb = joint_b_->currentText().toStdString();
    const int ca = history.find(ch::joint(na, 0, 1, ch::kPosition)), cb = history.find(ch::joint(nb, 0, 1, ch::kPosition));
    const int n = std::min(row + 1, history.rows());
    QVector<double> ox, oy;
    for (int k = 0; k < n; ++k) {
      bool out = false;
      for (std::size_t j = 0; j < box_.size() && !out; ++j) {
        if (cols[j] < 0) continue;
        const double x = history.columns[cols[j]][k];
        out = x < box_[j].lower || x > box_[j].upper;
      }
      if (!out) continue;
      if (std::isnan(leaves_at_)) leaves_at_ = history.columns[0][k];
      if (space() == Space::kArmPlane) {
        if (k >= static_cast<int>(hand_actual.size())) continue;
        const Eigen::Vector2d st = toPlane(hand_actual[static_cast<std::size_t>(k)]);
        ox.push_back(st.x());
        oy.push_back(st.y());
      } else if (ca >= 0 && cb >= 0) {
        ox.push_back(history.columns[ca][k]);
        oy.push_back(history.columns[cb][k]);
      }
    }
    outside_->setData(ox, oy, true);
  }
  box_note_->setText(boxNote());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace grapple::ui
