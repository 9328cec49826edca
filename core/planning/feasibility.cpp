#include "core/planning/feasibility.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

#include <Eigen/Cholesky>

#include "core/control/task_space.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/geometry/collision.hpp"
#include "core/math/concurrency.hpp"
#include "core/math/indexing.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/path_shaping.hpp"
#include "core/planning/riding_bound.hpp"

namespace grapple::core {

namespace {

constexpr double kDeg = 180 / M_PI;

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// The bodies from the base's first child to the hand's body, in order.
std::vector<int> chainTo(const Model& m, int body) {
  std::vector<int> chain;
  for (int b = body; b > 0; b = m.parent[b]) chain.push_back(b);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// The arm's clearance from the debris' box (debris frame), outside the approach corridor: a
// cylinder on the grasp point's outward axis (from the centre of mass through the grasp point).
// obstacles: scratch (its capacity kept from call to call).
double clearanceFromDebris(const ChainCollision& arm, const Data& d, const Vector3& hand,
                           const FeasibilityOptions& o, const DebrisProperties& debris, const DebrisState& s,
                           std::vector<ConvexShape>& obstacles) {
  struct Corridor {
    Matrix3 R;
    Vector3 r_W, target_B, axis;
    const FeasibilityOptions& o;
    bool contains(const Vector3& p) const {
      const Vector3 rel = R.transpose() * (p - r_W) - target_B;
      const double along = rel.dot(axis);
      return along >= -o.link_radius && along <= o.corridor_length && (rel - along * axis).norm() <= o.corridor_radius;
    }
  };
  const Matrix3 R = quatToMatrix(s.Q_WB.normalized());
  const Vector3 axis = graspAxis(debris);
  const Corridor corridor{R, s.r_W, debris.target_B, axis, o};
  obstacles.assign(1, ConvexShape::box(0.5 * o.debris_size, {R, s.r_W}));
  // (a lambda holding one reference: std::function keeps it without allocating)
  return arm.clearance(d, hand, obstacles, 0, [&corridor](const Vector3& p) { return corridor.contains(p); });
}

// The worst (smallest) margin of one constraint, with the values that explain it (sentences
// are written once, at the end).
struct Tracker {
  const char* name;
  double margin = INFINITY, time = 0, value = 0, limit = 0;
  int index = -1;  // joint's v index
  void see(double m, double t, double val, double lim, int i = -1) {
    if (m < margin) {
      margin = m;
      time = t;
      value = val;
      limit = lim;
      index = i;
    }
  }
};

}  // namespace

FeasibilityOptions FeasibilityOptions::from(const ControllerSpec& spec, const ChaserSpec& chaser,
                                            const DebrisProperties& debris, const Vector3& debris_size) {
  FeasibilityOptions o;
  const ControllerSpec::Capture& c = spec.capture;
  o.hold = c.hold;
  o.torque_margin = c.window.torque_margin;
  o.clearance = c.window.clearance;
  o.link_radius = c.window.link_radius;
  o.corridor_radius = c.window.corridor_radius;
  o.corridor_length = c.window.corridor_length;
  o.kp = spec.kp;
  o.kd = spec.kd;
  o.posture_kp = c.posture_kp;
  o.posture_kd = c.posture_kd;
  o.damping = c.damping;
  o.singular_threshold = c.singular_threshold;
  const auto& ac = chaser.attitude_control;
  o.hold_bus = ac && ac->active() && ac->feedforward;
  o.bus_torque_limit = ac && ac->active() ? ac->torque_limit : INFINITY;
  if (ac) {
    o.attitude_kp = ac->kp;
    o.attitude_kd = ac->kd;
  }
  o.debris_size = debris_size.minCoeff() > 0 || debris.mass <= 0 ? debris_size : equivalentBox(debris.mass, debris.inertia, 0.2);
  return o;
}

const ConstraintMargin* PlanCheck::worst() const {
  const ConstraintMargin* w = nullptr;
  for (const ConstraintMargin& c : constraints) {
    if (!w || c.margin < w->margin) w = &c;
  }
  return w;
}

std::string PlanCheck::reason() const {
  const ConstraintMargin* w = worst();
  if (!w) return "no constraint checked";
  return w->name + ": " + w->detail;
}

double debrisClearance(const Model& m, Data& d, const FeasibilityOptions& o, const Eigen::VectorXd& q,
                       int ee_frame, const DebrisProperties& debris, const DebrisState& state) {
  if (o.debris_size.minCoeff() <= 0) return INFINITY;
  forwardKinematics(m, d, q);
  const ChainCollision arm(m, chainTo(m, m.frames[ee_frame].body), o.link_radius);
  std::vector<ConvexShape> obstacles;
  return clearanceFromDebris(arm, d, framePose(m, d, ee_frame).p, o, debris, state, obstacles);
}

DebrisClearanceMonitor::DebrisClearanceMonitor(const Model& m, const FeasibilityOptions& o, int ee_frame)
    : options_(o), ee_frame_(ee_frame), arm_(m, chainTo(m, m.frames.at(ee_frame).body), o.link_radius), obstacles_(1) {}

double DebrisClearanceMonitor::operator()(const Model& m, Data& d, const Eigen::VectorXd& q,
                                          const DebrisProperties& debris, const DebrisState& state) {
  if (options_.debris_size.minCoeff() <= 0) return INFINITY;
  forwardKinematics(m, d, q);
  return clearanceFromDebris(arm_, d, framePose(m, d, ee_frame_).p, options_, debris, state, obstacles_);
}

PlanCheck checkCapturePlan(const Model& m, Data& d, const FeasibilityOptions& o, const CapturePlan& plan,
                           const Eigen::VectorXd& q_start, const Eigen::VectorXd& v_start, int ee_frame,
                           PlanSeries* series) {
  if (!m.hasFreeBase()) throw std::invalid_argument("checkCapturePlan: the chaser's base must be free");
  if (!(o.step > 0)) throw std::invalid_argument("checkCapturePlan: the step must be > 0");
  // Coordinates: joints (1-DOF, their accelerations solved), modes (held at zero), the bus'
  // rotation (prescribed when held), the rest free (the bus' translation, its rotation if not held).
  std::vector<int> joints, prescribed, free;
  std::vector<int> joints_q;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) {
      joints.push_back(m.joint[b].idx_v);
      joints_q.push_back(m.joint[b].idx_q);
    }
  }
  std::vector<char> is_prescribed(m.nv, 0);
  for (int k : joints) is_prescribed[k] = 1;
  for (const FlexibleBody& f : m.flex) {
    for (int k = 0; k < f.nf; ++k) is_prescribed[f.idx_v + k] = 1;
  }
  if (o.hold_bus) is_prescribed[3] = is_prescribed[4] = is_prescribed[5] = 1;
  for (int k = 0; k < m.nv; ++k) (is_prescribed[k] ? prescribed : free).push_back(k);
  const auto nj = static_cast<Eigen::Index>(joints.size());

