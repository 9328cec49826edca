// Geometry of the bodies: the shapes drawn (visual) and the shapes planning and contact checks use
// (collision), as URDF's <visual> and <collision> give them. A shape is placed by `origin` in its
// link frame (LinkSpec) or, once the model is built, in its body frame (Model::visual,
// Model::collision); it plays no part in the dynamics (the inertias do).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "core/math/spatial.hpp"

namespace grapple::core {

enum class ShapeType {
  kBox,       // size = side lengths along x, y, z [m], centred on the origin
  kCylinder,  // size = (radius, length, 0) [m], axis z, centred on the origin
  kSphere,    // size = (radius, 0, 0) [m]
  kCapsule,   // size = (radius, length, 0) [m]: a cylinder along z capped by two half spheres
  kMesh,      // a triangle mesh file (STL, DAE, OBJ...) scaled by `scale`
};
std::string_view shapeTypeName(ShapeType type);

struct Geometry {
  ShapeType type = ShapeType::kBox;
  Vector3 size = Vector3::Zero();
  std::string mesh_uri;   // the mesh as written (package://..., file://..., or a relative path)
  std::string mesh_path;  // the file it resolves to, empty if it could not be resolved
  Vector3 scale = Vector3::Ones();
  Transform origin;       // the shape's frame in its link frame (LinkSpec) or body frame (Model)
  bool has_color = false;
  std::array<float, 4> rgba = {0.7f, 0.7f, 0.7f, 1.0f};  // material colour, when has_color
  std::string link;       // the link it belongs to
  int body = 0;           // the body carrying it (set by ModelBuilder::build)
};

}  // namespace grapple::core
