#include "core/planning/riding_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/control/task_space.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {

namespace {

// Two unit vectors perpendicular to the axis, as rows: the pointing task's projection (the
// same as task_space's pointingTask, so that the rows are the capture law's).
Eigen::Matrix<double, 2, 3> perpendicular(const Vector3& axis) {
  Eigen::Matrix<double, 2, 3> P;
  const Vector3 u1 = axis.unitOrthogonal();
  P.row(0) = u1.transpose();
  P.row(1) = axis.cross(u1).transpose();
  return P;
}

// min over λ in [lo, hi] of max_i |a_i + c_i λ|: convex and piecewise linear in λ, so its minimum
// lies at an end of the interval or where two of the lines ±(a_i + c_i λ) cross; all are tried.
double leastPeak(const Vector3& a, const Vector3& c, double lo, double hi, double& arg) {
  auto peak = [&](double l) { return (a + c * l).cwiseAbs().maxCoeff(); };
  auto clampTo = [&](double l) { return std::min(std::max(l, lo), hi); };
  double best = INFINITY;
  auto tryAt = [&](double l) {
    if (!std::isfinite(l)) return;
    l = clampTo(l);
    if (const double p = peak(l); p < best) {
      best = p;
      arg = l;
    }
  };
  tryAt(0);
  tryAt(lo);
  tryAt(hi);
  for (int i = 0; i < 3; ++i) {
    if (c[i] != 0) tryAt(-a[i] / c[i]);
    for (int k = i + 1; k < 3; ++k) {
      for (double s : {1.0, -1.0}) {
        if (c[i] - s * c[k] != 0) tryAt(-(a[i] - s * a[k]) / (c[i] - s * c[k]));
      }
    }
  }
  return best;
}

}  // namespace

GraspRider::GraspRider(const Model& m, const FeasibilityOptions& options, bool align, const DebrisProperties& debris,
                       const DebrisState& debris_now, const Eigen::VectorXd& q, const Eigen::VectorXd& v, int ee_frame,
                       double debris_step)
    : model_(m), options_(options), align_(align), ee_frame_(ee_frame), debris_(debris, debris_now, debris_step) {
  if (!m.hasFreeBase()) throw std::invalid_argument("riding bound: the chaser's base must be free");
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) {
      joints_.push_back(m.joint[b].idx_v);
      joints_q_.push_back(m.joint[b].idx_q);
    }
  }
  free_ = {0, 1, 2};
  redundancy_ = static_cast<int>(joints_.size()) - (align ? 5 : 3);
  // The chaser holding its pose: modes at zero, joints at rest, the bus not turning.
  q_warm_ = q;
  Eigen::VectorXd v0 = Eigen::VectorXd::Zero(m.nv);
  v0.head<3>() = v.head<3>();
  rigidEquivalent(m, q_warm_, q_warm_);
  attitude_ = q.segment<4>(3).normalized();
  Data d(m, false);
  H_ = massMatrix(m, d, q_warm_);
  momentum_B_ = H_.topRows<3>() * v0;
  com0_ = centerOfMass(m, d, q_warm_);
  com_rate_ = quatToMatrix(attitude_) * momentum_B_ / m.totalMass();
  sample_.v = Eigen::VectorXd::Zero(m.nv);
  q_stand_ = q_entry_ = q_warm_;

  // The reach certificate's figures (see outOfReach), at the stand-off pose.
  std::vector<int> chain;  // the 1-DOF joints' bodies from the shoulder to the hand
  for (int b = m.frames.at(ee_frame).body; b > 0; b = m.parent[b]) {
    if (m.joint[b].nv == 1) chain.insert(chain.begin(), b);
  }
  reach_known_ = !chain.empty();
  for (int b : chain) reach_known_ = reach_known_ && m.joint[b].type == JointType::kRevolute;
  if (!reach_known_) return;
  forwardKinematics(m, d, q_warm_);
  const int shoulder = chain.front(), wrist = chain.back();
  for (std::size_t k = 1; k < chain.size(); ++k) reach_ += (d.X_world[chain[k]].p - d.X_world[chain[k - 1]].p).norm();
  const Transform X = framePose(m, d, ee_frame);
  wrist_T_ = X.R.transpose() * (d.X_world[wrist].p - X.p);
  // The arm: the shoulder's subtree; its bodies' centres of mass are within reach_ of the shoulder
  // plus their own offsets (from their joint's origin, or from the wrist beyond it).
  auto inSubtree = [&](int b, int root) {
    for (; b >= 0; b = b > 0 ? m.parent[b] : -1) {
      if (b == root) return true;
    }
    return false;
  };
  double arm_mass = 0, spread = 0;
  Vector3 rest_moment = Vector3::Zero();
  for (int b = 0; b < m.nbodies; ++b) {
    const Inertia& I = m.inertia[b];
    const Vector3 com = d.X_world[b].p + d.X_world[b].R * I.com();
    if (!inSubtree(b, shoulder)) {
      rest_moment += I.m * com;
      continue;
    }
    arm_mass += I.m;
    const int origin = inSubtree(b, wrist) ? wrist : b;
    spread = std::max(spread, (com - d.X_world[origin].p).norm());
  }
  // c = (Σ_rest m r + Σ_arm m r) / M: the shoulder s = c - M_rest u / M - Σ_arm m e / M with u the
  // rest's centre of mass from the shoulder (fixed: the bus does not turn), |e| <= reach + spread.
  const double M = m.totalMass();
  const double rest_mass = M - arm_mass;
  const Vector3 u = rest_mass > 0 ? Vector3(rest_moment / rest_mass - d.X_world[shoulder].p) : Vector3::Zero();
  shoulder_offset_ = -rest_mass * u / M;
  shoulder_slack_ = arm_mass * (reach_ + spread) / M;
}

