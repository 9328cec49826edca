#include "core/estimation/bus_attitude_filter.hpp"

#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/math/rotation.hpp"

namespace grapple::core {

Vector6 busBoxMinus(const Vector4& Q_true, const Vector3& b_true, const BusAttitudeEstimate& e) {
  Vector6 d;
  d.head<3>() = quatLog(quatMultiply(quatConjugate(e.Q_WB.normalized()), Q_true.normalized()));
  d.tail<3>() = b_true - e.bias;
  return d;
}

void busBoxPlus(BusAttitudeEstimate& e, const Vector6& dx) {
  e.Q_WB = quatMultiply(e.Q_WB, quatExp(dx.head<3>())).normalized();
  e.bias += dx.tail<3>();
}

Matrix6 busTransition(const Vector3& w_hat, double dt) {
  const double w = w_hat.norm(), x = w * dt;
  // sin(x)/ω, (1 - cos x)/ω², (x - sin x)/ω³; their series below x = 1e-3 (the next terms are
  // below 1e-13 relative).
  double a, c1, c2;
  if (x < 1e-3) {
    a = dt * (1 - x * x / 6);
    c1 = dt * dt * (0.5 - x * x / 24);
    c2 = dt * dt * dt * (1.0 / 6 - x * x / 120);
  } else {
    a = std::sin(x) / w;
    c1 = (1 - std::cos(x)) / (w * w);
    c2 = (x - std::sin(x)) / (w * w * w);
  }
  const Matrix3 W = skew(w_hat), W2 = W * W;
  Matrix6 Phi = Matrix6::Identity();
  Phi.topLeftCorner<3, 3>() = Matrix3::Identity() - a * W + c1 * W2;
  Phi.topRightCorner<3, 3>() = -(dt * Matrix3::Identity() - c1 * W + c2 * W2);
  return Phi;
}

Matrix6 busProcessNoise(const BusAttitudeFilterSettings& s, double dt) {
  const double v2 = s.arw * s.arw, u2 = s.bias_walk * s.bias_walk;
  Matrix6 Q = Matrix6::Zero();
  Q.topLeftCorner<3, 3>().diagonal().setConstant(v2 * dt + u2 * dt * dt * dt / 3);
  Q.topRightCorner<3, 3>().diagonal().setConstant(-0.5 * u2 * dt * dt);
  Q.bottomLeftCorner<3, 3>().diagonal().setConstant(-0.5 * u2 * dt * dt);
  Q.bottomRightCorner<3, 3>().diagonal().setConstant(u2 * dt);
  return Q;
}

void predictBus(const BusAttitudeFilterSettings& s, BusAttitudeEstimate& e, const Vector3& rate, double dt) {
  if (dt < 0) throw std::logic_error("predictBus: cannot predict backwards in time");
  if (dt == 0) return;
  const Vector3 w_hat = rate - e.bias;
  const Matrix6 Phi = busTransition(w_hat, dt);
  e.Q_WB = quatMultiply(e.Q_WB, quatExp(w_hat * dt)).normalized();
  e.P = Phi * e.P * Phi.transpose() + busProcessNoise(s, dt);
  e.P = 0.5 * (e.P + e.P.transpose());
  e.time += dt;
}

double updateBus(const BusAttitudeFilterSettings& s, BusAttitudeEstimate& e, const Vector4& Q_measured) {
  const Vector3 y = quatLog(quatMultiply(quatConjugate(e.Q_WB), Q_measured.normalized()));
  const Matrix3 R = s.star_noise.cwiseAbs2().asDiagonal();
  // H = [I 0]: S = P11 + R, K = P H' S⁻¹ = P.leftCols(3) S⁻¹.
  const Matrix3 S = e.P.topLeftCorner<3, 3>() + R;
  const Eigen::LLT<Matrix3> S_llt(S);
  const Eigen::Matrix<double, 6, 3> K = S_llt.solve(e.P.topRows<3>()).transpose();
  busBoxPlus(e, K * y);
  Matrix6 A = Matrix6::Identity();
  A.leftCols<3>() -= K;
  e.P = A * e.P * A.transpose() + K * R * K.transpose();  // Joseph form
  e.P = 0.5 * (e.P + e.P.transpose());
  return y.dot(S_llt.solve(y));
}

BusAttitudeFilter::BusAttitudeFilter(const BusAttitudeFilterSettings& settings, const BusAttitudeEstimate& prior)
    : settings_(settings), anchor_(prior) {
  if (!(settings_.arw >= 0) || !(settings_.bias_walk >= 0) || !(settings_.star_noise.minCoeff() > 0) ||
      !(settings_.history >= 0)) {
    throw std::invalid_argument("bus attitude filter: the noises must be >= 0 (the star tracker's > 0), history >= 0");
  }
  anchor_.Q_WB.normalize();
}

const BusAttitudeEstimate& BusAttitudeFilter::posterior() const {
  return nodes_.empty() ? anchor_ : nodes_.back().posterior;
}

BusAttitudeEstimate BusAttitudeFilter::estimate(double t) const {
  BusAttitudeEstimate e = posterior();
  predictBus(settings_, e, held_, t - e.time);
  return e;
}

double BusAttitudeFilter::apply(const Node& n, BusAttitudeEstimate& e, Vector3& held) const {
  predictBus(settings_, e, held, n.time() - e.time);
  if (!n.star) {
    held = n.gyro.rate;
    return 0;
  }
  return updateBus(settings_, e, n.tracker.Q_WB);
}

void BusAttitudeFilter::addGyro(const GyroSample& g) {
  if (g.time < posterior().time) throw std::logic_error("BusAttitudeFilter::addGyro: samples must come in time order");
  Node n;
  n.gyro = g;
  n.posterior = posterior();
  n.held = held_;
  apply(n, n.posterior, n.held);
  held_ = n.held;
  nodes_.push_back(n);
  trim();
}

bool BusAttitudeFilter::addStarTracker(const StarTrackerSample& m) {
  if (m.time < anchor_.time || m.time > posterior().time) return false;
  // After every node of its time or earlier.
  std::size_t i = nodes_.size();
  while (i > 0 && nodes_[i - 1].time() > m.time) --i;
  Node n;
  n.star = true;
  n.tracker = m;
  nodes_.insert(nodes_.begin() + static_cast<std::ptrdiff_t>(i), n);
  BusAttitudeEstimate e = i == 0 ? anchor_ : nodes_[i - 1].posterior;
  Vector3 held = i == 0 ? anchor_held_ : nodes_[i - 1].held;
  for (std::size_t j = i; j < nodes_.size(); ++j) {
    const double nis = apply(nodes_[j], e, held);
    if (j == i) nis_ = nis;
    nodes_[j].posterior = e;
    nodes_[j].held = held;
  }
  held_ = held;
  ++stars_;
  trim();
  return true;
}

void BusAttitudeFilter::trim() {
  const double oldest = nodes_.back().time() - settings_.history;
  while (nodes_.size() > 1 && nodes_.front().time() < oldest) {
    anchor_ = nodes_.front().posterior;
    anchor_held_ = nodes_.front().held;
    nodes_.pop_front();
  }
}

}  // namespace grapple::core
