// grapple-cli design: the structured H∞ synthesis of the thesis (§8.2.3-8.2.4) for a scenario's
// capture controller: its joint PD (law joint_pd, decentralized or centralized as the file says)
// and the bus attitude control, mono-model at one configuration or multi-model at several; with
// --rolloff (or the file's joint_rolloff) a first-order low-pass on each joint's torque.
#include "app/grapple-cli/commands.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "core/analysis/synthesis.hpp"
#include "core/io/json.hpp"

namespace grapple::cli {

using namespace grapple::core;

namespace {

std::string gainList(const Eigen::VectorXd& v) {
  std::string s = "[";
  char buf[32];
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    std::snprintf(buf, sizeof buf, "%s%.6g", k ? ", " : "", v[k]);
    s += buf;
  }
  return s + "]";
}

std::string frequencyText(double w) {
  if (std::isinf(w)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", w);
  return buf;
}

}  // namespace

const ControllerSpec& captureControllerSpec(const Scenario& scenario, const std::string& path, int controller,
                                            const std::string& why) {
  if (controller >= static_cast<int>(scenario.controllers.size())) {
    throw UsageError(path + ": no controller " + std::to_string(controller) + " (the file has " +
                     std::to_string(scenario.controllers.size()) + ")");
  }
  const ControllerSpec& spec = scenario.controllers[static_cast<std::size_t>(controller)];
  if (spec.type != ControllerType::kCapture) {
    throw UsageError(path + ": controller " + std::to_string(controller) + " is not a capture controller (" + why + ")");
  }
  return spec;
}

int runDesign(const DesignArgs& a) {
  const std::string& path = a.scenario;
  const int controller = a.controller;
  const bool json = a.json, thesis = a.thesis;
  const int samples = a.worst_case;
  std::vector<double> times = a.times;
  const std::vector<std::vector<double>>& joint_sets = a.joint_sets;
  LoadedScenario loaded = loadScenario(path);
  const Scenario scenario = loaded.scenario;
  const ControllerSpec& spec = captureControllerSpec(scenario, path, controller, "design tunes the joint PD of the capture law joint_pd");
  // The structure: the scenario's (its attitude control's kp, kd if the bus floats under one; the
  // joints as arm_pd says) or the thesis' (free 3x3 AOCS rotation blocks, eq. 8.1).
  SynthesisStructure st;
  st.centralized = spec.capture.arm_pd == core::ArmPd::kCentralized;
  const bool bus = scenario.chaser.attitude_control && scenario.chaser.attitude_control->active() &&
                   loaded.model.base_mode == BaseMode::kFloating;
  st.base = thesis ? SynthesisStructure::Base::kAttitudeBlocks
                   : bus ? SynthesisStructure::Base::kAttitudeScalar : SynthesisStructure::Base::kNone;
  // The joints' roll-off: --rolloff, else the file's joint_rolloff as it flies.
  if (a.rolloff) {
    st.rolloff = *a.rolloff;
    st.rolloff_omega = a.rolloff_omega;
  } else if (!spec.capture.joint_rolloff.empty()) {
    st.rolloff = SynthesisStructure::Rolloff::kFixed;
    st.rolloff_omega = spec.capture.joint_rolloff;
  }
  const Model model = loaded.model;
  // The configurations: joint angles given, or the run's at the instants given (default: t = 0).
  std::vector<Eigen::VectorXd> qs;
  std::vector<std::string> labels;
  std::unique_ptr<Simulation> sim = makeSimulation(path, std::move(loaded));
  const Eigen::VectorXd q_start = sim->q();
  std::vector<int> joints;
  for (int b = 1; b < model.nbodies; ++b) {
    if (model.joint[b].nv == 1) joints.push_back(model.joint[b].idx_q);
  }
  for (const std::vector<double>& set : joint_sets) {
    if (set.size() != joints.size()) {
      throw UsageError("--joints: " + std::to_string(joints.size()) + " angles per configuration expected, got " +
                       std::to_string(set.size()));
    }
    Eigen::VectorXd q = q_start;
    std::string label = "q = [";
    for (std::size_t k = 0; k < set.size(); ++k) {
      q[joints[k]] = set[k];
      label += (k ? ", " : "") + frequencyText(set[k]);
    }
    qs.push_back(q);
    labels.push_back(label + "] rad");
  }
  if (times.empty() && joint_sets.empty()) times.push_back(0);
  std::sort(times.begin(), times.end());
  for (double t : times) {
    if (t < 0 || t > sim->endTime()) {
      throw UsageError("--configurations: " + frequencyText(t) + " s is outside the run (0 to " +
                       frequencyText(sim->endTime()) + " s)");
    }
    while (sim->time() < t - 1e-9 && sim->step()) {
    }
    if (!sim->failure().empty()) throw std::runtime_error("the run failed before " + frequencyText(t) + " s: " + sim->failure());
    qs.push_back(sim->q());
    labels.push_back("t = " + frequencyText(sim->time()) + " s");
  }
  SynthesisResult r;
  try {
    r = synthesize(model, qs, st, a.options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(path + ": " + e.what());
  }
  const bool rolloff = r.joint_rolloff.size() > 0;
  std::vector<HinfNorm> each;
  for (const Eigen::VectorXd& q : qs) each.push_back(evaluateController(model, q, r.gains));
  std::optional<WorstCase> worst;
  if (samples > 0) worst = worstCase(model, qs.front(), r.gains, samples);
  auto jointAngles = [&](const Eigen::VectorXd& q) {
    Eigen::VectorXd a(static_cast<Eigen::Index>(joints.size()));
    for (std::size_t k = 0; k < joints.size(); ++k) a[static_cast<Eigen::Index>(k)] = q[joints[k]];
    return a;
  };

  if (json) {
    Json configurations = Json::array();
    for (std::size_t k = 0; k < qs.size(); ++k) {
      configurations.push_back({{"label", labels[k]}, {"q", jsonArray(qs[k])}, {"gamma_hard", each[k].upper},
                                {"omega_peak_rad_s", std::isinf(each[k].omega_peak) ? -1.0 : each[k].omega_peak}});
    }
    Json j{{"scenario", path}, {"controller", controller}, {"structure", thesis ? "thesis" : "scenario"},
           {"joints", st.centralized ? "centralized" : "decentralized"}, {"model", qs.size() == 1 ? "mono" : "multi"},
           {"configurations", configurations}, {"gamma_hard", r.gamma_hard}, {"gamma_soft", r.gamma_soft},
           {"feasible", r.feasible}, {"hard_level", a.options.hard_level}, {"joint_kp", jsonArray(r.joint_kp)},
           {"joint_kd", jsonArray(r.joint_kd)}};
    if (rolloff) {
      j.update({{"rolloff", st.rolloff == SynthesisStructure::Rolloff::kTuned ? "tuned" : "fixed"},
                {"joint_rolloff", jsonArray(r.joint_rolloff)}});
    }
    if (st.base == SynthesisStructure::Base::kAttitudeScalar) {
      j.update({{"attitude_kp", r.attitude_kp}, {"attitude_kd", r.attitude_kd}});
    } else if (st.base == SynthesisStructure::Base::kAttitudeBlocks) {
      j.update({{"kp_rot", jsonMatrix(r.kp_rot)}, {"kd_rot", jsonMatrix(r.kd_rot)}});
    }
    j.update({{"kp_positive_definite", r.kp_positive_definite}, {"kd_positive_definite", r.kd_positive_definite},
              {"kp_min_eigenvalue", r.kp_min_eigenvalue}, {"kd_min_eigenvalue", r.kd_min_eigenvalue},
              {"evaluations", r.evaluations}, {"solver", r.message}});
    if (worst) {
      j["worst_case"] = {{"samples", samples}, {"gamma_hard", worst->gamma}, {"gamma_hard_db", 20 * std::log10(worst->gamma)},
                         {"unstable", worst->unstable}, {"joints", jsonArray(jointAngles(worst->q))}};
    }
    writeJson(std::cout, j);
    return 0;
  }
  std::cout << "Structured H-infinity synthesis (thesis §8.2.3): " << (qs.size() == 1 ? "mono-model" : "multi-model")
            << ", " << (st.centralized ? "centralized" : "decentralized") << " joint PD"
            << (rolloff ? " with a first-order roll-off per joint (thesis §8.2.4.2)" : "")
            << (st.base == SynthesisStructure::Base::kAttitudeScalar ? " + the attitude control's kp, kd"
                : st.base == SynthesisStructure::Base::kAttitudeBlocks ? " + free 3x3 AOCS rotation blocks"
                                                                        : "")
            << "\n  templates W(s) = (s^2 + 2 xi w s + w^2)/s^2: bus (" << st.omega_b << " rad/s, " << st.xi_b
            << "), joints (" << st.omega_m << " rad/s, " << st.xi_m << ")\n\n";
  char line[256];
  std::cout << "  configuration                                  ||W T||inf   peak [rad/s]\n";
  for (std::size_t k = 0; k < qs.size(); ++k) {
    std::snprintf(line, sizeof line, "  %-46s %10.5f   %s\n", labels[k].c_str(), each[k].upper,
                  frequencyText(each[k].omega_peak).c_str());
    std::cout << line;
  }
  std::snprintf(line, sizeof line, "\n  gamma_hard %.5f (%s%s)   gamma_soft %.4f\n", r.gamma_hard,
                r.feasible ? "templates met" : "templates NOT met",
                a.options.hard_level == 1 ? "" : (", level " + frequencyText(a.options.hard_level)).c_str(), r.gamma_soft);
  std::cout << line;
  std::cout << "  joint_kp: " << gainList(r.joint_kp) << (st.centralized ? "  [1/s^2]" : "  [N m/rad]") << '\n';
  std::cout << "  joint_kd: " << gainList(r.joint_kd) << (st.centralized ? "  [1/s]" : "  [N m s/rad]") << '\n';
  if (rolloff) {
    std::cout << "  joint_rolloff: " << gainList(r.joint_rolloff) << "  [rad/s] ("
              << (st.rolloff == SynthesisStructure::Rolloff::kTuned ? "tuned" : "fixed") << ")\n";
  }
  if (st.base == SynthesisStructure::Base::kAttitudeScalar) {
    std::snprintf(line, sizeof line, "  attitude_control: {kp: %.6g, kd: %.6g}\n", r.attitude_kp, r.attitude_kd);
    std::cout << line;
  } else if (st.base == SynthesisStructure::Base::kAttitudeBlocks) {
    std::ostringstream m;
    m << "  AOCS Kp_rot [N m/rad]:\n" << r.kp_rot << "\n  AOCS Kd_rot [N m s/rad]:\n" << r.kd_rot << '\n';
    std::cout << m.str();
  }
  std::snprintf(line, sizeof line, "  Kp %s (smallest eigenvalue of its symmetric part %.4g), Kd %s (%.4g)%s\n",
                r.kp_positive_definite ? "positive definite" : "NOT positive definite", r.kp_min_eigenvalue,
                r.kd_positive_definite ? "positive definite" : "NOT positive definite", r.kd_min_eigenvalue,
                rolloff ? ": with the roll-off the Lyapunov guarantee (thesis §8.3.3.1) does not apply"
                : r.kp_positive_definite && r.kd_positive_definite
                    ? ": the loop is stable at every configuration (Lyapunov, thesis §8.3.3.1)"
                    : ": no Lyapunov guarantee away from the design points");
  std::cout << line;
  std::cout << "  solver: " << r.evaluations << " evaluations, " << r.message << '\n';
  if (worst) {
    std::snprintf(line, sizeof line, "\n  worst ||W T||inf over %d configurations sampled in the joint limits: %.5g (%.1f dB), "
                  "%d unstable; at joints %s rad\n", samples, worst->gamma, 20 * std::log10(worst->gamma), worst->unstable,
                  gainList(jointAngles(worst->q)).c_str());
    std::cout << line;
  }
  if (!thesis) {
    std::cout << "\n  In the scenario: controllers[" << controller << "].law: joint_pd, joint_kp" << (rolloff ? ", joint_kd and joint_rolloff" : " and joint_kd") << " as above"
              << (st.base == SynthesisStructure::Base::kAttitudeScalar ? ", chaser.attitude_control kp and kd" : "")
              << ".\n";
  }
  return 0;
}

}  // namespace grapple::cli
