// The chaser as it knows itself: joint encoders, a gyro and a star tracker on the bus, and the bus
// attitude filter (estimation/bus_attitude_filter) that turns the last two into the bus' attitude
// and rate. The controllers see q, v built from them: the 1-DOF joints' positions from the
// encoders and their rates by a backward difference of the encoder samples, the bus attitude from
// the filter and its rate as the gyro reading minus the estimated bias. The bus' position and
// velocity and the flexible modes stay the truth (no relative-navigation or strain sensor here),
// as do the joints with more than one coordinate.
//
// Timing: the sensors sample at control instants (the simulation needs run.control_rate > 0): a
// sensor's rate is the control rate divided by a whole number k, it samples at every k-th
// control instant from t = 0. A sample taken at t arrives at t + delay and is used from the first
// control instant at or after its arrival (the on-board software reads its inputs at its ticks);
// the samples of t = 0 are available at once (the sensors ran before the start, the chaser at
// rest in its initial state).
//
// Noise: every number comes from counter-based streams of each sensor's seed (campaign/random),
// a fixed count per sample, so a seed gives a bit-identical run.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "core/campaign/random.hpp"
#include "core/estimation/bus_attitude_filter.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

// Joint encoders (every 1-DOF revolute or prismatic joint). A sample is the true position plus a
// constant offset (drawn once per joint, σ bias_sigma) plus white noise (σ noise), quantized to
// the encoder's quantum (rounded): 2π / 2^bits_per_turn for a revolute joint, linear_resolution
// for a prismatic one. Joint rates: (θ_k - θ_{k-n}) / (t_k - t_{k-n}) over the last n =
// rate_window samples arrived (a lag of n/2 samples, a quantization noise of quantum / (n Δt));
// 0 until a second sample has arrived.
struct EncoderSpec {
  double rate = 0;                 // [Hz] 0: the control rate
  double delay = 0;                // [s]
  int bits_per_turn = 20;          // revolute joints' resolution (ours: a 20-bit absolute encoder
                                   //   on the joint's output, 6 µrad = 1.2 arcsec; such encoders
                                   //   are made with 17 to 32 bits per turn)
  double linear_resolution = 1e-6; // [m] prismatic joints' (a 1 µm linear scale)
  double noise = 5e-6;             // [rad or m] σ of the white noise before quantization (ours: of
                                   //   the order of the quantum)
  double bias_sigma = 0;           // [rad or m] σ of each joint's constant offset (0: calibrated)
  int rate_window = 1;             // samples the rate's backward difference spans
  std::uint64_t seed = 1;
};

// Star tracker: the bus attitude Q_m = Q ⊗ exp(bias) ⊗ exp(ν), ν white with σ per bus axis.
// Defaults: 5 arcsec across the boresight and 40 about it (a tracker looking along the bus' z;
// typical of current trackers, whose roll error is several times their cross-boresight error),
// 10 Hz, 0.1 s from the exposure to its use (ours).
struct StarTrackerSpec {
  double rate = 10;                                  // [Hz]
  double delay = 0.1;                                // [s]
  // (Plain arrays: a Scenario stays cheap to copy.)
  std::array<double, 3> noise_arcsec{5, 5, 40};      // [arcsec] σ per bus axis
  std::array<double, 3> bias_arcsec{0, 0, 0};        // [arcsec] constant misalignment, bus axes
  std::uint64_t seed = 1;
};

// Gyro (rate-integrating, three axes on the bus): ω_m = ω + b + η_v, ḃ = η_u (Farrenkopf's model),
// sampled: b_k = b_{k-1} + σ_u √Δt n', ω_m,k = ω(t_k) + b_k + σ_v/√Δt n. Defaults: a tactical-grade
// fibre-optic gyro of the Northrop Grumman LN-200S class (data sheet: angle random walk
// 0.07 °/√h, bias repeatability 1 °/h: the initial bias' σ); the bias random walk 0.1 °/h/√h is
// ours (the bias wanders 0.1 °/h in an hour). A MEMS unit is some ten times worse in both.
struct GyroSpec {
  double rate = 0;                   // [Hz] 0: the control rate
  double delay = 0;                  // [s]
  double arw_deg_sqrt_h = 0.07;      // [°/√h] σ_v
  double bias_walk_deg_h_sqrt_h = 0.1;  // [°/h/√h] σ_u
  double bias_sigma_deg_h = 1;       // [°/h] σ of the initial bias per axis (drawn; the filter's prior)
  double prior_attitude_arcsec = 60; // [arcsec] σ per axis of the filter's initial attitude error (drawn)
  double history = 2;                // [s] the filter's history for late star-tracker measurements
  std::uint64_t seed = 1;
  BusAttitudeFilterSettings filterSettings(const StarTrackerSpec* tracker) const;
};

