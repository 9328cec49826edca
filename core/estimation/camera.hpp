// A camera that sees the debris' grasp point and the debris' attitude relative to itself: the
// pinhole model of the thesis' test bench (§9.2.2, eq. 9.2–9.3, PointGrey Bumblebee2: focal length
// f = 2.5 mm, pixel size ρ = 4.65 µm), with the pixel → metre conversion written as a pinhole
// (eq. 9.3 prints ‖z‖/f and drops ρ; the intended form is x = z ρ/f (u − u_c), y = z ρ/f (v − v_c)):
//   u = u_c + (f/ρ) x/z,   v = v_c + (f/ρ) y/z,   depth z      (p_C = [x y z], camera frame:
//                                                              z along the line of sight)
// plus white noise on u, v (pixels) and on the depth (the stereo pair's range), a field of view
// (the sensor's width × height pixels: no image when the grasp point falls outside it, is behind
// the lens or beyond max_range), occlusion by the debris itself (no image when the line of sight
// to the grasp point crosses the debris' box: occludedByBox), a frame rate and a latency (the
// bench's ≈ 80 ms round trip, §9.2.3, Fig. 9.14). The relative attitude (a pose estimator's output; the thesis' bench measured
// the position only) is optional, with white rotation noise.
//
// Deterministic: the noise comes from a counter-based stream of the seed, and every image draws
// the same count of numbers whether it is seen or not, so a seed gives bit-identical runs.
#pragma once

#include <cstdint>
#include <optional>

#include "core/campaign/random.hpp"
#include "core/world/debris.hpp"

namespace grapple::core {

struct CameraSettings {
  double focal_length = 2.5e-3;   // [m] f (thesis §9.2.2)
  double pixel_size = 4.65e-6;    // [m] ρ (thesis §9.2.2)
  int width = 1024, height = 768; // [px] the Bumblebee2's ICX204 sensor (data sheet)
  double rate = 20;               // [Hz] images per second (Bumblebee2 at 1024 × 768: 20 FPS)
  double latency = 0.08;          // [s] from the image to its use (thesis §9.2.3: ≈ 80 ms)
  double pixel_noise = 1.0;       // [px] σ of u and v
  double depth_noise = 0.0145;    // [m] σ of the depth (Table 9.2's depth axis: √210 mm²)
  double attitude_noise_deg = 1;  // [deg] σ per axis of the relative attitude; 0: not measured
  double max_range = 20;          // [m] no image beyond
  // [m] how deep a line of sight may graze the debris' box and still see the grasp point (the box
  // is shrunk by this on every side; see occludedByBox).
  double occlusion_tolerance = 0.01;
  std::uint64_t seed = 1;
  bool measuresAttitude() const { return attitude_noise_deg > 0; }
  double principalU() const { return 0.5 * width; }
  double principalV() const { return 0.5 * height; }
};

// Throws std::invalid_argument naming the first setting out of its range.
void checkCameraSettings(const CameraSettings& s);

// The pinhole projection of a point in camera components: [u v z] [px, px, m], and its inverse
// (eq. 9.3 as corrected above).
Vector3 projectPinhole(const CameraSettings& s, const Vector3& p_C);
Vector3 backProjectPinhole(const CameraSettings& s, const Vector3& uvz);
// In the field of view: in front of the lens, within max_range, inside the sensor.
bool inFieldOfView(const CameraSettings& s, const Vector3& p_C);

// Whether the debris' own body hides a point from the camera: whether the segment from the camera
// c to the point g crosses the open box |x_i| < h_i - tolerance (h: the half side lengths; c, g
// in body components about the box's centre, the centre of mass). A point on a face of the box is
// then seen only from the half-space that face faces (on an edge: from either of its two faces'
// sides), and a line of sight that grazes the box by less than the tolerance does not hide it
// (the box is a bound of the real shape, and a grasp fixture stands out of it).
bool occludedByBox(const Vector3& half, const Vector3& camera_B, const Vector3& point_B, double tolerance);

// What the camera saw at its last image.
enum class CameraView { kSeen, kOutOfView, kOccluded };

struct CameraMeasurement {
  double time = 0;                     // [s] when the image was taken
  double arrival = 0;                  // [s] when it can be used: time + latency
  Vector3 uvz = Vector3::Zero();       // grasp point [px, px, m]
  Vector4 Q_CB = Vector4(1, 0, 0, 0);  // debris attitude in the camera frame (if measured)
  Transform X_WC;                      // the camera's pose when the image was taken (the
                                       //   chaser's own knowledge of it)
};

class Camera {
 public:
  // box: the debris' side lengths (body axes, about its centre of mass) that occlude the grasp
  // point; zero: no occlusion.
  explicit Camera(const CameraSettings& settings, const Vector3& box = Vector3::Zero());
  const CameraSettings& settings() const { return settings_; }
  // The image at time t of the debris (its true state) from the camera posed at X_WC (camera
  // frame in inertial components); nothing when the grasp point is out of view or occluded.
  std::optional<CameraMeasurement> capture(double t, const DebrisProperties& debris, const DebrisState& truth,
                                           const Transform& X_WC);
  // Why the last image saw the grasp point or not (kOutOfView is checked first).
  CameraView lastView() const { return view_; }

 private:
  CameraSettings settings_;
  Vector3 half_box_;
  campaign::RandomStream noise_;
  CameraView view_ = CameraView::kSeen;
};

}  // namespace grapple::core
