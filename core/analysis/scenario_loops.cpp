#include "core/analysis/scenario_loops.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"

namespace grapple::core {

namespace {

// The 1-DOF joints (the PD loops' and the capture's), by velocity index: (idx_v, name).
std::vector<std::pair<int, std::string>> oneDofJoints(const Model& m) {
  std::vector<std::pair<int, std::string>> j;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) j.emplace_back(m.joint[b].idx_v, m.joint[b].name);
  }
  std::sort(j.begin(), j.end());
  return j;
}

Eigen::VectorXd toVector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

}  // namespace

bool hasJointPd(const ControllerSpec& c) {
  return (c.type == ControllerType::kJointTrajectory && (c.kp > 0 || c.kd > 0)) ||
         (c.type == ControllerType::kCapture && c.capture.law == CaptureLaw::kJointPd);
}

const ControllerSpec* jointPdControllerAt(const Scenario& s, double t) {
  const ControllerSpec* arm = nullptr;
  const ControllerSpec* first = nullptr;
  for (const ControllerSpec& c : s.controllers) {
    if (!hasJointPd(c)) continue;
    if (!first) first = &c;
    if (c.start <= t) arm = &c;
  }
  return arm ? arm : first;
}

std::optional<ScenarioLoops> scenarioLoops(const Scenario& s, const Model& m, const Eigen::VectorXd& q_in,
                                           const ControllerSpec* arm) {
  if (q_in.size() != m.nq) throw std::invalid_argument("closed loop: the configuration has the wrong size");
  const bool bus = s.chaser.attitude_control && s.chaser.attitude_control->active() && m.base_mode == BaseMode::kFloating;
  if (!bus && !arm) return std::nullopt;

  Eigen::VectorXd q;
  rigidEquivalent(m, q_in, q);
  Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D = massMatrix(m, d, q);
  ScenarioLoops loops;
  ClosedLoopGains& g = loops.gains;
  g.Kp = Eigen::MatrixXd::Zero(m.nv, m.nv);
  g.Kd = Eigen::MatrixXd::Zero(m.nv, m.nv);
  std::vector<std::string> parts;
  if (bus) {
    const auto& ac = *s.chaser.attitude_control;
    addPdLoops(g, D, {3, 4, 5}, Eigen::Vector3d::Constant(ac.kp), Eigen::Vector3d::Constant(ac.kd), true,
               kTemplateOmegaBus, kTemplateXi);
    parts.push_back("bus attitude PD");
  }
  if (arm) {
    std::vector<int> idx;
    Eigen::VectorXd kp, kd;
    bool centralized = true;
    const auto joints = oneDofJoints(m);
    if (arm->type == ControllerType::kCapture) {
      std::vector<double> p, v;
      captureJointGains(arm->capture, joints.size(), p, v);
      for (const auto& j : joints) idx.push_back(j.first);
      kp = toVector(p);
      kd = toVector(v);
      centralized = arm->capture.arm_pd == ArmPd::kCentralized;
      parts.push_back(std::string("capture joint PD (") + wordOf(arm->capture.arm_pd, kArmPdWords) + ")");
    } else {
      // Computed torque with error dynamics ë + kd ė + kp e = 0: the centralized structure.
      for (const auto& j : joints) {
        if (arm->target.count(j.second)) idx.push_back(j.first);
      }
      kp = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(idx.size()), arm->kp);
      kd = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(idx.size()), arm->kd);
      parts.push_back("joint path PD (as D(q) diag(kp), diag(kd))");
    }
    addPdLoops(g, D, idx, kp, kd, centralized, kTemplateOmegaArm, kTemplateXi);
  }
  for (std::size_t k = 0; k < parts.size(); ++k) loops.description += (k ? " + " : "") + parts[k];
  return loops;
}

}  // namespace grapple::core
