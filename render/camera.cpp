#include "render/camera.hpp"

#include <algorithm>
#include <cmath>

#include "render/scene.hpp"

namespace grapple::render {

using core::Vector3;

CameraPose presetCamera(const CaptureScene& scene, CameraPreset preset, double aspect) {
  const Vector3 base = scene.basePosition(), debris = scene.debrisPosition();
  const Vector3 ee = scene.endEffectorPosition();
  // Distance at which a sphere of the scene's radius fits the narrower field of view.
  const double half_v = kFieldOfViewDeg / 2 * M_PI / 180;
  const double half_fov = std::min(half_v, std::atan(std::tan(half_v) * std::max(aspect, 1e-3)));
  const double r = 0.75 * scene.sceneRadius() / std::sin(half_fov) / 1.8;
  CameraPose pose;
  switch (preset) {
    case CameraPreset::kWholeScene: {
      // From above and behind the chaser's side, looking across the approach axis.
      pose.center = 0.5 * (base + debris);
      pose.eye = pose.center + Vector3(-0.55, -1.0, 0.6).normalized() * (1.8 * r);
      break;
    }
    case CameraPreset::kFollowEndEffector:
      pose.center = ee;
      pose.eye = ee + Vector3(-0.4, -1.0, 0.5).normalized() * (0.6 * r);
      break;
    case CameraPreset::kFromBase: {
      // Over the bus' shoulder, towards the debris.
      const Vector3 d = (debris - base).norm() > 1e-6 ? (debris - base).normalized() : Vector3::UnitX();
      pose.eye = base - d * (0.5 * r) + Vector3(0, 0, 0.3 * r);
      pose.center = debris;
      break;
    }
    case CameraPreset::kFromDebris: {
      const Vector3 d = (base - debris).norm() > 1e-6 ? (base - debris).normalized() : -Vector3::UnitX();
      // Beside the debris (not through it), looking at the hand.
      Vector3 side = d.cross(Vector3::UnitZ());
      side = side.norm() > 1e-6 ? side.normalized() : Vector3::UnitY();
      pose.eye = debris + side * (0.3 * r) + Vector3(0, 0, 0.15 * r) - d * (0.1 * r);
      pose.center = ee;
      break;
    }
  }
  return pose;
}

std::string_view cameraPresetName(CameraPreset preset) {
  switch (preset) {
    case CameraPreset::kWholeScene: return "scene";
    case CameraPreset::kFollowEndEffector: return "hand";
    case CameraPreset::kFromBase: return "base";
    case CameraPreset::kFromDebris: return "debris";
  }
  return "scene";
}

std::optional<CameraPreset> cameraPresetFromName(std::string_view name) {
  for (CameraPreset p : {CameraPreset::kWholeScene, CameraPreset::kFollowEndEffector, CameraPreset::kFromBase,
                         CameraPreset::kFromDebris}) {
    if (cameraPresetName(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace grapple::render
