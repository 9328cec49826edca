// The debris as the chaser knows it: a camera on the chaser (estimation/camera) takes images of
// the true debris at its rate, they arrive after its latency, and a filter (estimation/
// debris_filter) turns them into an estimate, which the controllers see instead of the truth.
// The simulation calls advance() at every instant an image is taken or arrives (nextInstant()),
// and state() whenever a controller needs the debris.
//
// The filter's prior is the true initial state plus an error drawn from the prior's σ (stream 1
// of the camera's seed; the camera's noise is stream 0): the same seed gives the same run.
#pragma once

#include <cmath>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/estimation/debris_filter.hpp"

namespace grapple::core {

// The scenario's `sensors.camera` (scenarios/README.md).
struct DebrisCameraSpec {
  CameraSettings camera;
  std::string frame;           // chaser frame carrying the camera; empty: the base body
  Transform mount;             // the camera frame in that frame (z: the line of sight)
  DebrisFilterSettings filter;
  // σ of the prior's error (the filter's initial covariance, diagonal).
  double sigma_position = 0.05;      // [m]
  double sigma_velocity = 0.01;      // [m/s]
  double sigma_attitude_deg = 5;     // [deg]
  double sigma_rate_deg_s = 1;       // [deg/s]
  Matrix12 priorCovariance() const;
};

class DebrisSensing {
 public:
  // truth: the debris the camera sees; known: the filter's model of it (the scenario's knowledge:
  // mass and inertia, the grasp point it estimates; the truth's without one); box: the true
  // debris' side lengths (body axes, about the centre of mass), which hide the grasp point when it
  // is turned away from the camera (zero: the box of its uniform-density equivalent).
  DebrisSensing(const DebrisProperties& truth, const DebrisProperties& known, const DebrisCameraSpec& spec,
                const DebrisState& truth0, double t0, const Vector3& box = Vector3::Zero());

  // When the next image is taken or the next one in flight arrives [s] (infinity once stopped).
  double nextInstant() const;
  // At t: the image due now taken of the truth from the camera posed at X_WC, the images that
  // have arrived by t applied. Appends (kind, detail) events: "measurement_lost" when the grasp
  // point leaves the field of view or is hidden behind the debris (the detail says which: "out of
  // the field of view" or "occluded"), "measurement_regained" when it is seen again.
  void advance(double t, const DebrisState& truth, const Transform& X_WC,
               std::vector<std::pair<std::string, std::string>>& events);
  // The estimate predicted to t, not before the last sensing instant (from the estimate there, so
  // that the cost does not grow while no image comes).
  DebrisState state(double t) const;
  DebrisEstimate estimate(double t) const;
  bool visible() const { return visible_; }
  // What the recorded channels show of the estimate at t (core/sim/channels names them): the
  // estimate (centre of mass), its errors against the truth and their 3σ bounds — per axis for the
  // position; for the attitude, rate and grasp point the error's norm beside 3 √(trace of its
  // covariance) —, the error of the estimated distance from the camera to the grasp point, and
  // whether the grasp point is in view (1 or 0); and, to draw the estimate, its attitude and the
  // covariance of its position's error (the filter's P, its δr block). NaN but `visible` once stopped.
  struct Report {
    Vector3 position = Vector3::Constant(NAN), error = Vector3::Constant(NAN), sigma3 = Vector3::Constant(NAN);
    Vector4 attitude = Vector4::Constant(NAN);                    // Q_WB, scalar first
    Matrix3 position_covariance = Matrix3::Constant(NAN);         // [m^2]
    double attitude_error = NAN, attitude_sigma3 = NAN;   // [deg]
    double rate_error = NAN, rate_sigma3 = NAN;           // [deg/s]
    double target_error = NAN, target_sigma3 = NAN;       // [m]
    double range_error = NAN;                             // [m]
    double visible = 0;
  };
  Report report(double t, const DebrisState& truth, const Vector3& camera_W) const;
  // No more images (the debris grasped: the filter's torque-free model no longer holds).
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }
  const DebrisFilter& filter() const { return filter_; }
  const DebrisCameraSpec& spec() const { return spec_; }

 private:
  DebrisCameraSpec spec_;
  DebrisProperties truth_, debris_;          // the debris, and the filter's model of it
  Camera camera_;
  DebrisFilter filter_;
  std::deque<CameraMeasurement> in_flight_;  // taken, not yet arrived (by arrival)
  long next_image_ = 0;                      // index of the next image: taken at index / rate
  DebrisEstimate ahead_;                     // the estimate at the last sensing instant ...
  int applied_ = 0;                          // ... with this many images applied
  bool visible_ = true, stopped_ = false;
};

}  // namespace grapple::core