bool GraspRider::outOfReach(const Vector3& target, const Vector3& axis, const Vector3& com) const {
  if (!reach_known_) return false;
  const Vector3 shoulder = com + shoulder_offset_;
  // The wrist: on the hand's axis at wrist_T_.z() and within its radial offset of it when the axis
  // is given; anywhere within |wrist_T_| of the hand otherwise.
  const double radial = std::hypot(wrist_T_.x(), wrist_T_.y());
  const double far = align_ ? (target + wrist_T_.z() * axis - shoulder).norm() - radial
                            : (target - shoulder).norm() - wrist_T_.norm();
  return far - shoulder_slack_ > reach_;
}

void GraspRider::jacobians(Data& d, const Eigen::VectorXd& q) {
  // The generalized Jacobian with the bus' attitude held (its translation free): what the capture
  // law and the plan's prediction invert (feasibility.cpp).
  const Model& m = model_;
  H_ = massMatrix(m, d, q);
  const Eigen::LLT<Eigen::MatrixXd> llt(H_(free_, free_));
  react_ = llt.solve(H_(free_, joints_));
  forwardKinematics(m, d, q);
  const Eigen::MatrixXd& J = frameJacobian(m, d, ee_frame_);
  G_ = J(Eigen::all, joints_) - J(Eigen::all, free_) * react_;
  const Vector3 z = framePose(m, d, ee_frame_).R.col(2);
  A_.resize(align_ ? 5 : 3, G_.cols());
  A_.topRows<3>() = G_.topRows<3>();
  if (align_) A_.bottomRows<2>() = perpendicular(z) * G_.bottomRows<3>();
}

