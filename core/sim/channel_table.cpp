#include "core/sim/channel_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/math/rotation.hpp"
#include "core/sim/channels.hpp"

namespace grapple::core {
namespace {

constexpr double kDeg = 180 / M_PI;

// Rotation angle between two attitudes [rad] (2 atan2(|vec|, |w|) of the relative quaternion:
// accurate for small angles, where acos of the dot product loses them below 1e-8 rad).
double attitudeAngle(const Vector4& a, const Vector4& b) {
  const Vector4 r = quatMultiply(quatConjugate(a.normalized()), b.normalized());
  return 2 * std::atan2(r.tail<3>().norm(), std::abs(r[0]));
}

class Table {
 public:
  using Value = std::function<double(const Observation&)>;
  void add(channel::Name name, const char* unit, Value value) {
    channels_.push_back({std::string(name), unit, std::move(value)});
  }
  // Three channels, one per component of a vector quantity.
  template <class F>
  void add(const channel::Xyz& names, const char* unit, F vector) {
    for (int k = 0; k < 3; ++k) add(names[k], unit, [vector, k](const Observation& o) { return vector(o)[k]; });
  }
  std::vector<Channel> take() { return std::move(channels_); }

 private:
  std::vector<Channel> channels_;
};

void addBase(Table& t, const Scenario& scenario, const StateLayout& layout) {
  using namespace channel;
  const Vector3 r0 = scenario.chaser.initial.base_position;
  const Vector4 Q0 = scenario.chaser.initial.base_attitude.normalized();
  t.add(kBasePosition, "m", [](const Observation& o) -> Vector3 { return o.q.head<3>(); });
  t.add(kBasePositionError, "m", [r0](const Observation& o) { return (Vector3(o.q.head<3>()) - r0).norm(); });
  t.add(kBaseAttitudeError, "deg", [Q0](const Observation& o) { return attitudeAngle(o.q.segment<4>(3), Q0) * kDeg; });
  t.add(kBaseRpy, "deg", [](const Observation& o) -> Vector3 {
    return matrixToRpy(quatToMatrix(Vector4(o.q.segment<4>(3)).normalized())) * kDeg;
  });
  t.add(kBaseVelocity, "m/s", [](const Observation& o) -> Vector3 { return o.v.head<3>(); });
  t.add(kBaseRate, "deg/s", [](const Observation& o) -> Vector3 { return o.v.segment<3>(3) * kDeg; });
  // Actuator force and torque on the base (thrusters, reaction wheels), base axes.
  t.add(kBaseForce, "N", [](const Observation& o) -> Vector3 { return o.tau.head<3>(); });
  t.add(kBaseTorque, "N m", [](const Observation& o) -> Vector3 { return o.tau.segment<3>(3); });
  if (scenario.chaser.thrusters) {
    t.add(kBaseFuel, "kg", [i = layout.fuel](const Observation& o) { return o.x[i]; });
  }
}

void addJoints(Table& t, const Model& m, const std::vector<char>& driven) {
  using namespace channel;
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const bool linear = j.type == JointType::kPrismatic;
    for (int k = 0; k < j.nv; ++k) {
      const int iv = j.idx_v + k;
      // Multi-DOF joints with quaternions (spherical) record no position (0).
      const int iq = j.nq == j.nv ? j.idx_q + k : -1;
      auto position = [iq](const Observation& o) { return iq >= 0 ? o.q[iq] : 0.0; };
      t.add(joint(j.name, k, j.nv, kPosition), linear ? "m" : "rad", position);
      t.add(joint(j.name, k, j.nv, kVelocity), linear ? "m/s" : "rad/s", [iv](const Observation& o) { return o.v[iv]; });
      t.add(joint(j.name, k, j.nv, kTorque), linear ? "N" : "N m", [iv](const Observation& o) { return o.tau[iv]; });
      if (!driven[iv]) continue;
      // Once a capture controller has taken the joints over, their paths no longer apply: the
      // reference and error are left empty (NaN).
      t.add(joint(j.name, k, j.nv, kReference), linear ? "m" : "rad",
            [iv](const Observation& o) { return o.paths_apply ? o.joint_reference[iv] : NAN; });
      t.add(joint(j.name, k, j.nv, kError), linear ? "m" : "rad", [iv, position](const Observation& o) {
        return o.paths_apply ? o.joint_reference[iv] - position(o) : NAN;
      });
    }
  }
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    for (int k = 0; k < fb.nf; ++k) {
      t.add(mode(m.body_name[i], fb.mode_names[k]), "1", [iq = fb.idx_q + k](const Observation& o) { return o.q[iq]; });
    }
  }
}