  Eigen::VectorXd q, v;
  rigidEquivalent(m, q_start, q);
  rigidEquivalent(m, v_start, v);
  Eigen::VectorXd posture(nj);
  for (Eigen::Index k = 0; k < nj; ++k) posture[k] = q[joints_q[k]];
  const Vector4 attitude0 = q.segment<4>(3).normalized();
  const std::vector<int> chain = chainTo(m, m.frames[ee_frame].body);
  const ChainCollision arm(m, chain, o.link_radius);
  std::vector<ConvexShape> obstacles;  // (scratch of clearanceFromDebris)
  // The bus' collision shapes, or its box about its centre of mass, and the links checked against
  // it: from the third on (the first two carry the shoulder, mounted on the bus).
  const Inertia& bus = m.inertia[0];
  const Vector3 bus_half = 0.5 * equivalentBox(bus.m, bus.inertiaAboutCom(), 0.2);
  const std::size_t bus_from = std::min<std::size_t>(2, chain.size());

  const double T = plan.captureTime() + o.hold;
  const int steps = std::max(1, static_cast<int>(std::ceil(T / o.step)));
  const double h = T / steps;
  Tracker joint_torque{"joint_torque"}, bus_torque{"bus_torque"}, singular{"singularity"}, limits{"joint_limit"},
      rates{"joint_rate"}, debris_clear{"debris_clearance"}, bus_clear{"bus_clearance"};
  bool diverged = false;
  PlanCheck out;
  out.times.reserve(steps + 1);
  if (series) {
    series->bus_torque.clear();
    series->geometric.clear();
    series->bus_torque.reserve(steps + 1);
    series->geometric.reserve(steps + 1);
  }
  out.margins.reserve(steps + 1);
  // The step's workspace, sized once: a window search predicts thousands of plans.
  const auto nf = static_cast<Eigen::Index>(free.size()), np = static_cast<Eigen::Index>(prescribed.size());
  const bool point = plan.aligns();
  const Eigen::Index rows = point ? 5 : 3;  // the hand's position, and its pointing when the plan aligns
  Eigen::VectorXd x(m.nv), ddq(m.nv), tau(m.nv);
  Eigen::MatrixXd J(6, m.nv), H_ff(nf, nf), H_fp(nf, np), react(nf, nj), J_f(6, nf), G(6, nj), A(rows, nj), Ainv(nj, rows);
  Eigen::VectorXd x_p(np), ddq_free0(nf), task(rows), qm(nj), vm(nj), pull(nj), ddqm(nj);
  Eigen::LLT<Eigen::MatrixXd> llt(nf);
  PseudoInverseWork pinv;
  for (int s = 0; s <= steps; ++s) {
    const double t = s * h;
    if (!q.allFinite() || !v.allFinite()) {
      diverged = true;
      singular.see(-INFINITY, t, NAN, o.singular_threshold);
      break;
    }
    const PointKinematics ref = plan.at(t);
    forwardKinematics(m, d, q, v);
    const Vector3 r = framePose(m, d, ee_frame).p;
    const Vector3 rd = pointVelocityWorld(m, d, ee_frame).head<3>();
    const Vector3 a_des = ref.acceleration + o.kd * (ref.velocity - rd) + o.kp * (ref.position - r);
    const Matrix3 R_hand = framePose(m, d, ee_frame).R;
    const Vector3 w_hand = pointVelocityWorld(m, d, ee_frame).tail<3>();
    J = frameJacobian(m, d, ee_frame);
    massMatrixAndBias(m, d, q, v);
    const Eigen::MatrixXd& H = d.H;
    const Eigen::VectorXd& hv = d.h;
    // Prescribed accelerations other than the joints': the bus' (held) and the modes' (zero).
    x.setZero();
    if (o.hold_bus) {
      const Vector4 Qe = quatMultiply(quatConjugate(attitude0), q.segment<4>(3));
      const Vector3 e = 2 * (Qe[0] < 0 ? -1.0 : 1.0) * Qe.tail<3>();
      x.segment<3>(3) = -o.attitude_kp * e - o.attitude_kd * v.segment<3>(3);
    }
    // Free coordinates: H_ff q̈_f = -h_f - H_fp x_p - H_fj q̈_j.
    pick(H, free, free, H_ff);
    llt.compute(H_ff);
    pick(H, free, joints, react);
    llt.solveInPlace(react);
    pick(H, free, prescribed, H_fp);
    pick(x, prescribed, x_p);
    pick(hv, free, ddq_free0);
    ddq_free0 = -ddq_free0;
    ddq_free0.noalias() -= H_fp * x_p;
    llt.solveInPlace(ddq_free0);
    ddq = x;
    place(ddq_free0, free, ddq);
    forwardKinematics(m, d, q, v, ddq);
    const Vector6 b = pointAccelerationWorld(m, d, ee_frame);
    // The generalized Jacobian's rows: the hand's position, and its pointing when the plan aligns.
    pickCols(J, joints, G);
    pickCols(J, free, J_f);
    G.noalias() -= J_f * react;
    A.topRows<3>() = G.topRows<3>();
    task.head<3>() = a_des - b.head<3>();
    if (point) {
      pointingTask(G.bottomRows<3>(), b.tail<3>(), R_hand.col(2), w_hand, plan.pointing(t), o.kp, o.kd, A.bottomRows<2>(),
                   task.tail<2>());
    }
    double sigma = 0;
    dampedPseudoInverse(A, o.damping, o.singular_threshold, pinv, Ainv, &sigma);
    for (Eigen::Index k = 0; k < nj; ++k) {
      qm[k] = q[joints_q[k]];
      vm[k] = v[joints[k]];
    }
    pull = -o.posture_kd * vm - o.posture_kp * (qm - posture);
    resolvedAcceleration(A, Ainv, task, pull, ddqm);
    place(ddqm, joints, ddq);
    ddq_free0.noalias() -= react * ddqm;
    place(ddq_free0, free, ddq);
    tau.noalias() = H * ddq;
    tau += hv;

    // Margins at this instant.
    double worst = INFINITY, geometric = INFINITY;
    auto see = [&](Tracker& tr, double margin, double value, double limit, int index = -1) {
      tr.see(margin, t, value, limit, index);
      worst = std::min(worst, margin);
      if (&tr != &joint_torque && &tr != &bus_torque) geometric = std::min(geometric, margin);
    };
    for (Eigen::Index k = 0; k < nj; ++k) {
      const int iv = joints[k];
      const double a = std::abs(tau[iv]);
      out.joint_torque = std::max(out.joint_torque, a);
      if (const double lim = m.effort_limit[iv]; std::isfinite(lim)) {
        see(joint_torque, 1 - a / (o.torque_margin * lim), a, lim, iv);
      }
      const double lo = m.lower_position_limit[joints_q[k]], hi = m.upper_position_limit[joints_q[k]];
      if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
        see(limits, std::min(qm[k] - lo, hi - qm[k]) / (hi - lo), qm[k], qm[k] - lo < hi - qm[k] ? lo : hi, iv);
      }
      if (const double vlim = m.velocity_limit[iv]; std::isfinite(vlim)) {
        see(rates, 1 - std::abs(vm[k]) / vlim, std::abs(vm[k]), vlim, iv);
      }
    }
    if (std::isfinite(o.bus_torque_limit)) {
      const double a = tau.segment<3>(3).cwiseAbs().maxCoeff();
      out.bus_torque = std::max(out.bus_torque, a);
      see(bus_torque, 1 - a / (o.torque_margin * o.bus_torque_limit), a, o.bus_torque_limit);
    }
    out.sigma_min = std::min(out.sigma_min, sigma);
    see(singular, sigma / o.singular_threshold - 1, sigma, o.singular_threshold);
    if (t >= plan.captureTime() - 1e-9) {
      const double c = std::clamp(R_hand.col(2).dot(plan.graspAxis(t)), -1.0, 1.0);
      out.axis_error_deg = std::max(out.axis_error_deg, std::acos(c) * kDeg);
    }
    // Clearances (forwardKinematics(q, v, ddq) above set the poses at q).
    const Vector3 hand = framePose(m, d, ee_frame).p;
    if (o.debris_size.minCoeff() > 0) {
      const double c = clearanceFromDebris(arm, d, hand, o, plan.debrisProperties(), plan.debris(t), obstacles);
      out.clearance = std::min(out.clearance, c);
      see(debris_clear, o.clearance > 0 ? c / o.clearance - 1 : c, c, o.clearance);
    }
    std::vector<ConvexShape> bus_shapes = arm.baseShapes(d);
    if (bus_shapes.empty() && bus.m > 0) {
      bus_shapes.push_back(ConvexShape::box(bus_half, {d.X_world[0].R, d.X_world[0].p + d.X_world[0].R * bus.com()}));
    }
    if (!bus_shapes.empty()) {
      const double c = arm.clearance(d, hand, bus_shapes, bus_from);
      out.clearance = std::min(out.clearance, c);
      see(bus_clear, o.clearance > 0 ? c / o.clearance - 1 : c, c, o.clearance);
    }
    out.times.push_back(t);
    out.margins.push_back(worst);
    if (series) {
      series->bus_torque.push_back(tau.segment<3>(3));
      series->geometric.push_back(geometric);
    }
    if (o.stop_at_violation && worst < 0) break;
    // Semi-implicit Euler at the prediction step.
    v += h * ddq;
    q = integrate(m, q, v, h);
  }
  auto jointName = [&](const Tracker& tr) { return tr.index >= 0 ? "'" + m.joint[m.v_body[tr.index]].name + "'" : std::string("?"); };
  for (const Tracker* tr : {&joint_torque, &bus_torque, &singular, &limits, &rates, &debris_clear, &bus_clear}) {
    if (tr->margin == INFINITY) continue;  // not checked (no limit)
    ConstraintMargin c{tr->name, tr->margin, tr->time, {}};
    const std::string name = tr->name;
    if (diverged && tr == &singular) {
      c.detail = format("the prediction diverged at %.1f s of the plan", tr->time);
    } else if (name == "joint_torque") {
      c.detail = "joint " + jointName(*tr) + format(" asks %.0f N m at %.1f s of the plan (limit %.0f N m", tr->value, tr->time, tr->limit) +
                 format(", %.0f %% of it allowed to a plan)", 100 * o.torque_margin);
    } else if (name == "bus_torque") {
      c.detail = format("the bus needs %.2f N m at %.1f s of the plan to hold its attitude (limit %.2f N m", tr->value, tr->time, tr->limit) +
                 format(", %.0f %% of it allowed to a plan)", 100 * o.torque_margin);
    } else if (name == "singularity") {
      c.detail = format("least singular value of the generalized Jacobian %.3f at %.1f s of the plan (the law damps below %.3f)",
                        tr->value, tr->time, tr->limit);
    } else if (name == "joint_limit") {
      c.detail = "joint " + jointName(*tr) + format(" at %.1f deg at %.1f s of the plan (limit %.1f deg)", tr->value * kDeg, tr->time, tr->limit * kDeg);
    } else if (name == "joint_rate") {
      c.detail = "joint " + jointName(*tr) + format(" at %.3f rad/s at %.1f s of the plan (limit %.3f rad/s)", tr->value, tr->time, tr->limit);
    } else if (name == "debris_clearance") {
      c.detail = format("the arm comes within %.3f m of the debris' box at %.1f s of the plan (outside the approach corridor; "
                        "%.3f m required)", tr->value, tr->time, tr->limit);
    } else {
      c.detail = format("the arm comes within %.3f m of the bus at %.1f s of the plan (%.3f m required)", tr->value, tr->time, tr->limit);
    }
    // Stopped at its first violation, a prediction saw only the value where it stopped (its peak
    // may lie far beyond).
    if (o.stop_at_violation && c.margin < 0 && !(diverged && tr == &singular)) c.detail += "; the prediction stops at this first violation";
    out.constraints.push_back(c);
  }
  if (const ConstraintMargin* w = out.worst()) {
    out.margin = w->margin;
    out.limiting = w->name;
  } else {
    out.margin = INFINITY;
  }
  out.feasible = out.margin >= 0;
  return out;
}

