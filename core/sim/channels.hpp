// The recorded channels' names, "group.quantity", declared once for everything that reads a
// recording by name: the mission metrics, the app's plots and 3-D view, the CLI. The channel table
// (core/sim/channel_table) gives each its unit and the quantity that fills it. Three-component
// quantities are named by axis, in order; a reader finds the first and takes the next two.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace grapple::core::channel {

using Name = std::string_view;
using Xyz = std::array<Name, 3>;

inline constexpr Name kTime = "time";

// The base (a free-flying chaser's): position, drift from the initial pose, attitude (roll,
// pitch, yaw), velocity and rate, the actuators' force and torque on it (base axes), the fuel.
inline constexpr Xyz kBasePosition{"base.x", "base.y", "base.z"};
inline constexpr Name kBasePositionError = "base.position_error";
inline constexpr Name kBaseAttitudeError = "base.attitude_error";
inline constexpr Xyz kBaseRpy{"base.roll", "base.pitch", "base.yaw"};
inline constexpr Xyz kBaseVelocity{"base.vx", "base.vy", "base.vz"};
inline constexpr Xyz kBaseRate{"base.wx", "base.wy", "base.wz"};
inline constexpr Xyz kBaseForce{"base.fx", "base.fy", "base.fz"};
inline constexpr Xyz kBaseTorque{"base.tx", "base.ty", "base.tz"};
inline constexpr Name kBaseFuel = "base.fuel";

// Each joint coordinate: "joint.<joint>.<quantity>", "joint.<joint>[k].<quantity>" for a joint of
// several coordinates. Reference and error only for the joints a controller drives along a path.
inline constexpr Name kJointGroup = "joint.";
inline constexpr Name kPosition = "position";
inline constexpr Name kVelocity = "velocity";
inline constexpr Name kTorque = "torque";
inline constexpr Name kReference = "reference";
inline constexpr Name kError = "error";
// The channel of coordinate k (of nv) of the joint named `joint`.
std::string joint(std::string_view joint, int k, int nv, Name quantity);
// Whether `channel` is some joint's `quantity` ("joint.*.<quantity>").
bool isJoint(std::string_view channel, Name quantity);

// Each flexible body's modal coordinates: "mode.<body>.<mode>".
inline constexpr Name kModeGroup = "mode.";
std::string mode(std::string_view body, std::string_view mode);

// The chaser's energy (as integrated), the works of the actuators and the environment, the
// energy the modal damping dissipated, the balance's error; the whole system's energy and its
// parts (chaser, debris, the grasp's impact loss).
inline constexpr Name kEnergyKinetic = "energy.kinetic";
inline constexpr Name kEnergyElastic = "energy.elastic";
inline constexpr Name kEnergyPotential = "energy.potential";
inline constexpr Name kEnergyTotal = "energy.total";
inline constexpr Name kEnergyInputWork = "energy.input_work";
inline constexpr Name kEnergyExternalWork = "energy.external_work";
inline constexpr Name kEnergyDissipated = "energy.dissipated";
inline constexpr Name kEnergyError = "energy.error";
inline constexpr Name kEnergySystem = "energy.system";
inline constexpr Name kEnergyChaser = "energy.chaser";
inline constexpr Name kEnergyDebris = "energy.debris";
inline constexpr Name kEnergyImpactLoss = "energy.impact_loss";

// The whole system's momentum (the debris' until it is attached), inertial axes.
inline constexpr Name kMomentumGroup = "momentum.";
inline constexpr Xyz kLinearMomentum{"momentum.px", "momentum.py", "momentum.pz"};
inline constexpr Xyz kAngularMomentum{"momentum.Lx", "momentum.Ly", "momentum.Lz"};
inline constexpr Xyz kCom{"com.x", "com.y", "com.z"};  // the chaser's centre of mass

// The end effector (the hand).
inline constexpr Xyz kHandPosition{"ee.x", "ee.y", "ee.z"};
inline constexpr Xyz kHandRpy{"ee.roll", "ee.pitch", "ee.yaw"};
inline constexpr Name kHandSpeed = "ee.speed";

// The debris, its grasp point (the target) and the hand's distance to it.
inline constexpr Xyz kDebrisPosition{"debris.x", "debris.y", "debris.z"};
inline constexpr std::array<Name, 4> kDebrisAttitude{"debris.qw", "debris.qx", "debris.qy", "debris.qz"};
inline constexpr Xyz kDebrisRate{"debris.wx", "debris.wy", "debris.wz"};
inline constexpr Name kDebrisRotationalEnergy = "debris.rotational_energy";
inline constexpr Xyz kTargetPosition{"target.x", "target.y", "target.z"};
inline constexpr Xyz kTargetVelocity{"target.vx", "target.vy", "target.vz"};
inline constexpr Name kHandTargetDistance = "distance.ee_target";
inline constexpr Name kHandTargetRate = "distance.ee_target_rate";
inline constexpr Name kHandTargetRelativeSpeed = "distance.ee_target_relative_speed";

