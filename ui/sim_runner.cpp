#include "ui/sim_runner.hpp"

#include <chrono>
#include <cmath>
#include <algorithm>
#include <deque>

#include "core/sim/mission.hpp"

namespace grapple::ui {

using Clock = std::chrono::steady_clock;

SimRunner::SimRunner(const core::LoadedScenario& loaded)
    : model_(loaded.model), scenario_(loaded.scenario) {
  sim_ = std::make_unique<core::Simulation>(scenario_, model_);
  channels_ = sim_->recorder().info();
  pending_.resize(channels_.size());
  recording_ = std::make_unique<render::Recording>(*sim_, expectedRows());
  status_.end_time = sim_->endTime();
  updateMission();
  publish();  // the initial row
  worker_ = std::thread([this] { loop(); });
}

SimRunner::~SimRunner() {
  exit_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
}

int SimRunner::channelIndex(const std::string& name) const {
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    if (channels_[c].name == name) return static_cast<int>(c);
  }
  return -1;
}

int SimRunner::expectedRows() const {
  const double rows = scenario_.run.duration * scenario_.run.record_rate + 2;
  return std::isfinite(rows) ? static_cast<int>(std::clamp(rows, 1.0, 2e5)) : 200000;
}

void SimRunner::setRunning(bool running) {
  if (!running) stop_at_ = std::numeric_limits<double>::infinity();
  running_ = running;
  ++pacing_epoch_;
  std::lock_guard<std::mutex> lock(mutex_);
  status_.running = running && !status_.finished;
  wake_.notify_all();
}

void SimRunner::setSpeed(double factor) {
  speed_ = factor;
  ++pacing_epoch_;
  std::lock_guard<std::mutex> lock(mutex_);
  wake_.notify_all();
}

void SimRunner::runUntil(double t) {
  stop_at_ = t;
  setRunning(true);
}

void SimRunner::stepOnce() {
  running_ = false;
  ++step_requests_;
  std::lock_guard<std::mutex> lock(mutex_);
  status_.running = false;
  wake_.notify_all();
}

// Worker side: after a step (or at construction), append the newest row of the recorder and the
// state to the shared run (a copy of a few hundred numbers under the lock; a forward kinematics
// for the joint references' planned hand).
void SimRunner::publish() {
  const core::Recorder& r = sim_->recorder();
  const int row = r.rows() - 1;
  if (row < 0) return;
  std::vector<double> values(channels_.size());
  for (std::size_t c = 0; c < values.size(); ++c) values[c] = r.at(row, static_cast<int>(c));
  const double planned = sim_->plannedCaptureTime();
  const auto& events = sim_->events();
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t c = 0; c < values.size(); ++c) pending_[c].push_back(values[c]);
  recording_->append(*sim_);
  if (!recording_->capturePlan().empty() && !(status_.plan_start == recording_->planStart())) {  // a new plan
    status_.planned_path = recording_->capturePlan();
    status_.plan_start = recording_->planStart();
  }
  status_.rows = recording_->rows();
  status_.time = sim_->time();
  status_.finished = sim_->finished();
  status_.failure = sim_->failure();
  status_.planned_capture = planned;
  if (events.size() != status_.events.size()) {
    status_.events = events;
    for (const auto& e : events) {
      if (e.kind == "capture" && std::isnan(status_.capture_time)) status_.capture_time = e.time;
    }
  }
  if (status_.finished) status_.running = false;
  changed_.notify_all();
}

// Worker side: the metrics are a pass over the recorded channels, so computed outside the lock
// (the worker alone touches the Simulation) and swapped in.
void SimRunner::updateMission() {
  auto mission = std::make_shared<const core::MissionMetrics>(core::missionMetrics(*sim_));
  std::lock_guard<std::mutex> lock(mutex_);
  status_.mission = std::move(mission);
  status_.mission_time = sim_->time();
  changed_.notify_all();
}

