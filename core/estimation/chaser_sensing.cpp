#include "core/estimation/chaser_sensing.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

constexpr double kArcsec = M_PI / (180 * 3600);  // [rad]
constexpr double kDegH = M_PI / (180 * 3600);     // [rad/s] per °/h
constexpr double kDeg = 180 / M_PI;
constexpr double kArrival = 1e-9;                 // [s] a sample arrives at a tick this close after it

// The noise streams of the chaser's sensors (each sensor's seed; streams apart from the camera's 0, 1).
enum Stream : std::uint32_t {
  kEncoderNoise = 10,
  kEncoderOffset = 11,
  kGyroNoise = 20,
  kGyroBiasWalk = 21,
  kGyroInitialBias = 22,
  kFilterPrior = 23,
  kStarNoise = 30,
};

Vector3 vec(const std::array<double, 3>& a) { return {a[0], a[1], a[2]}; }

Vector3 normals(campaign::RandomStream& rng) {
  Vector3 n;
  for (int k = 0; k < 3; ++k) n[k] = rng.normal();
  return n;
}

long divisorOrThrow(double control_rate, double rate, const char* what) {
  const long k = samplingDivisor(control_rate, rate);
  if (k == 0) {
    throw std::invalid_argument(std::string(what) + ".rate: " + std::to_string(rate) + " Hz is not the control rate " +
                                std::to_string(control_rate) + " Hz divided by a whole number");
  }
  return k;
}

}  // namespace

long samplingDivisor(double control_rate, double rate) {
  if (!(control_rate > 0) || !(rate >= 0) || !std::isfinite(rate)) return 0;
  if (rate == 0) return 1;
  const double k = std::round(control_rate / rate);
  if (k < 1 || std::abs(k * rate - control_rate) > 1e-9 * control_rate) return 0;
  return static_cast<long>(k);
}

BusAttitudeFilterSettings GyroSpec::filterSettings(const StarTrackerSpec* tracker) const {
  BusAttitudeFilterSettings s;
  s.arw = arw_deg_sqrt_h * M_PI / 180 / 60;
  s.bias_walk = bias_walk_deg_h_sqrt_h * kDegH / 60;
  if (tracker) s.star_noise = vec(tracker->noise_arcsec) * kArcsec;
  s.history = history;
  return s;
}

