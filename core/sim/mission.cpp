#include "core/sim/mission.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/sim/channels.hpp"

namespace grapple::core {

namespace {

// Largest absolute deviation of a channel from its first value (0 if the channel is absent).
double maxDrift(const Recorder& r, std::string_view name) {
  const int c = r.find(name);
  if (c < 0 || r.rows() == 0) return 0;
  double m = 0;
  for (double x : r.column(c)) m = std::max(m, std::abs(x - r.column(c)[0]));
  return m;
}

// The norm of the largest drifts of three channels (a vector's components).
double maxDrift3(const Recorder& r, const channel::Xyz& names) {
  return std::hypot(maxDrift(r, names[0]), maxDrift(r, names[1]), maxDrift(r, names[2]));
}

double lastOf(const Recorder& r, std::string_view name) { return r.column(r.find(name)).back(); }

double maxAbs(const Recorder& r, std::string_view name) {
  const int c = r.find(name);
  if (c < 0) return 0;
  double m = 0;
  for (double x : r.column(c)) m = std::max(m, std::abs(x));
  return m;
}

// RMS of a channel over the rows where it is defined (not NaN); NaN if none is.
double rmsOf(const std::vector<double>& x, std::size_t from = 0, std::size_t to = SIZE_MAX) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t k = from; k < std::min(to, x.size()); ++k) {
    if (std::isnan(x[k])) continue;
    sum += x[k] * x[k];
    ++n;
  }
  return n ? std::sqrt(sum / static_cast<double>(n)) : NAN;
}

// RMS and peak of the norm of three channels (a force or torque vector).
std::pair<double, double> vectorRmsPeak(const Recorder& r, const channel::Xyz& names) {
  const int a = r.find(names[0]), b = r.find(names[1]), c = r.find(names[2]);
  if (a < 0 || b < 0 || c < 0 || r.rows() == 0) return {0.0, 0.0};
  double sum = 0, peak = 0;
  for (int k = 0; k < r.rows(); ++k) {
    const double n2 = r.at(k, a) * r.at(k, a) + r.at(k, b) * r.at(k, b) + r.at(k, c) * r.at(k, c);
    sum += n2;
    peak = std::max(peak, std::sqrt(n2));
  }
  return {std::sqrt(sum / r.rows()), peak};
}

const SimulationEvent* lastEvent(const std::vector<SimulationEvent>& events, std::string_view kind) {
  const SimulationEvent* e = nullptr;
  for (const SimulationEvent& x : events) {
    if (x.kind == kind) e = &x;
  }
  return e;
}

// One requirement checked on a channel over rows [from, to): |value| <= limit.
RequirementCheck check(const Recorder& r, std::string_view channel, std::size_t from, std::size_t to, const char* name,
                       const char* unit, const char* description, double limit) {
  RequirementCheck c{name, unit, description, limit};
  const int col = r.find(channel);
  if (col < 0) return c;
  const auto& time = r.column(0);
  const auto& x = r.column(col);
  bool first = true;
  for (std::size_t k = from; k < std::min(to, x.size()); ++k) {
    const double a = std::abs(x[k]);
    if (std::isnan(a)) continue;
    if (a > c.worst) {
      c.worst = a;
      c.worst_time = time[k];
    }
    if (a > limit && first) {
      first = false;
      c.met = false;
      c.first_time = time[k];
    }
  }
  return c;
}

}  // namespace

std::string_view outcomeName(Outcome o) {
  switch (o) {
    case Outcome::kCaptured: return "captured";
    case Outcome::kCapturedOutOfSpec: return "captured_out_of_spec";
    case Outcome::kAborted: return "aborted";
    case Outcome::kMissed: return "missed";
    case Outcome::kFailed: return "failed";
  }
  return "?";
}

