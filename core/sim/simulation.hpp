// Simulation: a scenario's chaser, debris, environment and controllers, integrated in time and
// recorded. One state vector holds everything that evolves (core/sim/state_layout),
//   x = [q (nq) | v (nv) | debris r, v, Q, ω (13, if any) | W_in, W_ext, W_diss, fuel],
// W_* being the work of the actuators, the work of the environment's wrenches and the energy
// dissipated by the modal damping, integrated with the state so the energy balance
//   E_kin + E_elastic + E_gravity + W_diss - W_in - W_ext = E(0)
// is checked to the integrator's accuracy (channel energy.error); fuel, the thrusters' propellant
// (eq. 9.1) when the scenario has them.
//
// Runs are deterministic: the same scenario and settings give bit-identical channels (one thread,
// no clocks, no randomness in the physics). Rows are recorded at exact multiples of
// 1/record_rate (the channels of core/sim/channel_table); the integrator steps between them (RK4: the largest step <= run.step that
// divides the interval; the adaptive ones end exactly on each recording and control instant).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/data.hpp"
#include "core/sim/recorder.hpp"
#include "core/sim/scenario.hpp"

namespace grapple::core {

struct PlanCheck;
class DebrisSensing;

// The end effector's frame: the one the scenario's run.end_effector names, else (no name, or a
// name that is no frame of the model) the last frame of the body deepest in the tree: the tip of
// the longest chain, not an appendage declared last. -1 if the model has no frames.
int endEffectorFrame(const Model& model, const Scenario& scenario);

struct SimulationEvent {
  double time;         // [s] recording instant at which it was seen
  std::string kind;    // "joint_limit", "effort_limit", "integration_failure", "window", "no_window",
                       // "plan", "replan", "window_lost", "window_reshaped", "abort", "standoff",
                       // "capture", "attach", "modes_condensed",
                       // "measurement_lost", "measurement_regained"
  std::string detail;  // human-readable
};

struct SimulationStats {
  long evaluations = 0;   // evaluations of the equations of motion
  long steps = 0;         // accepted integrator steps
  long rejected = 0;      // rejected steps (adaptive integrators)
};

class Simulation {
 public:
  // Builds the initial state from the scenario (model: the chaser, as loadScenario returns it).
  // Throws std::invalid_argument if the scenario does not fit the model, or if a controller
  // cannot start on the initial state (a capture plan without a solution).
  Simulation(Scenario scenario, Model model);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const Scenario& scenario() const;
  const Model& model() const;

  double time() const;                    // [s]
  double endTime() const;                 // [s] run.duration
  bool finished() const;                  // at the end, or failed
  const std::string& failure() const;     // why the integration stopped early (empty if it did not)

  // Advances one recording interval and records a row. Returns false (and does nothing) once
  // finished. A failure of the integrator (state not finite, step size underflow) or of a
  // controller ends the run with an "integration_failure" event; the rows before it are kept, and
  // the state (q, v, time) is the last recorded one.
  bool step();
  // Steps to the end. progress(t) is called after each row; returning false stops the run there.
  void run(const std::function<bool(double t)>& progress = {});

  const Recorder& recorder() const;
  // With a capture controller, once it has planned: the time the plan has the hand meet the grasp
  // point (start + t_f); NaN otherwise.
  double plannedCaptureTime() const;
  // The number of capture plans made so far (a new one after each retry; 0 without a capture).
  int plans() const;
  // The current capture plan's hand path (inertial [m]) from its start to the planned meeting, at
  // `points` evenly spaced instants; empty before the plan is made (or without a capture).
  std::vector<Vector3> plannedHandPath(int points = 200) const;
  // The current capture plan's hand reference at the absolute time t [s] (its closed form; past
  // the meeting, the grasp point's motion as the planner propagates it); NaN before the first
  // plan. The instants: when it was made, when its Ch. 7 stage meets its target (the approach
  // point of a two-stage plan, else the grasp point: then equal to plannedCaptureTime()); NaN
  // before the first plan.
  Vector3 plannedHandAt(double t) const;
  double planStart() const;
  double plannedRendezvousTime() const;
  // The current plan's feasibility as core/planning/feasibility predicts it (checkCapturePlan with
  // the capture controller's settings, from the chaser's state at the instant the plan was made):
  // the margins of its joint torques, bus torque, clearances, ... along it. Computed once per plan,
  // on first use (a prediction of the plan's length: milliseconds); null before the first plan.
  const PlanCheck* planCheck() const;
  // The grasp's impact (after the `attach` event; zeros before): the impulse the hand gave the
  // debris, linear [N s] and angular about its centre of mass [N m s], inertial axes, and the
  // kinetic energy lost [J].
  struct Impact {
    bool happened = false;
    Vector3 impulse = Vector3::Zero(), angular_impulse = Vector3::Zero();
    double energy_lost = 0;
  };
  const Impact& impact() const;
  const std::vector<SimulationEvent>& events() const;
  SimulationStats stats() const;

  // The current state.
  const Eigen::VectorXd& q() const;
  const Eigen::VectorXd& v() const;
  DebrisState debris() const;             // the initial state's if the scenario has no debris
  // The camera and the filter of the debris (sensors.camera); null without a camera.
  const DebrisSensing* sensing() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace grapple::core
