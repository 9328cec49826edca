// CaptureScene: the OSG scene of a capture, built once from the chaser's Model and the Scenario,
// then posed from Snapshots: a robot with its own geometry (URDF <visual>/<collision>, YAML
// visual:/collision:) as those shapes and meshes, others as the bus, arm hubs and gripper from the
// project's meshes (assets/) and rigid links as cylinders; flexible arm segments and solar arrays drawn deformed from their
// modal coordinates (times a display exaggeration), the tumbling debris with its grasp point, the
// planned and actual end-effector paths, the capture plan coloured by its predicted margin with
// its capture window and stand-off and approach poses, a trail of the bus' axes, optional body
// frames, velocity and momentum vectors, the system's centre of mass, a starfield and an
// Earth-direction arrow; with a camera, the debris as estimated (a ghost) and its 3σ position
// ellipsoid.
//
// OSG types are only forward-declared here: the header is cheap for ui/. Everything runs on the
// GUI thread.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/math/spatial.hpp"
#include "render/snapshot.hpp"

namespace osg {
class Node;
}

namespace grapple::core {
struct Model;
struct Scenario;
}  // namespace grapple::core

namespace grapple::render {

struct SceneOptions {
  bool frames = false;      // body frames (x red, y green, z blue)
  bool velocities = false;  // base and debris velocity arrows
  bool momentum = false;    // linear and angular momentum arrows at the centre of mass
  bool com = true;          // the chaser's centre of mass
  bool paths = true;        // planned and actual end-effector paths
  bool stars = true;        // starfield
  bool earth = true;        // arrow towards the Earth
  bool ellipsoid = false;   // the hand's manipulability ellipsoid (position, free-floating J* or J_m)
  bool workspace = false;   // the arm's workspace: a cloud of the hand's reachable points, carried by the base
  bool collision = false;   // a robot with its own geometry: its collision shapes instead of its visuals
  bool plan = true;         // the capture plan's hand path, coloured by its margin (marginColor)
  bool window = true;       // the capture window (the grasp point at the meeting), stand-off and approach points
  bool trail = true;        // the bus' axes now and the trail of their tips over the last trail_seconds
  bool estimate = true;     // with a camera: the debris as estimated (a ghost) and its position's 3σ ellipsoid
  double trail_seconds = 30;
};

// The colour of a plan's point for the margin its feasibility check predicts there (the worst
// constraint's normalized distance to its limit: <= 0 at or beyond it, 1 none of it used): red up
// to 0, through orange and yellow (kMarginWarning) to green from kMarginGood on; grey without a
// check (NaN).
inline constexpr double kMarginWarning = 0.25, kMarginGood = 0.5;
std::array<float, 3> marginColor(double margin);

// Colours of the main parts, for the tests that look at the pixels (RGB 0-1).
struct ScenePalette {
  static constexpr float kArray[3] = {0.10f, 0.22f, 0.75f};   // solar arrays: deep blue
  static constexpr float kDebris[3] = {0.90f, 0.66f, 0.12f};  // debris: gold foil
  static constexpr float kLink[3] = {0.88f, 0.88f, 0.90f};    // arm links: white
  static constexpr float kGrasp[3] = {0.95f, 0.10f, 0.10f};   // grasp point: red
  static constexpr float kBackground[3] = {0.01f, 0.01f, 0.04f};
};

class CaptureScene {
 public:
  // asset_dir: where meshes/*.obj are (GRAPPLE_ASSET_DIR by default). A missing mesh falls back
  // to a generated shape (and is reported by warnings()).
  CaptureScene(const core::Model& model, const core::Scenario& scenario,
               const std::string& asset_dir = GRAPPLE_ASSET_DIR);
  ~CaptureScene();
  CaptureScene(const CaptureScene&) = delete;
  CaptureScene& operator=(const CaptureScene&) = delete;

  osg::Node* root() const;
  const std::vector<std::string>& warnings() const;

  // Poses every body (kinematics of q with the modal coordinates scaled by the exaggeration),
  // deforms the flexible bodies, moves the debris and the vectors.
  void update(const Snapshot& snapshot);
  // Display exaggeration of the flexible deformation (1: true scale). Applied at the next update.
  void setExaggeration(double factor);
  double exaggeration() const;
  void setOptions(const SceneOptions& options);
  const SceneOptions& options() const;
  // End-effector paths, inertial positions [m]: the recorded one and the capture plan's.
  void setPaths(const std::vector<core::Vector3>& actual, const std::vector<core::Vector3>& planned);
  // The capture plan being flown (null: none yet), drawn by options.plan and options.window; while
  // one is drawn the planned path of setPaths is not (it is the same path, uncoloured).
  void setPlan(const PlanOverlay* plan);
  // The bus' poses over the last options.trail_seconds, oldest first (Recording::basePoses): its
  // axes at the last one and the trail of their tips.
  void setBaseTrail(const std::vector<core::Transform>& poses);
  // The length of the bus' axes drawn by the trail [m].
  double trailAxisLength() const;

  // After update: points of interest for the camera presets (inertial, [m]).
  core::Vector3 endEffectorPosition() const;
  // After update, with a debris: the hand's error vector drawn (with the paths), from the hand to
  // the grasp point (inertial [m]); zeros without a debris.
  std::pair<core::Vector3, core::Vector3> handErrorVector() const;
  // After update, with options.ellipsoid: the semi-axes drawn (columns, inertial, [m]: the
  // ellipsoid {J q̇ : |q̇| <= 1} of the rigid-equivalent arm, scaled by 1 s); empty otherwise.
  Eigen::Matrix3d ellipsoidAxes() const;
  // After update, with options.estimate and an estimate in the snapshot (a camera, its filter
  // running): the estimated debris drawn as a translucent ghost at its estimated pose (node
  // "debris_estimate") and the 3σ ellipsoid of its centre of mass' position error (node
  // "estimate_ellipsoid", a unit sphere mapped by these semi-axes: columns, inertial [m], 3 √λ
  // along the covariance's eigenvectors); zero and nothing drawn otherwise.
  Eigen::Matrix3d estimateEllipsoidAxes() const;
  bool estimateShown() const;
  // The workspace cloud's points in the base's frame (empty until first shown).
  const std::vector<core::Vector3>& workspacePoints() const;
  static constexpr int kWorkspaceSamples = 6000;
  core::Vector3 basePosition() const;
  core::Vector3 debrisPosition() const;   // the base's if there is no debris
  double sceneRadius() const;             // radius of a sphere holding the chaser and the debris
  bool hasDebris() const;
  // The frame drawn as the end effector (the run's end_effector, else the last frame of the
  // deepest body); -1 if the model has no frames.
  int endEffectorFrame() const;

  // The body under a picked node path (leaf last, as osgUtil gives it): a description with its
  // name, mass and current pose; empty if the path holds no body.
  std::string describePick(const std::vector<osg::Node*>& path) const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace grapple::render
