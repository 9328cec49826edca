#include "core/estimation/debris_sensing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/math/rotation.hpp"
#include "core/math/spatial.hpp"

namespace grapple::core {
namespace {

DebrisEstimate drawPrior(const DebrisCameraSpec& spec, const DebrisState& truth0, double t0) {
  DebrisEstimate e;
  e.time = t0;
  e.P = spec.priorCovariance();
  campaign::RandomStream rng(spec.camera.seed, 0, 1);
  Vector12 n;
  for (int k = 0; k < 12; ++k) n[k] = rng.normal();
  // δx = truth ⊟ estimate drawn from N(0, P): estimate = truth ⊞ (-δx) to first order.
  e.state = boxPlus(truth0, -(e.P.diagonal().cwiseSqrt().cwiseProduct(n)));
  return e;
}

}  // namespace

Matrix12 DebrisCameraSpec::priorCovariance() const {
  constexpr double kRad = M_PI / 180;
  Vector12 s;
  s << Vector3::Constant(sigma_position), Vector3::Constant(sigma_velocity), Vector3::Constant(sigma_attitude_deg * kRad),
      Vector3::Constant(sigma_rate_deg_s * kRad);
  return s.cwiseAbs2().asDiagonal();
}

DebrisSensing::DebrisSensing(const DebrisProperties& truth, const DebrisProperties& known, const DebrisCameraSpec& spec,
                             const DebrisState& truth0, double t0, const Vector3& box)
    : spec_(spec),
      truth_(truth),
      debris_(known),
      camera_(spec.camera, box.minCoeff() > 0 || truth.mass <= 0 ? box : equivalentBox(truth.mass, truth.inertia, 0.2)),
      filter_(known, spec.camera, spec.filter, drawPrior(spec, truth0, t0)) {
  next_image_ = static_cast<long>(std::ceil(t0 * spec.camera.rate - 1e-9));
  ahead_ = filter_.posterior();
}

DebrisState DebrisSensing::state(double t) const {
  return propagateDebris(debris_, spec_.filter, ahead_.state, t - ahead_.time);
}

DebrisEstimate DebrisSensing::estimate(double t) const {
  DebrisEstimate e = ahead_;
  predictDebris(debris_, spec_.filter, e, t);
  return e;
}

double DebrisSensing::nextInstant() const {
  if (stopped_) return INFINITY;
  const double image = next_image_ / spec_.camera.rate;
  return in_flight_.empty() ? image : std::min(image, in_flight_.front().arrival);
}

DebrisSensing::Report DebrisSensing::report(double t, const DebrisState& truth, const Vector3& camera_W) const {
  Report r;
  r.visible = visible_;
  if (stopped_) return r;
  constexpr double kDeg = 180 / M_PI;
  const DebrisEstimate e = estimate(t);
  const Vector12 err = -boxMinus(truth, e.state);
  Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();  // of the grasp point
  J.leftCols<3>().setIdentity();
  J.middleCols<3>(6) = -quatToMatrix(e.state.Q_WB) * skew(debris_.target_B);
  const Vector3 target = targetKinematics(debris_, e.state).position;
  const Vector3 true_target = targetKinematics(truth_, truth).position;
  for (int k = 0; k < 3; ++k) {
    r.position[k] = e.state.r_W[k];
    r.error[k] = err[k];
    r.sigma3[k] = 3 * std::sqrt(e.P(k, k));
  }
  r.attitude = e.state.Q_WB.normalized();
  r.position_covariance = e.P.topLeftCorner<3, 3>();
  r.attitude_error = err.segment<3>(6).norm() * kDeg;
  r.attitude_sigma3 = 3 * std::sqrt(e.P.block<3, 3>(6, 6).trace()) * kDeg;
  r.rate_error = err.segment<3>(9).norm() * kDeg;
  r.rate_sigma3 = 3 * std::sqrt(e.P.block<3, 3>(9, 9).trace()) * kDeg;
  r.target_error = (target - true_target).norm();
  r.target_sigma3 = 3 * std::sqrt((J * e.P * J.transpose()).trace());
  r.range_error = (target - camera_W).norm() - (true_target - camera_W).norm();
  return r;
}

void DebrisSensing::advance(double t, const DebrisState& truth, const Transform& X_WC,
                            std::vector<std::pair<std::string, std::string>>& events) {
  if (stopped_) return;
  if (next_image_ / spec_.camera.rate <= t) {
    const auto m = camera_.capture(t, truth_, truth, X_WC);
    ++next_image_;
    if (m) in_flight_.push_back(*m);
    if (static_cast<bool>(m) != visible_) {
      visible_ = static_cast<bool>(m);
      char detail[200];
      if (visible_) {
        std::snprintf(detail, sizeof detail, "the camera sees the grasp point again (%d images applied so far)",
                      filter_.measurements());
      } else if (camera_.lastView() == CameraView::kOccluded) {
        std::snprintf(detail, sizeof detail, "occluded: the debris' body hides the grasp point from the camera; the "
                      "debris is predicted from its last estimate");
      } else {
        std::snprintf(detail, sizeof detail, "out of the field of view: the grasp point left the camera's image; the "
                      "debris is predicted from its last estimate");
      }
      events.emplace_back(visible_ ? "measurement_regained" : "measurement_lost", detail);
    }
  }
  while (!in_flight_.empty() && in_flight_.front().arrival <= t) {
    filter_.addMeasurement(in_flight_.front());
    in_flight_.pop_front();
  }
  if (filter_.measurements() != applied_) {
    applied_ = filter_.measurements();
    ahead_ = filter_.estimate(t);
  } else {
    predictDebris(debris_, spec_.filter, ahead_, t);
  }
}

}  // namespace grapple::core
