// grapple-cli info and summary: a robot described, then flown along a joint path.
#include "app/grapple-cli/commands.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "core/analysis/modal.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/model_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/quintic.hpp"
#include "core/sim/integrator.hpp"

namespace grapple::cli {

using namespace grapple::core;
using Eigen::VectorXd;

core::BaseMode parseBaseMode(const std::string& word) {
  if (word == "fixed") return BaseMode::kFixed;
  if (word == "floating") return BaseMode::kFloating;
  if (word == "flying") return BaseMode::kFlying;
  throw UsageError("base mode '" + word + "' is not one of: fixed floating flying");
}

std::string scenarioDir() {
  if (const char* env = std::getenv("GRAPPLE_SCENARIO_DIR")) return env;
  return GRAPPLE_SCENARIO_DIR;
}

std::string defaultModelPath() { return scenarioDir() + "/robots/mda_deos.yaml"; }

namespace {

void printModel(std::ostream& out, const Model& m, const std::string& path) {
  char line[256];
  out << "Robot     " << m.name << "  (" << path << ")\n";
  std::snprintf(line, sizeof line, "Base      %s, %d bodies, nq = %d, nv = %d, mass %.2f kg\n",
                std::string(baseModeName(m.base_mode)).c_str(), m.nbodies, m.nq, m.nv, m.totalMass());
  out << line;
  out << "Joints    name              type         parent -> body          effort limit\n";
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const double effort = j.nv > 0 ? m.effort_limit[j.idx_v] : INFINITY;
    std::snprintf(line, sizeof line, "          %-17s %-12s %-10s -> %-13s %s", j.name.c_str(),
                  std::string(jointTypeName(j.type)).c_str(), m.body_name[m.parent[i]].c_str(),
                  m.body_name[i].c_str(),
                  std::isfinite(effort) ? (std::to_string(static_cast<int>(effort)) + " N m").c_str() : "-");
    out << line;
    if (isMimic(j)) {
      std::snprintf(line, sizeof line, "  (mimic: %.6g %s %+.6g)", j.mimic_multiplier,
                    m.joint[j.mimic_body].name.c_str(), j.mimic_offset);
      out << line;
    }
    out << '\n';
  }
  out << "Frames   ";
  for (const Frame& f : m.frames) out << ' ' << f.name;
  out << "\n";
}

}  // namespace

int runInfo(const ModelArgs& a) {
  std::vector<std::string> warnings;
  const Model m = loadModelFile(a.path, a.base, &warnings, std::nullopt, a.inertia);
  for (const std::string& w : warnings) std::cerr << w << '\n';
  printModel(std::cout, m, a.path);
  return 0;
}

