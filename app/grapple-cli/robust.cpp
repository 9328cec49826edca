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
#include "core/analysis/synthesis.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/json_writer.hpp"

namespace grapple::cli {

using namespace grapple::core;

namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;
constexpr double kOmegaBus = 0.0698, kOmegaArm = 0.698, kXiTemplate = 0.707;  // thesis §8.2.3

// The file's loops at q: the attitude control as H_ωω (kp, kd) on the bus rotation, the joint PD
// as joint_pd's gains (centralized: premultiplied by D(q)).
ClosedLoopGains scenarioGains(const Model& m, const Scenario& s, const ControllerSpec& c, const Eigen::VectorXd& q) {
  Data d(m);
  const Eigen::MatrixXd D = massMatrix(m, d, q);
  ClosedLoopGains g;
  g.Kp = Eigen::MatrixXd::Zero(m.nv, m.nv);
  g.Kd = Eigen::MatrixXd::Zero(m.nv, m.nv);
  if (s.chaser.attitude_control && s.chaser.attitude_control->active() && m.base_mode == BaseMode::kFloating) {
    const auto& ac = *s.chaser.attitude_control;
    addPdLoops(g, D, {3, 4, 5}, Eigen::Vector3d::Constant(ac.kp), Eigen::Vector3d::Constant(ac.kd), true, kOmegaBus,
               kXiTemplate);
  }
  std::vector<int> joints;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) joints.push_back(m.joint[b].idx_v);
  }
  std::vector<double> kp, kd;
  captureJointGains(c.capture, joints.size(), kp, kd);
  addPdLoops(g, D, joints, Eigen::Map<const Eigen::VectorXd>(kp.data(), static_cast<Eigen::Index>(kp.size())),
             Eigen::Map<const Eigen::VectorXd>(kd.data(), static_cast<Eigen::Index>(kd.size())),
             c.capture.arm_pd == core::ArmPd::kCentralized, kOmegaArm, kXiTemplate);
  return g;
}

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
    gains = scenarioGains(model, scenario, spec, q);
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
    JsonWriter w(std::cout);
    w.beginObject().field("scenario", path).field("controller", controller).field("gains", what);
    w.field("parameterization", form).field("goal", performance ? "performance" : "stability");
    if (performance) w.field("performance_level", options.performance_level);
    w.field("iterative", iterative.empty() ? "none" : iterative).field("nominal_stable", c.nominal_stable);
    w.field("certified", c.certified);
    w.key("step_mu_upper").vector(Eigen::Map<const Eigen::VectorXd>(c.step_mu.data(), static_cast<Eigen::Index>(c.step_mu.size())));
    w.field("mu_upper", c.final_sweep.upper_peak).field("mu_complex_upper", c.final_sweep.complex_peak);
    w.field("mu_lower", c.final_sweep.lower).field("omega_peak_rad_s", c.final_sweep.omega_peak);
    w.key("joints").beginArray();
    for (std::size_t k = 0; k < c.box.size(); ++k) {
      const bool fixed = std::find(c.fixed.begin(), c.fixed.end(), c.box[k].body) != c.fixed.end();
      w.beginObject().field("body", c.box[k].body).field("limit_lower_deg", c.limits[k].lower / kDeg);
      w.field("limit_upper_deg", c.limits[k].upper / kDeg).field("lower_deg", c.box[k].lower / kDeg);
      w.field("upper_deg", c.box[k].upper / kDeg).field("in_analysis", !fixed).endObject();
    }
    w.endArray();
    w.field("sweeps", c.sweeps).field("seconds", seconds).endObject();
    std::cout << '\n';
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