ChaserSensing::ChaserSensing(const Model& model, const ChaserSensorsSpec& spec, double control_rate,
                             const Eigen::VectorXd& q0)
    : spec_(spec), q_(q0), v_(Eigen::VectorXd::Zero(model.nv)) {
  if (spec_.encoders) {
    const EncoderSpec& e = *spec_.encoders;
    if (!(e.bits_per_turn >= 1 && e.bits_per_turn <= 40) || !(e.linear_resolution > 0) || !(e.noise >= 0) ||
        !(e.bias_sigma >= 0) || !(e.rate_window >= 1) || !(e.delay >= 0)) {
      throw std::invalid_argument("sensors.encoders: bits_per_turn in [1, 40], linear_resolution > 0, noise, "
                                  "bias_sigma, delay >= 0, rate_window >= 1 expected");
    }
    enc_every_ = divisorOrThrow(control_rate, e.rate, "sensors.encoders");
    std::vector<double> quanta;
    for (int i = 1; i < model.nbodies; ++i) {
      const Joint& j = model.joint[i];
      if (j.nq != 1 || j.nv != 1 || (j.type != JointType::kRevolute && j.type != JointType::kPrismatic)) continue;
      enc_q_.push_back(j.idx_q);
      enc_v_.push_back(j.idx_v);
      quanta.push_back(j.type == JointType::kRevolute ? 2 * M_PI / std::ldexp(1.0, e.bits_per_turn) : e.linear_resolution);
    }
    quantum_ = Eigen::Map<Eigen::VectorXd>(quanta.data(), static_cast<Eigen::Index>(quanta.size()));
    campaign::RandomStream offsets(e.seed, 0, kEncoderOffset);
    offset_.resize(quantum_.size());
    for (Eigen::Index k = 0; k < offset_.size(); ++k) offset_[k] = e.bias_sigma * offsets.normal();
    enc_noise_.emplace(e.seed, 0, kEncoderNoise);
  }
  if (spec_.star_tracker && !spec_.gyro) {
    throw std::invalid_argument("sensors.star_tracker: needs sensors.gyro (the attitude filter propagates with it)");
  }
  if (spec_.gyro) {
    if (!model.hasFreeBase()) throw std::invalid_argument("sensors.gyro: the chaser's base is fixed");
    const GyroSpec& g = *spec_.gyro;
    if (!(g.arw_deg_sqrt_h >= 0) || !(g.bias_walk_deg_h_sqrt_h >= 0) || !(g.bias_sigma_deg_h >= 0) ||
        !(g.prior_attitude_arcsec > 0) || !(g.delay >= 0) || !(g.history >= 0)) {
      throw std::invalid_argument("sensors.gyro: noises, delay and history >= 0, prior_attitude_arcsec > 0 expected");
    }
    gyro_every_ = divisorOrThrow(control_rate, g.rate, "sensors.gyro");
    gyro_dt_ = gyro_every_ / control_rate;
    const StarTrackerSpec* st = spec_.star_tracker ? &*spec_.star_tracker : nullptr;
    if (st) {
      if (!(vec(st->noise_arcsec).minCoeff() > 0) || !(st->delay >= 0) || !vec(st->bias_arcsec).allFinite()) {
        throw std::invalid_argument("sensors.star_tracker: noise_arcsec > 0, delay >= 0 expected");
      }
      star_every_ = divisorOrThrow(control_rate, st->rate, "sensors.star_tracker");
      star_bias_ = quatExp(vec(st->bias_arcsec) * kArcsec);
      star_noise_.emplace(st->seed, 0, kStarNoise);
    }
    // The prior: the truth's initial bias drawn from it, the attitude estimate's error too.
    campaign::RandomStream bias0(g.seed, 0, kGyroInitialBias), prior(g.seed, 0, kFilterPrior);
    const double sb = g.bias_sigma_deg_h * kDegH, sa = g.prior_attitude_arcsec * kArcsec;
    bias_ = sb * normals(bias0);
    BusAttitudeEstimate e;
    e.Q_WB = quatMultiply(Vector4(q0.segment<4>(3)).normalized(), quatExp(-sa * normals(prior)));
    e.P.setZero();
    e.P.topLeftCorner<3, 3>().diagonal().setConstant(sa * sa);
    e.P.bottomRightCorner<3, 3>().diagonal().setConstant(sb * sb);
    filter_.emplace(g.filterSettings(st), e);
    gyro_noise_.emplace(g.seed, 0, kGyroNoise);
    bias_noise_.emplace(g.seed, 0, kGyroBiasWalk);
  }
}

void ChaserSensing::sample(long tick, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  tick_time_ = t;
  q_ = q;
  v_ = v;
  if (spec_.encoders) sampleEncoders(tick, t, q);
  if (filter_) sampleBus(tick, t, q, v);
}

void ChaserSensing::sampleEncoders(long tick, double t, const Eigen::VectorXd& q) {
  const EncoderSpec& e = *spec_.encoders;
  const Eigen::Index n = quantum_.size();
  if (tick % enc_every_ == 0) {
    Timed s;
    s.time = t;
    s.arrival = tick == 0 ? t : t + e.delay;
    s.values.resize(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      const double raw = q[enc_q_[k]] + offset_[k] + e.noise * enc_noise_->normal();
      s.values[k] = quantum_[k] * std::round(raw / quantum_[k]);
    }
    enc_flight_.push_back(std::move(s));
  }
  while (!enc_flight_.empty() && enc_flight_.front().arrival <= t + kArrival) {
    enc_arrived_.push_back(std::move(enc_flight_.front()));
    enc_flight_.pop_front();
    if (static_cast<int>(enc_arrived_.size()) > e.rate_window + 1) enc_arrived_.pop_front();
  }
  if (enc_arrived_.empty()) return;  // (not before the first arrival: the samples of t = 0 come at once)
  const Timed& newest = enc_arrived_.back();
  const Timed& oldest = enc_arrived_.front();
  for (Eigen::Index k = 0; k < n; ++k) {
    q_[enc_q_[k]] = newest.values[k];
    v_[enc_v_[k]] = enc_arrived_.size() < 2 ? 0.0 : (newest.values[k] - oldest.values[k]) / (newest.time - oldest.time);
  }
}

