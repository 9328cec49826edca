// grapple-cli run / validate: a scenario file, integrated and recorded headless.
#include "app/grapple-cli/commands.hpp"
#include "app/grapple-cli/run_summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <tuple>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/io/json.hpp"
#include "core/io/load_error.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/mission.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::cli {

using namespace grapple::core;
namespace fs = std::filesystem;

namespace {

void writeSummaryJson(std::ostream& out, const Simulation& sim, const MissionMetrics& m, double wall,
                      const std::function<void(Json&)>& extra = {}) {
  const Scenario& s = sim.scenario();
  const Model& model = sim.model();
  const SimulationStats st = sim.stats();
  const RunSettings& run = s.run;
  Json j{{"scenario", s.name},
         {"file", s.file},
         {"status", sim.failure().empty() ? std::string("completed") : "failed: " + sim.failure()},
         {"model",
          {{"name", model.name},
           {"base_mode", baseModeName(model.base_mode)},
           {"nq", model.nq},
           {"nv", model.nv},
           {"modal_coordinates", model.nflex}}}};
  Json& settings = j["settings"] = Json{{"duration_s", run.duration}, {"integrator", integratorName(run.integrator)}};
  if (run.integrator == IntegratorType::kRk4) {
    settings["step_s"] = run.step;
  } else {
    settings["rtol"] = run.rtol;
    settings["atol"] = run.atol;
    settings["max_step_s"] = run.max_step;
    if (run.integrator == IntegratorType::kQuasiStatic) {
      settings["quasi_static_above_rad_s"] = run.quasi_static_above;
      settings["quasi_static_modes"] = wordOf(run.quasi_static_modes, kCondensedModesWords);
      settings["quasi_static_pair"] = wordOf(run.quasi_static_pair, kQuasiStaticPairWords);
    }
  }
  settings["record_rate_hz"] = run.record_rate;
  settings["control_rate_hz"] = run.control_rate;
  j["results"] = Json{{"simulated_s", sim.time()},
                      {"rows", sim.recorder().rows()},
                      {"wall_time_s", wall},
                      {"real_time_factor", wall > 0 ? sim.time() / wall : 0.0},
                      {"evaluations", st.evaluations},
                      {"steps", st.steps},
                      {"rejected_steps", st.rejected}};
  Json& metrics = j["metrics"] = Json::object();
  for (const MetricValue& v : metricValues(m)) metrics[v.key] = v.value;
  if (m.has_capture || m.outcome == Outcome::kFailed) {
    metrics["outcome"] = std::string(outcomeName(m.outcome));
    metrics["outcome_reason"] = m.outcome_reason;
  }
  if (m.has_capture) {
    metrics["captured"] = m.captured();  // grasped with every requirement met
    metrics["grasped"] = m.grasped;
    Json& violations = metrics["violations"] = Json::array();
    for (const Violation& v : m.violations) {
      violations.push_back({{"requirement", v.requirement}, {"unit", v.unit}, {"limit", v.limit}, {"worst", v.worst},
                            {"worst_time_s", v.worst_time}, {"first_time_s", v.first_time}});
    }
    Json& requirements = metrics["requirements"] = Json::array();
    for (const RequirementCheck& c : m.requirements) {
      requirements.push_back({{"requirement", c.requirement}, {"unit", c.unit}, {"limit", c.limit}, {"worst", c.worst},
                              {"worst_time_s", c.worst_time}, {"met", c.met}, {"description", c.description}});
    }
  }
  Json& events = j["events"] = Json::array();
  for (const SimulationEvent& e : sim.events()) {
    events.push_back({{"time_s", e.time}, {"kind", e.kind}, {"detail", e.detail}});
  }
  if (extra) extra(j);
  writeJson(out, j);
}

void printSummary(std::ostream& out, const Simulation& sim, const MissionMetrics& m, double wall) {
  const Scenario& s = sim.scenario();
  const Model& model = sim.model();
  const SimulationStats st = sim.stats();
  char line[256];
  if (m.has_capture || m.outcome == Outcome::kFailed) {
    out << "Outcome   " << outcomeName(m.outcome) << ": " << m.outcome_reason << '\n';
  }
  out << "Scenario  " << s.name << "  (" << s.file << ")\n";
  std::snprintf(line, sizeof line, "Chaser    %s: %s base, nv = %d (%d modal)\n", model.name.c_str(),
                std::string(baseModeName(model.base_mode)).c_str(), model.nv, model.nflex);
  out << line;
  std::snprintf(line, sizeof line, "Run       %.3f s simulated in %.3f s wall: %.0fx real time; %ld steps (%ld rejected), %ld evaluations\n",
                sim.time(), wall, wall > 0 ? sim.time() / wall : 0.0, st.steps, st.rejected, st.evaluations);
  out << line;
  std::snprintf(line, sizeof line, "Energy    max |error| %.3e J (scale %.3e J)\n", m.energy_error, m.energy_scale);
  out << line;
  if (model.hasFreeBase()) {
    std::snprintf(line, sizeof line, "Momentum  max drift |p| %.3e kg m/s, |L| %.3e kg m^2/s\n", m.momentum_p, m.momentum_L);
    out << line;
    std::snprintf(line, sizeof line, "Base      max drift %.4f m, %.4f deg\n", m.base_position, m.base_attitude);
    out << line;
  }
  if (m.tracking > 0) {
    std::snprintf(line, sizeof line, "Tracking  max joint error %.3e rad\n", m.tracking);
    out << line;
  }
  if (!std::isnan(m.min_distance)) {
    std::snprintf(line, sizeof line, "Debris    closest end effector - target distance %.4f m\n", m.min_distance);
    out << line;
  }
  if (m.has_capture) {
    std::snprintf(line, sizeof line, "Capture   %s; planned meeting at t = %.3f s; hand error to the plan max %.2e m, "
                  "to the grasp point after the meeting max %.2e m\n",
                  m.grasped ? ("grasped at t = " + std::to_string(m.capture_time).substr(0, 6) + " s").c_str() : "no grasp",
                  m.planned_capture, m.plan_error, m.target_error_after);
    out << line;
    if (m.grasped) {
      std::snprintf(line, sizeof line, "          bus attitude drift until the grasp %.4f deg; composite rate at the end %.2e deg/s\n",
                    m.attitude_at_capture, m.residual_rate);
      out << line;
    }
  }
  for (const RequirementCheck& c : m.requirements) {
    std::snprintf(line, sizeof line, "Require   %-13s worst %-10.4g limit %-8.4g %-4s %s\n", c.requirement.c_str(), c.worst,
                  c.limit, c.unit.c_str(), c.met ? "met" : ("VIOLATED from t = " + std::to_string(c.first_time).substr(0, 7) + " s").c_str());
    out << line;
  }
  if (model.hasFreeBase() && m.base_torque_peak > 0) {
    std::snprintf(line, sizeof line, "Actuators peak base torque %.3f N m, peak joint torque %.3f N m, fuel %.4g kg\n",
                  m.base_torque_peak, m.joint_torque_peak, m.fuel);
    out << line;
  }
  // The first events in full; the rest (a saturating controller can raise hundreds) are counted
  // and listed in summary.json.
  constexpr std::size_t kShownEvents = 12;
  const std::vector<SimulationEvent>& events = sim.events();
  for (std::size_t k = 0; k < std::min(events.size(), kShownEvents); ++k) {
    const SimulationEvent& e = events[k];
    // (The detail in full, not through the fixed buffer: replans and plans explain at length.)
    std::snprintf(line, sizeof line, "Event     t = %8.3f s  %-20s ", e.time, e.kind.c_str());
    out << line << e.detail << '\n';
  }
  if (events.size() > kShownEvents) {
    out << "Event     ... and " << events.size() - kShownEvents << " more (all in summary.json)\n";
  }
  if (!sim.failure().empty()) out << "FAILED    " << sim.failure() << '\n';
}

// The simulation of a loaded scenario; what only the initial state reveals (overlapping paths and
// the like) is a LoadError on the scenario file. The robot file's warnings go to stderr.
}  // namespace

