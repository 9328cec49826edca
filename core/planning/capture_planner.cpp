#include "core/planning/capture_planner.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include <Eigen/LU>

#include "core/math/rotation.hpp"

namespace grapple::core {

DebrisTrajectory::DebrisTrajectory(DebrisProperties properties, const DebrisState& initial,
                                   double step)
    : grid_(std::make_shared<Grid>(Grid{std::move(properties), step, {initial}})) {
  if (!(step > 0)) throw std::invalid_argument("DebrisTrajectory: the step must be > 0");
}

DebrisTrajectory::DebrisTrajectory(const DebrisTrajectory& other)
    : grid_(std::make_shared<Grid>(Grid{other.grid_->properties, other.grid_->step,
                                        {other.grid_->states.begin() + static_cast<std::ptrdiff_t>(other.first_),
                                         other.grid_->states.end()}})) {}

DebrisTrajectory& DebrisTrajectory::operator=(const DebrisTrajectory& other) {
  if (this != &other) *this = DebrisTrajectory(other);
  return *this;
}

const DebrisState& DebrisTrajectory::gridState(std::size_t k) {
  Grid& g = *grid_;
  while (g.states.size() <= first_ + k) g.states.push_back(stepDebris(g.properties, g.states.back(), g.step));
  return g.states[first_ + k];
}

DebrisTrajectory DebrisTrajectory::from(std::size_t k) {
  gridState(k);
  return DebrisTrajectory(grid_, first_ + k);
}

DebrisState DebrisTrajectory::state(double t) {
  if (!(t >= 0) || !std::isfinite(t)) throw std::invalid_argument("DebrisTrajectory: t must be finite and >= 0");
  const double h = grid_->step;
  const auto k = static_cast<std::size_t>(std::floor(t / h));
  const DebrisState& s = gridState(k);
  const double dt = t - static_cast<double>(k) * h;
  return dt > 0 ? stepDebris(grid_->properties, s, dt) : s;
}

namespace {

// The conditions matched at t_f, and so the derivative orders per end: 1 (A), 2 (B), 3 (C).
int matchedOrders(CaptureMatching m) {
  return m == CaptureMatching::kPosition ? 1 : m == CaptureMatching::kPositionVelocity ? 2 : 3;
}

const Vector3& component(const PointKinematics& k, int order) {
  switch (order) {
    case 0: return k.position;
    case 1: return k.velocity;
    case 2: return k.acceleration;
    default: return k.jerk;
  }
}

void checkShape(const Eigen::Matrix<double, Eigen::Dynamic, 3>& shape) {
  if (shape.rows() > 24 || !shape.allFinite()) {
    throw std::invalid_argument("capture planner: the shaping has at most 24 finite coefficients per axis");
  }
}

}  // namespace

CapturePlan::CapturePlan(const DebrisProperties& debris, const DebrisState& debris0,
                         const HandState& hand0, const CapturePlannerOptions& options)
    : CapturePlan(DebrisTrajectory(debris, debris0, options.debris_step), hand0, options) {}

CapturePlan::CapturePlan(DebrisTrajectory trajectory, const HandState& hand0, const CapturePlannerOptions& options)
    : options_(options), hand0_(hand0), debris_(std::move(trajectory)) {
  const CapturePlannerOptions& o = options_;
  if (debris_.step() != o.debris_step) {
    throw std::invalid_argument("capture planner: the debris' propagation must have the step debris_step");
  }
  if (!(o.w_u > 0) || !(o.w_1 >= 0) || !(o.horizon > 0) || !(o.scan_step > 0) ||
      !std::isfinite(o.w_u + o.w_1 + o.horizon + o.scan_step)) {
    throw std::invalid_argument("capture planner: expected w_u > 0, w_1 >= 0, horizon > 0, scan_step > 0");
  }
  const DebrisProperties& debris = debris_.properties();
  checkDebrisProperties(debris);
  if (!(o.approach_distance >= 0) || !std::isfinite(o.approach_distance) ||
      (o.approach_distance > 0 && (!(o.approach_time > 0) || !std::isfinite(o.approach_time)))) {
    throw std::invalid_argument("capture planner: expected approach_distance >= 0 and, with it, approach_time > 0");
  }
  checkShape(o.shape);
  axis_B_ = core::graspAxis(debris);  // (the free function, not the member)
  if (o.matching != CaptureMatching::kPosition && o.w_1 > 0) s_ = std::sqrt(o.w_1 / o.w_u);
  if (o.final_time > 0) {
    if (!std::isfinite(o.final_time)) throw std::invalid_argument("capture planner: the final time must be finite");
    t_f_ = o.final_time;
    target_tf_ = rendezvousTarget(t_f_);
    grasp_axis_tf_ = graspAxis(t_f_);
    solve(t_f_);
    return;
  }
  // The smallest root of H(t_f) = 0: scan for a sign change, then bisect to the last bit.
  double a = o.scan_step, ga = transversality(a);
  for (double b = a + o.scan_step; b <= o.horizon + 1e-12; b += o.scan_step) {
    const double gb = transversality(b);
    if ((ga <= 0) != (gb <= 0)) {
      for (int it = 0; it < 200 && b - a > 1e-12 * b; ++it) {
        const double m = 0.5 * (a + b), gm = transversality(m);
        if ((ga <= 0) == (gm <= 0)) {
          a = m;
          ga = gm;
        } else {
          b = m;
        }
      }
      t_f_ = 0.5 * (a + b);
      target_tf_ = rendezvousTarget(t_f_);
      grasp_axis_tf_ = graspAxis(t_f_);
      solve(t_f_);
      return;
    }
    a = b;
    ga = gb;
  }
  std::ostringstream os;
  os << "capture planner: the transversality condition H(t_f) = 0 has no root within the horizon "
     << o.horizon << " s (w_u = " << o.w_u << ", w_1 = " << o.w_1
     << "): lengthen the horizon or lower w_u";
  throw std::runtime_error(os.str());
}

int CapturePlan::basisSize() const { return 2 * matchedOrders(options_.matching); }

void CapturePlan::basis(double t, double t_f, int order, double* out) const {
  const int n = basisSize();
  const int npoly = s_ > 0 ? n - 2 : n;
  // Polynomials t^i.
  for (int i = 0; i < npoly; ++i) {
    double c = 0;
    if (i >= order) {
      c = 1;
      for (int k = 0; k < order; ++k) c *= i - k;
      c *= std::pow(t, i - order);
    }
    out[i] = c;
  }
  // e^{s (t - t_f)} and e^{-s t}: the thesis' e^{±st}, scaled to stay <= 1 on [0, t_f].
  if (s_ > 0) {
    const double sp = std::pow(s_, order);
    out[n - 2] = sp * std::exp(s_ * (t - t_f));
    out[n - 1] = (order % 2 ? -sp : sp) * std::exp(-s_ * t);
  }
}

void CapturePlan::solve(double t_f) const {
  if (t_f == coef_t_f_) return;
  const int n = basisSize(), m = n / 2;
  Eigen::MatrixXd A(n, n), rhs(n, 3);
  const PointKinematics target = rendezvousTarget(t_f);
  const PointKinematics hand{hand0_.position, hand0_.velocity, hand0_.acceleration, Vector3::Zero()};
  Eigen::VectorXd row(n);
  for (int k = 0; k < m; ++k) {
    basis(0.0, t_f, k, row.data());
    A.row(k) = row.transpose();
    rhs.row(k) = component(hand, k).transpose();
    basis(t_f, t_f, k, row.data());
    A.row(m + k) = row.transpose();
    rhs.row(m + k) = component(target, k).transpose();
  }
  coef_.setZero();
  coef_.topRows(n) = A.fullPivLu().solve(rhs);
  coef_t_f_ = t_f;
}

Vector3 CapturePlan::pathFor(double t, int order, double t_f) const {
  solve(t_f);
  double b[6];
  basis(t, t_f, order, b);
  Vector3 r = Vector3::Zero();
  for (int i = 0; i < basisSize(); ++i) r += b[i] * coef_.row(i).transpose();
  return r;
}

Vector3 CapturePlan::path(double t, int order) const { return pathFor(t, order, t_f_); }

PointKinematics CapturePlan::rendezvousTarget(double t) const {
  return approachPoint(t, options_.approach_distance, 0, 0, 0);
}

PointKinematics CapturePlan::approachPoint(double t, double u, double du, double ddu, double dddu) const {
  // The body point b(t) = p_t + u(t) a (a: the grasp axis), its body-frame rates ḃ, b̈, b⃛ along a.
  // With R the debris' attitude, ω, α its inertial rate and acceleration: the fixed-point terms of
  // eq. 7.6 at b, plus the relative motion's (the derivatives of R u̇ a: d/dt R x = ω × R x + R ẋ):
  //   v += R ḃ,  a += 2 ω × R ḃ + R b̈,  j += 3 α × R ḃ + 3 ω × (ω × R ḃ) + 3 ω × R b̈ + R b⃛.
  DebrisProperties p = debris_.properties();
  p.target_B += u * axis_B_;
  const DebrisState s = debris_.state(t);
  PointKinematics k = targetKinematics(p, s);
  if (du == 0 && ddu == 0 && dddu == 0) return k;
  const Matrix3 R = quatToMatrix(s.Q_WB);
  const Vector3 w = R * s.w_B, alpha = R * Vector3(-p.inertia.inverse() * s.w_B.cross(p.inertia * s.w_B));  // Euler, torque-free
  const Vector3 v1 = du * (R * axis_B_), a1 = ddu * (R * axis_B_), j1 = dddu * (R * axis_B_);
  k.velocity += v1;
  k.acceleration += 2 * w.cross(v1) + a1;
  k.jerk += 3 * alpha.cross(v1) + 3 * w.cross(w.cross(v1)) + 3 * w.cross(a1) + j1;
  return k;
}

PointKinematics CapturePlan::at(double t) const {
  if (t > t_f_) {
    const double T = approachTime(), d = options_.approach_distance;
    if (t >= t_f_ + T) return debris_.target(t);
    // u = d (1 - σ(τ)), σ = 10τ³ - 15τ⁴ + 6τ⁵ (rest to rest relative to the debris).
    const double tau = (t - t_f_) / T;
    const double s1 = 30 * tau * tau * (1 - tau) * (1 - tau), s2 = 60 * tau * (1 - tau) * (1 - 2 * tau),
                 s3 = 60 * (1 - 6 * tau + 6 * tau * tau);
    const double sigma = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau);
    return approachPoint(t, d * (1 - sigma), -d * s1 / T, -d * s2 / (T * T), -d * s3 / (T * T * T));
  }
  const double tt = std::max(t, 0.0);
  if (options_.shape.rows() == 0) return {path(tt, 0), path(tt, 1), path(tt, 2), path(tt, 3)};
  return {path(tt, 0) + shaping(tt, 0), path(tt, 1) + shaping(tt, 1), path(tt, 2) + shaping(tt, 2),
          path(tt, 3) + shaping(tt, 3)};
}

