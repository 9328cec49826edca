// Robots from URDF (tinyxml2), read as ROS's reference parser (urdfdom) reads them. Links, their
// inertials (origin, mass, inertia about the centre of mass), visual and collision geometry (box,
// cylinder, sphere, capsule, mesh with scale, origin and material colour), and revolute,
// continuous, prismatic, fixed and floating joints with origins, axes and limits; several branches
// from the base. A root link named "world" joined by a fixed joint gives a fixed base at that pose,
// by a floating joint a free base; a floating joint inside the tree is a 6-DOF free joint (its
// coordinates: the child's position and quaternion in the joint frame, its velocity: the child's
// twist in its own frame). Elements and attributes URDF readers skip (Gazebo's <contact>,
// <self_collision_checking>, ...) are ignored with one warning per kind; the axis of a fixed joint
// is ignored. Planar joints and mimic joints are read (a mimic whose own limits the range of the
// joint it follows goes beyond loads with a warning: its own limits are not used). A xacro source
// that fails as URDF is refused at its first xacro element or ${...} expression.
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
  // Non-physical inertias: refused, or repaired (each repair reported among the warnings).
  InertiaPolicy inertia = InertiaPolicy::kRefuse;
};

struct UrdfResult {
  Model model;
  std::vector<std::string> warnings;  // "file:line: warning: ..." for elements read but not used
};

// Throws LoadError ("file:line: message") for anything malformed or unsupported.
UrdfResult loadUrdf(const std::string& path, const UrdfOptions& options = {});
UrdfResult loadUrdfString(const std::string& xml, const std::string& name,
                          const UrdfOptions& options = {});

// The file a mesh URI of `urdf_file` names, the way ROS tools find it: package://PKG/... in
// ROS_PACKAGE_PATH (a package folder up to two levels down), then AMENT_PREFIX_PATH's share/PKG,
// then near the file (a folder whose package.xml names PKG, or a folder PKG, from the file's folder
// up); file://PATH; a relative path from the file's folder. Empty if no such file exists.
std::string resolveMeshUri(const std::string& uri, const std::string& urdf_file);

// The model as URDF that urdfdom reads: one link per body (its frame, its whole rigid inertia),
// massless links on fixed joints for the other frames, a link "world" for a fixed base's placement
// or a free base; each visual and collision shape. What URDF cannot say is written as a comment:
// a flexible body becomes its rigid equivalent (the undeformed body), a flying base a floating one,
// gravity and armature are dropped. A cylindrical joint becomes a revolute then a prismatic joint
// and a universal joint two revolute joints (through massless links), with the same coordinates; a
// planar joint whose child link frame is not its body frame moves a massless link in its joint
// frame; a mimic joint is written with its composed multiplier and offset, following the joint its
// chain ends at.
// Throws ModelError for a spherical joint, which URDF cannot express with the same coordinates.
std::string writeUrdf(const Model& model);

}  // namespace grapple::core
