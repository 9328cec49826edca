#include "core/control/controller.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/quintic.hpp"
#include "core/control/aerial_controller.hpp"
#include "core/control/capture_controller.hpp"

namespace grapple::core {

TorqueWindowsController::TorqueWindowsController(const Model& m, const ControllerSpec& spec) {
  for (const ControllerSpec::Window& w : spec.windows) {
    const int b = m.bodyOfJoint(w.joint);
    if (b < 0 || m.joint[b].nv != 1) {
      throw std::invalid_argument("torque_windows: no 1-DOF joint '" + w.joint + "'");
    }
    windows_.push_back({m.joint[b].idx_v, w});
  }
}

void TorqueWindowsController::update(ControlContext& ctx) {
  for (const Window& w : windows_) {
    if (ctx.t > w.w.start && ctx.t < w.w.end) {
      ctx.tau[w.v_index] += w.w.amplitude * std::sin(ctx.t / w.w.divisor);
    }
  }
}

AttitudeHold::AttitudeHold(const Model& m, const ChaserSpec& chaser, const Eigen::VectorXd& q0) {
  active_ = m.base_mode == BaseMode::kFloating && chaser.attitude_control && chaser.attitude_control->active();
  if (chaser.attitude_control) settings_ = *chaser.attitude_control;
  if (active_) reference_ = q0.segment<4>(3).normalized();
  gains_ = filteredPdGains(settings_.kp, settings_.kd, settings_.rate_filter);
  rate_filter_ = RateFilter(settings_.rate_filter);
}

Vector3 AttitudeHold::rate(const ControlContext& ctx) {
  if (!rate_filter_.active()) return ctx.v.segment<3>(3);
  w_ = ctx.v.segment<3>(3);
  return rate_filter_.filter(ctx.t, w_);
}

Vector3 AttitudeHold::error(const ControlContext& ctx) const {
  const Vector4 Qe = quatMultiply(quatConjugate(reference_), ctx.q.segment<4>(3));
  return 2 * (Qe[0] < 0 ? -1.0 : 1.0) * Qe.tail<3>();  // small-angle rotation vector
}

double AttitudeHold::angle(const ControlContext& ctx) const {
  const Vector4 Qe = quatMultiply(quatConjugate(reference_), ctx.q.segment<4>(3).normalized());
  return 2 * std::atan2(Qe.tail<3>().norm(), std::abs(Qe[0]));
}

void AttitudeHold::prescribe(const ControlContext& ctx, Eigen::VectorXd& x) {
  x.segment<3>(3) = -gains_.kp * error(ctx) - gains_.kd * rate(ctx);
}

void AttitudeHold::torque(ControlContext& ctx, const Eigen::MatrixXd& H, Eigen::VectorXd& x) {
  const Vector3 n = -H.block<3, 3>(3, 3) * (gains_.kp * error(ctx) + gains_.kd * rate(ctx));
  for (int k = 0; k < 3; ++k) x[3 + k] = std::clamp(n[k], -settings_.torque_limit, settings_.torque_limit);
  ctx.bus_torque_demand = std::max(ctx.bus_torque_demand, n.cwiseAbs().maxCoeff());
}

bool AttitudeHold::limit(const Eigen::VectorXd& tau, ControlContext& ctx) const {
  bool limited = false;
  ctx.bus_torque_demand = std::max(ctx.bus_torque_demand, tau.segment<3>(3).cwiseAbs().maxCoeff());
  for (int k = 3; k < 6; ++k) {
    limited = limited || std::abs(tau[k]) > settings_.torque_limit;
    ctx.tau[k] = std::clamp(tau[k], -settings_.torque_limit, settings_.torque_limit);
  }
  return limited;
}

void AttitudeHold::resolve(ControlContext& ctx, Eigen::VectorXd& x, const std::vector<int>& joints) {
  x.segment<3>(3) = ctx.tau.segment<3>(3);
  hybridDynamics(ctx.model, ctx.data, ctx.q, ctx.v, x, joints, ctx.fext);
  for (int k : joints) ctx.tau[k] = ctx.data.tau[k];
  ctx.ddq = &ctx.data.ddq;
}

JointServo::JointServo(const Model& m, const std::vector<ControllerSpec>& specs,
                       const Eigen::VectorXd& q0, const ChaserSpec& chaser)
    : hold_(m, chaser, q0) {
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ControllerSpec& c = specs[k];
    if (c.type != ControllerType::kJointTrajectory) continue;
    for (const auto& [name, target] : c.target) {
      const int b = m.bodyOfJoint(name);
      if (b < 0 || m.joint[b].nv != 1) {
        throw std::invalid_argument("joint_trajectory: no 1-DOF joint '" + name + "'");
      }
      const int iv = m.joint[b].idx_v;
      auto it = std::find_if(axes_.begin(), axes_.end(), [&](const Axis& a) { return a.v_index == iv; });
      if (it == axes_.end()) {
        axes_.push_back({m.joint[b].idx_q, iv, q0[m.joint[b].idx_q], {}, {}, {}});
        it = axes_.end() - 1;
      }
      it->segments.push_back({c.start, c.duration, 0, target, c.kp, c.kd, c.profile == PathProfile::kCycloidal, c.rate_filter});
    }
  }
  for (Axis& a : axes_) {
    std::sort(a.segments.begin(), a.segments.end(),
              [](const Segment& x, const Segment& y) { return x.start < y.start; });
    double from = a.initial;
    for (std::size_t s = 0; s < a.segments.size(); ++s) {
      Segment& seg = a.segments[s];
      if (s > 0) {
        const Segment& prev = a.segments[s - 1];
        if (seg.start < prev.start + prev.duration - 1e-12) {
          throw std::invalid_argument(
              "joint_trajectory: two paths of joint '" + m.joint[m.v_body[a.v_index]].name +
              "' overlap (one starts at " + std::to_string(seg.start) + " s, before the other ends at " +
              std::to_string(prev.start + prev.duration) + " s)");
        }
      }
      seg.from = from;
      from = seg.to;
    }
    joints_.push_back(a.v_index);
  }
  std::sort(joints_.begin(), joints_.end());
  if (hold_.prescribes()) prescribed_ = {3, 4, 5};
  prescribed_.insert(prescribed_.end(), joints_.begin(), joints_.end());
  std::sort(axes_.begin(), axes_.end(), [](const Axis& x, const Axis& y) { return x.v_index < y.v_index; });
  x_ = Eigen::VectorXd::Zero(m.nv);
}

