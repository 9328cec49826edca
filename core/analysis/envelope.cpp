#include "core/analysis/envelope.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include <Eigen/Eigenvalues>

#include "core/control/capture_controller.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/channels.hpp"
#include "core/planning/feasibility.hpp"

namespace grapple::core {

namespace {

constexpr double kDeg = M_PI / 180;

// An orthonormal frame whose first axis is a and whose second lies in the plane of a and b (any
// perpendicular when b is parallel to a), as the columns of a matrix.
Matrix3 triad(const Vector3& a, const Vector3& b) {
  const Vector3 e1 = a.normalized();
  Vector3 e2 = b - b.dot(e1) * e1;
  if (e2.norm() < 1e-9) e2 = std::abs(e1.z()) < 0.9 ? Vector3(e1.cross(Vector3::UnitZ())) : Vector3(e1.cross(Vector3::UnitX()));
  e2.normalize();
  Matrix3 F;
  F << e1, e2, e1.cross(e2);
  return F;
}

}  // namespace

EnvelopeGrid EnvelopeGrid::standard(const DebrisProperties& debris) {
  EnvelopeGrid g;
  g.rates_deg_s = {0.5, 1, 2, 4, 6, 8};
  g.phases_deg = {0, 180};
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(debris.inertia);
  const char* names[3] = {"principal (min)", "principal (mid)", "principal (max)"};
  for (int k = 0; k < 3; ++k) {
    Vector3 a = eig.eigenvectors().col(k);  // increasing moments
    Eigen::Index i = 0;
    a.cwiseAbs().maxCoeff(&i);
    if (a[i] < 0) a = -a;
    g.axes.push_back({names[k], a});
  }
  g.axes.push_back({"body x", Vector3::UnitX()});
  g.axes.push_back({"body (1 1 0)", Vector3(1, 1, 0).normalized()});
  g.axes.push_back({"body (1 1 1)", Vector3(1, 1, 1).normalized()});
  return g;
}

DebrisState envelopeDebrisState(const DebrisSpec& debris, const Vector3& axis_B, double rate_deg_s, double phase_deg) {
  DebrisState s = debris.initial;
  const Vector3 w = axis_B.normalized();
  const Vector3 grasp = graspAxis(debris.properties);
  // The spin axis in inertial axes: horizontal, at the angle θ between the spin and the grasp
  // axes from -x, so that the grasp axis' cone about it passes through -x.
  const double theta = std::acos(std::clamp(w.dot(grasp), -1.0, 1.0));
  const Vector3 w_W(-std::cos(theta), std::sin(theta), 0);
  // R_face: grasp axis -> -x, spin axis -> w_W (a rotation: both triads are right-handed).
  const Matrix3 R_face = triad(-Vector3::UnitX(), w_W) * triad(grasp, w).transpose();
  // The grasp axis faces the chaser after the debris has turned by `phase` about its spin axis.
  const Matrix3 R0 = axisAngle(w_W, -phase_deg * kDeg) * R_face;
  s.Q_WB = matrixToQuat(R0);
  s.w_B = rate_deg_s * kDeg * w;
  return s;
}

std::vector<EnvelopeCell> runEnvelope(const Scenario& scenario, const Model& model, const EnvelopeGrid& grid,
                                      int threads, double after,
                                      const std::function<void(std::size_t, std::size_t)>& progress,
                                      const EnvelopeInspector& inspect) {
  const std::size_t n = grid.size();
  std::vector<EnvelopeCell> cells(n);
  const ControllerSpec* capture = nullptr;
  for (const ControllerSpec& c : scenario.controllers) {
    if (c.type == ControllerType::kCapture) capture = &c;
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::size_t done = 0;
  auto work = [&]() {
    for (std::size_t i = next++; i < n; i = next++) {
      const std::size_t np = grid.phases_deg.size(), na = grid.axes.size();
      EnvelopeCell& cell = cells[i];
      cell.rate_deg_s = grid.rates_deg_s[i / (na * np)];
      cell.axis = static_cast<int>(i / np % na);
      cell.phase_deg = grid.phases_deg[i % np];
      Scenario s = scenario;
      searchWindowsOnOneThread(s);  // (the cells themselves run on every core)
      s.debris.initial = envelopeDebrisState(s.debris, grid.axes[cell.axis].axis, cell.rate_deg_s, cell.phase_deg);
      if (capture && capture->capture.window.search) {
        // Long enough for the window search's whole span (its tumbling periods), the slowest plan
        // it may choose (the planner's horizon times the largest duration factor, and the
        // approach) and `after`; the loop below ends the run as soon as its outcome is settled.
        const auto& c = capture->capture;
        const double span = windowSearchSpan(c.window.horizon, c.window.periods, cell.rate_deg_s * M_PI / 180);
        const std::vector<double>& factors = WindowSearchOptions{}.durations;
        const double slowest = c.horizon * *std::max_element(factors.begin(), factors.end()) + c.approach.duration;
        s.run.duration = std::max(s.run.duration, capture->start + span + slowest + after);
      }
      try {
        Simulation sim(s, model);
        // Until the outcome can no longer change: `after` seconds past the grasp (the detumbling's
        // start, where the torques peak), or once the capture has stopped (no window, no retry).
        const int phase = sim.recorder().find(channel::kCapturePhase);
        double grasped_at = NAN;
        while (sim.step()) {
          if (phase < 0) continue;
          using Phase = CaptureController::Phase;  // the channel records the phase's number
          const auto p = static_cast<Phase>(static_cast<int>(sim.recorder().column(phase).back()));
          if (p == Phase::kStopped) break;
          if (p == Phase::kAttached && std::isnan(grasped_at)) grasped_at = sim.time();
          if (sim.time() > grasped_at + after) break;
          // Still tracking, without a grasp, `after` seconds past the planned meeting (no abort
          // monitor to end it): a miss, whatever comes later.
          if (p == Phase::kTracking && sim.time() > sim.plannedCaptureTime() + after) break;
        }
        const MissionMetrics m = missionMetrics(sim);
        cell.outcome = m.outcome;
        cell.reason = m.outcome_reason;
        cell.simulated = sim.time();
        cell.grasp_time = m.capture_time;
        for (const RequirementCheck& c : m.requirements) {
          const double worst = c.worst;
          if (c.requirement == "hand_to_plan") cell.hand_to_plan = worst;
          if (c.requirement == "bus_attitude") cell.bus_attitude_deg = worst;
          if (c.requirement == "bus_torque") cell.bus_torque = worst;
          if (c.requirement == "joint_torque") cell.joint_torque = worst;
        }
        if (m.outcome == Outcome::kCapturedOutOfSpec) {
          for (const Violation& v : m.violations) cell.limiting += (cell.limiting.empty() ? "" : ",") + v.requirement;
        } else if (m.outcome == Outcome::kMissed || m.outcome == Outcome::kAborted) {
          // The constraint named in the reason: "... limited by NAME: ..." or the abort's trigger.
          // (A bus limit that no plan can meet first: its reason names the best candidate's too.)
          if (m.outcome_reason.find("no plan can meet the bus torque limit") != std::string::npos) cell.limiting = "bus_torque_bound";
          if (m.outcome_reason.find("no plan can ride the grasp point") != std::string::npos) cell.limiting = "reach";
          for (const char* c : {"joint_torque", "bus_torque", "singularity", "joint_limit", "joint_rate",
                                "debris_clearance", "bus_clearance", "transversality", "from the plan",
                                "torques at their limit", "bus attitude", "from the debris' box", "no grasp"}) {
            if (cell.limiting.empty() && m.outcome_reason.find(c) != std::string::npos) {
              cell.limiting = c;
              break;
            }
          }
          if (cell.limiting.empty()) cell.limiting = "time";
        }
        if (inspect) inspect(i, cell, sim);
      } catch (const std::exception& e) {
        cell.outcome = Outcome::kFailed;
        cell.reason = e.what();
        cell.limiting = "error";
      }
      if (progress) {
        const std::lock_guard<std::mutex> lock(mutex);
        progress(++done, n);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return cells;
}

}  // namespace grapple::core
