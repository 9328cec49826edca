// Camera placements of the 3D view, shared by the on-screen view (ui/osg_widget) and the
// off-screen frames (render/offscreen: screenshots, videos): where the eye is and what it looks at
// for each preset, computed from the posed scene.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/math/spatial.hpp"

namespace grapple::render {

class CaptureScene;

enum class CameraPreset { kWholeScene, kFollowEndEffector, kFromBase, kFromDebris };

struct CameraPose {
  core::Vector3 eye = core::Vector3(-5, -10, 5);
  core::Vector3 center = core::Vector3::Zero();
  core::Vector3 up = core::Vector3::UnitZ();
};

// The vertical field of view of every view [deg].
inline constexpr double kFieldOfViewDeg = 40.0;

// The preset's camera for the scene as posed, in a view of the given aspect ratio (width/height).
CameraPose presetCamera(const CaptureScene& scene, CameraPreset preset, double aspect);

// "scene", "hand", "base", "debris" (the CLI's and settings' names).
std::string_view cameraPresetName(CameraPreset preset);
std::optional<CameraPreset> cameraPresetFromName(std::string_view name);

}  // namespace grapple::render