bool GraspRider::solvePose(Data& d, const Vector3& target, const Vector3& axis, const Vector3& com, int iterations) {
  // Newton on the hand's pose with the centre of mass placed each time (a shift of the bus moves
  // every body alike: its attitude is held), steps of at most 0.2 m and 0.2 rad; given up when
  // five steps gain less than a centimetre (a radian counting as a metre): out of reach.
  const Model& m = model_;
  Eigen::VectorXd q = q_warm_;
  q.segment<4>(3) = attitude_;
  double before = INFINITY;
  for (int it = 0; it < iterations; ++it) {
    q.head<3>() += com - centerOfMass(m, d, q);
    forwardKinematics(m, d, q);
    const Transform X = framePose(m, d, ee_frame_);
    const Vector3 ep = target - X.p;
    Vector3 ea = Vector3::Zero();
    double angle = 0;
    if (align_) {
      const Vector3 z = X.R.col(2), n = z.cross(axis);
      angle = std::atan2(n.norm(), z.dot(axis));
      if (n.norm() > 0) ea = angle * n.normalized();
    }
    if (ep.norm() < 1e-10 && angle < 1e-10) {
      q_warm_ = q;
      return true;
    }
    const double error = ep.norm() + angle;
    if (it % 5 == 0) {
      if (error > before - 0.01) return false;
      before = error;
    }
    jacobians(d, q);
    Eigen::VectorXd e(A_.rows());
    e.head<3>() = ep;
    if (align_) e.tail<2>() = perpendicular(X.R.col(2)) * ea;
    const double scale = std::min({1.0, 0.2 / std::max(ep.norm(), 1e-300), 0.2 / std::max(angle, 1e-300)});
    const Eigen::VectorXd dq = dampedPseudoInverse(A_, options_.damping, options_.singular_threshold) * (scale * e);
    if (!dq.allFinite()) break;
    for (std::size_t k = 0; k < joints_q_.size(); ++k) q[joints_q_[k]] += dq[static_cast<Eigen::Index>(k)];
  }
  return false;
}