std::vector<MetricValue> metricValues(const MissionMetrics& m) {
  std::vector<MetricValue> v{
      {"max_energy_error_J", m.energy_error, "largest error of the energy balance"},
      {"max_linear_momentum_drift_kg_m_s", m.momentum_p, "largest drift of the linear momentum"},
      {"max_angular_momentum_drift_kg_m2_s", m.momentum_L, "largest drift of the angular momentum"},
      {"base_position_drift_max_m", m.base_position, "largest drift of the bus position"},
      {"base_attitude_drift_max_deg", m.base_attitude, "largest drift of the bus attitude, whole run"},
      {"base_torque_peak_Nm", m.base_torque_peak, "largest bus torque applied, per axis"},
      {"joint_torque_peak_Nm", m.joint_torque_peak, "largest joint torque applied"},
      {"joint_torque_rms_Nm", m.joint_torque_rms, "RMS torque of the most loaded joint"},
      {"base_torque_rms_Nm", m.base_torque_rms, "RMS of the bus torque's norm"},
      {"base_force_peak_N", m.base_force_peak, "largest bus force"},
      {"base_force_rms_N", m.base_force_rms, "RMS of the bus force's norm"},
      {"saturated_time_s", m.saturated_time, "time with some joint or bus torque at its limit"},
      {"fuel_kg", m.fuel, "thrusters' propellant (eq. 9.1), 0 with reaction wheels"},
      {"max_joint_tracking_error_rad", m.tracking, "largest error of a joint to its path"},
  };
  if (!std::isnan(m.min_distance)) v.push_back({"min_ee_target_distance_m", m.min_distance, "least hand to grasp point distance"});
  if (!m.has_capture) return v;
  v.insert(v.end(), {
      {"aborts", static_cast<double>(m.aborts), "capture attempts aborted"},
      {"capture_time_s", m.capture_time, "when the gripper closed"},
      {"planned_capture_time_s", m.planned_capture, "when the plan has the hand meet the grasp point"},
      {"ee_error_to_plan_max_m", m.plan_error, "largest hand error to the plan"},
      {"ee_error_to_target_max_m", m.target_error_after, "largest hand distance to the grasp point after the planned meeting"},
      {"ee_error_to_plan_rms_m", m.plan_error_rms, "RMS hand error to the plan"},
      {"ee_error_to_target_rms_m", m.target_error_rms, "RMS hand distance to the grasp point, planned meeting to grasp"},
      {"capture_relative_speed_mps", m.capture_relative_speed, "hand speed relative to the grasp point at the grasp"},
      {"base_attitude_drift_to_capture_max_deg", m.attitude_at_capture, "largest bus attitude drift until the grasp"},
      {"residual_rate_deg_s", m.residual_rate, "the composite's rotation rate at the end"},
  });
  if (!std::isnan(m.range_error_mean)) {
    v.push_back({"estimate_range_error_mean_m", m.range_error_mean,
                 "mean |error| of the estimated camera to grasp point distance, plan to grasp"});
  }
  if (m.impact.happened) {
    v.insert(v.end(), {
        {"capture_impulse_Ns", m.impact.impulse.norm(), "linear impulse of the grasp on the debris"},
        {"capture_angular_impulse_Nms", m.impact.angular_impulse.norm(), "angular impulse of the grasp on the debris"},
        {"capture_energy_lost_J", m.impact.energy_lost, "kinetic energy the inelastic impact took away"},
    });
  }
  return v;
}

