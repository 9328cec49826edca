// Scenario: everything one run needs — the chaser (a robot file plus its initial state), the
// debris, the environment, the controllers and the run settings. Plain data: io/scenario_yaml
// reads and writes it (format documented in scenarios/README.md), sim::Simulation runs it.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/control/actuators.hpp"
#include "core/estimation/chaser_sensing.hpp"
#include "core/estimation/debris_sensing.hpp"
#include "core/model/model.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/sim/ode.hpp"
#include "core/sim/quasi_static.hpp"
#include "core/world/debris.hpp"
#include "core/world/environment.hpp"

namespace grapple::core {

// The options of the format that are words, as enums: each with its words in one table, through
// which the loader reads them (an unknown word is an error listing the table) and the writer writes
// them (io/scenario_schema); everywhere else they are compared as values.
template <class E>
struct EnumWord {
  E value;
  const char* word;
};
// The word of a value in its table.
template <class E, std::size_t N>
constexpr const char* wordOf(E value, const EnumWord<E> (&table)[N]) {
  for (const EnumWord<E>& w : table) {
    if (w.value == value) return w.word;
  }
  return "";
}

// A joint path's time law: quintic (minimum jerk) or cycloidal, θ_d (t/T - sin(2πt/T)/2π).
enum class PathProfile { kQuintic, kCycloidal };
inline constexpr EnumWord<PathProfile> kPathProfileWords[] = {{PathProfile::kQuintic, "quintic"},
                                                              {PathProfile::kCycloidal, "cycloidal"}};
// What the capture planner matches at the meeting (planning/capture_planner).
inline constexpr EnumWord<CaptureMatching> kCaptureMatchingWords[] = {
    {CaptureMatching::kPosition, "position"},
    {CaptureMatching::kPositionVelocity, "position_velocity"},
    {CaptureMatching::kPositionVelocityAcceleration, "position_velocity_acceleration"}};
// The capture's tracking law (ControllerSpec::Capture).
enum class CaptureLaw { kResolvedAcceleration, kResolvedRate, kTransposeJacobian, kJointPd };
inline constexpr EnumWord<CaptureLaw> kCaptureLawWords[] = {{CaptureLaw::kResolvedAcceleration, "resolved_acceleration"},
                                                            {CaptureLaw::kResolvedRate, "resolved_rate"},
                                                            {CaptureLaw::kTransposeJacobian, "transpose_jacobian"},
                                                            {CaptureLaw::kJointPd, "joint_pd"}};
// The joint PD of the law joint_pd: one loop per joint, or premultiplied by D(q0).
enum class ArmPd { kDecentralized, kCentralized };
inline constexpr EnumWord<ArmPd> kArmPdWords[] = {{ArmPd::kDecentralized, "decentralized"},
                                                  {ArmPd::kCentralized, "centralized"}};
// How a reactionless capture inverts [bus rotation; hand] (ControllerSpec::Capture).
enum class ReactionInverse { kPseudoInverse, kAdjugate };
inline constexpr EnumWord<ReactionInverse> kReactionInverseWords[] = {{ReactionInverse::kPseudoInverse, "pseudo_inverse"},
                                                                      {ReactionInverse::kAdjugate, "adjugate"}};

struct ChaserInitialState {
  Vector3 base_position = Vector3::Zero();        // [m] inertial
  Vector4 base_attitude = Vector4(1, 0, 0, 0);    // [w x y z] base -> inertial
  Vector6 base_twist = Vector6::Zero();           // [m/s, rad/s] base frame
  std::map<std::string, std::vector<double>> joint_position;  // by joint name [rad or m]
  std::map<std::string, std::vector<double>> joint_velocity;
  std::map<std::string, std::vector<double>> mode_position;   // by flexible body name
  std::map<std::string, std::vector<double>> mode_velocity;
};

struct ChaserSpec {
  std::string robot;                              // robot file as written (relative to the scenario)
  std::string robot_path;                         // resolved path
  // The robot embedded in the scenario instead (`chaser.model`, the same map as a robot file's
  // `model`), as YAML text; empty when the robot is a file (then `robot` is set, and vice versa).
  std::string model_yaml;
  std::optional<BaseMode> base_mode;              // overrides the robot file
  std::optional<FlexModel> flex_model;            // overrides the robot file
  InertiaPolicy inertia = InertiaPolicy::kRefuse;  // a URDF robot's non-physical inertias
  // Modal damping ratio ξ given to every flexible body whose modes have none in the robot file
  // (the thesis' arm segments are undamped; real structures have some).
  std::optional<double> structural_damping;
  ChaserInitialState initial;
  // The bus' force and torque made by thrusters: fuel by the thesis' eq. 9.1,
  // m_fuel = ∫ ‖f_b + n_b / d‖ dt / (g0 Isp). Absent: no fuel counted (reaction wheels).
  struct Thrusters {
    double isp = 220;        // [s] specific impulse (hydrazine; the thesis gives none)
    double lever_arm = 1.0;  // [m] d, torque arm of the thrusters (ours)
  };
  std::optional<Thrusters> thrusters;
  // The bus attitude held at its initial value (free-floating chaser) by every controller that
  // computes joint torques (joint paths, capture): the bus' angular acceleration is prescribed,
  // α = -kp e - kd ω, in the same hybrid dynamics as the joints', so that its torque includes the
  // arm's reaction (feed-forward), then limited per axis. Absent (or kp = kd = 0): the bus floats.
  struct AttitudeControl {
    double kp = 0.1, kd = 0.6;   // [1/s², 1/s]
    double torque_limit = 5;     // [N m] per axis (thesis Table 8.1)
    // false: the thesis' AOCS, a plain PD torque -H_ωω (kp e + kd ω) (H_ωω: the locked inertia
    // about the bus) that only reacts to the arm's reaction once the bus has turned.
    bool feedforward = true;
    // [s] τ of a first-order low-pass on the rate term kd ω, the gains compensated for its lag
    // (control/rate_filter); 0: none. Needs run.control_rate > 0 and kd τ < 1.
    double rate_filter = 0;
    bool active() const { return kp > 0 || kd > 0; }
  };
  std::optional<AttitudeControl> attitude_control;
};

struct DebrisSpec {
  bool enabled = false;
  DebrisProperties properties;
  Vector3 size = Vector3::Zero();                 // [m] bounding box, for display
  std::string mesh;                               // optional, for display
  DebrisState initial;
};

// Controllers available before the guidance layer (more come with it).
enum class ControllerType {
  kJointTrajectory,  // joints follow a path: computed torque through the whole system's dynamics,
                     // with optional PD on the tracking error (control/controller.hpp, JointServo)
  kTorqueWindows,    // prescribed joint torques: amplitude sin(t / divisor) inside time windows
  kCapture,          // capture of the debris' grasp point: a Ch. 7 planner and end-effector
                     // tracking by resolved acceleration through the free-floating dynamics
  kAerial,           // multirotor + arm under gravity (Kremer et al. 2022 §6): computed torque,
                     // rotor allocation, first-order motors (control/aerial_controller.hpp)
};

struct ControllerSpec {
  ControllerType type = ControllerType::kJointTrajectory;
  // kJointTrajectory
  PathProfile profile = PathProfile::kQuintic;
  double start = 0, duration = 10;                 // [s]
  std::map<std::string, double> target;            // joint -> final position [rad or m]
  double kp = 0, kd = 0;                           // error dynamics ë + kd ė + kp e = 0 [1/s², 1/s]
  // kJointTrajectory and kCapture: τ of a first-order low-pass on the rate term kd ė, the gains
  // compensated for its lag (control/rate_filter); 0: none. Needs run.control_rate > 0, kd τ < 1.
  double rate_filter = 0;                          // [s]
  // kTorqueWindows
  struct Window {
    std::string joint;
    double amplitude = 0, divisor = 1, start = 0, end = 0;  // τ = A sin(t/divisor) for start < t < end
  };
  std::vector<Window> windows;
  // kCapture (start, kp, kd above are shared: plan start time; Cartesian error dynamics)
  struct Capture {
    CaptureMatching matching = CaptureMatching::kPositionVelocityAcceleration;
    CaptureLaw law = CaptureLaw::kResolvedAcceleration;
    // joint_pd (the thesis' Ch. 8 loops): guidance δq = A⁺(r_ref - r), q̇_ref = A⁺ ṙ_ref (A: the
    // generalized Jacobian, damped), then a joint PD, decentralized τ = Kp δq + Kd (q̇_ref - q̇) or
    // centralized τ = D(q0) (Kp δq + Kd (q̇_ref - q̇)), D(q0) the joints' mass matrix at the start.
    // Empty gains (6 joints): decentralized, the thesis' Table 8.2 multi-model set; centralized,
    // Kp 16 s^-2, Kd 8 s^-1 (ours: ω = 4 rad/s, critically damped).
    ArmPd arm_pd = ArmPd::kDecentralized;
    std::vector<double> joint_kp, joint_kd;         // [N m/rad, N m s/rad] (centralized: [1/s², 1/s])
    // A first-order roll-off ω_r/(s + ω_r) on each joint's PD torque (the thesis' suggested
    // extension for the flexible modes, §8.2.4.2), sampled at the control rate: one bandwidth for
    // every joint or one per joint; empty: the plain PD.
    std::vector<double> joint_rolloff;              // [rad/s]
    double force_kp = 1000, force_kd = 1000;        // [N/m, N s/m] transpose_jacobian's spring, damper
    double w_u = 100, w_1 = 1;                      // planner weights (ours: the thesis prints none)
    double horizon = 120;                           // [s] largest capture time searched
    double posture_kp = 0.25, posture_kd = 1.0;     // [1/s², 1/s] null-space pull to the start pose
    double damping = 0.05;                          // DLS damping λ_max [m/s²·s²] near singularities
    double singular_threshold = 0.05;               // σ_min below which damping starts
    double tolerance = 0.01;                        // [m] grasp when closer than this ...
    double speed_tolerance = 0.01;                  // [m/s] ... with a relative speed below this
    double hold = 1.0;                              // [s] ... for this long (tracking before closing)
    // After the grasp (debris attached): the joints brought to rest and held with these gains,
    // soft, because they now carry the debris; the bus' rotation damped (chaser.attitude_control).
    double post_kp = 0.01, post_kd = 0.2;           // [1/s², 1/s]
    // Zero reaction manoeuvre instead of attitude control: the joints move so that the floating
    // bus does not turn (its rate driven to zero through the reaction null space).
    bool reactionless = false;
    // Desired reaction manoeuvre (SPART, eq. 47): the bus' rate driven to this instead of zero
    // [rad/s, bus axes] (e.g. to spend a residual momentum); zero: the zero reaction manoeuvre.
    Vector3 reaction_rate = Vector3::Zero();
    // How the square system [bus rotation; hand] of a 6-joint arm is inverted: kPseudoInverse
    // (the bus' exactly, the hand's by damped least squares in what is left), or kAdjugate
    // (SPART eq. 48: q̈ = k adj(G) b, k = 1/det G capped at adjugate_limit, which scales the
    // motion down near the singularities of G instead of letting it grow).
    ReactionInverse reaction_inverse = ReactionInverse::kPseudoInverse;
    double adjugate_limit = 1e4;  // [ours: on grasp_rigid.yaml the exact inverse saturates the joints]
    // The capture window (planning/feasibility): instead of planning at `start` whatever the
    // debris is doing, the plan from each future start time is flown in prediction through the
    // model (torques, singularities, joint limits, clearance from the debris and the bus) and the
    // earliest feasible capture is chosen; meanwhile the hand waits at its pose at `start` (the
    // stand-off pose), the bus held. Off: the plan is made at `start` (the thesis' mission).
    struct Window {
      bool search = false;
      double horizon = 600;        // [s] latest start searched after `start`
      double periods = 1;          // tumbling periods searched (and a twentieth), within the horizon
      double step_deg = 4;         // start times every this much debris rotation ...
      double min_step = 0.25;      // [s] ... and at least this far apart
      int threads = 0;             // threads predicting the start times at once (the same window;
                                   //   0: one per core of the machine)
      double torque_margin = 0.9;  // the plan may use this fraction of each joint's and the bus' limit
      double clearance = 0.02;     // [m] between the arm (capsules of link_radius) and the debris'
                                   //   box or the bus' box, outside the approach corridor
      double link_radius = 0.12;   // [m]
      double corridor_radius = 0.5;  // [m] approach corridor: a cylinder on the grasp point's
      double corridor_length = 1.5;  // [m]   outward axis, where the hand may touch the debris' box
    } window;
    // Align the hand's approach axis (the z axis of the end-effector frame) with the grasp axis
    // while the plan brings the hand in (planning/capture_planner: CapturePlannerOptions::align;
    // the resolved-acceleration law): the wrist then reaches the grasp point along the approach
    // corridor instead of across the grasp face. Off: the thesis' position-only task.
    bool align = false;
    // Approach in two stages (planning/capture_planner): the plan meets the approach point,
    // `distance` out on the grasp point's outward axis, then the hand slides in along the axis (as
    // seen from the debris) in `duration`. Distance 0: one stage, the plan meets the grasp point
    // (the thesis').
    struct Approach {
      double distance = 0;    // [m]
      double duration = 10;   // [s]
    } approach;
    // Monitoring while tracking, abort and retreat: when one threshold is exceeded the gripper
    // stays open, the hand goes back to the stand-off pose on a joint path (retreat_time) and,
    // with retries left, the next window is searched.
    struct Abort {
      bool enabled = false;
      double plan_error = 0.05;       // [m] hand from the plan
      double saturation_time = 1.0;   // [s] some joint or the bus at its torque limit, continuously
      double bus_attitude_deg = 1.0;  // [deg] bus attitude from its held one
      double clearance = 0.0;         // [m] arm to the debris' box, outside the corridor
      double grasp_timeout = 5.0;     // [s] no grasp this long after the planned meeting + hold
      double retreat_time = 10.0;     // [s]
      int retries = 0;
    } abort;
    // Replanning from the estimate (with sensors.camera; estimation/parting_test): after each new
    // image while the hand flies the plan's first stage, the grasp point the plan predicts is
    // tested against the estimate's, m = dᵀ (J (P(t|t0) - P(t|t)) Jᵀ + tolerance² I)⁻¹ d >
    // χ²₃(1 - false_alarm); when they part, a new plan from the estimate now, from the old plan's
    // reference now (continuous) to meet the target at the same time (event `replan`). Not while
    // the grasp point is not seen, with fewer than `min_images` images since the plan, with less
    // than `min_time` before the meeting, nor more than `max` times per plan flown.
    struct Replan {
      int max = 3;                // replans per plan flown (0: none)
      double false_alarm = 1e-3;  // α: the probability that one test fires on a consistent filter
      double tolerance = 0.01;    // [m] ε: partings below this do not matter to the grasp
      int min_images = 10;        // images applied since the plan before the first test
      double min_time = 2;        // [s] no replan closer than this to the meeting
      bool operator==(const Replan& o) const {
        return max == o.max && false_alarm == o.false_alarm && tolerance == o.tolerance &&
               min_images == o.min_images && min_time == o.min_time;
      }
    } replan;
  } capture;
  // kAerial (a flying base: the multirotor)
  struct Aerial {
    // Rotors in the base's x-y plane, thrust along base +z, at `arm_length` from the base origin,
    // the first at `first_angle_deg` from +x, evenly spaced, spinning alternately CCW/CW.
    int rotors = 4;
    double arm_length = 0.755;        // [m] (Kremer: wheel base 1.51 m)
    double first_angle_deg = 45;      // [deg] 45: the "x" layout of a quadcopter
    double k_t = 2.165e-6;            // [N/rpm²] thrust = k_t ω² (Kremer §5)
    double k_p = 5.865e-8;            // [N m/rpm²] drag torque = k_p ω²
    double max_rpm = 4500;            // [rpm] motor gain K of G(s) = K/(1 + Ts)
    double rotor_time_constant = 0.1;   // [s] (Kremer §6: 0.1)
    double joint_time_constant = 0.05;  // [s] joints' torque lag (same first-order model)
    // Computed torque ν = ẍ_d + Kv ė + Kp e on [x y z | roll pitch yaw | joints] (base position in
    // inertial axes, base rotation and joints); Kremer's gains (x and y: no direct authority).
    std::vector<double> kp{0, 0, 30, 40, 40, 30, 60, 120};
    std::vector<double> kv{0, 0, 10, 5, 5, 4, 24, 24};
    struct Waypoint {
      double t = 0;                                     // [s]
      // Absent: the previous waypoint's (the first's: the initial base position, level, the
      // initial joint angles).
      std::optional<Vector3> position;                  // [m] inertial
      std::optional<Vector3> rpy_deg;                   // [deg] roll, pitch, yaw (Z-Y-X)
      std::vector<double> joints;                       // [rad] one per joint
    };
    std::vector<Waypoint> waypoints;  // quintic blends between consecutive ones; held after the last
  } aerial;
};

// The gains of the capture law joint_pd for `joints` 1-DOF joints: the file's, or where it gives
// none (the loader then requires 6 joints) the defaults. Decentralized: the thesis' rigid
// multi-model synthesis (Table 8.2, "Multi") [N m/rad, N m s/rad]; centralized [ours]: every joint
// a critically damped ω = 4 rad/s loop, Kp 16 s^-2, Kd 8 s^-1 (premultiplied by D(q0)).
inline void captureJointGains(const ControllerSpec::Capture& c, std::size_t joints, std::vector<double>& kp,
                              std::vector<double>& kd) {
  static const double kMultiKp[6] = {3803, 7246, 5575, 373, 3967, 0.006};
  static const double kMultiKd[6] = {1973, 2507, 1822, 1222, 898, 0.03};
  const bool centralized = c.arm_pd == ArmPd::kCentralized;
  kp.assign(joints, 0.0);
  kd.assign(joints, 0.0);
  for (std::size_t k = 0; k < joints; ++k) {
    kp[k] = k < c.joint_kp.size() ? c.joint_kp[k] : centralized ? 16.0 : k < 6 ? kMultiKp[k] : 0.0;
    kd[k] = k < c.joint_kd.size() ? c.joint_kd[k] : centralized ? 8.0 : k < 6 ? kMultiKd[k] : 0.0;
  }
}

enum class IntegratorType {
  kRk4,            // fixed step (the thesis' Simulink setting)
  kDormandPrince,  // adaptive 5(4): the most accurate per evaluation on smooth, non-stiff motion
  kRk43,           // adaptive RK4(3): 4x more stable on fast undamped modes (flexible models)
  kRosenbrockW,    // adaptive ROS34PW2, linearly implicit in the modal stiffness and damping:
                   //   steps set by the motion, not by the stiffest mode (flexible models)
  kQuasiStatic,    // the modes above run.quasi_static_above condensed to their static deflection
                   //   (sim/quasi_static), the rest by an adaptive explicit pair, run.quasi_static_pair
                   //   (flexible models)
};

// Which modes quasi_static condenses (sim/quasi_static): each body's own, each body's coupled
// with the joints and the base at the initial configuration, or the whole model's coupled modes.
inline constexpr EnumWord<CondensedModes> kCondensedModesWords[] = {
    {CondensedModes::kBody, "body"}, {CondensedModes::kCoupled, "coupled"}, {CondensedModes::kWhole, "whole"}};

// The explicit pair that integrates what quasi_static keeps: Dormand–Prince 5(4), the fewer steps
// where accuracy sets them (tight tolerances), or RK4(3), stable on lightly damped modes up to
// |hω| = 2.83 against about 1 (sim/ode) and 4 evaluations a step against 6: the fewer evaluations
// where the control period or those modes' stability set the step (the flexible capture at rtol
// 1e-6, atol 1e-6: 1.4x fewer; at atol 1e-8 1.3x more; scenarios/README.md).
inline constexpr EnumWord<AdaptiveMethod> kQuasiStaticPairWords[] = {
    {AdaptiveMethod::kDormandPrince54, "dopri5"}, {AdaptiveMethod::kRk43, "rk43"}};

// The scenario file's word for an integrator: rk4, dopri5, rk43, ros34pw2, quasi_static.
inline const char* integratorName(IntegratorType t) {
  switch (t) {
    case IntegratorType::kRk4: return "rk4";
    case IntegratorType::kRk43: return "rk43";
    case IntegratorType::kRosenbrockW: return "ros34pw2";
    case IntegratorType::kQuasiStatic: return "quasi_static";
    default: return "dopri5";
  }
}

struct RunSettings {
  double duration = 10;                          // [s]
  IntegratorType integrator = IntegratorType::kDormandPrince;
  double step = 1e-3;                            // [s] RK4 step
  double rtol = 1e-8, atol = 1e-10;              // adaptive integrators' tolerances
  double max_step = 0.02;                        // [s] adaptive integrators
  double quasi_static_above = 100;               // [rad/s] integrator quasi_static: modes of a
                                                 //   higher frequency keep only their static deflection
  CondensedModes quasi_static_modes = CondensedModes::kBody;  // ... which modes: each body's own,
                                                 //   coupled with the joints and base, or the whole model's
  AdaptiveMethod quasi_static_pair = AdaptiveMethod::kDormandPrince54;  // ... and the pair integrating the rest
  double record_rate = 50;                       // [Hz] recorded samples per second
  double control_rate = 0;                       // [Hz] controllers sampled with a zero-order hold,
                                                 //   as on board; 0: at every evaluation
  std::string end_effector;                      // frame recorded as the end effector (default:
                                                 //   the last frame of the deepest body)
};

// The requirements a capture is judged against (sim/mission): by default the thesis' Table 8.1.
// Each one may be switched off (absent optional).
struct Requirements {
  std::optional<double> hand_to_plan = 0.01;    // [m] hand from the plan, from the plan of the
                                                //   attempt that grasped to the grasp (§8.2.1: the
                                                //   SARAH hand's 1 cm)
  std::optional<double> bus_attitude_deg = 0.3; // [deg] bus attitude from its initial one, until the grasp
  std::optional<double> bus_torque = 5;         // [N m] bus torque the controllers ask, per axis, until the grasp
  std::optional<double> joint_torque = 200;     // [N m] joint torque the controllers ask, whole run
};

// Errors on one body's mass properties in the controllers' model (Scenario::knowledge): signed,
// deterministic. The controllers believe the mass (1 + mass) m, the centre of mass c + com, and the
// inertia about the centre of mass S I S with S = diag(√(1 + inertia_k)) in the link's axes (its
// moments about those axes scaled by 1 + inertia_k; one number: the whole tensor scaled).
struct MassPropertiesError {
  double mass = 0;                       // relative (> -1)
  Vector3 com = Vector3::Zero();         // [m] offset, axes of the link defining the body
  Vector3 inertia = Vector3::Zero();     // relative, per axis (each > -1)
  bool zero() const { return mass == 0 && com.isZero(0) && inertia.isZero(0); }
};

// What the controllers and planners know (sim/knowledge): their own model of the chaser and of the
// debris. Absent (or every error zero): the truth, and runs bit-identical to those without it.
struct KnowledgeSpec {
  std::string robot;                     // another robot file, same bodies and joints ("": the chaser's)
  std::string robot_path;                // resolved path
  std::shared_ptr<const Model> robot_model;  // its model, loaded by the scenario's loader with the
                                             //   chaser's overrides (null without `robot`)
  std::optional<MassPropertiesError> bus;      // body 0
  std::optional<MassPropertiesError> payload;  // the body carrying the end effector
  std::map<std::string, MassPropertiesError> links;  // by body name
  struct Debris {
    double mass = 0;                     // relative (> -1)
    Vector3 inertia = Vector3::Zero();   // relative, per debris body axis (each > -1)
    // Only the inertia's ratios known (what its tumbling shows): the tensor is scaled to the trace
    // of a uniform box of debris.size with the known mass (then the errors above apply).
    bool ratios_only = false;
    Vector3 grasp_point = Vector3::Zero();  // [m] error of the grasp point, debris body axes
    bool zero() const { return mass == 0 && inertia.isZero(0) && !ratios_only && grasp_point.isZero(0); }
  } debris;
  bool rigid = false;                    // the flexible modes left out of the controllers' model
  // [rad/s] only the modes at or below it in the controllers' model (each body's own frequencies,
  // FlexibleBody::frequency); the others left out as `rigid` leaves out all (which then holds).
  // Infinite: every mode kept.
  double modes_below = INFINITY;
  // Whether the controllers' chaser is the truth (no robot file, no error, the modes kept).
  bool chaserIsTruth() const {
    if (!robot.empty() || rigid || std::isfinite(modes_below) || (bus && !bus->zero()) || (payload && !payload->zero())) {
      return false;
    }
    for (const auto& [name, e] : links) {
      if (!e.zero()) return false;
    }
    return true;
  }
};

struct Scenario {
  // (Out of line, core/sim/scenario.cpp: a Scenario is large, and copied and destroyed in many
  // translation units; one copy of that code serves them all.)
  Scenario();
  Scenario(const Scenario&);
  Scenario(Scenario&&) noexcept;
  Scenario& operator=(const Scenario&);
  Scenario& operator=(Scenario&&) noexcept;
  ~Scenario();

