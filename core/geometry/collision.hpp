// Distances between the bodies' collision shapes (Model::collision) and obstacles, for the
// clearance checks of planning.
//
// Every shape is treated as a convex set: a core (a point, a segment, a box, a cylinder, or the
// convex hull of points) swollen by a radius — a sphere is a point swollen by its radius, a capsule
// a segment. A collision mesh counts as the convex hull of its vertices (scaled): never smaller than
// the mesh, exact for the convex meshes URDF collision geometry usually is, and no hull has to be
// built — the hull's support point in a direction is its farthest vertex. Meshes are read from STL
// (binary or ASCII) and OBJ files; a collision mesh in another format (e.g. COLLADA) or one that
// cannot be read is left out, and its body keeps the capsule a body without collision shapes has
// (collisionWarnings says which).
//
// The distance between two convex shapes is computed by the Gilbert–Johnson–Keerthi algorithm
// (Gilbert, Johnson & Keerthi 1988, IEEE J. Robotics and Automation 4(2); the closest point of
// each simplex as in Ericson, Real-Time Collision Detection, §5.1 and §9.5): it iterates on the
// support points of the Minkowski difference of the cores, stops when the lower and upper bounds
// on the distance agree within 1e-10 m, and subtracts the radii. Overlapping cores give a
// distance of minus the radii: how deep shapes overlap is not measured.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dynamics/data.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

struct ConvexShape {
  enum class Core { kPoint, kSegment, kBox, kCylinder, kHull };
  Core core = Core::kPoint;
  // kSegment: (0, 0, half length) along z; kBox: half sides; kCylinder: (radius, half length, 0),
  // axis z.
  Vector3 half = Vector3::Zero();
  double radius = 0;                                    // [m] swelling (sphere, capsule)
  std::shared_ptr<const std::vector<Vector3>> points;   // kHull: the points, scaled by `scale`
  Vector3 scale = Vector3::Ones();
  Transform pose;                                       // the shape's frame (in its body, or world)

  static ConvexShape box(const Vector3& half, const Transform& pose = {});
  static ConvexShape sphere(double radius, const Transform& pose = {});
  // The farthest point of the core in direction d, both in the frame `pose` is given in.
  Vector3 support(const Vector3& d) const;
};

// The convex shape of one collision geometry, placed by its origin; nullopt (with the reason in
// `why`) for a mesh that cannot be read.
std::optional<ConvexShape> convexShape(const Geometry& geometry, std::string* why = nullptr);

// The vertices of a mesh file (STL binary or ASCII, OBJ), without repeats; read once per process
// and shared. Throws std::runtime_error naming the file for anything else.
std::shared_ptr<const std::vector<Vector3>> meshVertices(const std::string& path);

struct ShapeDistance {
  double distance = 0;  // [m] between the surfaces; <= 0 when they touch or overlap
  Vector3 on_a = Vector3::Zero(), on_b = Vector3::Zero();  // the closest points (when apart)
};
// The distance between two convex shapes whose poses are in the same frame.
ShapeDistance shapeDistance(const ConvexShape& a, const ConvexShape& b);

// One warning per collision mesh the clearance checks cannot use, naming the links that carry it
// ("collision mesh '...': not found; the clearance checks use the capsule of link '...' instead").
std::vector<std::string> collisionWarnings(const Model& model);

// The clearance of a chain of bodies (each the parent of the next) from obstacles: a body with
// collision shapes by those, a body without by the capsule of `radius` from its origin to the next
// body's origin (the last body's to an end point, e.g. the hand), sampled every `radius` along
// its axis (the capsules of links modelled as lines between joint origins).
class ChainCollision {
 public:
  ChainCollision(const Model& model, std::vector<int> chain, double radius);
  // The smallest distance [m] from the chain's bodies `from`, `from`+1, ... to the obstacles
  // (poses in the world frame) — beyond the capsules' radius for bodies without shapes, so
  // negative when they overlap. A shape is skipped when `exempt` accepts its point nearest the
  // obstacle (its centre when it overlaps the obstacle), a capsule's sample when `exempt` accepts
  // the sample (world points). Runs on
  // data.X_world (forwardKinematics done).
  double clearance(const Data& data, const Vector3& end, const std::vector<ConvexShape>& obstacles,
                   std::size_t from, const std::function<bool(const Vector3&)>& exempt = {}) const;
  // The base's collision shapes in the world frame at data.X_world[0] (empty if it has none).
  std::vector<ConvexShape> baseShapes(const Data& data) const;

 private:
  std::vector<int> chain_;
  double radius_;
  std::vector<std::vector<ConvexShape>> shapes_;  // per chain body, in its body frame
  std::vector<ConvexShape> base_;
};

}  // namespace grapple::core
