// Recording: a run kept whole for drawing, row by row as the Simulation records them — per row the
// time, the chaser's and the debris' states, the centre of mass and momenta (a Snapshot), the
// hand's path and the planned one — so any instant can be drawn again: the GUI's timeline, and
// the video export (grapple-cli video, File > Export video), which both fill one from a
// Simulation after each step. Core types only: no OSG here.
#pragma once

#include <limits>
#include <vector>

#include <Eigen/Core>

#include "core/dynamics/data.hpp"
#include "core/model/model.hpp"
#include "core/sim/scenario.hpp"
#include "core/sim/simulation.hpp"
#include "render/snapshot.hpp"

namespace grapple::render {

class Recording {
 public:
  // Reserves room for `expected_rows` (so the buffers grow by pages, not by doubling).
  // The recording of `sim`'s run (the Simulation must outlive it); nothing appended yet.
  explicit Recording(const core::Simulation& sim, int expected_rows = 0);

  // Appends the simulation's newest recorded row (and, once the capture plan is made, its path).
  void append(const core::Simulation& sim);

  int rows() const { return static_cast<int>(time_.size()); }
  double time(int row) const { return time_[row]; }
  const std::vector<double>& times() const { return time_; }
  // The recorded instant `row` (clamped to the rows there are; a default Snapshot if none).
  Snapshot snapshot(int row) const;
  // The last row at or before time t (0 if t is before the first).
  int rowAt(double t) const;

  // The end-effector paths drawn at `row`: the hand's up to it; the whole capture plan from the
  // instant it was made, else the planned points (capture-plan channels, or where the joint
  // references put the rigid hand) up to it. The vectors are overwritten (their capacity reused).
  void pathsAt(int row, std::vector<core::Vector3>& actual, std::vector<core::Vector3>& planned) const;
  // The capture plan's whole hand path (empty until it is made) and when it was made.
  const std::vector<core::Vector3>& capturePlan() const { return plan_; }
  double planStart() const { return plan_start_; }
  // The planned points so far, one per row that has one, and those rows.
  const std::vector<core::Vector3>& plannedPoints() const { return planned_points_; }
  const std::vector<int>& plannedRows() const { return planned_rows_; }
  // The capture plan being flown at `row` (the last made at or before its instant; null before the
  // first): its points at the plan's start, at every recording instant up to the planned meeting
  // and at the meeting (at most kPlanPoints: a long plan recorded fast is thinned), each with the
  // margin of the plan's feasibility check there (linear between the check's steps).
  const PlanOverlay* planAt(int row) const;
  static constexpr int kPlanPoints = 2000;
  // The bus' poses (inertial) over the `seconds` up to `row`, oldest first, at most kTrailPoints
  // (evenly thinned; the row itself always last); empty for a chaser whose base does not move.
  void basePoses(int row, double seconds, std::vector<core::Transform>& poses) const;
  static constexpr int kTrailPoints = 300;

 private:
  void addPlannedPoint(const core::Recorder& r, int rec_row, const Eigen::VectorXd& q);
  void addPlan(const core::Simulation& sim);
  core::Transform basePose(int row) const;

  const core::Model* model_;  // the Simulation's (outlives the recording)
  bool has_debris_;
  double record_rate_;
  int nq_, nv_, ee_frame_;
  int c_com_, c_p_, c_l_, c_ee_, c_plan_;  // first channel of com.x, momentum.px, momentum.Lx, ee.x, plan.x
  int c_est_ = -1, c_est_q_ = -1, c_est_cov_ = -1;  // estimate.x, estimate.qw, estimate.cov.xx (with a camera)
  std::vector<std::pair<int, int>> reference_channels_;  // (channel, index in q)
  core::Data data_;                                       // for the joint references' hand

  std::vector<double> time_;               // (rows) [s]
  std::vector<double> q_, v_;              // (rows * nq), (rows * nv)
  std::vector<double> vectors_;            // (rows * 9) com, momentum P and L
  std::vector<core::DebrisState> debris_;  // (rows)
  std::vector<double> estimates_;          // (rows * kEstimateValues, with a camera) position, attitude, covariance
  static constexpr int kEstimateValues = 13;
  std::vector<core::Vector3> hand_;        // (rows, if ee.x is recorded)
  std::vector<core::Vector3> planned_points_;
  std::vector<int> planned_rows_;
  std::vector<core::Vector3> plan_;
  double plan_start_ = std::numeric_limits<double>::quiet_NaN();
  int plans_ = 0;                          // plans seen (Simulation::plans)
  std::vector<PlanOverlay> overlays_;      // every plan made, in order
};

}  // namespace grapple::render