void ChaserSensing::sampleBus(long tick, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const GyroSpec& g = *spec_.gyro;
  const Vector4 Q_true = Vector4(q.segment<4>(3)).normalized();
  if (tick % gyro_every_ == 0) {
    const BusAttitudeFilterSettings& fs = filter_->settings();
    Timed s;
    s.time = t;
    s.arrival = tick == 0 ? t : t + g.delay;
    bias_ += fs.bias_walk * std::sqrt(gyro_dt_) * normals(*bias_noise_);
    s.rate = v.segment<3>(3) + bias_ + fs.arw / std::sqrt(gyro_dt_) * normals(*gyro_noise_);
    gyro_flight_.push_back(s);
  }
  if (spec_.star_tracker && tick % star_every_ == 0) {
    const StarTrackerSpec& st = *spec_.star_tracker;
    Timed s;
    s.time = t;
    s.arrival = tick == 0 ? t : t + st.delay;
    const Vector3 nu = (vec(st.noise_arcsec) * kArcsec).cwiseProduct(normals(*star_noise_));
    s.Q = quatMultiply(quatMultiply(Q_true, star_bias_), quatExp(nu));
    star_flight_.push_back(s);
  }
  while (!gyro_flight_.empty() && gyro_flight_.front().arrival <= t + kArrival) {
    filter_->addGyro({gyro_flight_.front().time, gyro_flight_.front().rate});
    gyro_flight_.pop_front();
  }
  // A star-tracker measurement waits for the gyro samples up to its time (a gyro slower to arrive).
  while (!star_flight_.empty() && star_flight_.front().arrival <= t + kArrival &&
         star_flight_.front().time <= filter_->posterior().time) {
    filter_->addStarTracker({star_flight_.front().time, star_flight_.front().Q});
    star_flight_.pop_front();
  }
  q_.segment<4>(3) = filter_->estimate(t).Q_WB;
  v_.segment<3>(3) = filter_->rate();
}

ChaserSensing::Report ChaserSensing::report(const Eigen::VectorXd& q, const Eigen::VectorXd& v) const {
  Report r;
  if (filter_) {
    const BusAttitudeEstimate e = filter_->estimate(tick_time_);
    const Vector6 d = busBoxMinus(q.segment<4>(3), bias_, e);
    r.attitude_error = d.head<3>().norm() * kDeg;
    r.attitude_sigma3 = 3 * std::sqrt(e.P.topLeftCorner<3, 3>().trace()) * kDeg;
    r.bias_error = d.tail<3>().norm() / kDegH;
    r.bias_sigma3 = 3 * std::sqrt(e.P.bottomRightCorner<3, 3>().trace()) / kDegH;
    r.rate_error = (v_.segment<3>(3) - v.segment<3>(3)).norm() * kDeg;
  }
  if (spec_.encoders) {
    r.joint_error = r.joint_rate_error = 0;
    for (std::size_t k = 0; k < enc_q_.size(); ++k) {
      r.joint_error = std::max(r.joint_error, std::abs(q_[enc_q_[k]] - q[enc_q_[k]]));
      r.joint_rate_error = std::max(r.joint_rate_error, std::abs(v_[enc_v_[k]] - v[enc_v_[k]]));
    }
  }
  return r;
}

}  // namespace grapple::core
