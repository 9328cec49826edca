// grapple-cli robust: the μ-analysis of the thesis (§8.3, Tables 8.5 and 8.6) for a scenario's
// capture controller: the joint ranges in which its PD loops (the bus attitude control and the
// joint PD of law joint_pd, or a controller synthesized on the spot) are guaranteed to keep the
// linearized loop stable, or to keep ‖W T_w→a‖∞ ≤ γ.
#include "app/grapple-cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/analysis/robust.hpp"
#include "core/analysis/scenario_loops.hpp"
#include "core/analysis/synthesis.hpp"
#include "core/io/json.hpp"

namespace grapple::cli {

using namespace grapple::core;

namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;

std::string degrees(double a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+7.1f", a / kDeg);
  return buf;
}

}  // namespace

int runRobust(const RobustArgs& a) {
  const std::string& path = a.scenario;
  const int controller = a.controller;
  const bool json = a.json, design = a.design;
  const double at = a.configuration;
  const std::string& iterative = a.iterative;
  const std::vector<std::pair<double, double>>& limit_list = a.limits;
  const RobustOptions& options = a.options;
  LoadedScenario loaded = loadScenario(path);
  const Scenario scenario = loaded.scenario;
  const ControllerSpec& spec = captureControllerSpec(scenario, path, controller, "robust analyses the PD loops of its law joint_pd");
  const Model model = loaded.model;
  if (model.hasFlexibleBodies()) {
    throw UsageError(path + ": the chaser is flexible; the mu-analysis needs a rigid model (as the thesis, §8.3); "
                     "use design --worst-case for the flexible chaser");
  }
  if (!spec.capture.joint_rolloff.empty() && !design) {
    throw UsageError(path + ": controller " + std::to_string(controller) +
                     " has a joint_rolloff; the mu-analysis covers the plain PD loops (thesis §8.3)");
  }
  std::unique_ptr<Simulation> sim = makeSimulation(path, std::move(loaded));
  if (at < 0 || at > sim->endTime()) throw UsageError("--configuration: outside the run (0 to " + std::to_string(sim->endTime()) + " s)");
  while (sim->time() < at - 1e-9 && sim->step()) {
  }
  if (!sim->failure().empty()) throw std::runtime_error("the run failed before the configuration: " + sim->failure());
  const Eigen::VectorXd q = sim->q();
  // The limits: given, else the model's (±180° where it has none).
  std::vector<JointRange> limits = jointLimitRanges(model);
  if (!limit_list.empty()) {
    if (limit_list.size() != limits.size()) {
      throw UsageError("--limits: " + std::to_string(limits.size()) + " joints expected, got " + std::to_string(limit_list.size()));
    }
    for (std::size_t k = 0; k < limits.size(); ++k) {
      if (!(limit_list[k].first <= limit_list[k].second)) throw UsageError("--limits: joint " + std::to_string(k + 1) + " has LOWER > UPPER");
      limits[k].lower = limit_list[k].first;
      limits[k].upper = limit_list[k].second;
    }
  }
  // The controller: the file's, or synthesized at q (thesis structure: free 3x3 AOCS blocks).
  ClosedLoopGains gains;
  std::string what;
  if (design) {
    SynthesisStructure st;
    st.centralized = spec.capture.arm_pd == core::ArmPd::kCentralized;
    const SynthesisResult r = synthesize(model, {q}, st);
    gains = r.gains;
    char buf[160];
    std::snprintf(buf, sizeof buf, "synthesized at the configuration (gamma_hard %.4f, gamma_soft %.4f, Kp %s, Kd %s)",
                  r.gamma_hard, r.gamma_soft, r.kp_positive_definite ? "PD" : "NOT PD", r.kd_positive_definite ? "PD" : "NOT PD");
    what = buf;
  } else {
    gains = scenarioLoops(scenario, model, q, &spec)->gains;  // (spec is a PD loop: never nullopt)
    what = "the file's gains";
  }
  std::vector<int> order;
  const std::vector<int> varying = massMatrixJoints(model, q);
  if (!iterative.empty()) {
    order = varying;
    if (iterative == "5-1") std::reverse(order.begin(), order.end());
  }
  const auto t0 = std::chrono::steady_clock::now();
  const CertifiedBox c = certifyBox(model, q, gains, limits, options, order);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool performance = options.goal == RobustGoal::kPerformance;
  const char* form = options.form == RotationParameter::kTan2 ? "sigma2" : "sigma4";

  if (json) {
    Json j{{"scenario", path}, {"controller", controller}, {"gains", what}, {"parameterization", form},
           {"goal", performance ? "performance" : "stability"}};
    if (performance) j["performance_level"] = options.performance_level;
    j.update({{"iterative", iterative.empty() ? "none" : iterative}, {"nominal_stable", c.nominal_stable},
              {"certified", c.certified}, {"step_mu_upper", c.step_mu}, {"mu_upper", c.final_sweep.upper_peak},
              {"mu_complex_upper", c.final_sweep.complex_peak}, {"mu_lower", c.final_sweep.lower},
              {"omega_peak_rad_s", c.final_sweep.omega_peak}});
    Json& joints = j["joints"] = Json::array();
    for (std::size_t k = 0; k < c.box.size(); ++k) {
      const bool fixed = std::find(c.fixed.begin(), c.fixed.end(), c.box[k].body) != c.fixed.end();
      joints.push_back({{"body", c.box[k].body}, {"limit_lower_deg", c.limits[k].lower / kDeg},
                        {"limit_upper_deg", c.limits[k].upper / kDeg}, {"lower_deg", c.box[k].lower / kDeg},
                        {"upper_deg", c.box[k].upper / kDeg}, {"in_analysis", !fixed}});
    }
    j.update({{"sweeps", c.sweeps}, {"seconds", seconds}});
    writeJson(std::cout, j);
    return 0;
  }
  std::cout << "mu-analysis (thesis §8.3): " << (performance ? "robust performance" : "robust stability") << ", " << form
            << (iterative.empty() ? "" : ", iterative " + iterative) << "\n  controller " << controller << ": " << what << '\n';
  if (performance) std::cout << "  goal: ||W T||inf <= " << options.performance_level << " over the box\n";
  if (!c.nominal_stable) {
    std::cout << "  the loop is unstable at the centre of the ranges: no box is guaranteed\n";
    return 0;
  }
  char line0[256];
  if (!c.certified) {
    std::snprintf(line0, sizeof line0, "  no box is guaranteed: mu upper bound %.4g over the whole ranges, sampled lower bound %.4g%s\n",
                  c.final_sweep.upper_peak, c.final_sweep.lower,
                  c.final_sweep.lower >= 1 ? " (the goal fails inside the ranges, at their centre or near it)" : "");
    std::cout << line0;
    return 0;
  }
  char line[256];
  std::snprintf(line, sizeof line, "  mu: upper bound %.4f (complex %.4f) at %.4g rad/s, sampled lower bound %.4f; %d sweeps, %.1f s\n",
                c.final_sweep.upper_peak, c.final_sweep.complex_peak, c.final_sweep.omega_peak, c.final_sweep.lower, c.sweeps, seconds);
  std::cout << line;
  if (!iterative.empty()) {
    std::cout << "  upper bound at each step:";
    for (double m : c.step_mu) {
      std::snprintf(line, sizeof line, " %.3f", m);
      std::cout << line;
    }
    std::cout << '\n';
  }
  std::cout << "\n  joint   limits [deg]          guaranteed [deg]\n";
  for (std::size_t k = 0; k < c.box.size(); ++k) {
    const bool fixed = std::find(c.fixed.begin(), c.fixed.end(), c.box[k].body) != c.fixed.end();
    std::snprintf(line, sizeof line, "  %-6zu [%s, %s]   [%s, %s]%s\n", k + 1, degrees(c.limits[k].lower).c_str(),
                  degrees(c.limits[k].upper).c_str(), degrees(c.box[k].lower).c_str(), degrees(c.box[k].upper).c_str(),
                  fixed ? "  (does not change D(q): whole range)" : "");
    std::cout << line;
  }
  return 0;
}

}  // namespace grapple::cli