void writeRunSummary(std::ostream& out, const Simulation& sim, double wall, const std::function<void(Json&)>& extra) {
  writeSummaryJson(out, sim, missionMetrics(sim), wall, extra);
}

std::unique_ptr<Simulation> makeSimulation(const std::string& path, LoadedScenario loaded) {
  for (const std::string& w : loaded.warnings) std::cerr << w << '\n';
  try {
    return std::make_unique<Simulation>(std::move(loaded.scenario), std::move(loaded.model));
  } catch (const std::invalid_argument& e) {
    throw LoadError(path, 0, e.what());
  }
}

std::string defaultScenarioPath() { return scenarioDir() + "/capture_flexible.yaml"; }

int runScenario(const RunArgs& o) {
  const std::unique_ptr<Simulation> simulation = makeSimulation(o.scenario, loadScenario(o.scenario, o.overrides));
  Simulation& sim = *simulation;
  if (!o.out.empty()) {
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec) throw LoadError(o.out, 0, "cannot create the output folder: " + ec.message());
  }
  const bool bar = !o.quiet && isatty(fileno(stderr));
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last = start;
  sim.run([&](double t) {
    if (!bar) return true;
    const auto now = Clock::now();
    if (now - last < std::chrono::milliseconds(100) && t < sim.endTime()) return true;
    last = now;
    const double frac = t / sim.endTime();
    const double wall = std::chrono::duration<double>(now - start).count();
    const int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r[%s%s] %3.0f%%  t = %.2f / %.2f s  %.0fx real time ",
                 std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                 100 * frac, t, sim.endTime(), wall > 0 ? t / wall : 0.0);
    return true;
  });
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (bar) std::fprintf(stderr, "\n");
  const MissionMetrics m = missionMetrics(sim);
  if (!o.out.empty()) {
    const std::string csv = o.out + "/channels.csv", json = o.out + "/summary.json";
    std::ofstream c(csv);
    sim.recorder().writeCsv(c);
    std::ofstream j(json);
    writeSummaryJson(j, sim, m, wall);
    if (!c || !j) throw LoadError(o.out, 0, "cannot write the results into this folder");
  }
  if (!o.quiet) {
    printSummary(std::cout, sim, m, wall);
    if (!o.out.empty()) std::cout << "Output    " << o.out << "/channels.csv, " << o.out << "/summary.json\n";
  }
  if (!sim.failure().empty()) {
    std::cerr << "grapple-cli: the simulation failed at t = " << sim.time() << " s: " << sim.failure() << '\n';
    return 3;
  }
  return 0;
}

int runValidate(const RunArgs& o) {
  // Building the simulation checks what needs the initial state (controller paths and so on).
  const std::unique_ptr<Simulation> sim = makeSimulation(o.scenario, loadScenario(o.scenario, o.overrides));
  const Scenario& s = sim->scenario();
  std::cout << o.scenario << ": valid (" << s.name << "; chaser " << sim->model().name << ", nv = "
            << sim->model().nv << (s.debris.enabled ? "; debris" : "") << "; "
            << s.controllers.size() << " controller(s); " << s.run.duration << " s)\n";
  return 0;
}

}  // namespace grapple::cli
