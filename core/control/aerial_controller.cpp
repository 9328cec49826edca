#include "core/control/aerial_controller.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/quintic.hpp"

namespace grapple::core {

namespace {

constexpr double kDeg = M_PI / 180;

Vector4 axisQuat(int axis, double angle) {
  Vector4 q(std::cos(angle / 2), 0, 0, 0);
  q[1 + axis] = std::sin(angle / 2);
  return q;
}

}  // namespace

AerialController::AerialController(const Model& m, const ControllerSpec& spec, const Eigen::VectorXd& q0)
    : spec_(spec.aerial) {
  if (m.base_mode != BaseMode::kFlying) throw std::invalid_argument("aerial: the base must be flying");
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) {
      joints_.push_back(m.joint[b].idx_v);
      joints_q_.push_back(m.joint[b].idx_q);
    }
  }
  const auto nj = joints_.size();
  if (spec_.kp.size() != 6 + nj || spec_.kv.size() != 6 + nj) throw std::invalid_argument("aerial: 6 + joints gains expected");
  if (spec_.waypoints.empty()) throw std::invalid_argument("aerial: no waypoint");
  // What a waypoint leaves out it keeps from the previous one (the first: the initial pose, level).
  std::vector<double> last(nj);
  for (std::size_t k = 0; k < nj; ++k) last[k] = q0[joints_q_[k]];
  Vector3 p = q0.head<3>(), rpy = Vector3::Zero();
  for (auto& w : spec_.waypoints) {
    if (w.joints.empty()) w.joints = last;
    if (w.joints.size() != nj) throw std::invalid_argument("aerial: waypoint joints do not match the robot");
    last = w.joints;
    p = w.position.value_or(p);
    rpy = w.rpy_deg.value_or(rpy);
    position_.push_back(p);
    rpy_.push_back(rpy);
  }
  // Rotor i at arm_length, angle first + 360 i / n in the base's x-y plane, spinning
  // alternately: thrust T along +z, torque r × T ẑ + s (k_p / k_t) T ẑ.
  const int n = spec_.rotors;
  M_mot_ = Eigen::MatrixXd::Zero(6, n);
  for (int i = 0; i < n; ++i) {
    const double phi = (spec_.first_angle_deg + 360.0 * i / n) * kDeg;
    const Vector3 r(spec_.arm_length * std::cos(phi), spec_.arm_length * std::sin(phi), 0);
    const double spin = i % 2 == 0 ? 1.0 : -1.0;
    M_mot_(2, i) = 1;
    M_mot_.block<3, 1>(3, i) = r.cross(Vector3::UnitZ()) + spin * (spec_.k_p / spec_.k_t) * Vector3::UnitZ();
  }
  M_pinv_ = M_mot_.completeOrthogonalDecomposition().pseudoInverse();
  thrust_max_ = spec_.k_t * spec_.max_rpm * spec_.max_rpm;
  speed_ = Eigen::VectorXd::Zero(n);
  joint_tau_ = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(nj));
  a_ = Eigen::VectorXd::Zero(m.nv);
  prescribed_ = {2, 3, 4, 5};
  prescribed_.insert(prescribed_.end(), joints_.begin(), joints_.end());
  std::sort(prescribed_.begin(), prescribed_.end());
}

