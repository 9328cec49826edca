#include "core/estimation/debris_filter.hpp"

#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>

#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

Vector3 eulerRate(const DebrisProperties& p, const Vector3& w) {
  return -p.inertia.ldlt().solve(w.cross(p.inertia * w));
}

// Φ of one RK4 step h from the rate w: RK4 on Φ̇ = F(ω(t)) Φ with ω at the stages of the RK4 step
// of Euler's equations (which do not depend on the rest of the state).
Matrix12 stepTransition(const DebrisProperties& p, const Vector3& w, double h) {
  const Vector3 k1 = eulerRate(p, w);
  const Vector3 w2 = w + 0.5 * h * k1;
  const Vector3 k2 = eulerRate(p, w2);
  const Vector3 w3 = w + 0.5 * h * k2;
  const Vector3 k3 = eulerRate(p, w3);
  const Vector3 w4 = w + h * k3;
  const Matrix12 F1 = debrisErrorDynamics(p, w), F2 = debrisErrorDynamics(p, w2), F3 = debrisErrorDynamics(p, w3),
                 F4 = debrisErrorDynamics(p, w4);
  const Matrix12 K1 = F1;
  const Matrix12 K2 = F2 * (Matrix12::Identity() + 0.5 * h * K1);
  const Matrix12 K3 = F3 * (Matrix12::Identity() + 0.5 * h * K2);
  const Matrix12 K4 = F4 * (Matrix12::Identity() + h * K3);
  return Matrix12::Identity() + h / 6 * (K1 + 2 * K2 + 2 * K3 + K4);
}

int substeps(double span, double step) {
  return std::max(1, static_cast<int>(std::ceil(span / step - 1e-9)));
}

}  // namespace

DebrisState boxPlus(const DebrisState& s, const Vector12& dx) {
  DebrisState r;
  r.r_W = s.r_W + dx.segment<3>(0);
  r.v_W = s.v_W + dx.segment<3>(3);
  r.Q_WB = quatMultiply(s.Q_WB, quatExp(dx.segment<3>(6))).normalized();
  r.w_B = s.w_B + dx.segment<3>(9);
  return r;
}

Vector12 boxMinus(const DebrisState& truth, const DebrisState& estimate) {
  Vector12 d;
  d << truth.r_W - estimate.r_W, truth.v_W - estimate.v_W,
      quatLog(quatMultiply(quatConjugate(estimate.Q_WB.normalized()), truth.Q_WB.normalized())),
      truth.w_B - estimate.w_B;
  return d;
}

Matrix12 debrisErrorDynamics(const DebrisProperties& p, const Vector3& w) {
  Matrix12 F = Matrix12::Zero();
  F.block<3, 3>(0, 3).setIdentity();
  F.block<3, 3>(6, 6) = -skew(w);
  F.block<3, 3>(6, 9).setIdentity();
  F.block<3, 3>(9, 9) = p.inertia.ldlt().solve(skew(p.inertia * w) - skew(w) * p.inertia);
  return F;
}

Matrix12 debrisTransition(const DebrisProperties& p, const DebrisFilterSettings& s, const DebrisState& state,
                          double dt) {
  const int n = substeps(std::abs(dt), s.step);
  const double h = dt / n;
  Matrix12 Phi = Matrix12::Identity();
  DebrisState x = state;
  for (int k = 0; k < n; ++k) {
    Phi = stepTransition(p, x.w_B, h) * Phi;
    x = stepDebris(p, x, h);
  }
  return Phi;
}

void predictDebris(const DebrisProperties& p, const DebrisFilterSettings& s, DebrisEstimate& e, double t) {
  if (t < e.time) throw std::logic_error("predictDebris: cannot predict backwards in time");
  if (t == e.time) return;
  const int n = substeps(t - e.time, s.step);
  const double h = (t - e.time) / n;
  Matrix12 Qc = Matrix12::Zero();
  Qc.block<3, 3>(3, 3).diagonal().setConstant(s.accel_noise * s.accel_noise);
  Qc.block<3, 3>(9, 9).diagonal().setConstant(s.angular_accel_noise * s.angular_accel_noise);
  for (int k = 0; k < n; ++k) {
    const Matrix12 Phi = stepTransition(p, e.state.w_B, h);
    e.state = stepDebris(p, e.state, h);
    e.state.Q_WB.normalize();
    // Process noise over the step by the trapezoidal rule on ∫ Φ Qc Φᵀ.
    e.P = Phi * e.P * Phi.transpose() + 0.5 * h * (Phi * Qc * Phi.transpose() + Qc);
  }
  e.P = 0.5 * (e.P + e.P.transpose());
  e.time = t;
}

Eigen::VectorXd cameraResidual(const DebrisProperties& p, const CameraSettings& c, const DebrisState& state,
                               const CameraMeasurement& m) {
  const Vector3 p_W = state.r_W + quatToMatrix(state.Q_WB) * p.target_B;
  const Vector3 p_C = m.X_WC.R.transpose() * (p_W - m.X_WC.p);
  Eigen::VectorXd y(c.measuresAttitude() ? 6 : 3);
  y.head<3>() = m.uvz - projectPinhole(c, p_C);
  if (c.measuresAttitude()) {
    const Vector4 Q_CB = quatMultiply(matrixToQuat(m.X_WC.R.transpose()), state.Q_WB.normalized());
    y.tail<3>() = quatLog(quatMultiply(quatConjugate(Q_CB), m.Q_CB));
  }
  return y;
}