std::string CaptureWindow::reason() const {
  if (found) {
    std::string shaped;
    if (shape.rows() > 0) {
      shaped = format(", its path shaped against the bus torque: %.2f N m, %.2f as the thesis' path", check.bus_torque,
                      unshaped_bus_torque);
    }
    return format("capture window: plan from t = %.2f s, meeting at t = %.2f s (smallest margin %.2f, ", start, meeting,
                  check.margin) +
           check.limiting + format("; %.0f candidates over %.0f s", candidates, span) + shaped + ")";
  }
  std::string searched = format("no feasible capture window in the %.0f s searched (%.0f candidates); the best, from "
                                "t = %.2f s, is limited by ", span, candidates, best_start) + check.reason();
  if (shaped > 0) {
    searched += format("; %.0f reshaped against the bus torque, the least asking %.2f N m", shaped, shaped_bus_torque);
  }
  if (riding.excludes()) {
    return (std::isfinite(riding.torque) ? "no plan can meet the bus torque limit: " : "no plan can ride the grasp point: ") +
           riding.describe() + "; " + searched;
  }
  if (riding.computed) {
    return "the planner found no feasible plan: " + searched + "; the limit leaves room: " + riding.describe();
  }
  return searched;
}

WindowSearchOptions WindowSearchOptions::from(const ControllerSpec& spec) {
  const ControllerSpec::Capture& c = spec.capture;
  WindowSearchOptions ws;
  ws.horizon = c.window.horizon;
  ws.periods = c.window.periods;
  ws.step_deg = c.window.step_deg;
  ws.min_step = c.window.min_step;
  ws.threads = threadsOrCores(c.window.threads);
  return ws;
}