JointServo::Setpoint JointServo::setpoint(int k, double t, double* kp, double* kd, double* rate_filter) const {
  const auto it = std::find_if(axes_.begin(), axes_.end(), [&](const Axis& a) { return a.v_index == k; });
  if (it == axes_.end()) throw std::invalid_argument("JointServo::setpoint: coordinate not driven");
  const std::vector<Segment>& segs = it->segments;
  // The segment in force: the last one started, or the first (held at its start) before it.
  std::size_t s = 0;
  while (s + 1 < segs.size() && segs[s + 1].start <= t) ++s;
  const Segment& g = segs[s];
  if (kp) *kp = g.kp;
  if (kd) *kd = g.kd;
  if (rate_filter) *rate_filter = g.rate_filter;
  const double T = g.duration, d = g.to - g.from;
  const Blend b = g.cycloidal ? cycloidalBlend((t - g.start) / T) : quinticBlend((t - g.start) / T);
  return {g.from + d * b.s, d * b.ds / T, d * b.dds / (T * T)};
}

bool JointServo::reference(int k, double t, double& position) const {
  if (!std::binary_search(joints_.begin(), joints_.end(), k)) return false;
  position = setpoint(k, t).position;
  return true;
}

void JointServo::pathAccelerations(const ControlContext& ctx) {
  for (Axis& a : axes_) {
    double kp = 0, kd = 0, tau = 0;
    const Setpoint sp = setpoint(a.v_index, ctx.t, &kp, &kd, &tau);
    const FilteredPdGains g = filteredPdGains(kp, kd, tau);
    double rate_error = sp.velocity - ctx.v[a.v_index];
    if (tau > 0) {
      if (a.filter.tau() != tau) a.filter = RateFilter(tau);
      a.rate_error.setConstant(1, rate_error);
      rate_error = a.filter.filter(ctx.t, a.rate_error)[0];
    }
    x_[a.v_index] = sp.acceleration + g.kd * rate_error + g.kp * (sp.position - ctx.q[a.q_index]);
  }
}

void JointServo::skipped(const ControlContext& ctx) {
  x_ = ctx.tau;
  pathAccelerations(ctx);  // (the rate filters take the sample)
  hold_.follow(ctx);
}

void JointServo::update(ControlContext& ctx) {
  x_ = ctx.tau;  // forces on the free coordinates
  pathAccelerations(ctx);
  if (hold_.prescribes()) {
    hold_.prescribe(ctx, x_);
  } else if (hold_.active()) {
    hold_.torque(ctx, massMatrix(ctx.model, ctx.data, ctx.q), x_);
    ctx.tau.segment<3>(3) = x_.segment<3>(3);
  }
  const Eigen::VectorXd& tau = hybridDynamics(ctx.model, ctx.data, ctx.q, ctx.v, x_, prescribed_, ctx.fext);
  for (int k : joints_) ctx.tau[k] = tau[k];
  ctx.ddq = &ctx.data.ddq;
  if (hold_.prescribes() && hold_.limit(tau, ctx)) AttitudeHold::resolve(ctx, x_, joints_);
}

bool updateControllers(std::vector<std::unique_ptr<Controller>>& controllers, ControlContext& ctx, bool skip_replaced) {
  const double t = ctx.t;
  const bool replaced = skip_replaced && std::any_of(controllers.begin(), controllers.end(),
                                                     [t](const auto& c) { return c->replacesJointServo(t); });
  bool skipped = false;
  for (auto& c : controllers) {
    if (replaced && c->followsJointPaths()) {
      c->skipped(ctx);
      skipped = true;
      continue;
    }
    ctx.ddq = nullptr;
    c->update(ctx);
  }
  return skipped;
}

std::vector<std::unique_ptr<Controller>> makeControllers(const Model& m, const Scenario& scenario,
                                                         const Eigen::VectorXd& q0, int ee_frame) {
  const std::vector<ControllerSpec>& specs = scenario.controllers;
  std::vector<std::unique_ptr<Controller>> out;
  bool servo = false;
  for (const ControllerSpec& c : specs) {
    if (c.type == ControllerType::kTorqueWindows) out.push_back(std::make_unique<TorqueWindowsController>(m, c));
    if (c.type == ControllerType::kJointTrajectory) servo = true;
  }
  if (servo) out.push_back(std::make_unique<JointServo>(m, specs, q0, scenario.chaser));
  for (const ControllerSpec& c : specs) {
    if (c.type == ControllerType::kAerial) out.push_back(std::make_unique<AerialController>(m, c, q0));
  }
  for (const ControllerSpec& c : specs) {
    if (c.type == ControllerType::kCapture) out.push_back(std::make_unique<CaptureController>(m, c, scenario.chaser, scenario.debris.properties, ee_frame, q0,
                                                         scenario.debris.size));
  }
  return out;
}

}  // namespace grapple::core