  std::string name, description;
  std::string file;                              // where it was read from (empty if built in code)
  ChaserSpec chaser;
  DebrisSpec debris;
  EnvironmentSettings environment;
  Vector3 gravity = Vector3::Zero();             // [m/s^2] uniform (the aerial-manipulator case)
  std::vector<ControllerSpec> controllers;
  RunSettings run;
  Requirements requirements;
  // Sensors. `camera`: the debris seen by a camera on the chaser and estimated by a filter
  // (estimation/debris_sensing); the controllers (the capture's planner, window search and
  // monitor) and the grasp decision then use the estimate. Absent: they use the true debris.
  // `encoders`, `star_tracker`, `gyro` (the base ChaserSensorsSpec): the chaser's own state as the
  // controllers see it (estimation/chaser_sensing); absent: the truth.
  struct Sensors : ChaserSensorsSpec {
    std::optional<DebrisCameraSpec> camera;
  } sensors;
  std::optional<KnowledgeSpec> knowledge;        // the controllers' model (absent: the truth)
  // The actuators' imperfections (control/actuators); none given: the commanded forces exactly.
  ActuatorsSpec actuators;
};

// For runs that are themselves run several at once (a campaign's processes, an envelope's cells):
// each capture controller's window search on one thread, where the file leaves it at one per core
// (the window is the same for any number).
void searchWindowsOnOneThread(Scenario& scenario);

}  // namespace grapple::core
