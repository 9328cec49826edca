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

Camera::Camera(const CameraSettings& settings) : settings_(settings), noise_(settings.seed, 0, 0) {
  checkCameraSettings(settings_);
}

std::optional<CameraMeasurement> Camera::capture(double t, const DebrisProperties& debris, const DebrisState& truth,
                                                 const Transform& X_WC) {
  // Six draws per image, seen or not.
  Vector6 n;
  for (int k = 0; k < 6; ++k) n[k] = noise_.normal();
  const Vector3 p_W = truth.r_W + quatToMatrix(truth.Q_WB) * debris.target_B;
  const Vector3 p_C = X_WC.R.transpose() * (p_W - X_WC.p);
  if (!inFieldOfView(settings_, p_C)) return std::nullopt;
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
