#include "core/sim/mission.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace grapple::core {

namespace {

// Largest absolute deviation of a channel from its first value (0 if the channel is absent).
double maxDrift(const Recorder& r, const char* name) {
  const int c = r.find(name);
  if (c < 0 || r.rows() == 0) return 0;
  double m = 0;
  for (double x : r.column(c)) m = std::max(m, std::abs(x - r.column(c)[0]));
  return m;
}

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
std::pair<double, double> vectorRmsPeak(const Recorder& r, const char* x, const char* y, const char* z) {
  const int a = r.find(x), b = r.find(y), c = r.find(z);
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
RequirementCheck check(const Recorder& r, const char* channel, std::size_t from, std::size_t to, const char* name,
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

MissionMetrics missionMetrics(const Simulation& sim) {
  const Recorder& r = sim.recorder();
  MissionMetrics m;
  m.energy_error = maxAbs(r, "energy.error");
  m.energy_scale = std::max({maxAbs(r, "energy.total"), maxAbs(r, "energy.input_work"), maxAbs(r, "energy.external_work")});
  m.momentum_p = std::hypot(maxDrift(r, "momentum.px"), maxDrift(r, "momentum.py"), maxDrift(r, "momentum.pz"));
  m.momentum_L = std::hypot(maxDrift(r, "momentum.Lx"), maxDrift(r, "momentum.Ly"), maxDrift(r, "momentum.Lz"));
  m.base_position = maxAbs(r, "base.position_error");
  m.base_attitude = maxAbs(r, "base.attitude_error");
  for (int c = 0; c < r.channels(); ++c) {
    const std::string& n = r.info(c).name;
    if (n.rfind("joint.", 0) != 0) continue;
    if (n.size() > 6 && n.compare(n.size() - 6, 6, ".error") == 0) m.tracking = std::max(m.tracking, maxAbs(r, n));
    if (n.size() > 7 && n.compare(n.size() - 7, 7, ".torque") == 0) {
      m.joint_torque_peak = std::max(m.joint_torque_peak, maxAbs(r, n));
    }
  }
  if (const int c = r.find("distance.ee_target"); c >= 0) {
    m.min_distance = INFINITY;
    for (double x : r.column(c)) m.min_distance = std::min(m.min_distance, x);
  }
  for (const char* c : {"base.tx", "base.ty", "base.tz"}) m.base_torque_peak = std::max(m.base_torque_peak, maxAbs(r, c));
  m.base_torque_rms = vectorRmsPeak(r, "base.tx", "base.ty", "base.tz").first;
  std::tie(m.base_force_rms, m.base_force_peak) = vectorRmsPeak(r, "base.fx", "base.fy", "base.fz");
  // Joint torques: the largest RMS; saturation: rows where a joint sits at its effort limit or a
  // bus torque at the attitude control's limit, times the recording interval.
  const Model& model = sim.model();
  std::vector<std::pair<int, double>> limited;  // channel, limit
  for (int b = 1; b < model.nbodies; ++b) {
    const Joint& j = model.joint[b];
    if (j.nv != 1) continue;
    const int c = r.find("joint." + j.name + ".torque");
    if (c < 0) continue;
    m.joint_torque_rms = std::max(m.joint_torque_rms, rmsOf(r.column(c)));
    if (std::isfinite(model.effort_limit[j.idx_v])) limited.push_back({c, model.effort_limit[j.idx_v]});
  }
  if (const auto& ac = sim.scenario().chaser.attitude_control; ac && ac->active()) {
    for (const char* n : {"base.tx", "base.ty", "base.tz"}) {
      if (const int c = r.find(n); c >= 0) limited.push_back({c, ac->torque_limit});
    }
  }
  for (int k = 0; k < r.rows(); ++k) {
    const bool at_limit = std::any_of(limited.begin(), limited.end(), [&](const auto& l) {
      return std::abs(r.at(k, l.first)) >= l.second * (1 - 1e-9);
    });
    if (at_limit) m.saturated_time += 1 / sim.scenario().run.record_rate;
  }
  if (const int c = r.find("base.fuel"); c >= 0 && r.rows() > 0) m.fuel = r.column(c).back();

  const std::vector<SimulationEvent>& events = sim.events();
  const int c_plan = r.find("plan.ee_error");
  if (c_plan < 0) {
    if (!sim.failure().empty()) {
      m.outcome = Outcome::kFailed;
      m.outcome_reason = "the simulation failed at t = " + std::to_string(sim.time()) + " s: " + sim.failure();
    }
    return m;
  }
  // The capture: the plan's error, the hand's distance to the grasp point once the plan has
  // reached it, and the grasp.
  m.has_capture = true;
  const auto& time = r.column(0);
  const auto& dist = r.column(r.find("distance.ee_target"));
  const auto& speed = r.column(r.find("distance.ee_target_relative_speed"));
  auto rowAt = [&](double t) {  // first row at or after t
    return static_cast<std::size_t>(std::lower_bound(time.begin(), time.end(), t - 1e-9) - time.begin());
  };
  const SimulationEvent* grasp = lastEvent(events, "capture");
  const SimulationEvent* plan = lastEvent(events, "plan");
  for (const SimulationEvent& e : events) m.aborts += e.kind == "abort";
  m.grasped = grasp != nullptr;
  const std::size_t end = grasp ? rowAt(grasp->time) + 1 : time.size();  // rows until the grasp
  m.plan_error = maxAbs(r, "plan.ee_error");
  m.plan_error_rms = rmsOf(r.column(c_plan));
  m.planned_capture = sim.plannedCaptureTime();
  if (!std::isnan(m.planned_capture)) {
    const std::size_t from = rowAt(m.planned_capture);
    m.target_error_after = 0;
    for (std::size_t k = from; k < time.size(); ++k) m.target_error_after = std::max(m.target_error_after, dist[k]);
    m.target_error_rms = rmsOf(dist, from, end);  // from the planned meeting to the grasp (or the end)
  }
  if (const int c = r.find("estimate.error.range"); c >= 0) {
    double sum = 0;
    int n = 0;
    for (std::size_t k = plan ? rowAt(plan->time) : 0; k < end; ++k) {
      if (std::isfinite(r.column(c)[k])) sum += std::abs(r.column(c)[k]), ++n;
    }
    if (n > 0) m.range_error_mean = sum / n;
  }
  m.impact = sim.impact();
  if (grasp) {
    m.capture_time = grasp->time;
    const std::size_t k = rowAt(grasp->time);
    if (k < speed.size()) m.capture_relative_speed = speed[k];
    if (const int a = r.find("base.attitude_error"); a >= 0) {
      m.attitude_at_capture = 0;
      for (std::size_t i = 0; i < end; ++i) m.attitude_at_capture = std::max(m.attitude_at_capture, std::abs(r.column(a)[i]));
      // The composite's rotation rate at the end of the run (after the detumbling).
      const Vector3 w(r.column(r.find("base.wx")).back(), r.column(r.find("base.wy")).back(), r.column(r.find("base.wz")).back());
      m.residual_rate = w.norm();
    }
  }

  // Requirements, each over the phase it applies to.
  const Requirements& req = sim.scenario().requirements;
  if (req.hand_to_plan) {
    // The attempt that grasped (or every attempt): from its plan to the grasp.
    const std::size_t from = grasp && plan ? rowAt(plan->time) : 0;
    m.requirements.push_back(check(r, "plan.ee_error", from, end, "hand_to_plan", "m",
                                   "hand within the limit of the plan, from the plan to the grasp", *req.hand_to_plan));
  }
  if (req.bus_attitude_deg && r.find("base.attitude_error") >= 0) {
    m.requirements.push_back(check(r, "base.attitude_error", 0, end, "bus_attitude", "deg",
                                   "bus attitude within the limit of its initial one, until the grasp", *req.bus_attitude_deg));
  }
  if (req.bus_torque && r.find("base.torque_demand") >= 0) {
    m.requirements.push_back(check(r, "base.torque_demand", 0, end, "bus_torque", "N m",
                                   "bus torque asked within the limit per axis, until the grasp", *req.bus_torque));
  }
  if (req.joint_torque) {
    m.requirements.push_back(check(r, "arm.torque_demand", 0, time.size(), "joint_torque", "N m",
                                   "joint torques asked within the limit, whole run", *req.joint_torque));
  }
  for (const RequirementCheck& c : m.requirements) {
    if (!c.met) m.violations.push_back({c.requirement, c.unit, c.limit, c.worst, c.worst_time, c.first_time});
  }

  // The outcome.
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
  return m;
}

}  // namespace grapple::core