void shapeBasis(double sigma, int n, int order, double* out) {
  if (n <= 0) return;
  if (order < 0 || order > 3 || n > 24) throw std::invalid_argument("shapeBasis: order 0-3 and at most 24 functions");
  // φ_k = w B_k, w(σ) = 64 u³ with u = σ(1 − σ) (at most 1), B_k = C(m, k) σ^k (1 − σ)^(m−k), m = n − 1:
  // Leibniz' rule on the two factors, each evaluated as products of positive terms (no
  // cancellation of large monomial coefficients). With u' = 1 − 2σ and u'' = −2: w' = 192 u² u',
  // w'' = 384 u u'² − 384 u², w''' = 384 u'³ − 2304 u u'; and B_k^(r) = m!/(m−r)! Σ_i (−1)^i C(r, i)
  // B_{k−r+i, m−r} (the Bernstein polynomials' derivative, applied r times).
  const int m = n - 1;
  const double u = sigma * (1 - sigma), du = 1 - 2 * sigma;
  const double w[4] = {64 * u * u * u, 192 * u * u * du, 384 * u * du * du - 384 * u * u, 384 * du * du * du - 2304 * u * du};
  auto binom = [](int a, int b) {
    double c = 1;
    for (int i = 1; i <= b; ++i) c = c * (a - b + i) / i;
    return c;
  };
  auto bernstein = [&](int j, int deg) {  // B_{j,deg}(σ), zero outside 0 <= j <= deg
    if (j < 0 || j > deg) return 0.0;
    return binom(deg, j) * std::pow(sigma, j) * std::pow(1 - sigma, deg - j);
  };
  for (int k = 0; k <= m; ++k) {
    double v = 0;
    for (int a = 0; a <= order; ++a) {  // C(order, a) w^(a) B_k^(order − a)
      const int r = order - a;
      if (r > m) continue;  // a polynomial of degree m has no derivative of order beyond m
      double d = 0;
      for (int i = 0; i <= r; ++i) d += (i % 2 ? -1 : 1) * binom(r, i) * bernstein(k - r + i, m - r);
      double falling = 1;
      for (int i = 0; i < r; ++i) falling *= m - i;
      v += binom(order, a) * w[a] * falling * d;
    }
    out[k] = v;
  }
}