struct ChaserSensorsSpec {
  std::optional<EncoderSpec> encoders;
  std::optional<StarTrackerSpec> star_tracker;  // needs the gyro (the filter propagates with it)
  std::optional<GyroSpec> gyro;
  bool any() const { return encoders || star_tracker || gyro; }
};

// The k of a sensor's rate = control_rate / k (rate 0: k = 1), or 0 when the rate is not the
// control rate divided by a whole number.
long samplingDivisor(double control_rate, double rate);

class ChaserSensing {
 public:
  // control_rate > 0; q0, v0: the initial truth. The bus sensors need a floating base.
  ChaserSensing(const Model& model, const ChaserSensorsSpec& spec, double control_rate, const Eigen::VectorXd& q0);

  // At the control instant `tick` (t = tick / control_rate): the samples due taken of the true q, v,
  // those that have arrived applied; q() and v() then hold what the controllers see.
  void sample(long tick, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  const Eigen::VectorXd& q() const { return q_; }
  const Eigen::VectorXd& v() const { return v_; }

  // What the channels show at the last control instant against the truth (q, v): the bus attitude
  // estimate's error angle and 3 √(trace P_θθ) [deg], the bias' error and its bound [°/h], the
  // rate's error [deg/s], the encoders' largest position and rate errors [rad or m, /s]. NaN when
  // the sensor is absent.
  struct Report {
    double attitude_error = NAN, attitude_sigma3 = NAN;
    double bias_error = NAN, bias_sigma3 = NAN;
    double rate_error = NAN;
    double joint_error = NAN, joint_rate_error = NAN;
  };
  Report report(const Eigen::VectorXd& q, const Eigen::VectorXd& v) const;
  const BusAttitudeFilter* filter() const { return filter_ ? &*filter_ : nullptr; }
  const Vector3& gyroBias() const { return bias_; }  // the true bias now [rad/s]

 private:
  struct Timed {
    double time = 0, arrival = 0;
    Eigen::VectorXd values;  // encoders: one per encoded coordinate
    Vector4 Q = Vector4(1, 0, 0, 0);
    Vector3 rate = Vector3::Zero();
  };
  void sampleEncoders(long tick, double t, const Eigen::VectorXd& q);
  void sampleBus(long tick, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

  ChaserSensorsSpec spec_;
  Eigen::VectorXd q_, v_;
  double tick_time_ = 0;  // [s] the last control instant's
  // Encoders: the coordinates (q and v indices), their quanta and offsets, the samples.
  std::vector<int> enc_q_, enc_v_;
  Eigen::VectorXd quantum_, offset_;
  long enc_every_ = 1;
  std::deque<Timed> enc_flight_, enc_arrived_;  // taken, not arrived; arrived (the last rate_window + 1)
  std::optional<campaign::RandomStream> enc_noise_;
  // The bus: gyro, star tracker, filter.
  long gyro_every_ = 1, star_every_ = 1;
  double gyro_dt_ = 0;                 // [s] the gyro's sampling interval
  Vector3 bias_ = Vector3::Zero();     // the gyro's true bias [rad/s]
  Vector4 star_bias_ = Vector4(1, 0, 0, 0);
  std::deque<Timed> gyro_flight_, star_flight_;
  std::optional<campaign::RandomStream> gyro_noise_, bias_noise_, star_noise_;
  std::optional<BusAttitudeFilter> filter_;
};

}  // namespace grapple::core
