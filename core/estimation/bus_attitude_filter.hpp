// The bus' attitude and gyro bias from a gyro and a star tracker: the classic multiplicative EKF
// (Lefferts, Markley & Shuster 1982; Markley & Crassidis 2014, §6.2.1-6.2.4), the gyro driving the
// prediction and the star tracker correcting it.
//
// Gyro model (Farrenkopf; Markley & Crassidis §4.9, eq. 4.31): ω_m = ω + b + η_v, ḃ = η_u, η_v and
// η_u white with spectral densities σ_v² (angle random walk) and σ_u² (bias random walk).
// Estimate: Q̂ (bus -> inertial) and b̂; rate ω̂ = ω_m - b̂.
// Error state δx = [δθ δb] (6): Q = Q̂ ⊗ exp(δθ) (δθ in bus axes, as the debris filter's), b = b̂ + δb.
// Its dynamics δθ̇ = -[ω̂×] δθ - δb - η_v, δḃ = η_u; over a gyro interval Δt with ω̂ held the
// transition is the closed form of Markley & Crassidis eq. 6.83 for this (right-error) convention,
//   Φ11 = exp(-[ω̂×] Δt),  Φ12 = -(I Δt - [ω̂×](1 - cos ωΔt)/ω² + [ω̂×]²(ωΔt - sin ωΔt)/ω³),
// (ω = |ω̂|; Φ12 = -J_r(ω̂Δt) Δt, J_r the right Jacobian of SO(3)) and the process noise that of
// eq. 6.93, Q11 = (σ_v² Δt + σ_u² Δt³/3) I, Q12 = -σ_u² Δt²/2 I, Q22 = σ_u² Δt I.
// The mean: Q̂ ← Q̂ ⊗ exp(ω̂ Δt) (exact for the held rate), b̂ unchanged.
// Star tracker: Q_m = Q ⊗ exp(ν) (ν in bus axes, σ per axis): residual y = log(Q̂⁻¹ ⊗ Q_m) ≈ δθ + ν,
// H = [I 0]; the update δx̂ = K y moves Q̂ ← Q̂ ⊗ exp(δθ̂), b̂ ← b̂ + δb̂ (the reset of §6.2.3),
// covariance in Joseph form.
//
// Delay: each star-tracker measurement is applied at its time, not when it arrives. The filter
// keeps the gyro samples and star-tracker measurements of the last `history` seconds in time
// order with the posterior after each; a late measurement is inserted in its place and everything
// after it re-applied (re-propagated through the same gyro samples), as the debris filter does.
// The newest estimate is then exactly what a filter without the delay would hold.
#pragma once

#include <deque>

#include <Eigen/Core>

#include "core/math/spatial.hpp"

namespace grapple::core {

struct BusAttitudeFilterSettings {
  double arw = 2.04e-5;       // [rad/√s] σ_v, the gyro's angle random walk
  double bias_walk = 8.1e-8;  // [rad/s^1.5] σ_u, its bias random walk
  Vector3 star_noise = Vector3::Constant(2.42e-5);  // [rad] σ per bus axis of the star tracker
  double history = 2.0;       // [s] kept behind the newest sample, to insert late measurements
};

struct BusAttitudeEstimate {
  double time = 0;                     // [s]
  Vector4 Q_WB = Vector4(1, 0, 0, 0);  // bus -> inertial
  Vector3 bias = Vector3::Zero();      // [rad/s] gyro bias, bus axes
  Matrix6 P = Matrix6::Identity();     // covariance of [δθ δb]
};

struct GyroSample {
  double time = 0;                 // [s] when it was taken
  Vector3 rate = Vector3::Zero();  // [rad/s] measured, bus axes
};

struct StarTrackerSample {
  double time = 0;                     // [s] when it was taken
  Vector4 Q_WB = Vector4(1, 0, 0, 0);  // measured attitude
};

// [δθ δb] = truth ⊟ estimate (δθ = log(Q̂⁻¹ ⊗ Q)) and its inverse.
Vector6 busBoxMinus(const Vector4& Q_true, const Vector3& b_true, const BusAttitudeEstimate& e);
void busBoxPlus(BusAttitudeEstimate& e, const Vector6& dx);
// The transition Φ(Δt) of [δθ δb] for the rate ω̂ held (eq. 6.83 above) and the process noise Q_d.
Matrix6 busTransition(const Vector3& w_hat, double dt);
Matrix6 busProcessNoise(const BusAttitudeFilterSettings& s, double dt);
// The estimate predicted dt >= 0 ahead with the gyro reading `rate` held.
void predictBus(const BusAttitudeFilterSettings& s, BusAttitudeEstimate& e, const Vector3& rate, double dt);
// A star-tracker update of e (at the measurement's time); returns the NIS yᵀ S⁻¹ y.
double updateBus(const BusAttitudeFilterSettings& s, BusAttitudeEstimate& e, const Vector4& Q_measured);

class BusAttitudeFilter {
 public:
  BusAttitudeFilter(const BusAttitudeFilterSettings& settings, const BusAttitudeEstimate& prior);

  // A gyro sample (times increasing): the estimate propagated to its time with the previous one
  // held; from then on the rate held is this one's.
  void addGyro(const GyroSample& g);
  // A star-tracker measurement applied at its time (which may be behind the newest gyro sample).
  // Returns false (and ignores it) when it is older than the history kept or ahead of the newest
  // gyro sample.
  bool addStarTracker(const StarTrackerSample& m);
  // The posterior at the newest sample, and the estimate predicted from it to t >= its time.
  const BusAttitudeEstimate& posterior() const;
  BusAttitudeEstimate estimate(double t) const;
  // The bus' rate as estimated: the newest gyro reading minus the bias estimate [rad/s].
  Vector3 rate() const { return held_ - posterior().bias; }
  double lastNis() const { return nis_; }
  int starMeasurements() const { return stars_; }
  const BusAttitudeFilterSettings& settings() const { return settings_; }

 private:
  struct Node {
    bool star = false;
    GyroSample gyro;            // a gyro sample (star == false)
    StarTrackerSample tracker;  // a star-tracker measurement (star == true)
    double time() const { return star ? tracker.time : gyro.time; }
    BusAttitudeEstimate posterior;
    Vector3 held = Vector3::Zero();  // the gyro reading held after this node
  };
  // Node i applied to the estimate e holding `held` (e.time <= node's time).
  double apply(const Node& n, BusAttitudeEstimate& e, Vector3& held) const;
  void trim();

  BusAttitudeFilterSettings settings_;
  BusAttitudeEstimate anchor_;  // the posterior before the oldest node kept ...
  Vector3 anchor_held_ = Vector3::Zero();  // ... and the gyro reading held there
  std::deque<Node> nodes_;      // by time (a star measurement after a gyro sample of the same time)
  Vector3 held_ = Vector3::Zero();
  double nis_ = 0;
  int stars_ = 0;
};

}  // namespace grapple::core
