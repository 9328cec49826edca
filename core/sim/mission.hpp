// The mission's metrics and its outcome, computed once from a run (the CLI's summary, the app's
// status bar and requirements list, the envelope test all read these).
//
// Outcome (judged against the scenario's `requirements:`, by default the thesis' Table 8.1):
//   captured               the gripper closed, and every requirement held
//   captured_out_of_spec   the gripper closed, some requirement was violated (listed)
//   aborted                the capture was aborted (the last attempt) and not retried with success
//   missed                 the run ended without a grasp (no feasible window, or no grasp in time)
//   failed                 the simulation itself failed (integration failure)
// Each requirement is checked on the channels as recorded (the rows at record_rate), over the
// phase it applies to (see Requirements in sim/scenario.hpp), with its worst value and the first
// instant it was exceeded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/sim/simulation.hpp"

namespace grapple::core {

enum class Outcome { kCaptured, kCapturedOutOfSpec, kAborted, kMissed, kFailed };
std::string_view outcomeName(Outcome o);  // captured, captured_out_of_spec, aborted, missed, failed

struct Violation {
  std::string requirement;   // "hand_to_plan", "bus_attitude", "bus_torque", "joint_torque"
  std::string unit;          // of limit and worst
  double limit = 0;
  double worst = 0;          // the worst value over the phase the requirement applies to
  double worst_time = 0;     // [s] when it happened
  double first_time = 0;     // [s] first instant beyond the limit
};

// One requirement as checked (met or not), for a list with pass/fail.
struct RequirementCheck {
  std::string requirement, unit, description;
  double limit = 0, worst = 0, worst_time = 0;
  bool met = true;
  double first_time = 0;     // first violation (when !met)
};

struct MissionMetrics {
  double energy_error = 0, energy_scale = 0, momentum_p = 0, momentum_L = 0;
  double base_position = 0, base_attitude = 0, tracking = 0, min_distance = NAN;
  double joint_torque_peak = 0, base_torque_peak = 0, fuel = 0;
  double joint_torque_rms = 0, base_torque_rms = 0, base_force_peak = 0, base_force_rms = 0;
  double saturated_time = 0;  // [s] some actuator at its limit
  // With a capture controller.
  bool has_capture = false, grasped = false;
  double capture_time = NAN, planned_capture = NAN, plan_error = NAN, target_error_after = NAN,
         capture_relative_speed = NAN, attitude_at_capture = NAN, residual_rate = NAN;
  double plan_error_rms = NAN, target_error_rms = NAN;
  // With sensors.camera: the mean |error| of the estimated distance from the camera to the grasp
  // point, from the plan that grasped to the grasp [m].
  double range_error_mean = NAN;
  int aborts = 0;
  Simulation::Impact impact;
  // The outcome and the requirements as checked: with a capture controller (has_capture); a run
  // without one has no outcome unless it failed (`failed`).
  Outcome outcome = Outcome::kMissed;
  std::string outcome_reason;
  std::vector<RequirementCheck> requirements;
  std::vector<Violation> violations;
  bool captured() const { return outcome == Outcome::kCaptured; }
};

MissionMetrics missionMetrics(const Simulation& sim);

// The run's metrics as numbers under the names summary.json's `metrics` gives them (the CLI writes
// these, the application lists them): the general ones, then with a capture controller the
// capture's (NaN when not reached: null in the JSON). Those that do not apply are left out (the
// least distance without a debris, the impact before a grasp).
struct MetricValue {
  std::string key;          // e.g. "base_attitude_drift_max_deg"
  double value = 0;
  std::string description;  // what it measures
};
std::vector<MetricValue> metricValues(const MissionMetrics& m);

}  // namespace grapple::core