Vector3 CapturePlan::shaping(double t, int order) const {
  const auto n = static_cast<int>(options_.shape.rows());
  if (n == 0 || t < 0 || t > t_f_) return Vector3::Zero();
  double b[24];
  shapeBasis(t / t_f_, n, order, b);
  Vector3 r = Vector3::Zero();
  for (int k = 0; k < n; ++k) r += b[k] * options_.shape.row(k).transpose();
  return r / std::pow(t_f_, order);
}

void CapturePlan::setShape(const Eigen::Matrix<double, Eigen::Dynamic, 3>& shape) {
  checkShape(shape);
  options_.shape = shape;
}

double CapturePlan::transversality(double t_f) const {
  const CapturePlannerOptions& o = options_;
  const int q = matchedOrders(o.matching);
  // H(t_f) with λ_d(t_f)ᵀ f_d eliminated (notes §2.5): the input u = r_h^(q), the weighted state
  // r_h^(q-1) (none for A).
  const Vector3 u = pathFor(t_f, q, t_f);
  const Vector3 target_u = component(rendezvousTarget(t_f), q);
  double g = 1 - o.w_u * u.squaredNorm() + 2 * o.w_u * u.dot(target_u);
  if (q > 1) g += o.w_1 * pathFor(t_f, q - 1, t_f).squaredNorm();
  return g;
}