AerialController::Reference AerialController::at(double t) const {
  const auto& w = spec_.waypoints;
  // The segment in force: quintic rest-to-rest blend from waypoint k to k + 1.
  std::size_t k = 0;
  while (k + 1 < w.size() && w[k + 1].t <= t) ++k;
  const std::size_t kb = std::min(k + 1, w.size() - 1);
  const auto& a = w[k];
  const auto& b = w[kb];
  const double T = b.t > a.t ? b.t - a.t : 1.0;
  const Blend s = k + 1 < w.size() ? quinticBlend((t - a.t) / T) : Blend{0, 0, 0};
  Reference r;
  const Vector3 dpos = position_[kb] - position_[k];
  r.p = position_[k] + s.s * dpos;
  r.dp = s.ds / T * dpos;
  r.ddp = s.dds / (T * T) * dpos;
  const auto nj = static_cast<Eigen::Index>(a.joints.size());
  r.joints.resize(nj);
  r.djoints.resize(nj);
  r.ddjoints.resize(nj);
  for (Eigen::Index j = 0; j < nj; ++j) {
    const auto js = static_cast<std::size_t>(j);
    const double d = b.joints[js] - a.joints[js];
    r.joints[j] = a.joints[js] + s.s * d;
    r.djoints[j] = s.ds / T * d;
    r.ddjoints[j] = s.dds / (T * T) * d;
  }
  // Attitude: roll φ, pitch θ, yaw ψ blended, R = Rz(ψ) Ry(θ) Rx(φ) (Euler angles only in the
  // reference: the state is a quaternion, so a flip through θ = 90° is no singularity). The
  // reference's body rate ω = [φ̇ - ψ̇ sθ; θ̇ cφ + ψ̇ sφ cθ; -θ̇ sφ + ψ̇ cφ cθ] and its derivative.
  const Vector3 e0 = rpy_[k] * kDeg, de = (rpy_[kb] - rpy_[k]) * kDeg;
  const Vector3 e = e0 + s.s * de, ed = s.ds / T * de, edd = s.dds / (T * T) * de;
  r.Q = quatMultiply(quatMultiply(axisQuat(2, e[2]), axisQuat(1, e[1])), axisQuat(0, e[0]));
  const double sf = std::sin(e[0]), cf = std::cos(e[0]), st = std::sin(e[1]), ct = std::cos(e[1]);
  const double fd = ed[0], td = ed[1], pd = ed[2], fdd = edd[0], tdd = edd[1], pdd = edd[2];
  r.w = Vector3(fd - pd * st, td * cf + pd * sf * ct, -td * sf + pd * cf * ct);
  r.dw = Vector3(fdd - pdd * st - pd * td * ct,
                 tdd * cf - td * fd * sf + pdd * sf * ct + pd * fd * cf * ct - pd * td * sf * st,
                 -tdd * sf - td * fd * cf + pdd * cf * ct - pd * fd * sf * ct - pd * td * cf * st);
  return r;
}

bool AerialController::reference(int k, double t, double& position) const {
  const auto it = std::find(joints_.begin(), joints_.end(), k);
  if (it == joints_.end()) return false;
  position = at(t).joints[it - joints_.begin()];
  return true;
}

