// The capture envelope: one scenario flown over a grid of the debris' motions — tumbling rate x
// tumbling axis x initial phase — each run judged by its outcome (sim/mission).
//
// Geometry of a cell. The chaser and the debris' centre of mass stay where the scenario puts
// them; the debris spins at `rate` about `axis` (body components). Its initial attitude is the
// one for which the grasp point's outward axis (centre of mass -> grasp point) points back at the
// chaser (-x, inertial) after the debris has turned by `phase` about its spin axis, with the spin
// axis laid horizontally (in the inertial x-y plane) so that the grasp axis sweeps through that
// direction — as a chaser holding station on the debris' tumbling motion would place itself
// (synchronized station keeping on the grasp axis). For a spin about the grasp axis itself the
// grasp point faces the chaser all the time. For a spin axis that is not principal the debris
// nutates and the grasp point leaves that cone.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/sim/mission.hpp"

namespace grapple::core {

struct EnvelopeAxis {
  std::string name;  // "principal 1 (min)", "body x", ...
  Vector3 axis;      // unit, debris body components
};

struct EnvelopeGrid {
  std::vector<double> rates_deg_s;
  std::vector<EnvelopeAxis> axes;
  std::vector<double> phases_deg;
  // The capture issue's grid: 0.5 to 8 deg/s, the three principal axes of the debris' inertia
  // and three that are not (body x, (1,1,0)/√2, (1,1,1)/√3), phases 0 and 180 deg.
  static EnvelopeGrid standard(const DebrisProperties& debris);
  std::size_t size() const { return rates_deg_s.size() * axes.size() * phases_deg.size(); }
};

struct EnvelopeCell {
  double rate_deg_s = 0;
  int axis = 0;
  double phase_deg = 0;
  Outcome outcome = Outcome::kFailed;
  std::string reason;      // the outcome's reason
  std::string limiting;    // the limiting constraint (no window), the abort's trigger, or the
                           // violated requirements; empty when captured
  double grasp_time = NAN, hand_to_plan = NAN, bus_attitude_deg = NAN, bus_torque = NAN, joint_torque = NAN;
  double simulated = 0;    // [s]
};

// The debris' initial state of a cell (position and velocity as in the scenario).
DebrisState envelopeDebrisState(const DebrisSpec& debris, const Vector3& axis_B, double rate_deg_s, double phase_deg);

// Flies every cell of the grid (on `threads` threads; the results do not depend on it). Each run
// lasts until `run.duration`, lengthened when needed to the capture's start + the window search's
// span + `after` seconds, and ends early once its outcome is settled: `after` seconds past the
// grasp, or when the capture has stopped (no window, no retry left); EnvelopeCell::simulated says
// how long it ran (the requirement on the joint torques is checked over that). progress(done, total) is called after each cell (from the worker threads,
// serialized); inspect(index, cell, simulation), if given, after each run (from the worker thread
// that ran it, concurrently: it must only touch what belongs to that index).
using EnvelopeInspector = std::function<void(std::size_t, const EnvelopeCell&, const Simulation&)>;
std::vector<EnvelopeCell> runEnvelope(const Scenario& scenario, const Model& model, const EnvelopeGrid& grid,
                                      int threads = 1, double after = 60,
                                      const std::function<void(std::size_t, std::size_t)>& progress = {},
                                      const EnvelopeInspector& inspect = {});

}  // namespace grapple::core
