#include "core/estimation/camera.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/math/rotation.hpp"

namespace grapple::core {

void checkCameraSettings(const CameraSettings& s) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  };
  need(std::isfinite(s.focal_length) && s.focal_length > 0, "focal_length must be > 0 [m]");
  need(std::isfinite(s.pixel_size) && s.pixel_size > 0, "pixel_size must be > 0 [m]");
  need(s.width > 0 && s.height > 0, "width and height must be > 0 [px]");
  need(std::isfinite(s.rate) && s.rate > 0, "rate must be > 0 [Hz]");
  need(std::isfinite(s.latency) && s.latency >= 0, "latency must be >= 0 [s]");
  need(std::isfinite(s.pixel_noise) && s.pixel_noise > 0, "pixel_noise must be > 0 [px]");
  need(std::isfinite(s.depth_noise) && s.depth_noise > 0, "depth_noise must be > 0 [m]");
  need(std::isfinite(s.attitude_noise_deg) && s.attitude_noise_deg >= 0, "attitude_noise_deg must be >= 0 [deg]");
  need(std::isfinite(s.max_range) && s.max_range > 0, "max_range must be > 0 [m]");
  need(std::isfinite(s.occlusion_tolerance) && s.occlusion_tolerance >= 0, "occlusion_tolerance must be >= 0 [m]");
}

Vector3 projectPinhole(const CameraSettings& s, const Vector3& p_C) {
  const double k = s.focal_length / s.pixel_size;
  return {s.principalU() + k * p_C.x() / p_C.z(), s.principalV() + k * p_C.y() / p_C.z(), p_C.z()};
}

Vector3 backProjectPinhole(const CameraSettings& s, const Vector3& uvz) {
  const double k = uvz.z() * s.pixel_size / s.focal_length;
  return {k * (uvz.x() - s.principalU()), k * (uvz.y() - s.principalV()), uvz.z()};
}

bool inFieldOfView(const CameraSettings& s, const Vector3& p_C) {
  if (!(p_C.z() > 0) || p_C.norm() > s.max_range) return false;
  const Vector3 uvz = projectPinhole(s, p_C);
  return uvz.x() >= 0 && uvz.x() <= s.width && uvz.y() >= 0 && uvz.y() <= s.height;
}

bool occludedByBox(const Vector3& half, const Vector3& camera_B, const Vector3& point_B, double tolerance) {
  // Slabs: the open interval of s in (0, 1) where c + s (g - c) is inside on each axis.
  const Vector3 d = point_B - camera_B;
  double lo = 0, hi = 1;
  for (int i = 0; i < 3; ++i) {
    const double h = half[i] - tolerance;
    if (!(h > 0)) return false;  // the shrunk box is empty
    if (d[i] == 0) {
      if (std::abs(camera_B[i]) >= h) return false;
      continue;
    }
    const double s1 = (-h - camera_B[i]) / d[i], s2 = (h - camera_B[i]) / d[i];
    lo = std::max(lo, std::min(s1, s2));
    hi = std::min(hi, std::max(s1, s2));
    if (!(lo < hi)) return false;
  }
  return true;
}

Camera::Camera(const CameraSettings& settings, const Vector3& box)
    : settings_(settings), half_box_(0.5 * box), noise_(settings.seed, 0, 0) {
  checkCameraSettings(settings_);
  if (!half_box_.allFinite() || half_box_.minCoeff() < 0) throw std::invalid_argument("camera: the debris' box must be >= 0");
}

std::optional<CameraMeasurement> Camera::capture(double t, const DebrisProperties& debris, const DebrisState& truth,
                                                 const Transform& X_WC) {
  // Six draws per image, seen or not.
  Vector6 n;
  for (int k = 0; k < 6; ++k) n[k] = noise_.normal();
  const Matrix3 R_WB = quatToMatrix(truth.Q_WB);
  const Vector3 p_W = truth.r_W + R_WB * debris.target_B;
  const Vector3 p_C = X_WC.R.transpose() * (p_W - X_WC.p);
  if (!inFieldOfView(settings_, p_C)) {
    view_ = CameraView::kOutOfView;
    return std::nullopt;
  }
  if (occludedByBox(half_box_, R_WB.transpose() * (X_WC.p - truth.r_W), debris.target_B, settings_.occlusion_tolerance)) {
    view_ = CameraView::kOccluded;
    return std::nullopt;
  }
  view_ = CameraView::kSeen;
  CameraMeasurement m;
  m.time = t;
  m.arrival = t + settings_.latency;
  m.X_WC = X_WC;
  m.uvz = projectPinhole(settings_, p_C) +
          Vector3(settings_.pixel_noise * n[0], settings_.pixel_noise * n[1], settings_.depth_noise * n[2]);
  const Vector4 Q_CB = quatMultiply(matrixToQuat(X_WC.R.transpose()), truth.Q_WB.normalized());
  m.Q_CB = settings_.measuresAttitude()
               ? quatMultiply(Q_CB, quatExp(settings_.attitude_noise_deg * M_PI / 180 * n.tail<3>()))
               : Q_CB;
  return m;
}

}  // namespace grapple::core
