// Snapshot: one recorded instant of a run, everything the 3D view draws from (the chaser's state,
// the debris', and a few derived quantities). Plain data, copied between threads.
#pragma once

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
};

}  // namespace grapple::render