void AerialController::update(ControlContext& ctx) {
  const Model& m = ctx.model;
  const ControllerSpec::Aerial& c = spec_;
  const Reference ref = at(ctx.t);
  // Errors (eqs. 86-87): base position in inertial axes; attitude by the vector part of
  // q_err = q* ⊗ q_ref (shortest way), rates in base axes; joints.
  const Vector4 Q = ctx.q.segment<4>(3).normalized();
  const Matrix3 R = quatToMatrix(Q);
  const Vector3 v_b = ctx.v.head<3>(), w_b = ctx.v.segment<3>(3);
  const Vector3 pdot = R * v_b;
  Vector4 qe = quatMultiply(quatConjugate(Q), ref.Q);
  if (qe[0] < 0) qe = -qe;
  const Matrix3 Re = quatToMatrix(qe);  // reference body axes -> base axes
  Vector3 a_w, alpha;
  for (int i = 0; i < 3; ++i) {
    a_w[i] = ref.ddp[i] + c.kv[i] * (ref.dp[i] - pdot[i]) + c.kp[i] * (ref.p[i] - ctx.q[i]);
  }
  const Vector3 w_ref = Re * ref.w, dw_ref = Re * ref.dw;
  for (int i = 0; i < 3; ++i) {
    alpha[i] = dw_ref[i] + c.kv[3 + i] * (w_ref[i] - w_b[i]) + c.kp[3 + i] * qe[1 + i];
  }
  // ν in the model's coordinates: the base twist is [v; ω] of its origin in base axes, so
  // v̇ = Rᵀ p̈ - ω × v.
  a_.setZero(m.nv);
  a_.head<3>() = R.transpose() * a_w - w_b.cross(v_b);
  a_.segment<3>(3) = alpha;
  for (std::size_t k = 0; k < joints_.size(); ++k) {
    const auto j = static_cast<Eigen::Index>(k);
    a_[joints_[k]] = ref.ddjoints[j] + c.kv[6 + k] * (ref.djoints[j] - ctx.v[joints_[k]]) +
                     c.kp[6 + k] * (ref.joints[j] - ctx.q[joints_q_[k]]);
  }
  // The rotors push along the base's z only: the base's x and y accelerations are not prescribed
  // but follow from zero force along them (hybrid dynamics), so that the wrench allocated below
  // is one the rotors can make. (The paper computes the full inverse dynamics and lets the
  // pseudo-inverse of the allocation drop f_x, f_y; through the coupling of the arm hanging below
  // the centre of mass, what is dropped then disturbs the attitude: on kremer_aerial.yaml the roll
  // overshoots its 10° reference by 6.8° that way, by less than 0.1° this way.)
  a_[0] = a_[1] = 0;
  const Eigen::VectorXd& tau = hybridDynamics(m, ctx.data, ctx.q, ctx.v, a_, prescribed_, ctx.fext);
  // Allocation (eqs. 88-89): the thrusts that make the base's force along z and its torque
  // (exactly with four rotors), within [0, T_max]; the rotor speeds that give them; then the
  // motors' lag. When they cannot all be met the torque comes first and the collective thrust
  // gives way (as multirotor autopilots do): upside down in a flip the altitude loop asks for a
  // negative thrust, and clipping every rotor at zero would also take away all the torque.
  Vector6 wrench = tau.head<6>();
  const double fz = wrench[2];
  wrench[2] = 0;
  Eigen::VectorXd thrust = M_pinv_ * wrench;
  double lo = -INFINITY, hi = INFINITY;  // the collective thrusts that keep every rotor in range
  for (Eigen::Index i = 0; i < thrust.size(); ++i) {
    const double per = M_pinv_(i, 2);
    if (per <= 0) continue;
    lo = std::max(lo, -thrust[i] / per);
    hi = std::min(hi, (thrust_max_ - thrust[i]) / per);
  }
  thrust += (lo <= hi ? std::clamp(fz, lo, hi) : 0.5 * (lo + hi)) * M_pinv_.col(2);
  const bool first = t_last_ < 0;
  const double dt = first ? 0.0 : ctx.t - t_last_;
  t_last_ = ctx.t;
  const double lag_rotor = first ? 1.0 : 1 - std::exp(-dt / c.rotor_time_constant);
  const double lag_joint = first ? 1.0 : 1 - std::exp(-dt / c.joint_time_constant);
  for (Eigen::Index i = 0; i < thrust.size(); ++i) {
    const double command = std::sqrt(std::clamp(thrust[i], 0.0, thrust_max_) / c.k_t);  // [rpm]
    speed_[i] += lag_rotor * (command - speed_[i]);
    thrust[i] = c.k_t * speed_[i] * speed_[i];
  }
  ctx.tau.head<6>() += M_mot_ * thrust;
  for (std::size_t k = 0; k < joints_.size(); ++k) {
    const auto j = static_cast<Eigen::Index>(k);
    const double limit = m.effort_limit[joints_[k]];
    const double command = std::clamp(tau[joints_[k]], -limit, limit);
    joint_tau_[j] += lag_joint * (command - joint_tau_[j]);
    ctx.tau[joints_[k]] += joint_tau_[j];
  }
  ctx.ddq = nullptr;
}

}  // namespace grapple::core
