// Robots from URDF (tinyxml2). Links, their inertials (origin, mass, inertia about the centre of
// mass), and revolute, continuous, prismatic, fixed and floating joints with origins, axes and
// limits; several branches from the base. A root link named "world" joined by a fixed joint gives
// a fixed base at that pose, by a floating joint a free base.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/model.hpp"
#include "core/model/model_builder.hpp"

namespace grapple::core {

struct UrdfOptions {
  // Overrides the base mode the file implies (fixed unless "world" is joined by a floating joint).
  std::optional<BaseMode> base_mode;
};

struct UrdfResult {
  Model model;
  std::vector<std::string> warnings;  // "file:line: warning: ..." for elements read but not used
};

// Throws LoadError ("file:line: message") for anything malformed or unsupported.
UrdfResult loadUrdf(const std::string& path, const UrdfOptions& options = {});
UrdfResult loadUrdfString(const std::string& xml, const std::string& name,
                          const UrdfOptions& options = {});

}  // namespace grapple::core