void addEnergy(Table& t, const Model& model, const Scenario& scenario, const StateLayout& l) {
  using namespace channel;
  auto total = [](const Observation& o) { return o.kinetic + o.elastic + o.potential; };
  t.add(kEnergyKinetic, "J", [](const Observation& o) { return o.kinetic; });
  t.add(kEnergyElastic, "J", [](const Observation& o) { return o.elastic; });
  t.add(kEnergyPotential, "J", [](const Observation& o) { return o.potential; });
  t.add(kEnergyTotal, "J", total);
  t.add(kEnergyInputWork, "J", [i = l.input_work](const Observation& o) { return o.x[i]; });
  t.add(kEnergyExternalWork, "J", [i = l.external_work](const Observation& o) { return o.x[i]; });
  t.add(kEnergyDissipated, "J", [i = l.dissipated](const Observation& o) { return o.x[i]; });
  // E_kin + E_elastic + E_gravity + W_diss - W_in - W_ext - E(0): 0 to the integrator's accuracy.
  t.add(kEnergyError, "J", [l, total](const Observation& o) {
    return total(o) + o.x[l.dissipated] - o.x[l.input_work] - o.x[l.external_work] - o.energy0;
  });
  // The whole system's energy (chaser and debris, before and after the grasp) and its parts; the
  // kinetic energy the grasp's inelastic impact takes away is its own channel.
  if (!scenario.debris.enabled) {
    t.add(kEnergySystem, "J", total);
    return;
  }
  // The debris' own energy: kinetic (translation and rotation) and, under uniform gravity,
  // potential. Once attached it moves with the hand and its mass is part of the composite's total,
  // so the chaser's share is the rest: kinetic energy is additive over bodies.
  auto debris = [md = scenario.debris.properties.mass, g = model.gravity_W](const Observation& o) {
    return o.debris_kinetic + o.debris_rotational - md * g.dot(o.debris.r_W);
  };
  auto system = [total, debris](const Observation& o) { return o.attached ? total(o) : total(o) + debris(o); };
  t.add(kEnergySystem, "J", system);
  t.add(kEnergyChaser, "J", [system, debris](const Observation& o) { return system(o) - debris(o); });
  t.add(kEnergyDebris, "J", debris);
  t.add(kEnergyImpactLoss, "J", [](const Observation& o) { return o.impact_loss; });
}

void addHand(Table& t) {
  using namespace channel;
  t.add(kLinearMomentum, "kg m/s", [](const Observation& o) -> Vector3 { return o.momentum.head<3>(); });
  t.add(kAngularMomentum, "kg m^2/s", [](const Observation& o) -> Vector3 { return o.momentum.tail<3>(); });
  t.add(kCom, "m", [](const Observation& o) { return o.com; });
  t.add(kHandPosition, "m", [](const Observation& o) { return o.hand.p; });
  t.add(kHandRpy, "deg", [](const Observation& o) -> Vector3 { return matrixToRpy(o.hand.R) * kDeg; });
  t.add(kHandSpeed, "m/s", [](const Observation& o) { return o.hand_velocity.norm(); });
}

void addDebris(Table& t, bool sensing) {
  using namespace channel;
  t.add(kDebrisPosition, "m", [](const Observation& o) { return o.debris.r_W; });
  for (int k = 0; k < 4; ++k) {
    t.add(kDebrisAttitude[k], "1", [k](const Observation& o) { return o.debris.Q_WB.normalized()[k]; });
  }
  t.add(kDebrisRate, "deg/s", [](const Observation& o) -> Vector3 { return o.debris.w_B * kDeg; });
  t.add(kDebrisRotationalEnergy, "J", [](const Observation& o) { return o.debris_rotational; });
  t.add(kTargetPosition, "m", [](const Observation& o) { return o.target.position; });
  t.add(kTargetVelocity, "m/s", [](const Observation& o) { return o.target.velocity; });
  t.add(kHandTargetDistance, "m", [](const Observation& o) { return o.distance; });
  t.add(kHandTargetRate, "m/s", [](const Observation& o) {
    const Vector3 rel = o.target.position - o.hand.p;
    return o.distance > 0 ? rel.dot(o.target.velocity - o.hand_velocity) / o.distance : 0.0;
  });
  t.add(kHandTargetRelativeSpeed, "m/s", [](const Observation& o) { return o.relative_speed; });
  if (!sensing) return;
  t.add(kEstimatePosition, "m", [](const Observation& o) { return o.estimate.position; });
  t.add(kEstimateError, "m", [](const Observation& o) { return o.estimate.error; });
  t.add(kEstimateSigma3, "m", [](const Observation& o) { return o.estimate.sigma3; });
  for (int k = 0; k < 4; ++k) {
    t.add(kEstimateAttitude[k], "1", [k](const Observation& o) { return o.estimate.attitude[k]; });
  }
  for (int k = 0; k < 6; ++k) {
    const int i = kEstimateCovarianceEntry[k][0], j = kEstimateCovarianceEntry[k][1];  // (clang 14: no captured bindings)
    t.add(kEstimateCovariance[k], "m^2", [i, j](const Observation& o) { return o.estimate.position_covariance(i, j); });
  }
  t.add(kEstimateAttitudeError, "deg", [](const Observation& o) { return o.estimate.attitude_error; });
  t.add(kEstimateAttitudeSigma3, "deg", [](const Observation& o) { return o.estimate.attitude_sigma3; });
  t.add(kEstimateRateError, "deg/s", [](const Observation& o) { return o.estimate.rate_error; });
  t.add(kEstimateRateSigma3, "deg/s", [](const Observation& o) { return o.estimate.rate_sigma3; });
  t.add(kEstimateTargetError, "m", [](const Observation& o) { return o.estimate.target_error; });
  t.add(kEstimateTargetSigma3, "m", [](const Observation& o) { return o.estimate.target_sigma3; });
  t.add(kEstimateRangeError, "m", [](const Observation& o) { return o.estimate.range_error; });
  t.add(kCameraVisible, "1", [](const Observation& o) { return o.estimate.visible; });
}

