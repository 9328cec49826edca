// The rate term of a PD law through a first-order low-pass filter, with the gains compensated for
// the filter's lag.
//
// A PD law on a double integrator, ë = -kp e - kd ė (the computed-torque laws' error dynamics:
// the bus attitude, the joint paths, the hand's Cartesian error), passes the noise of the
// measured rate ė straight into the acceleration asked, so into the torques: kd times the rate's
// noise, at every control instant. Filtering the derivative term, kd ė / (1 + τ s), bounds that
// noise's bandwidth (the derivative filter of a PD/PID law: Åström & Murray, Feedback Systems,
// 2008, §10.5 "Filtering the derivative"); its lag alone would move the closed loop's poles
// (less damping). Here the gains are recomputed so that the closed loop keeps the designed
// poles exactly and gains a third, real one: with kp' and kd' applied, the loop
//   ë = -kp' e - kd' ė_f,  τ ė_f' + ė_f = ė
// has the characteristic polynomial τ s³ + s² + (kd' + kp' τ) s + kp', which equals
// τ (s² + kd s + kp)(s + p) (pole placement) for
//   p = 1/τ - kd,   kp' = kp (1 - kd τ),   kd' = kd (1 - kd τ + kp τ²),
// which needs kd τ < 1 (p > 0, kp' > 0). The designed kp, kd (ω², 2ξω) keep their meaning; p
// should sit well above the loop's ω (p ≥ 3 ω, say) for the filtered loop to behave as designed.
//
// Sampled at the control instants: y_k = a y_(k-1) + (1 - a) x_k, a = exp(-h/τ) (the pole mapped
// exactly, unit static gain), h the time since the last sample: 0 at the same instant again (the
// output held), and a filter unused for long (h ≫ τ) passes its input, so a law taken up again
// starts from the rate measured. On white noise of variance σ² sampled every h, the output's
// variance is σ² (1 - a) / (1 + a) ≈ σ² h / (2τ).
#pragma once

#include <cmath>

#include <Eigen/Core>

namespace grapple::core {

struct FilteredPdGains {
  double kp = 0, kd = 0;  // [1/s², 1/s] the gains applied
  double pole = INFINITY; // [1/s] p, the third pole (infinite without a filter)
};

// The compensated gains for the designed kp, kd and the filter's time constant tau [s] (0: no
// filter, the gains unchanged). Throws std::invalid_argument unless kd tau < 1.
FilteredPdGains filteredPdGains(double kp, double kd, double tau);

class RateFilter {
 public:
  RateFilter() = default;
  explicit RateFilter(double tau) : tau_(tau) {}
  bool active() const { return tau_ > 0; }
  double tau() const { return tau_; }
  // The rate x at time t filtered (x itself when inactive or at the first sample).
  const Eigen::VectorXd& filter(double t, const Eigen::VectorXd& x);

 private:
  double tau_ = 0;       // [s]
  double t_ = NAN;       // [s] the last sample's time
  Eigen::VectorXd y_;
};

}  // namespace grapple::core
