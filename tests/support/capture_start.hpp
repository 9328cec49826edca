// The chaser of capture_rigid.yaml at the capture's start (t = 40 s), for the tests of the
// capture window and its planning.
#pragma once

#include <memory>
#include <string>

#include "core/analysis/envelope.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/planning/feasibility.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::test {

// With `shaped_cell`, the debris tumbles at 6 deg/s about its minor principal axis (phase 0): a
// cell of the envelope where none of the thesis' paths is feasible (the bus must take up about
// 54 N m s of angular momentum by the meeting) and the window search reshapes them.
struct CaptureStart {
  core::LoadedScenario loaded;
  std::unique_ptr<core::Simulation> sim;
  core::FeasibilityOptions options;  // the scenario's capture controller's
  int ee = -1;                       // the hand's frame
  static core::LoadedScenario load(bool shaped_cell) {
    core::LoadedScenario l =
        core::loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/capture_rigid.yaml", {{"run.duration", "40"}});
    if (shaped_cell) {
      const core::EnvelopeGrid grid = core::EnvelopeGrid::standard(l.scenario.debris.properties);
      l.scenario.debris.initial = core::envelopeDebrisState(l.scenario.debris, grid.axes[0].axis, 6, 0);
    }
    return l;
  }
  explicit CaptureStart(bool shaped_cell = false) : loaded(load(shaped_cell)) {
    // Run to 40 s with the capture controller's start moved past the end: the state at 40 s is the
    // same to the last bit (it acts from 40 s on), and its window search at 40 s, seconds on the
    // shaped cell, is not made for nothing.
    core::Scenario until = loaded.scenario;
    until.controllers[1].start = 1e9;
    sim = std::make_unique<core::Simulation>(until, loaded.model);
    sim->run();
    const core::ControllerSpec& spec = loaded.scenario.controllers[1];
    options = core::FeasibilityOptions::from(spec, loaded.scenario.chaser, loaded.scenario.debris.properties,
                                             loaded.scenario.debris.size);
    ee = sim->model().frameId("tool");
  }
  // The scenario's capture planner (the one-stage and the two-stage plans, aligned) and window
  // search, as its capture controller has them.
  core::CapturePlannerOptions planner() const { return core::capturePlannerOptions(loaded.scenario.controllers[1]); }
  core::WindowSearchOptions search() const { return core::WindowSearchOptions::from(loaded.scenario.controllers[1]); }
  // The window search at t = 40 s with `search` (the controller's: search()).
  core::CaptureWindow window(const core::WindowSearchOptions& search) const {
    core::Data d(sim->model(), false);
    return core::searchCaptureWindow(sim->model(), d, options, search, planner(), loaded.scenario.debris.properties,
                                     sim->debris(), 40, sim->q(), sim->v(), ee);
  }
  core::HandState hand() const {
    core::Data d(sim->model(), false);
    core::forwardKinematics(sim->model(), d, sim->q());
    core::HandState h;
    h.position = core::framePose(sim->model(), d, ee).p;
    return h;
  }
};

}  // namespace grapple::test