void addChaserSensing(Table& t, const Scenario& scenario) {
  using namespace channel;
  if (scenario.sensors.gyro) {
    t.add(kBusEstimateAttitudeError, "deg", [](const Observation& o) { return o.chaser_estimate.attitude_error; });
    t.add(kBusEstimateAttitudeSigma3, "deg", [](const Observation& o) { return o.chaser_estimate.attitude_sigma3; });
    t.add(kBusEstimateBiasError, "deg/h", [](const Observation& o) { return o.chaser_estimate.bias_error; });
    t.add(kBusEstimateBiasSigma3, "deg/h", [](const Observation& o) { return o.chaser_estimate.bias_sigma3; });
    t.add(kBusEstimateRateError, "deg/s", [](const Observation& o) { return o.chaser_estimate.rate_error; });
  }
  if (scenario.sensors.encoders) {
    t.add(kEncoderPositionError, "rad", [](const Observation& o) { return o.chaser_estimate.joint_error; });
    t.add(kEncoderVelocityError, "rad/s", [](const Observation& o) { return o.chaser_estimate.joint_rate_error; });
  }
}

void addCapture(Table& t) {
  using namespace channel;
  t.add(kPlanPosition, "m", [](const Observation& o) { return o.hand_reference; });
  t.add(kPlanHandError, "m", [](const Observation& o) { return (o.hand_reference - o.hand.p).norm(); });
  // CaptureController::Phase: 0 before, 1 waiting, 2 tracking, 3 retreating, 4 stopped, 5 attached.
  t.add(kCapturePhase, "1", [](const Observation& o) { return o.capture_phase; });
}

// What the controllers asked before any limit (the requirements on torques are checked on these),
// and how many actuators ask beyond their limit (each joint's effort limit, the bus torque's): the
// intervals where the run is limited by its actuators.
void addDemands(Table& t, const Model& m, const Scenario& scenario) {
  using namespace channel;
  if (m.hasFreeBase()) t.add(kBaseTorqueDemand, "N m", [](const Observation& o) { return o.bus_demand; });
  std::vector<int> arm;     // v coordinates of the one-coordinate joints
  std::vector<int> joints;  // v coordinates of every joint (not the base's, not the modes')
  for (int i = 1; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    if (j.nv == 1) arm.push_back(j.idx_v);
    for (int k = 0; k < j.nv; ++k) joints.push_back(j.idx_v + k);
  }
  t.add(kArmTorqueDemand, "N m", [arm](const Observation& o) {
    double demand = 0;
    for (int iv : arm) demand = std::max(demand, std::abs(o.tau_cmd[iv]));
    return demand;
  });
  double bus_limit = INFINITY;  // the bus torque's, with an active attitude control
  if (const auto& ac = scenario.chaser.attitude_control; m.hasFreeBase() && ac && ac->active()) bus_limit = ac->torque_limit;
  t.add(kLimitsSaturated, "1", [joints, limit = m.effort_limit, bus_limit](const Observation& o) {
    int n = 0;
    for (int iv : joints) n += std::abs(o.tau_cmd[iv]) > limit[iv];
    n += o.bus_demand > bus_limit;
    return static_cast<double>(n);
  });
}

}  // namespace

std::vector<Channel> channelTable(const Model& model, const Scenario& scenario, const StateLayout& layout,
                                  const std::vector<char>& driven, bool sensing, bool capture) {
  Table t;
  t.add(channel::kTime, "s", [](const Observation& o) { return o.t; });
  if (model.hasFreeBase()) addBase(t, scenario, layout);
  addJoints(t, model, driven);
  addEnergy(t, model, scenario, layout);
  addHand(t);
  if (scenario.debris.enabled) addDebris(t, sensing);
  addChaserSensing(t, scenario);
  if (capture) addCapture(t);
  addDemands(t, model, scenario);
  return t.take();
}

}  // namespace grapple::core