const RidingSample& GraspRider::ride(Data& d, double t, bool search) {
  const Model& m = model_;
  RidingSample& s = sample_;
  // Predict the configuration from the previous instant (its rates), then solve.
  const bool warm = s.certified;
  if (warm) q_warm_ = integrate(m, q_warm_, s.v, t - s.time);
  s.time = t;
  s.certified = s.posed = false;
  s.torque = 0;
  s.roll_acceleration = 0;
  s.bus_torque.setZero();
  // The grasp point, the inward grasp axis g = -R a and its rates (torque-free Euler).
  const DebrisState ds = debris_.state(t);
  const PointKinematics k = debris_.target(t);
  const DebrisProperties& P = debris_.properties();
  const Matrix3 R = quatToMatrix(ds.Q_WB.normalized());
  const Vector3 w = R * ds.w_B, alpha = R * Vector3(P.inertia.inverse() * (-ds.w_B.cross(P.inertia * ds.w_B)));
  const Vector3 g = -(R * graspAxis(P)), gd = w.cross(g), gdd = alpha.cross(g) + w.cross(gd);
  const Vector3 com = com0_ + t * com_rate_;
  if (outOfReach(k.position, g, com)) {
    s.torque = INFINITY;
    return s;
  }
  if (!warm && !search) return s;
  // From the previous instant's pose a few steps do; after a stretch without, up to 200 from the
  // last pose ridden, from the first of the last stretch ridden (where the grasp point came into
  // reach a turn ago) and from the stand-off pose.
  bool solved = solvePose(d, k.position, g, com, warm ? 20 : 200);
  if (!solved && !warm) {
    for (const Eigen::VectorXd* seed : {&q_entry_, &q_stand_}) {
      const Eigen::VectorXd last = q_warm_;
      q_warm_ = *seed;
      if ((solved = solvePose(d, k.position, g, com, 200))) break;
      q_warm_ = last;
    }
  }
  if (!solved) return s;
  if (!warm) q_entry_ = q_warm_;
  s.posed = true;
  jacobians(d, q_warm_);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(A_, Eigen::ComputeFullU | Eigen::ComputeFullV);
  s.sigma = svd.singularValues().minCoeff();
  if (s.sigma < options_.singular_threshold) return s;  // the law damps there: no exact riding
  const Eigen::VectorXd inv = svd.singularValues().cwiseInverse();
  const auto rows = svd.singularValues().size();
  const Eigen::MatrixXd Apinv = svd.matrixV().leftCols(rows) * inv.asDiagonal() * svd.matrixU().transpose();
  const Eigen::Matrix<double, 2, 3> Pz = perpendicular(g);

  // Rates: the hand's velocity less the drift of the centre of mass (J_f H_ff⁻¹ p: the bus'
  // translation with the joints at rest) from the joints, minimum norm (the roll at rest).
  const Eigen::LLT<Eigen::MatrixXd> llt(H_(free_, free_));
  const Eigen::VectorXd u0 = llt.solve(momentum_B_);
  forwardKinematics(m, d, q_warm_);
  const Eigen::MatrixXd J = frameJacobian(m, d, ee_frame_);
  Eigen::VectorXd task(A_.rows());
  task.head<3>() = k.velocity - J(Eigen::seqN(0, 3), free_) * u0;
  if (align_) task.tail<2>() = Pz * g.cross(gd);
  const Eigen::VectorXd dqm = Apinv * task;
  Eigen::VectorXd& v = s.v;
  v.setZero(m.nv);
  v(joints_) = dqm;
  v(free_) = u0 - react_ * dqm;

  // Accelerations: with the joints not accelerating (the bus' translation reacting), the hand's
  // b; the joints' then give the rest. The axis stays on g when ω⊥ = g × ġ and
  // α⊥ = g × g̈ - (ω·g)(g × ω) (from g̈ = α × g + ω × (ω × g)).
  const Eigen::VectorXd h = nonlinearEffects(m, d, q_warm_, v);
  Eigen::VectorXd ddq = Eigen::VectorXd::Zero(m.nv);
  const Eigen::VectorXd ddq_free0 = llt.solve(-h(free_));
  ddq(free_) = ddq_free0;
  forwardKinematics(m, d, q_warm_, v, ddq);
  const Vector6 b = pointAccelerationWorld(m, d, ee_frame_);
  const Vector3 omega = pointVelocityWorld(m, d, ee_frame_).tail<3>();
  task.head<3>() = k.acceleration - b.head<3>();
  if (align_) task.tail<2>() = Pz * (g.cross(gdd) - omega.dot(g) * g.cross(omega) - b.tail<3>());
  const Eigen::VectorXd ddqm = Apinv * task;
  ddq(joints_) = ddqm;
  ddq(free_) = ddq_free0 - react_ * ddqm;
  const Eigen::VectorXd tau = H_ * ddq + h;
  s.q = q_warm_;
  s.ddq = ddq;
  s.bus_torque = tau.segment<3>(3);
  s.certified = true;
  s.torque = s.bus_torque.cwiseAbs().maxCoeff();
  if (redundancy_ == 1) {
    // The roll's acceleration λ along the null direction n adds e λ to the torques,
    // e = H_·j n - H_·f H_ff⁻¹ H_fj n; within the joints' torque limits (if they can be met at
    // all: otherwise unconstrained, which only lowers the bound), the least bus peak.
    const Eigen::VectorXd n = svd.matrixV().col(svd.matrixV().cols() - 1);
    const Eigen::VectorXd e = H_(Eigen::all, joints_) * n - H_(Eigen::all, free_) * (react_ * n);
    double lo = -INFINITY, hi = INFINITY;
    for (int j : joints_) {
      const double lim = m.effort_limit[j];
      if (!std::isfinite(lim)) continue;
      if (std::abs(e[j]) < 1e-12) {
        if (std::abs(tau[j]) > lim) lo = INFINITY;
        continue;
      }
      const double a = (-lim - tau[j]) / e[j], c = (lim - tau[j]) / e[j];
      lo = std::max(lo, std::min(a, c));
      hi = std::min(hi, std::max(a, c));
    }
    if (!(lo <= hi)) lo = -INFINITY, hi = INFINITY;
    s.torque = leastPeak(s.bus_torque, e.segment<3>(3), lo, hi, s.roll_acceleration);
  }
  return s;
}

void GraspRider::resume(const RidingSample& from) {
  sample_ = from;
  if (from.certified) q_warm_ = from.q;
}

