#include "render/recording.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/dynamics/kinematics.hpp"
#include "core/planning/feasibility.hpp"
#include "core/sim/channels.hpp"

namespace grapple::render {

Recording::Recording(const core::Simulation& sim, int expected_rows)
    : model_(&sim.model()),
      has_debris_(sim.scenario().debris.enabled),
      record_rate_(sim.scenario().run.record_rate),
      nq_(sim.model().nq),
      nv_(sim.model().nv),
      ee_frame_(core::endEffectorFrame(sim.model(), sim.scenario())),
      data_(sim.model(), sim.model().hasFlexibleBodies()) {
  const core::Recorder& r = sim.recorder();
  namespace ch = core::channel;
  c_com_ = r.find(ch::kCom[0]);
  c_p_ = r.find(ch::kLinearMomentum[0]);
  c_l_ = r.find(ch::kAngularMomentum[0]);
  c_ee_ = r.find(ch::kHandPosition[0]);
  c_plan_ = r.find(ch::kPlanPosition[0]);
  if (r.find(ch::kEstimatePosition[0]) >= 0 && r.find(ch::kEstimateAttitude[0]) >= 0 && r.find(ch::kEstimateCovariance[0]) >= 0) {
    c_est_ = r.find(ch::kEstimatePosition[0]);
    c_est_q_ = r.find(ch::kEstimateAttitude[0]);
    c_est_cov_ = r.find(ch::kEstimateCovariance[0]);
  }
  const core::Model& m = *model_;
  for (int i = 1; i < m.nbodies; ++i) {
    const core::Joint& j = m.joint[i];
    if (j.nq != j.nv) continue;  // spherical: no reference channel per coordinate
    for (int k = 0; k < j.nv; ++k) {
      const int c = r.find(ch::joint(j.name, k, j.nv, ch::kReference));
      if (c >= 0) reference_channels_.emplace_back(c, j.idx_q + k);
    }
  }
  const std::size_t n = static_cast<std::size_t>(std::max(0, expected_rows));
  time_.reserve(n);
  q_.reserve(n * nq_);
  v_.reserve(n * nv_);
  vectors_.reserve(n * 9);
  debris_.reserve(n);
  if (c_est_ >= 0) estimates_.reserve(n * kEstimateValues);
  if (c_ee_ >= 0) hand_.reserve(n);
}

void Recording::append(const core::Simulation& sim) {
  const core::Recorder& r = sim.recorder();
  const int row = r.rows() - 1;
  if (row < 0) return;
  time_.push_back(r.at(row, 0));
  for (int c : {c_com_, c_p_, c_l_}) {
    for (int k = 0; k < 3; ++k) vectors_.push_back(c < 0 ? 0.0 : r.at(row, c + k));
  }
  const Eigen::VectorXd& q = sim.q();
  const Eigen::VectorXd& v = sim.v();
  q_.insert(q_.end(), q.data(), q.data() + q.size());
  v_.insert(v_.end(), v.data(), v.data() + v.size());
  debris_.push_back(sim.debris());
  if (c_est_ >= 0) {
    for (auto [c, n] : {std::pair{c_est_, 3}, std::pair{c_est_q_, 4}, std::pair{c_est_cov_, 6}}) {
      for (int k = 0; k < n; ++k) estimates_.push_back(r.at(row, c + k));
    }
  }
  if (c_ee_ >= 0) hand_.emplace_back(r.at(row, c_ee_), r.at(row, c_ee_ + 1), r.at(row, c_ee_ + 2));
  addPlannedPoint(r, row, q);
  if (sim.plans() != plans_) {  // a new plan (after an abort, the next window's)
    plans_ = sim.plans();
    plan_ = sim.plannedHandPath();
    for (const auto& e : sim.events()) {
      if (e.kind == "plan") plan_start_ = e.time;
    }
    addPlan(sim);
  }
}

// The plan just made: its points on the recording's instants (where the plan.x channels will be
// recorded while the hand flies it), margins from its feasibility check.
void Recording::addPlan(const core::Simulation& sim) {
  PlanOverlay p;
  p.number = sim.plans();
  p.start = sim.planStart();
  p.meeting = sim.plannedCaptureTime();
  p.rendezvous = sim.plannedRendezvousTime();
  if (!(p.meeting >= p.start)) return;
  const double dt = 1 / record_rate_;
  long k0 = static_cast<long>(std::floor(p.start / dt + 1e-9)) + 1;  // the first recording instant after the start
  const long k1 = static_cast<long>(std::ceil(p.meeting / dt - 1e-9));  // ... and the first at or after the meeting
  const long stride = std::max(1L, (k1 - k0) / (kPlanPoints - 2) + 1);
  p.times.push_back(p.start);
  for (long k = k0; k < k1; k += stride) p.times.push_back(static_cast<double>(k) / record_rate_);
  p.times.push_back(p.meeting);
  const core::PlanCheck* check = sim.planCheck();
  p.path.reserve(p.times.size());
  p.margins.reserve(p.times.size());
  for (double t : p.times) {
    p.path.push_back(sim.plannedHandAt(t));
    double margin = PlanOverlay::kNaN;
    if (check != nullptr && !check->times.empty()) {
      const std::vector<double>& ct = check->times;
      const double tau = t - p.start;
      const auto it = std::upper_bound(ct.begin(), ct.end(), tau);
      if (it == ct.begin()) {
        margin = check->margins.front();
      } else if (it == ct.end()) {
        margin = check->margins.back();
      } else {
        const std::size_t j = static_cast<std::size_t>(it - ct.begin());
        const double w = (tau - ct[j - 1]) / (ct[j] - ct[j - 1]);
        margin = (1 - w) * check->margins[j - 1] + w * check->margins[j];
      }
    }
    p.margins.push_back(margin);
  }
  p.standoff = p.path.front();
  p.grasp = p.path.back();
  if (p.rendezvous < p.meeting - 1e-9) p.approach = sim.plannedHandAt(p.rendezvous);
  if (check != nullptr) {
    p.margin = check->margin;
    p.limiting = check->limiting;
  }
  overlays_.push_back(std::move(p));
}

const PlanOverlay* Recording::planAt(int row) const {
  if (time_.empty()) return nullptr;
  const double t = time_[std::clamp(row, 0, rows() - 1)];
  const PlanOverlay* p = nullptr;
  for (const PlanOverlay& o : overlays_) {
    if (o.start <= t + 1e-9) p = &o;
  }
  return p;
}

core::Transform Recording::basePose(int row) const {
  const core::Model& m = *model_;
  const double* q = q_.data() + std::size_t(row) * nq_;
  return m.X_parent_joint[0] * core::jointTransform(m.joint[0], q + m.joint[0].idx_q);
}

void Recording::basePoses(int row, double seconds, std::vector<core::Transform>& poses) const {
  poses.clear();
  if (time_.empty() || model_->joint[0].nv == 0) return;
  row = std::clamp(row, 0, rows() - 1);
  const int first = rowAt(time_[row] - seconds);
  const int stride = std::max(1, (row - first) / (kTrailPoints - 1) + 1);
  for (int r = row; r >= first; r -= stride) poses.push_back(basePose(r));  // from the row back
  std::reverse(poses.begin(), poses.end());
}

// The planned hand position at a recorded row: the capture plan's channels (plan.x, y, z) where
// recorded, else where the joint paths' references put the hand (the recorded base pose, the
// references for the driven joints, the others as recorded, no deformation).
void Recording::addPlannedPoint(const core::Recorder& r, int rec_row, const Eigen::VectorXd& q) {
  const int row = rows() - 1;
  if (c_plan_ >= 0) {
    const core::Vector3 p(r.at(rec_row, c_plan_), r.at(rec_row, c_plan_ + 1), r.at(rec_row, c_plan_ + 2));
    if (p.allFinite()) {
      planned_points_.push_back(p);
      planned_rows_.push_back(row);
      return;
    }
  }
  if (reference_channels_.empty() || ee_frame_ < 0) return;
  Eigen::VectorXd qr = q;
  bool driven = false;
  for (const auto& [c, iq] : reference_channels_) {
    const double ref = r.at(rec_row, c);
    if (std::isnan(ref)) continue;
    qr[iq] = ref;
    driven = true;
  }
  if (!driven) return;
  for (const core::FlexibleBody& fb : model_->flex) {
    if (fb.nf > 0) qr.segment(fb.idx_q, fb.nf).setZero();
  }
  core::forwardKinematics(*model_, data_, qr);
  planned_points_.push_back(core::framePose(*model_, data_, ee_frame_).p);
  planned_rows_.push_back(row);
}

Snapshot Recording::snapshot(int row) const {
  Snapshot s;
  if (time_.empty()) return s;
  row = std::clamp(row, 0, rows() - 1);
  s.row = row;
  s.time = time_[row];
  s.q = Eigen::Map<const Eigen::VectorXd>(q_.data() + std::size_t(row) * nq_, nq_);
  s.v = Eigen::Map<const Eigen::VectorXd>(v_.data() + std::size_t(row) * nv_, nv_);
  s.has_debris = has_debris_;
  s.debris = debris_[row];
  const double* w = vectors_.data() + std::size_t(row) * 9;
  s.com_W = core::Vector3(w[0], w[1], w[2]);
  s.P_W = core::Vector3(w[3], w[4], w[5]);
  s.L_W = core::Vector3(w[6], w[7], w[8]);
  if (c_est_ >= 0) {
    const double* e = estimates_.data() + std::size_t(row) * kEstimateValues;
    s.has_estimate = std::all_of(e, e + kEstimateValues, [](double x) { return std::isfinite(x); });
    if (s.has_estimate) {
      s.estimate_r_W = core::Vector3(e[0], e[1], e[2]);
      s.estimate_Q_WB = core::Vector4(e[3], e[4], e[5], e[6]);
      for (int k = 0; k < 6; ++k) {
        const auto [i, j] = core::channel::kEstimateCovarianceEntry[k];
        s.estimate_P_r(i, j) = s.estimate_P_r(j, i) = e[7 + k];
      }
    }
  }
  return s;
}

int Recording::rowAt(double t) const {
  const auto it = std::upper_bound(time_.begin(), time_.end(), t + 1e-9);
  return std::max(0, static_cast<int>(it - time_.begin()) - 1);
}

void Recording::pathsAt(int row, std::vector<core::Vector3>& actual, std::vector<core::Vector3>& planned) const {
  actual.clear();
  planned.clear();
  if (time_.empty()) return;
  row = std::clamp(row, 0, rows() - 1);
  const int n = std::min<int>(row + 1, static_cast<int>(hand_.size()));
  actual.assign(hand_.begin(), hand_.begin() + n);
  if (!plan_.empty() && time_[row] >= plan_start_ - 1e-9) {
    planned = plan_;
    return;
  }
  for (std::size_t k = 0; k < planned_rows_.size() && planned_rows_[k] <= row; ++k) {
    planned.push_back(planned_points_[k]);
  }
}

}  // namespace grapple::render