// The robot's joints follow a rest-to-rest quintic from zero to a target configuration; the
// torques come from inverse dynamics along that path (floating-base inverse dynamics for a free
// base: the base is left to react) and are applied open loop, as in Saha's validation of the
// free-floating dynamics. The run then shows how far the base turns and drifts, that momentum
// is conserved, that the kinetic energy equals the work of the torques, and that forward and
// inverse dynamics agree (the tracking error).
int runSummary(const SummaryArgs& a) {
  const std::string& path = a.model;
  const double duration = a.duration, dt = a.dt;
  if (dt > duration) throw UsageError("summary: --dt is longer than --duration");
  const Model m = loadModelFile(path);
  printModel(std::cout, m, path);
  // The joint coordinates (the base and the modal coordinates are left free).
  std::vector<int> joint_q, joint_v;
  for (int i = 1; i < m.nbodies; ++i) {
    if (m.joint[i].nv == 1) {
      joint_q.push_back(m.joint[i].idx_q);
      joint_v.push_back(m.joint[i].idx_v);
    }
  }
  const int nj = static_cast<int>(joint_v.size());
  if (nj == 0) {
    std::cout << "\nNo 1-DOF joints to move.\n";
    return 0;
  }

  // Target: the thesis' test configuration q_m2 (eq. 8.12) for a 6-joint arm, else 0.5 rad each.
  VectorXd q0 = neutralConfiguration(m);
  VectorXd target = VectorXd::Constant(nj, 0.5);
  if (nj == 6) target << 2.21, 0.81, 1.27, 1.64, 2.83, 1.25;
  for (int k = 0; k < nj; ++k) {
    target[k] = std::clamp(target[k], m.lower_position_limit[joint_q[k]], m.upper_position_limit[joint_q[k]]);
  }
  const double T = 0.8 * duration;
  const QuinticPath path_q(VectorXd::Zero(nj), target, T);

  Data d(m);
  Data d_ff(m);  // for the feed-forward torques
  VectorXd a_des = VectorXd::Zero(m.nv), v_des = VectorXd::Zero(m.nv);
  const ForceLaw feedforward = [&](double t, const VectorXd& q, const VectorXd& v, VectorXd& tau) {
    const QuinticSample s = path_q.at(t);
    for (int k = 0; k < nj; ++k) a_des[joint_v[k]] = s.acceleration[k];
    if (m.base_mode == BaseMode::kFloating) {
      tau = inverseDynamicsFloatingBase(m, d_ff, q, v, a_des);
    } else {
      v_des = v;  // a flying base is held (zero base acceleration) by its actuators
      tau = inverseDynamics(m, d_ff, q, v_des, a_des);
    }
    for (const FlexibleBody& f : m.flex) tau.segment(f.idx_v, f.nf).setZero();  // no modal forces
  };

  VectorXd q = q0, v = VectorXd::Zero(m.nv);
  const Vector6 h0 = momentum(m, d, q, v);
  const Vector3 c0 = centerOfMass(m, d, q);
  const double E0 = kineticEnergy(m, d, q, v) + general::elasticEnergy(m, q);
  Rk4 rk4(m);
  double work = 0, max_track = 0, peak_tau = 0, max_h = 0, max_c = 0, peak_E = 0, max_dE = 0;
  VectorXd tau_probe(m.nv);
  const int steps = static_cast<int>(std::lround(duration / dt));
  const auto t_start = std::chrono::steady_clock::now();
  for (int k = 0; k < steps; ++k) {
    const double t = k * dt;
    tau_probe.setZero();
    feedforward(t, q, v, tau_probe);
    for (int i = 0; i < nj; ++i) {
      const double limit = m.effort_limit[joint_v[i]];
      peak_tau = std::max(peak_tau, std::abs(tau_probe[joint_v[i]]) / (std::isfinite(limit) ? limit : 1.0));
    }
    work += rk4.step(m, d, t, dt, q, v, feedforward);
    const QuinticSample s = path_q.at(t + dt);
    for (int i = 0; i < nj; ++i) {
      max_track = std::max(max_track, std::abs(q[joint_q[i]] - s.position[i]));
    }
    if (k % 100 == 99) {
      max_h = std::max(max_h, (momentum(m, d, q, v) - h0).norm());
      max_c = std::max(max_c, (centerOfMass(m, d, q) - c0).norm());
      const double E = kineticEnergy(m, d, q, v) + general::elasticEnergy(m, q);
      peak_E = std::max(peak_E, E);
      max_dE = std::max(max_dE, std::abs(E - E0 - work));
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  char line[256];
  std::cout << "\nRun       joints from 0 to [";
  for (int i = 0; i < nj; ++i) std::cout << (i ? " " : "") << target[i];
  std::snprintf(line, sizeof line, "] rad in %.1f s, then %.1f s at rest\n", T, duration - T);
  std::cout << line;
  std::snprintf(line, sizeof line,
                "          torques: inverse dynamics of the path at the current state, no error feedback;\n"
                "          RK4 at %.3g s, %d steps\n", dt, steps);
  std::cout << line;
  std::snprintf(line, sizeof line, "Tracking  max joint error %.3e rad %s\n", max_track,
                m.hasFlexibleBodies() ? "(open loop: the flexible bodies deform and the joints stray)"
                                      : "(forward vs inverse dynamics)");
  std::cout << line;
  bool limited = false;
  for (int i : joint_v) limited = limited || std::isfinite(m.effort_limit[i]);
  if (limited) {
    std::snprintf(line, sizeof line, "Torques   peak %.1f %% of the joint effort limits\n", 100 * peak_tau);
  } else {
    std::snprintf(line, sizeof line, "Torques   peak %.3f N m\n", peak_tau);
  }
  std::cout << line;
  if (m.hasFreeBase()) {
    const double turn = 2 * std::acos(std::min(1.0, std::abs(quatMultiply(quatConjugate(q0.segment<4>(3)),
                                                                          q.segment<4>(3) / q.segment<4>(3).norm())[0])));
    std::snprintf(line, sizeof line, "Base      turned %.3f deg and moved %.4f m in reaction to the arm\n",
                  turn * 180 / M_PI, (q.head<3>() - q0.head<3>()).norm());
    std::cout << line;
    std::snprintf(line, sizeof line, "Momentum  drift %.2e (linear + angular), centre of mass moved %.2e m\n",
                  max_h, max_c);
    std::cout << line;
  }
  std::snprintf(line, sizeof line,
                "Energy    peak %.4e J; energy minus work of the torques stays within %.2e J%s\n",
                peak_E, max_dE,
                dampingMatrix(m).isZero() ? "" : " (modal damping dissipates the difference)");
  std::cout << line;
  std::snprintf(line, sizeof line, "Speed     %.3f s of wall time, %.0f x real time\n", wall, duration / wall);
  std::cout << line;
  return 0;
}

}  // namespace grapple::cli
