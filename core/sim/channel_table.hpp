// The channel table: every recorded channel's name, unit and the function that fills it, declared
// together (as MuJoCo's sensors carry their type and address), so that a row is the table's
// functions applied to one Observation of the recording instant: the values cannot fall out of
// step with the names. The names are core/sim/channels.hpp's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/estimation/chaser_sensing.hpp"
#include "core/estimation/debris_sensing.hpp"
#include "core/math/spatial.hpp"
#include "core/sim/scenario.hpp"
#include "core/sim/state_layout.hpp"
#include "core/world/debris.hpp"

namespace grapple::core {

// One recording instant's quantities, computed once by the simulation and read by the channel
// table and by the grasp test. Inertial axes unless said otherwise.
struct Observation {
  double t = 0;                                   // [s]
  Eigen::VectorXd x;                              // the state (StateLayout)
  Eigen::VectorXd q, v;                           // the chaser's configuration and velocity
  Eigen::VectorXd tau, tau_cmd;                   // actuator forces: applied (limited), commanded
  // The chaser's energies [J] as integrated (with quasi-static modes the reduced model's).
  double kinetic = 0, elastic = 0, potential = 0;
  double energy0 = 0;                             // the balance's initial energy (composite's after a grasp)
  bool attached = false;                          // the debris grasped (moving with the hand)
  double impact_loss = 0;                         // [J] the grasp's kinetic energy loss (0 before)
  Vector6 momentum = Vector6::Zero();             // the whole system's [p; L] (the debris' until attached)
  Vector3 com = Vector3::Zero();                  // the chaser's centre of mass
  Transform hand;                                 // the end-effector frame's pose
  Vector3 hand_velocity = Vector3::Zero();        // its origin's velocity
  // With debris: its state, its grasp point's kinematics, the hand's distance to the grasp point
  // and their relative speed; those the gripper sees (the estimate's, with a camera, until it stops).
  DebrisState debris;
  // [J] ½ m v² and ½ ωᵀ I ω, each rounded on its own before the energy channels add them (summed in
  // one channel function, GCC would fuse them into one multiply-add: another last bit).
  double debris_kinetic = 0, debris_rotational = 0;
  PointKinematics target{};
  double distance = 0, relative_speed = 0;
  double grasp_distance = 0, grasp_speed = 0;
  DebrisSensing::Report estimate;                 // with a camera
  // Per v coordinate: the joint path's reference position (the first controller's that has one);
  // paths_apply: no controller has taken the joints over.
  Eigen::VectorXd joint_reference;
  bool paths_apply = true;
  Vector3 hand_reference = Vector3::Constant(NAN);  // the capture plan's (NaN while no plan is flown)
  double capture_phase = 0;                       // CaptureController::Phase
  double bus_demand = 0;                          // [N m] the largest bus torque the controllers asked
  ChaserSensing::Report chaser_estimate;          // with the chaser's sensors
};

struct Channel {
  std::string name;  // channels.hpp
  std::string unit;  // SI, "deg", "1" for dimensionless
  std::function<double(const Observation&)> value;
};

// The channels a run records, in their order. driven[i]: v coordinate i is driven along a path (it
// gets reference and error channels); sensing: the debris is seen through a camera; capture: a
// capture controller runs.
std::vector<Channel> channelTable(const Model& model, const Scenario& scenario, const StateLayout& layout,
                                  const std::vector<char>& driven, bool sensing, bool capture);

}  // namespace grapple::core