namespace {

// The metrics of every run: the balances' errors, the drifts, the torques, saturation and fuel.
void runMetrics(const Simulation& sim, MissionMetrics& m) {
  const Recorder& r = sim.recorder();
  m.energy_error = maxAbs(r, channel::kEnergyError);
  m.energy_scale = std::max({maxAbs(r, channel::kEnergyTotal), maxAbs(r, channel::kEnergyInputWork), maxAbs(r, channel::kEnergyExternalWork)});
  m.momentum_p = maxDrift3(r, channel::kLinearMomentum);
  m.momentum_L = maxDrift3(r, channel::kAngularMomentum);
  m.base_position = maxAbs(r, channel::kBasePositionError);
  m.base_attitude = maxAbs(r, channel::kBaseAttitudeError);
  for (int c = 0; c < r.channels(); ++c) {
    const std::string& n = r.info(c).name;
    if (channel::isJoint(n, channel::kError)) m.tracking = std::max(m.tracking, maxAbs(r, n));
    if (channel::isJoint(n, channel::kTorque)) m.joint_torque_peak = std::max(m.joint_torque_peak, maxAbs(r, n));
  }
  if (const int c = r.find(channel::kHandTargetDistance); c >= 0) {
    m.min_distance = INFINITY;
    for (double x : r.column(c)) m.min_distance = std::min(m.min_distance, x);
  }
  for (channel::Name c : channel::kBaseTorque) m.base_torque_peak = std::max(m.base_torque_peak, maxAbs(r, c));
  m.base_torque_rms = vectorRmsPeak(r, channel::kBaseTorque).first;
  std::tie(m.base_force_rms, m.base_force_peak) = vectorRmsPeak(r, channel::kBaseForce);
  // Joint torques: the largest RMS; saturation: rows where a joint sits at its effort limit or a
  // bus torque at the attitude control's limit, times the recording interval.
  const Model& model = sim.model();
  std::vector<std::pair<int, double>> limited;  // channel, limit
  for (int b = 1; b < model.nbodies; ++b) {
    const Joint& j = model.joint[b];
    if (j.nv != 1) continue;
    const int c = r.find(channel::joint(j.name, 0, 1, channel::kTorque));
    if (c < 0) continue;
    m.joint_torque_rms = std::max(m.joint_torque_rms, rmsOf(r.column(c)));
    if (std::isfinite(model.effort_limit[j.idx_v])) limited.push_back({c, model.effort_limit[j.idx_v]});
  }
  if (const auto& ac = sim.scenario().chaser.attitude_control; ac && ac->active()) {
    for (channel::Name n : channel::kBaseTorque) {
      if (const int c = r.find(n); c >= 0) limited.push_back({c, ac->torque_limit});
    }
  }
  for (int k = 0; k < r.rows(); ++k) {
    const bool at_limit = std::any_of(limited.begin(), limited.end(), [&](const auto& l) {
      return std::abs(r.at(k, l.first)) >= l.second * (1 - 1e-9);
    });
    if (at_limit) m.saturated_time += 1 / sim.scenario().run.record_rate;
  }
  if (const int c = r.find(channel::kBaseFuel); c >= 0 && r.rows() > 0) m.fuel = r.column(c).back();

}

// The rows of a capture: the time column, the plan and grasp events, the rows until the grasp.
struct CaptureRows {
  const std::vector<double>& time;
  const SimulationEvent* grasp;
  const SimulationEvent* plan;
  std::size_t end;  // rows until the grasp (all without one)
  std::size_t rowAt(double t) const {  // first row at or after t
    return static_cast<std::size_t>(std::lower_bound(time.begin(), time.end(), t - 1e-9) - time.begin());
  }
};

// The capture: the plan's error, the hand's distance to the grasp point once the plan has
// reached it, and the grasp.
void captureMetrics(const Simulation& sim, const CaptureRows& rows, MissionMetrics& m) {
  const Recorder& r = sim.recorder();
  const auto& dist = r.column(r.find(channel::kHandTargetDistance));
  const auto& speed = r.column(r.find(channel::kHandTargetRelativeSpeed));
  const std::size_t end = rows.end;
  for (const SimulationEvent& e : sim.events()) m.aborts += e.kind == "abort";
  m.grasped = rows.grasp != nullptr;
  m.plan_error = maxAbs(r, channel::kPlanHandError);
  m.plan_error_rms = rmsOf(r.column(r.find(channel::kPlanHandError)));
  m.planned_capture = sim.plannedCaptureTime();
  if (!std::isnan(m.planned_capture)) {
    const std::size_t from = rows.rowAt(m.planned_capture);
    m.target_error_after = 0;
    for (std::size_t k = from; k < rows.time.size(); ++k) m.target_error_after = std::max(m.target_error_after, dist[k]);
    m.target_error_rms = rmsOf(dist, from, end);  // from the planned meeting to the grasp (or the end)
  }
  if (const int c = r.find(channel::kEstimateRangeError); c >= 0) {
    double sum = 0;
    int n = 0;
    for (std::size_t k = rows.plan ? rows.rowAt(rows.plan->time) : 0; k < end; ++k) {
      if (std::isfinite(r.column(c)[k])) sum += std::abs(r.column(c)[k]), ++n;
    }
    if (n > 0) m.range_error_mean = sum / n;
  }
  m.impact = sim.impact();
  if (!rows.grasp) return;
  m.capture_time = rows.grasp->time;
  const std::size_t k = rows.rowAt(rows.grasp->time);
  if (k < speed.size()) m.capture_relative_speed = speed[k];
  if (const int a = r.find(channel::kBaseAttitudeError); a >= 0) {
    m.attitude_at_capture = 0;
    for (std::size_t i = 0; i < end; ++i) m.attitude_at_capture = std::max(m.attitude_at_capture, std::abs(r.column(a)[i]));
    // The composite's rotation rate at the end of the run (after the detumbling).
    const Vector3 w(lastOf(r, channel::kBaseRate[0]), lastOf(r, channel::kBaseRate[1]), lastOf(r, channel::kBaseRate[2]));
    m.residual_rate = w.norm();
  }
}

// Requirements, each over the phase it applies to.
std::vector<RequirementCheck> checkRequirements(const Simulation& sim, const CaptureRows& rows) {
  const Recorder& r = sim.recorder();
  const Requirements& req = sim.scenario().requirements;
  const std::size_t end = rows.end;
  std::vector<RequirementCheck> out;
  if (req.hand_to_plan) {
    // The attempt that grasped (or every attempt): from its plan to the grasp.
    const std::size_t from = rows.grasp && rows.plan ? rows.rowAt(rows.plan->time) : 0;
    out.push_back(check(r, channel::kPlanHandError, from, end, "hand_to_plan", "m",
                        "hand within the limit of the plan, from the plan to the grasp", *req.hand_to_plan));
  }
  if (req.bus_attitude_deg && r.find(channel::kBaseAttitudeError) >= 0) {
    out.push_back(check(r, channel::kBaseAttitudeError, 0, end, "bus_attitude", "deg",
                        "bus attitude within the limit of its initial one, until the grasp", *req.bus_attitude_deg));
  }
  if (req.bus_torque && r.find(channel::kBaseTorqueDemand) >= 0) {
    out.push_back(check(r, channel::kBaseTorqueDemand, 0, end, "bus_torque", "N m",
                        "bus torque asked within the limit per axis, until the grasp", *req.bus_torque));
  }
  if (req.joint_torque) {
    out.push_back(check(r, channel::kArmTorqueDemand, 0, rows.time.size(), "joint_torque", "N m",
                        "joint torques asked within the limit, whole run", *req.joint_torque));
  }
  return out;
}

// The outcome of a capture and why.
void captureOutcome(const Simulation& sim, const CaptureRows& rows, MissionMetrics& m) {
  const std::vector<SimulationEvent>& events = sim.events();
  const SimulationEvent* grasp = rows.grasp;
  const SimulationEvent* plan = rows.plan;
  const auto& dist = sim.recorder().column(sim.recorder().find(channel::kHandTargetDistance));
  char buf[512];
  const SimulationEvent* abort = lastEvent(events, "abort");
  const SimulationEvent* no_window = lastEvent(events, "no_window");
  if (!sim.failure().empty()) {
    m.outcome = Outcome::kFailed;
    m.outcome_reason = "the simulation failed at t = " + std::to_string(sim.time()) + " s: " + sim.failure();
  } else if (grasp) {
    if (m.violations.empty()) {
      m.outcome = Outcome::kCaptured;
      std::snprintf(buf, sizeof buf, "grasped at t = %.3f s with every requirement met", grasp->time);
    } else {
      m.outcome = Outcome::kCapturedOutOfSpec;
      std::string list;
      for (const Violation& v : m.violations) {
        char one[160];
        std::snprintf(one, sizeof one, "%s%s %.4g %s > %.4g (first at t = %.2f s)", list.empty() ? "" : "; ",
                      v.requirement.c_str(), v.worst, v.unit.c_str(), v.limit, v.first_time);
        list += one;
      }
      std::snprintf(buf, sizeof buf, "grasped at t = %.3f s, out of spec: %s", grasp->time, list.c_str());
    }
    m.outcome_reason = buf;
  } else if (abort && (!plan || plan->time <= abort->time)) {
    m.outcome = Outcome::kAborted;
    m.outcome_reason = "aborted at t = " + std::to_string(abort->time).substr(0, 7) + " s: " + abort->detail;
    if (no_window && no_window->time > abort->time) m.outcome_reason += "; then " + no_window->detail;
  } else {
    m.outcome = Outcome::kMissed;
    if (no_window) {
      m.outcome_reason = no_window->detail;
    } else if (plan) {
      std::snprintf(buf, sizeof buf, "the run ended at t = %.2f s without a grasp (planned meeting at t = %.2f s, "
                    "the hand %.3f m from the grasp point at the end)", sim.time(), m.planned_capture, dist.back());
      m.outcome_reason = buf;
    } else {
      std::snprintf(buf, sizeof buf, "the run ended at t = %.2f s before the capture began", sim.time());
      m.outcome_reason = buf;
    }
  }
}

}  // namespace

MissionMetrics missionMetrics(const Simulation& sim) {
  const Recorder& r = sim.recorder();
  MissionMetrics m;
  runMetrics(sim, m);
  if (r.find(channel::kPlanHandError) < 0) {
    if (!sim.failure().empty()) {
      m.outcome = Outcome::kFailed;
      m.outcome_reason = "the simulation failed at t = " + std::to_string(sim.time()) + " s: " + sim.failure();
    }
    return m;
  }
  m.has_capture = true;
  const auto& time = r.column(0);
  CaptureRows rows{time, lastEvent(sim.events(), "capture"), lastEvent(sim.events(), "plan"), time.size()};
  if (rows.grasp) rows.end = rows.rowAt(rows.grasp->time) + 1;
  captureMetrics(sim, rows, m);
  m.requirements = checkRequirements(sim, rows);
  for (const RequirementCheck& c : m.requirements) {
    if (!c.met) m.violations.push_back({c.requirement, c.unit, c.limit, c.worst, c.worst_time, c.first_time});
  }
  captureOutcome(sim, rows, m);
  return m;
}

}  // namespace grapple::core