// With a camera: the debris' estimate (centre of mass), its errors against the truth and their
// 3σ bounds, the error of the estimated camera to grasp point distance, the grasp point in view.
inline constexpr Xyz kEstimatePosition{"estimate.x", "estimate.y", "estimate.z"};
inline constexpr Xyz kEstimateError{"estimate.error.x", "estimate.error.y", "estimate.error.z"};
inline constexpr Xyz kEstimateSigma3{"estimate.sigma3.x", "estimate.sigma3.y", "estimate.sigma3.z"};
inline constexpr Name kEstimateAttitudeError = "estimate.error.attitude";
inline constexpr Name kEstimateAttitudeSigma3 = "estimate.sigma3.attitude";
inline constexpr Name kEstimateRateError = "estimate.error.rate";
inline constexpr Name kEstimateRateSigma3 = "estimate.sigma3.rate";
inline constexpr Name kEstimateTargetError = "estimate.error.target";
inline constexpr Name kEstimateTargetSigma3 = "estimate.sigma3.target";
inline constexpr Name kEstimateRangeError = "estimate.error.range";
inline constexpr Name kCameraVisible = "camera.visible";
// The estimated attitude Q_WB (scalar first), for drawing the estimated debris, and the covariance
// of the position's error [m^2], its six unique entries in the order of kEstimateCovarianceEntry.
inline constexpr std::array<Name, 4> kEstimateAttitude{"estimate.qw", "estimate.qx", "estimate.qy", "estimate.qz"};
inline constexpr std::array<Name, 6> kEstimateCovariance{"estimate.cov.xx", "estimate.cov.xy", "estimate.cov.xz",
                                                         "estimate.cov.yy", "estimate.cov.yz", "estimate.cov.zz"};
inline constexpr std::array<std::array<int, 2>, 6> kEstimateCovarianceEntry{{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}};

// The errors that have a 3σ bound, and the bound's channel: a signed component lies within ±3σ,
// a magnitude (a norm) within [0, 3σ] for a consistent estimate. Plots draw the bound as a band.
struct ErrorBound {
  Name error, sigma3;
  bool magnitude;
};
inline constexpr std::array<ErrorBound, 6> kErrorBounds{{
    {kEstimateError[0], kEstimateSigma3[0], false},
    {kEstimateError[1], kEstimateSigma3[1], false},
    {kEstimateError[2], kEstimateSigma3[2], false},
    {kEstimateAttitudeError, kEstimateAttitudeSigma3, true},
    {kEstimateRateError, kEstimateRateSigma3, true},
    {kEstimateTargetError, kEstimateTargetSigma3, true},
}};
// The bound of the error channel `error`; nullptr if it has none.
const ErrorBound* errorBound(std::string_view error);

// With the chaser's sensors: the bus attitude filter's errors against the truth and their 3σ
// bounds (attitude [deg], gyro bias [deg/h]: the error's norm beside 3 √(trace of its
// covariance)), the bus rate's error [deg/s] (gyro minus estimated bias), the encoders' largest
// joint position and rate errors [rad or m, per second].
inline constexpr Name kBusEstimateAttitudeError = "bus_estimate.error.attitude";
inline constexpr Name kBusEstimateAttitudeSigma3 = "bus_estimate.sigma3.attitude";
inline constexpr Name kBusEstimateBiasError = "bus_estimate.error.bias";
inline constexpr Name kBusEstimateBiasSigma3 = "bus_estimate.sigma3.bias";
inline constexpr Name kBusEstimateRateError = "bus_estimate.error.rate";
inline constexpr Name kEncoderPositionError = "encoders.error.position";
inline constexpr Name kEncoderVelocityError = "encoders.error.velocity";

// With a capture controller: the plan's hand position while the hand flies it, the hand's error
// to it, the controller's phase (CaptureController::Phase as a number).
inline constexpr Xyz kPlanPosition{"plan.x", "plan.y", "plan.z"};
inline constexpr Name kPlanHandError = "plan.ee_error";
inline constexpr Name kCapturePhase = "capture.phase";

// What the controllers asked before any limit, and how many actuators ask beyond theirs.
inline constexpr Name kBaseTorqueDemand = "base.torque_demand";
inline constexpr Name kArmTorqueDemand = "arm.torque_demand";
inline constexpr Name kLimitsSaturated = "limits.saturated";

}  // namespace grapple::core::channel