std::string RidingBound::describe() const {
  char buf[480];
  const double n = std::max(samples, 1);
  char counts[160];
  std::snprintf(counts, sizeof counts, "ridden at %.0f %% of the instants, proven out of reach at %.0f %%, no pose found at %.0f %%",
                100 * ridden / n, 100 * out_of_reach / n, 100 * uncertified / n);
  if (!std::isfinite(torque)) {
    std::snprintf(buf, sizeof buf, "the arm holds the grasp point%s for %.3g s after none of the meetings in the %.0f s after "
                  "now (%s)", align ? " along the grasp axis" : "", hold, span, counts);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "riding the grasp point through the %.3g s hold%s asks the bus at least %.2f N m at every meeting in the "
                "%.0f s after now where the arm reaches it (limit %.2f N m; %s)",
                hold, align ? ", aligned with the grasp axis," : "", torque, span, limit, counts);
  return buf;
}

RidingBound ridingBusTorqueBound(const Model& m, Data& d, const FeasibilityOptions& o, bool align,
                                 const DebrisProperties& debris, const DebrisState& debris_now, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v, int ee_frame, double span, double step) {
  if (!(step > 0) || !(step < o.hold) || !(span >= 0) || !std::isfinite(span)) {
    throw std::invalid_argument("riding bound: expected 0 < step < hold and a finite span >= 0");
  }
  RidingBound b;
  b.span = span;
  b.hold = o.hold;
  b.limit = o.bus_torque_limit;
  b.align = align;
  GraspRider rider(m, o, align, debris, debris_now, q, v, ee_frame);
  if (rider.redundancy() > 1) return b;
  // Grid points up to the last hold's window (torque: +inf where the grasp point is out of reach); each hold [t_m, t_m + hold], t_m in (t_{k-1}, t_k],
  // contains [t_k, t_k + (window - 1) step].
  const int window = std::max(1, static_cast<int>(std::floor(o.hold / step + 1e-9)));
  const int last_start = static_cast<int>(std::ceil(span / step - 1e-9));
  std::vector<double> torque(static_cast<std::size_t>(last_start + window));
  std::vector<char> known(torque.size());
  std::vector<std::pair<std::size_t, RidingSample>> reentries;  // the first ridden after an unknown stretch
  // Forwards, the pose searched anew after a loss only every second (the backward pass below
  // finds the instants between).
  const auto every = static_cast<std::size_t>(std::max(1.0, std::round(1 / step)));
  std::size_t searched = 0;
  for (std::size_t k = 0; k < torque.size(); ++k) {
    const bool search = k == 0 || k >= searched + every;
    const RidingSample& s = rider.ride(d, static_cast<double>(k) * step, search);
    if (search) searched = k;
    torque[k] = s.torque;
    known[k] = s.certified || !std::isfinite(s.torque);
    if (s.certified && k > 0 && !known[k - 1]) reentries.emplace_back(k, s);
  }
  // The unknown stretches ridden backwards from their end (the forward solve lost the pose
  // near a singularity or could not find it coming into reach).
  for (const auto& [k_end, from] : reentries) {
    rider.resume(from);
    for (std::size_t k = k_end; k-- > 0 && !known[k];) {
      const RidingSample& s = rider.ride(d, static_cast<double>(k) * step);
      if (!s.certified) break;
      torque[k] = s.torque;
      known[k] = 1;
    }
  }
  // The instants still unknown exclude their holds like those proven out of reach (see the header).
  for (std::size_t k = 0; k < torque.size(); ++k) {
    if (known[k]) {
      ++(std::isfinite(torque[k]) ? b.ridden : b.out_of_reach);
      continue;
    }
    ++b.uncertified;
    torque[k] = INFINITY;
  }
  b.samples = static_cast<int>(torque.size());
  b.torque = INFINITY;
  b.meeting = 0;
  for (int k = 0; k <= last_start; ++k) {
    const double w = *std::max_element(torque.begin() + k, torque.begin() + k + window);
    if (w < b.torque) {
      b.torque = w;
      b.meeting = k * step;
    }
  }
  b.computed = true;
  return b;
}

}  // namespace grapple::core