CapturePlannerOptions capturePlannerOptions(const ControllerSpec& spec) {
  const ControllerSpec::Capture& c = spec.capture;
  CapturePlannerOptions o;
  o.matching = c.matching;
  o.w_u = c.w_u;
  o.w_1 = c.w_1;
  o.horizon = c.horizon;
  o.approach_distance = c.approach.distance;
  o.approach_time = c.approach.duration;
  o.align = c.align;
  return o;
}

double windowSearchSpan(double horizon, double periods, double rate) {
  return rate > 0 ? std::min(horizon, (periods + 0.05) * 2 * M_PI / rate) : horizon;
}

namespace {

// A thread's own model data and debris propagation (which grows on demand).
struct Worker {
  Data* data;
  DebrisTrajectory* debris;
};

// For k = 0 .. n − 1: compute(k, worker) on all the workers at once, one item each a wave (worker
// 0 on the calling thread), then take(k) for the wave's items in order, on the calling thread,
// until it returns false. The outcome is the serial loop's, `for k: compute(k); if (!take(k))
// break;`, whatever the number of workers: compute may read what take writes, which changes only
// between waves (a wave may compute items the serial loop would have skipped; take ignores them).
template <class Compute, class Take>
void inWaves(std::size_t n, const std::vector<Worker>& workers, Compute&& compute, Take&& take) {
  const std::size_t wave = workers.size();
  std::vector<std::exception_ptr> errors(wave);
  for (std::size_t first = 0; first < n; first += wave) {
    const std::size_t count = std::min(wave, n - first);
    auto work = [&](std::size_t t) {
      try {
        compute(first + t, workers[t]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < count; ++t) threads.emplace_back(work, t);
    work(0);
    for (std::thread& t : threads) t.join();
    for (std::exception_ptr& e : errors) {
      if (e) std::rethrow_exception(std::exchange(e, nullptr));
    }
    for (std::size_t k = first; k < first + count; ++k) {
      if (!take(k)) return;
    }
  }
}

}  // namespace

CaptureWindow searchCaptureWindow(const Model& m, Data& d, const FeasibilityOptions& options,
                                  const WindowSearchOptions& search, const CapturePlannerOptions& planner,
                                  const DebrisProperties& debris, const DebrisState& debris_now, double now,
                                  const Eigen::VectorXd& q, const Eigen::VectorXd& v, int ee_frame,
                                  const HandState* hand_now) {
  if (!(search.step_deg > 0) || !(search.min_step > 0) || !(search.horizon >= 0) || !(search.periods > 0)) {
    throw std::invalid_argument("capture window: expected step_deg > 0, min_step > 0, horizon >= 0, periods > 0");
  }
  CaptureWindow w;
  FeasibilityOptions o = options;
  o.stop_at_violation = true;
  o.step = search.step;
  // The chaser holds its pose: the joints at rest, the bus drifting with its momentum; the hand
  // at its rigid-equivalent pose.
  Eigen::VectorXd q0 = q, v0 = v, q_rigid;
  for (int k = 6; k < m.nv; ++k) v0[k] = 0;
  v0.segment<3>(3).setZero();
  rigidEquivalent(m, q0, q_rigid);
  forwardKinematics(m, d, q_rigid);
  HandState hand;
  hand.position = framePose(m, d, ee_frame).p;
  hand.axis = framePose(m, d, ee_frame).R.col(2);
  const Vector3 drift = d.X_world[0].R * v0.head<3>();  // base velocity, inertial
  // The tumbling periods asked (and a twentieth), within the horizon.
  const double rate = debris_now.w_B.norm();
  w.span = windowSearchSpan(search.horizon, search.periods, rate);
  // At most kMaxCandidates start times, whatever the settings (a bounded search, never a hang).
  constexpr double kMaxCandidates = 1000;
  const double dt = std::max({search.min_step, rate > 0 ? search.step_deg / kDeg / rate : search.min_step, w.span / kMaxCandidates});
  // The start times on the debris propagation's grid (dt rounded to a multiple of its step): every
  // candidate's plan then sees the debris through this one propagation (DebrisTrajectory::from),
  // rather than propagating it again from its start.
  DebrisTrajectory trajectory(debris, debris_now, planner.debris_step);
  const auto every = static_cast<std::size_t>(std::max(1.0, std::round(dt / planner.debris_step)));
  auto timeOf = [&](std::size_t k) { return static_cast<double>(k) * planner.debris_step; };  // grid index → s
  // The plans tried from each start: the thesis' (onto the grasp point), and the two-stage one
  // when the planner has an approach distance (the earliest feasible meeting of either is chosen:
  // the one-stage plan asks less of the bus, the two-stage one keeps the arm off the debris' box
  // when the grasp face is turned away).
  std::vector<double> approaches{0.0};
  if (planner.approach_distance > 0) approaches.push_back(planner.approach_distance);
  // The best infeasible candidate: the one whose prediction went furthest (fraction of its plan)
  // before its first violation.
  double best_progress = -INFINITY;
  // The chaser at the start of grid index `start`, holding its pose from now until then: the hand
  // (h) and the base (qs) carried by the drift, and the velocity its plans are predicted from (the
  // plans starting now: from the state now, when hand_now is given).
  auto startAt = [&](std::size_t start, HandState& h, Eigen::VectorXd& qs) -> const Eigen::VectorXd& {
    const double s = timeOf(start);
    qs = q0;
    qs.head<3>() += s * drift;
    if (start == 0 && hand_now != nullptr) {
      h = *hand_now;
      return v;
    }
    h = hand;
    h.position += s * drift;
    return v0;
  };
  // The candidates the shaping below may start from, in the scan's order: those stopped by the bus
  // torque (their indices in bus_limited), and those stopped by a geometric constraint crossed by
  // less than `loose.max_geometric` (in stopped).
  struct Seed {
    std::size_t start;  // the start's grid index
    double approach, final_time;
  };
  std::vector<Seed> seeds;
  std::vector<std::size_t> bus_limited, stopped;
  const ShapingOptions so;
  ShapingOptions loose = so;  // the seeds that cross a geometric constraint a little
  loose.max_geometric = -4;
  auto crossesALittle = [&](const PlanCheck& c) {
    return c.limiting != "bus_torque" && c.limiting != "joint_torque" && c.margin >= loose.max_geometric;
  };
  const bool shape = search.shaped > 0 && std::isfinite(options.bus_torque_limit) && options.hold_bus;
  // A plan feasible at the candidates' step is confirmed at the check's own, finer one before it
  // is chosen: a peak between the coarse steps would pass otherwise, the plan then fail its check
  // at its start, and the search made anew from there pick the same plan again.
  FeasibilityOptions fine = options;
  fine.stop_at_violation = true;
  // (The window then reports the fine check.)
  auto confirm = [&](const CapturePlan& plan, const Eigen::VectorXd& qs, const Eigen::VectorXd& vs, Data& data,
                     PlanCheck& check) {
    if (check.feasible && fine.step < o.step) check = checkCapturePlan(m, data, fine, plan, qs, vs, ee_frame);
    return check.feasible;
  };
  // One start's candidates, in the scan's order (approach, then duration), each predicted whole
  // up to its first violation: independent of every other start, so that `threads` starts are
  // predicted at once (each thread with its own Data and debris propagation, deterministic: the
  // same states as the serial scan's), and the results are taken in the serial order below.
  struct Candidate {
    double approach = 0, rendezvous = 0, capture = 0, progress = -INFINITY;
    PlanCheck check;
  };
  // (bound: the earliest meeting found before the wave; the durations of an approach that would
  // meet later are not predicted, as the serial scan skips them.)
  auto scanStart = [&](std::size_t start, double bound, Data& data, DebrisTrajectory& debris_path,
                       std::vector<Candidate>& out) {
    out.clear();
    const double s = timeOf(start);
    HandState h;
    Eigen::VectorXd qs;
    const Eigen::VectorXd& vs = startAt(start, h, qs);
    for (double approach : approaches) {
      double t_f = 0;
      for (double factor : search.durations) {
        Candidate c;
        c.approach = approach;
        try {
          CapturePlannerOptions po = planner;
          po.approach_distance = approach;
          if (factor != 1) {
            if (t_f <= 0) break;  // no transversality root to scale
            po.final_time = factor * t_f;
          }
          const CapturePlan plan(debris_path.from(start), h, po);
          if (factor == 1) t_f = plan.rendezvousTime();
          if (now + s + plan.captureTime() >= bound) break;  // slower ones meet later still
          c.rendezvous = plan.rendezvousTime();
          c.capture = plan.captureTime();
          c.check = checkCapturePlan(m, data, o, plan, qs, vs, ee_frame);
          if (!c.check.times.empty()) c.progress = c.check.times.back() / (plan.captureTime() + o.hold);
          confirm(plan, qs, vs, data, c.check);
        } catch (const std::runtime_error& e) {
          c.check.constraints.push_back({"transversality", -INFINITY, 0, e.what()});
          c.check.margin = -INFINITY;
          c.check.limiting = "transversality";
          c.capture = INFINITY;
        }
        const bool feasible = c.check.feasible;
        if (feasible) bound = std::min(bound, now + s + c.capture);  // (the other approach's too)
        out.push_back(std::move(c));
        if (feasible) break;  // the slower ones meet later
      }
    }
  };
  // The workers: the calling thread with `d` and `trajectory`, the others with copies.
  const auto threads = static_cast<std::size_t>(std::max(1, search.threads));
  std::vector<Data> datas(threads - 1, d);
  std::vector<DebrisTrajectory> paths(threads - 1, DebrisTrajectory(debris, debris_now, planner.debris_step));
  std::vector<Worker> workers{{&d, &trajectory}};
  for (std::size_t t = 0; t + 1 < threads; ++t) workers.push_back({&datas[t], &paths[t]});
  std::vector<std::size_t> starts;  // grid indices
  for (std::size_t k = 0; timeOf(k) <= w.span + 1e-9; k += every) starts.push_back(k);
  // Each start's candidates (a wave's: indexed by start modulo the workers), then taken in the
  // serial order: the earliest meeting, the bus-limited seeds, the best candidate. (A start found
  // feasible bounds the durations the next waves predict.)
  std::vector<std::vector<Candidate>> results(threads);
  inWaves(starts.size(), workers,
          [&](std::size_t k, const Worker& worker) {
            if (w.found && now + timeOf(starts[k]) >= w.meeting) return;  // (not taken)
            scanStart(starts[k], w.found ? w.meeting : INFINITY, *worker.data, *worker.debris, results[k % threads]);
          },
          [&](std::size_t k) {
            const double s = timeOf(starts[k]);
            if (w.found && now + s >= w.meeting) return false;  // no later start can meet earlier
            ++w.candidates;
            std::vector<Candidate>& cs = results[k % threads];
            for (std::size_t i = 0; i < cs.size(); ++i) {
              Candidate& c = cs[i];
              if (w.found && now + s + c.capture >= w.meeting) {  // slower ones of this approach meet later still
                while (i + 1 < cs.size() && cs[i + 1].approach == c.approach) ++i;
                continue;
              }
              if (shape && !c.check.feasible && (c.check.limiting == "bus_torque" || crossesALittle(c.check))) {
                (c.check.limiting == "bus_torque" ? bus_limited : stopped).push_back(seeds.size());
                seeds.push_back({starts[k], c.approach, c.rendezvous});
              }
              if (c.check.feasible) {
                w.found = true;
                w.start = now + s;
                w.duration = c.rendezvous;
                w.meeting = now + s + c.capture;
                w.approach_distance = c.approach;
                w.check = std::move(c.check);
                continue;  // (the slower ones of this approach were not predicted)
              }
              if (!w.found && c.progress > best_progress) {
                best_progress = c.progress;
                w.best_start = now + s;
                w.check = c.check;
              }
            }
            return true;
          });
  // None feasible as the thesis' paths: those the bus torque stopped are flown again, in the scan's
  // order (earliest start first), with the bus' limit relaxed to ShapingOptions::max_ratio times
  // (stopped at their first violation then), until `shaped` are found that the shaping can start
  // from (planning/path_shaping.hpp: shapeable); these are reshaped against the bus torque, those
  // asking it least first, until one is feasible: that one is the window. (Not the earliest
  // meeting among all: a shaping flies its plan twenty to sixty times.) Then, if none is, those
  // that stopped on a geometric constraint crossed by less than ShapingOptions::max_geometric = −4
  // (e.g. 6 cm into the links' clearance) — in the scan, or flown again with the bus relaxed —
  // the same way, in the scan's order, flown whole first.
  if (!w.found && shape && !seeds.empty()) {
    FeasibilityOptions relaxed = o, whole = o;
    relaxed.bus_torque_limit *= so.max_ratio;
    whole.stop_at_violation = false;
    struct Start {
      std::size_t candidate;  // in seeds
      double peak;
    };
    std::vector<Start> starts, crossing;
    // (vs: the velocity the plan is predicted from, as startAt's)
    auto planAt = [&](const Seed& b, DebrisTrajectory& debris_path, HandState& h, Eigen::VectorXd& qs,
                      const Eigen::VectorXd*& vs) {
      vs = &startAt(b.start, h, qs);
      CapturePlannerOptions po = planner;
      po.approach_distance = b.approach;
      po.final_time = b.final_time;
      return CapturePlan(debris_path.from(b.start), h, po);
    };
    // A candidate flown again (with `check_options`): its check, and whether the shaping starts
    // from it (`shaping_options`).
    struct Flown {
      PlanCheck check;
      bool shapeable = false;
    };
    std::vector<Flown> flown(threads);
    auto fly = [&](std::size_t i, const Worker& worker, const FeasibilityOptions& check_options,
                   const ShapingOptions& shaping_options, Flown& out) {
      HandState h;
      Eigen::VectorXd qs;
      const Eigen::VectorXd* vs = nullptr;
      PlanSeries series;
      const CapturePlan plan = planAt(seeds[i], *worker.debris, h, qs, vs);
      out.check = checkCapturePlan(m, *worker.data, check_options, plan, qs, *vs, ee_frame, &series);
      out.shapeable = shapeable(out.check, series, plan.rendezvousTime(), o, shaping_options);
    };
    const auto wanted = static_cast<std::size_t>(search.shaped);
    inWaves(bus_limited.size(), workers,
            [&](std::size_t i, const Worker& worker) { fly(bus_limited[i], worker, relaxed, so, flown[i % threads]); },
            [&](std::size_t i) {
              if (starts.size() >= wanted) return false;
              const Flown& f = flown[i % threads];
              if (f.shapeable) {
                starts.push_back({bus_limited[i], f.check.bus_torque});
              } else if (crossesALittle(f.check)) {
                stopped.push_back(bus_limited[i]);
              }
              return true;
            });
    std::sort(stopped.begin(), stopped.end());  // (the scan's order)
    // The seeds shaped in order (a wave of them at once), the first feasible one the window.
    struct Shaped {
      ShapedPlan shaped;
      double rendezvous = 0, capture = 0;
      bool feasible = false;
    };
    std::vector<Shaped> shapings(threads);
    auto shapeFrom = [&](std::vector<Start>& order, const ShapingOptions& shaping_options) {
      std::sort(order.begin(), order.end(), [](const Start& a, const Start& b) { return a.peak < b.peak; });
      int tried = 0;
      inWaves(order.size(), workers,
              [&](std::size_t k, const Worker& worker) {
                Shaped& out = shapings[k % threads];
                HandState h;
                Eigen::VectorXd qs;
                const Eigen::VectorXd* vs = nullptr;
                CapturePlan plan = planAt(seeds[order[k].candidate], *worker.debris, h, qs, vs);
                out.shaped = shapeAgainstBusTorque(m, *worker.data, o, shaping_options, plan, qs, *vs, ee_frame);
                out.rendezvous = plan.rendezvousTime();
                out.capture = plan.captureTime();
                out.feasible = !out.shaped.hopeless && confirm(plan, qs, *vs, *worker.data, out.shaped.check);
              },
              [&](std::size_t k) {
                if (w.found || tried >= search.shaped) return false;
                Shaped& r = shapings[k % threads];
                if (r.shaped.hopeless) return true;
                ++tried;
                ++w.shaped;
                w.shaped_bus_torque = std::min(w.shaped_bus_torque, r.shaped.check.bus_torque);
                if (r.feasible) {
                  const Seed& b = seeds[order[k].candidate];
                  w.found = true;
                  w.start = now + timeOf(b.start);
                  w.duration = r.rendezvous;
                  w.meeting = w.start + r.capture;
                  w.approach_distance = b.approach;
                  w.check = r.shaped.check;
                  w.shape = r.shaped.shape;
                  w.unshaped_bus_torque = r.shaped.bus_torque_before;
                }
                return true;
              });
    };
    shapeFrom(starts, so);
    // None of those: the seeds that cross a geometric constraint a little, flown whole, shaped
    // with their geometric margins raised in the subproblem.
    if (!w.found) {
      inWaves(stopped.size(), workers,
              [&](std::size_t k, const Worker& worker) { fly(stopped[k], worker, whole, loose, flown[k % threads]); },
              [&](std::size_t k) {
                if (crossing.size() >= wanted) return false;
                const Flown& f = flown[k % threads];
                if (f.shapeable) crossing.push_back({stopped[k], f.check.bus_torque});
                return true;
              });
      shapeFrom(crossing, loose);
    }
  }
  if (!w.found && std::isnan(w.best_start)) w.best_start = now;
  if (!w.found && std::isfinite(options.bus_torque_limit) && options.hold_bus) {
    w.riding = ridingBusTorqueBound(m, d, options, planner.align, debris, debris_now, q, v, ee_frame, w.span);
  }
  return w;
}

}  // namespace grapple::core
