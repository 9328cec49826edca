// SimRunner: a Simulation stepped by a worker thread (std::thread, no Qt), recorded whole so the
// interface can scrub back to any instant. The worker steps one recording interval at a time —
// the same Simulation::step() as grapple-cli, so a GUI run is bit-identical to the CLI's — paced
// at a speed factor of wall time (or as fast as possible), and after each step appends the
// recorded row, the state and the debris' to the run, under a short lock (and, now and then, the
// mission's metrics, computed on the worker). The GUI thread reads
// what it needs (new rows for the plots, one instant for the 3D view) under the same lock, never
// waiting on the physics; the physics never waits on drawing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"
#include "render/recording.hpp"
#include "render/snapshot.hpp"

namespace grapple::core {
struct MissionMetrics;
}

namespace grapple::ui {

struct RunStatus {
  int rows = 0;                   // recorded rows
  double time = 0;                // [s] simulated time
  double end_time = 0;            // [s] run.duration
  bool running = false;           // stepping (not paused)
  bool finished = false;          // at the end, or failed
  std::string failure;            // why the integration stopped early
  double real_time_factor = 0;    // simulated / wall time over the last second of stepping
  double step = 0;                // [s] mean accepted integrator step over the last second
  double planned_capture = std::numeric_limits<double>::quiet_NaN();  // [s]
  double capture_time = std::numeric_limits<double>::quiet_NaN();     // [s] the grasp, if any
  double plan_start = std::numeric_limits<double>::quiet_NaN();       // [s] when the plan was made
  std::vector<core::Vector3> planned_path;  // the whole capture plan's hand path, once made
  std::vector<core::SimulationEvent> events;
  // The mission's outcome and requirements (core::missionMetrics) over the rows recorded until
  // mission_time: computed by the worker at most once a second of wall time while the run goes,
  // and whenever it stops (paused, at the end, failed); replaced, never changed, so a copy of the
  // status shares it. Never null.
  std::shared_ptr<const core::MissionMetrics> mission;
  double mission_time = 0;        // [s] the simulated time it was computed at
};

class SimRunner {
 public:
  // Builds the Simulation (throws std::invalid_argument as Simulation does) and starts the worker,
  // paused, with the initial row recorded.
  explicit SimRunner(const core::LoadedScenario& loaded);
  ~SimRunner();  // stops and joins the worker
  SimRunner(const SimRunner&) = delete;
  SimRunner& operator=(const SimRunner&) = delete;

  const core::Model& model() const { return model_; }
  const core::Scenario& scenario() const { return scenario_; }
  const std::vector<core::ChannelInfo>& channels() const { return channels_; }
  int channelIndex(const std::string& name) const;  // -1 if absent
  // Rows the whole run will record (duration × record rate + the initial one), capped at 2·10⁵:
  // what the run's buffers reserve, so they grow by pages, not by doubling.
  int expectedRows() const;

  void setRunning(bool running);
  // Simulated seconds per wall second; <= 0: as fast as possible.
  void setSpeed(double factor);
  double speed() const { return speed_.load(); }
  // Pauses and advances one recording interval.
  void stepOnce();
  // Runs (at the current speed) and pauses at the first recorded instant at or after t.
  void runUntil(double t);

  RunStatus status() const;
  int rows() const;
  // Moves the rows recorded since the last call to the caller: appended to columns (resized to
  // the channel count). The runner keeps only what the 3D view needs per instant (state, debris,
  // centre of mass, momentum), so the channels are held once, by the caller. Returns the number
  // of rows the caller now holds.
  int takeRows(std::vector<std::vector<double>>& columns);
  // The recorded instant `row` (clamped to the rows there are).
  render::Snapshot snapshot(int row) const;
  // The end-effector paths drawn at `row` (render::Recording::pathsAt).
  void paths(int row, std::vector<core::Vector3>& actual, std::vector<core::Vector3>& planned) const;
  // The capture plan flown at `row` into `plan` (copied only if it is another plan than the one
  // there; number 0: none yet) and the bus' poses over the `seconds` up to it
  // (render::Recording::planAt, basePoses).
  void overlays(int row, double seconds, render::PlanOverlay& plan, std::vector<core::Transform>& trail) const;
  // The planned hand points recorded so far (one per row that has one).
  std::vector<core::Vector3> plannedPoints() const;
  // Runs f(const render::Recording&) under the lock: the video export reads the whole run so.
  template <class F>
  void withRecording(F&& f) const {
    std::lock_guard<std::mutex> lock(mutex_);
    f(*recording_);
  }
  // Waits until the simulated time reaches t (or the run ends, or timeout_s of wall time); true
  // if it got there. For tests and benchmarks.
  bool waitUntil(double t, double timeout_s) const;

 private:
  void loop();
  void publish();
  // Recomputes the mission's metrics (worker side, outside the lock) and stores them.
  void updateMission();

  core::Model model_;
  core::Scenario scenario_;
  std::unique_ptr<core::Simulation> sim_;  // touched by the worker only (after construction)
  std::vector<core::ChannelInfo> channels_;

  // The run, guarded by mutex_.
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<std::vector<double>> pending_;  // (channels) rows not yet taken
  std::unique_ptr<render::Recording> recording_;  // states, paths: what the 3D view draws
  RunStatus status_;

  std::atomic<bool> exit_{false}, running_{false};
  std::atomic<int> step_requests_{0};
  std::atomic<double> speed_{1.0};
  std::atomic<double> stop_at_{std::numeric_limits<double>::infinity()};
  std::atomic<long> pacing_epoch_{0};  // bumped to re-anchor the pacing (speed change, resume)
  std::condition_variable wake_;
  std::thread worker_;
};

}  // namespace grapple::ui