Eigen::MatrixXd cameraJacobian(const DebrisProperties& p, const CameraSettings& c, const DebrisState& state,
                               const CameraMeasurement& m) {
  const Matrix3 R = quatToMatrix(state.Q_WB);
  const Matrix3 R_CW = m.X_WC.R.transpose();
  const Vector3 p_C = R_CW * (state.r_W + R * p.target_B - m.X_WC.p);
  const double k = c.focal_length / c.pixel_size, z = p_C.z();
  Matrix3 D;  // ∂[u v z]/∂p_C
  D << k / z, 0, -k * p_C.x() / (z * z), 0, k / z, -k * p_C.y() / (z * z), 0, 0, 1;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(c.measuresAttitude() ? 6 : 3, 12);
  H.block<3, 3>(0, 0) = D * R_CW;
  H.block<3, 3>(0, 6) = -D * R_CW * R * skew(p.target_B);
  if (c.measuresAttitude()) H.block<3, 3>(3, 6).setIdentity();
  return H;
}

DebrisFilter::DebrisFilter(const DebrisProperties& model, const CameraSettings& camera,
                           const DebrisFilterSettings& settings, const DebrisEstimate& prior)
    : model_(model), camera_(camera), settings_(settings), anchor_(prior) {
  checkDebrisProperties(model_);
  checkCameraSettings(camera_);
  if (!(settings_.step > 0) || !(settings_.history >= 0) || !(settings_.accel_noise >= 0) ||
      !(settings_.angular_accel_noise >= 0)) {
    throw std::invalid_argument("debris filter: step must be > 0, history and the noises >= 0");
  }
  anchor_.state.Q_WB.normalize();
}

const DebrisEstimate& DebrisFilter::posterior() const {
  return nodes_.empty() ? anchor_ : nodes_.back().posterior;
}

double DebrisFilter::update(DebrisEstimate& e, const CameraMeasurement& m) const {
  predictDebris(model_, settings_, e, m.time);
  const Eigen::VectorXd y = cameraResidual(model_, camera_, e.state, m);
  const Eigen::MatrixXd H = cameraJacobian(model_, camera_, e.state, m);
  Eigen::VectorXd r(y.size());
  r.head<3>() << camera_.pixel_noise, camera_.pixel_noise, camera_.depth_noise;
  if (y.size() == 6) r.tail<3>().setConstant(camera_.attitude_noise_deg * M_PI / 180);
  const Eigen::MatrixXd Rm = r.cwiseAbs2().asDiagonal();
  const Eigen::MatrixXd S = H * e.P * H.transpose() + Rm;
  const Eigen::LDLT<Eigen::MatrixXd> S_ldlt(S);
  const Eigen::MatrixXd K = S_ldlt.solve(H * e.P).transpose();  // P Hᵀ S⁻¹ (P, S symmetric)
  const Vector12 dx = K * y;
  e.state = boxPlus(e.state, dx);
  const Matrix12 A = Matrix12::Identity() - K * H;
  e.P = A * e.P * A.transpose() + K * Rm * K.transpose();  // Joseph form
  e.P = 0.5 * (e.P + e.P.transpose());
  return y.dot(S_ldlt.solve(y));
}

bool DebrisFilter::addMeasurement(const CameraMeasurement& m) {
  if (m.time < anchor_.time) return false;
  std::size_t i = nodes_.size();
  while (i > 0 && nodes_[i - 1].m.time > m.time) --i;
  nodes_.insert(nodes_.begin() + static_cast<std::ptrdiff_t>(i), Node{m, {}});
  DebrisEstimate e = i == 0 ? anchor_ : nodes_[i - 1].posterior;
  for (std::size_t j = i; j < nodes_.size(); ++j) {
    const double nis = update(e, nodes_[j].m);
    if (j == i) nis_ = nis;
    nodes_[j].posterior = e;
  }
  ++count_;
  const double oldest = nodes_.back().m.time - settings_.history;
  while (nodes_.size() > 1 && nodes_.front().m.time < oldest) {
    anchor_ = nodes_.front().posterior;
    nodes_.pop_front();
  }
  return true;
}

DebrisEstimate DebrisFilter::estimate(double t) const {
  DebrisEstimate e = posterior();
  predictDebris(model_, settings_, e, t);
  return e;
}

DebrisState DebrisFilter::predictState(double t) const {
  return propagateDebris(model_, settings_, posterior().state, t - posterior().time);
}

DebrisState propagateDebris(const DebrisProperties& p, const DebrisFilterSettings& s, const DebrisState& state,
                            double dt) {
  if (dt < 0) throw std::logic_error("propagateDebris: cannot predict backwards in time");
  const int n = dt > 0 ? substeps(dt, s.step) : 0;
  DebrisState x = state;
  for (int k = 0; k < n; ++k) {
    x = stepDebris(p, x, dt / n);
    x.Q_WB.normalize();
  }
  return x;
}

}  // namespace grapple::core
