// Snapshot: one recorded instant of a run, everything the 3D view draws from (the chaser's state,
// the debris', and a few derived quantities). Plain data, copied between threads.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/math/spatial.hpp"
#include "core/world/debris.hpp"

namespace grapple::render {

struct Snapshot {
  int row = -1;                          // recorded row (-1: the initial state, not yet recorded)
  double time = 0;                       // [s]
  Eigen::VectorXd q;                     // (nq) chaser configuration
  Eigen::VectorXd v;                     // (nv) chaser velocity
  bool has_debris = false;
  core::DebrisState debris;              // debris state (inertial)
  core::Vector3 com_W = core::Vector3::Zero();  // [m] centre of mass of the chaser
  core::Vector3 P_W = core::Vector3::Zero();    // [kg m/s] linear momentum of the system
  core::Vector3 L_W = core::Vector3::Zero();    // [kg m^2/s] angular momentum about W's origin
  // With a camera, while its filter runs (the estimate.* channels finite): the debris as estimated,
  // its centre of mass, its attitude and the covariance of its position's error.
  bool has_estimate = false;
  core::Vector3 estimate_r_W = core::Vector3::Zero();               // [m]
  core::Vector4 estimate_Q_WB = core::Vector4(1, 0, 0, 0);          // scalar first
  Eigen::Matrix3d estimate_P_r = Eigen::Matrix3d::Zero();           // [m^2]
};

// A capture plan as the 3D view draws it: the hand's planned path, each point with the smallest
// margin the plan's feasibility check predicts there (core::PlanCheck: the worst of its joint
// torques, bus torque, clearances, singularity, joint limits and rates against their limits;
// >= 0 met, 1 far from every limit), the capture window and the stand-off and approach poses.
struct PlanOverlay {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int number = 0;                        // the plan's number (1: the first; 0: no plan)
  double start = kNaN;                   // [s] when it was made (the hand at the stand-off pose)
  double rendezvous = kNaN;              // [s] its Ch. 7 stage meets its target (approach point, or grasp point)
  double meeting = kNaN;                 // [s] the hand meets the grasp point (the capture window)
  std::vector<double> times;             // [s] absolute instants of the path's points
  std::vector<core::Vector3> path;       // [m] the planned hand position at those instants (inertial)
  std::vector<double> margins;           // the check's smallest margin at those instants (NaN: no check)
  core::Vector3 standoff = core::Vector3::Constant(kNaN);  // the hand at the plan's start
  core::Vector3 approach = core::Vector3::Constant(kNaN);  // the approach point (two-stage plans only)
  core::Vector3 grasp = core::Vector3::Constant(kNaN);     // the grasp point at the meeting
  double margin = kNaN;                  // the check's smallest margin over the plan
  std::string limiting;                  // the constraint that gives it
  bool empty() const { return path.empty(); }
};

}  // namespace grapple::render