Vector3 CapturePlan::graspAxis(double t) const {
  return -(quatToMatrix(debris_.state(std::max(t, 0.0)).Q_WB.normalized()) * axis_B_);
}

Vector3 CapturePlan::pointingAxis(double t) const {
  if (t <= 0) return hand0_.axis.normalized();
  if (t >= t_f_) return graspAxis(t);
  // The axis a(t) = Q(t) c(t): c turns from the start axis a0 onto the grasp axis at the meeting,
  // g_f = g(t_f), along their great circle (fixed: both ends are), the fraction turned
  // σ = 10τ³ − 15τ⁴ + 6τ⁵ of τ = t / t_f; Q(t) = exp(σ θ(t)) lays on it the debris' rotation
  // between t and the meeting, θ(t) = (t − t_f) ω(t) − ½ (t − t_f)² ω̇(t) (ω the debris' inertial
  // rate: θ is the rotation vector of that rotation to second order at t_f). σ, σ', σ'' vanish at
  // the start, where a rests at a0, and 1 − σ with them at the meeting, where Q and its first two
  // derivatives are the debris' (θ = 0, θ' = ω, θ'' = ω̇): a joins g(t) = R(t) R(t_f)ᵀ g_f with
  // its rate and acceleration. (The great circle from a0 to the moving g(t) instead, as before,
  // flips to the other side whenever g(t) passes the antipode of a0 — which a long plan's grasp
  // axis sweeps through — and the reference then jumps: a torque spike of 100 N m in the check.)
  const Vector3 a0 = hand0_.axis.normalized();
  const double tau = t / t_f_, sigma = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau);
  const Vector3& g_f = grasp_axis_tf_;
  Vector3 c = g_f;
  const double angle = std::acos(std::clamp(a0.dot(g_f), -1.0, 1.0));
  if (angle > 1e-12) {
    Vector3 n = a0.cross(g_f);
    n = n.norm() > 1e-12 ? Vector3(n.normalized()) : Vector3(a0.unitOrthogonal());  // opposite: any great circle
    c = std::cos(sigma * angle) * a0 + std::sin(sigma * angle) * n.cross(a0);
  }
  const DebrisState s = debris_.state(t);
  const DebrisProperties& p = debris_.properties();
  const Matrix3 R = quatToMatrix(s.Q_WB.normalized());
  const Vector3 w = R * s.w_B, dw = R * Vector3(-p.inertia.inverse() * s.w_B.cross(p.inertia * s.w_B));  // Euler, torque-free
  const double r = t - t_f_;
  return expSO3(sigma * (r * w - 0.5 * r * r * dw)) * c;
}

AxisKinematics CapturePlan::pointing(double t) const {
  constexpr double h = 1e-3;
  const Vector3 a = pointingAxis(t), ap = pointingAxis(t + h), am = pointingAxis(t - h);
  const Vector3 da = (ap - am) / (2 * h), dda = (ap - 2 * a + am) / (h * h);
  // ȧ = ω × a, so ω⊥ = a × ȧ; α⊥ = d/dt (a × ȧ) = a × ä (ȧ × ȧ = 0).
  return {a, a.cross(da), a.cross(dda)};
}

Vector3 CapturePlan::jumps() const {
  Vector3 j;
  for (int k = 1; k <= 3; ++k) j[k - 1] = (path(t_f_, k) - component(target_tf_, k)).norm();
  return j;
}

double CapturePlan::cost(double t_f) const {
  const CapturePlannerOptions& o = options_;
  const int q = matchedOrders(o.matching);
  auto L = [&](double t) {
    double l = 1 + o.w_u * pathFor(t, q, t_f).squaredNorm();
    if (q > 1) l += o.w_1 * pathFor(t, q - 1, t_f).squaredNorm();
    return l;
  };
  constexpr int kIntervals = 2000;
  const double h = t_f / kIntervals;
  double sum = L(0) + L(t_f);
  for (int i = 1; i < kIntervals; ++i) sum += (i % 2 ? 4 : 2) * L(i * h);
  return sum * h / 3;
}

}  // namespace grapple::core
