// A filter for the tumbling debris seen by a camera (estimation/camera): the state of a
// torque-free rigid body — centre of mass position and velocity (inertial), attitude Q_WB and
// angular rate ω_B (body) — from delayed images of its grasp point and, if the camera gives it,
// of its attitude. The model is the debris' own (thesis §7.1.1, eq. 7.2–7.3: v̇ = 0,
// ω̇ = -I⁻¹(ω × Iω)) with white accelerations standing for what it leaves out (the environment's
// loads, inertia errors): spectral densities accel_noise² on v̇ and angular_accel_noise² on ω̇.
//
// Why a multiplicative EKF (Lefferts, Markley & Shuster 1982; Markley & Crassidis 2014, §6.2)
// rather than a UKF: the attitude error is kept as three small angles δθ in body axes,
// Q = Q̂ ⊗ exp(δθ), so the covariance is 12 × 12 and never meets the quaternion's unit-norm
// constraint (the UKF needs the same trick for its sigma points); once the filter has converged
// the errors are small against the curvature of the dynamics and of the pinhole projection
// (centimetres at metres of depth, degrees of attitude), where the EKF's linearization is as
// good as the UKF's second order; and one step costs one RK4 propagation of the mean plus the
// 12 × 12 transition (closed-form Jacobians, checked against finite differences in the tests),
// where the UKF propagates 25 sigma points through the rigid-body RK4. Its consistency is tested
// (NEES over a Monte Carlo of seeds within the χ² bounds).
//
// Error state δx = [δr δv δθ δω] (12): truth = estimate ⊞ δx with r = r̂ + δr, v = v̂ + δv,
// Q = Q̂ ⊗ exp(δθ), ω = ω̂ + δω. Its dynamics: δṙ = δv, δv̇ = w_a,
// δθ̇ = -[ω̂×] δθ + δω, δω̇ = I⁻¹([(Iω̂)×] - [ω̂×] I) δω + w_α.
//
// Delay: each image is applied at the time it was taken, not when it arrives. The filter keeps
// the posteriors of the images of the last `history` seconds; an image is inserted at its time
// (possibly behind others that arrived earlier) and the later ones are re-applied from it; the
// estimate at any later time is the newest posterior predicted forward. For a torque-free body
// (nothing the chaser does acts on the debris before the grasp) this is exact: the prediction
// from the image's time is what a filter without delay would hold.
#pragma once

#include <deque>

#include <Eigen/Core>

#include "core/estimation/camera.hpp"

namespace grapple::core {

using Vector12 = Eigen::Matrix<double, 12, 1>;
using Matrix12 = Eigen::Matrix<double, 12, 12>;

struct DebrisFilterSettings {
  double accel_noise = 1e-5;          // [m/s²/√Hz] √ of the spectral density of v̇'s white noise
  double angular_accel_noise = 1e-5;  // [rad/s²/√Hz] the same on ω̇
  double step = 0.01;                 // [s] largest propagation step
  double history = 1.0;               // [s] images kept behind the newest, to insert late ones
};

// An estimate at a time: the state and the covariance of the error state δx.
struct DebrisEstimate {
  double time = 0;
  DebrisState state;
  Matrix12 P = Matrix12::Identity();
};

// truth = estimate ⊞ δx, and δx = truth ⊟ estimate (δθ = log(Q̂⁻¹ ⊗ Q)).
DebrisState boxPlus(const DebrisState& s, const Vector12& dx);
Vector12 boxMinus(const DebrisState& truth, const DebrisState& estimate);

// F of δẋ = F δx for the rate ω̂ (the estimate's).
Matrix12 debrisErrorDynamics(const DebrisProperties& p, const Vector3& w_B);
// The estimate predicted to t >= e.time: the mean by RK4 (stepDebris), the covariance through
// the transition Φ (RK4 on Φ̇ = F Φ along the same steps) and the process noise.
void predictDebris(const DebrisProperties& p, const DebrisFilterSettings& s, DebrisEstimate& e, double t);
// The state alone predicted dt >= 0 ahead, in the same steps as predictDebris.
DebrisState propagateDebris(const DebrisProperties& p, const DebrisFilterSettings& s, const DebrisState& state,
                            double dt);
// The transition Φ(t0 + dt, t0) of the error state from the state s, as predictDebris uses it.
Matrix12 debrisTransition(const DebrisProperties& p, const DebrisFilterSettings& s, const DebrisState& state,
                          double dt);

// The residual of an image against a state (3: [u v z] measured minus predicted; 6 with the
// attitude: plus log(Q_CB(state)⁻¹ ⊗ Q_CB measured), body axes) and its Jacobian H = -∂y/∂δx.
Eigen::VectorXd cameraResidual(const DebrisProperties& p, const CameraSettings& c, const DebrisState& state,
                               const CameraMeasurement& m);
Eigen::MatrixXd cameraJacobian(const DebrisProperties& p, const CameraSettings& c, const DebrisState& state,
                               const CameraMeasurement& m);

class DebrisFilter {
 public:
  // model: the debris as the filter knows it; prior: the estimate before any image.
  DebrisFilter(const DebrisProperties& model, const CameraSettings& camera, const DebrisFilterSettings& settings,
               const DebrisEstimate& prior);

  // Applies an image at its time m.time. Returns false (and ignores it) when it is older than
  // the history kept.
  bool addMeasurement(const CameraMeasurement& m);
  // The newest posterior (the prior before any image).
  const DebrisEstimate& posterior() const;
  // The estimate at t >= posterior().time: state and covariance, or the state alone (cheaper).
  DebrisEstimate estimate(double t) const;
  DebrisState predictState(double t) const;
  // The normalized innovation squared yᵀ S⁻¹ y of the newest image when applied (χ² with 3 or 6
  // degrees of freedom for a consistent filter).
  double lastNis() const { return nis_; }
  int measurements() const { return count_; }
  const DebrisProperties& model() const { return model_; }

 private:
  // One image applied to e (predicted to its time first); returns the NIS.
  double update(DebrisEstimate& e, const CameraMeasurement& m) const;

  struct Node {
    CameraMeasurement m;
    DebrisEstimate posterior;
  };
  DebrisProperties model_;
  CameraSettings camera_;
  DebrisFilterSettings settings_;
  DebrisEstimate anchor_;   // the posterior before the oldest image kept
  std::deque<Node> nodes_;  // by image time
  double nis_ = 0;
  int count_ = 0;
};

}  // namespace grapple::core