void SimRunner::loop() {
  // Pacing: simulated time follows anchor_sim + speed × (wall - anchor_wall); re-anchored when the
  // speed changes, on resume, and when the physics falls behind by more than 0.25 s of wall time
  // (so a slow stretch is not followed by a burst).
  long epoch = -1;
  Clock::time_point anchor_wall;
  double anchor_sim = 0;
  // Figures over the last second of stepping: (wall, simulated time, accepted steps).
  struct Sample {
    Clock::time_point wall;
    double t;
    long steps;
  };
  std::deque<Sample> window;
  // The mission's metrics: once a second of wall time while stepping, and whenever it stops.
  Clock::time_point metrics_wall = Clock::now();
  double metrics_t = sim_->time();
  auto updateMissionNow = [&] {
    updateMission();
    metrics_wall = Clock::now();
    metrics_t = sim_->time();
  };
  while (!exit_) {
    const bool stepping = running_ || step_requests_ > 0;
    if (!stepping || sim_->finished()) {
      if (sim_->finished()) {
        running_ = false;
        step_requests_ = 0;
      }
      if (metrics_t != sim_->time()) updateMissionNow();  // paused from the interface meanwhile
      window.clear();
      std::unique_lock<std::mutex> lock(mutex_);
      status_.running = false;
      wake_.wait_for(lock, std::chrono::milliseconds(50));
      continue;
    }
    const double speed = speed_;
    if (running_ && speed > 0) {
      const auto now = Clock::now();
      if (epoch != pacing_epoch_) {
        epoch = pacing_epoch_;
        anchor_wall = now;
        anchor_sim = sim_->time();
      }
      const double wall = std::chrono::duration<double>(now - anchor_wall).count();
      const double target = anchor_sim + speed * wall;
      if (sim_->time() >= target) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait_for(lock, std::chrono::milliseconds(1));
        continue;
      }
      if (target - sim_->time() > 0.25 * speed) {
        anchor_wall = now;
        anchor_sim = sim_->time();
      }
    } else {
      epoch = -1;
    }
    if (!running_ && step_requests_ > 0) --step_requests_;
    sim_->step();
    if (sim_->time() >= stop_at_ - 1e-12) {
      running_ = false;
      stop_at_ = std::numeric_limits<double>::infinity();
    }
    const auto now = Clock::now();
    window.push_back({now, sim_->time(), sim_->stats().steps});
    while (window.size() > 2 && std::chrono::duration<double>(now - window.front().wall).count() > 1.0) {
      window.pop_front();
    }
    // The metrics before the row: whoever sees the run stopped (the end, a failure, a step,
    // runUntil's instant) sees its final metrics; while it goes, once a second.
    if (sim_->finished() || !running_ || now - metrics_wall >= std::chrono::seconds(1)) updateMissionNow();
    publish();
    if (window.size() >= 2) {
      const double dw = std::chrono::duration<double>(window.back().wall - window.front().wall).count();
      const double dt = window.back().t - window.front().t;
      const long ds = window.back().steps - window.front().steps;
      std::lock_guard<std::mutex> lock(mutex_);
      status_.real_time_factor = dw > 0 ? dt / dw : 0;
      status_.step = ds > 0 ? dt / ds : 0;
      status_.running = running_;
    }
    if (!running_) {
      std::lock_guard<std::mutex> lock(mutex_);
      status_.running = false;
    }
  }
}

RunStatus SimRunner::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

int SimRunner::rows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_.rows;
}

int SimRunner::takeRows(std::vector<std::vector<double>>& columns) {
  std::vector<std::vector<double>> taken(channels_.size());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.swap(taken);
  }
  columns.resize(channels_.size());
  for (std::size_t c = 0; c < taken.size(); ++c) {
    if (columns[c].capacity() == 0) {  // nothing reserved: take the buffer itself
      columns[c] = std::move(taken[c]);
    } else {
      columns[c].insert(columns[c].end(), taken[c].begin(), taken[c].end());
    }
  }
  return taken.empty() ? 0 : static_cast<int>(columns[0].size());
}

render::Snapshot SimRunner::snapshot(int row) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recording_->snapshot(row);
}

void SimRunner::paths(int row, std::vector<core::Vector3>& actual, std::vector<core::Vector3>& planned) const {
  std::lock_guard<std::mutex> lock(mutex_);
  recording_->pathsAt(row, actual, planned);
}

void SimRunner::overlays(int row, double seconds, render::PlanOverlay& plan, std::vector<core::Transform>& trail) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const render::PlanOverlay* p = recording_->planAt(row);
  if (p == nullptr) {
    plan = render::PlanOverlay{};
  } else if (p->number != plan.number) {
    plan = *p;
  }
  recording_->basePoses(row, seconds, trail);
}

std::vector<core::Vector3> SimRunner::plannedPoints() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recording_->plannedPoints();
}

bool SimRunner::waitUntil(double t, double timeout_s) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                           [&] { return status_.time >= t - 1e-12 || status_.finished; }) &&
         status_.time >= t - 1e-12;
}

}  // namespace grapple::ui
