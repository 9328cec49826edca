#include "core/io/scenario_schema.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <initializer_list>
#include <tuple>

#include "core/math/rotation.hpp"

namespace grapple::core {

std::string Bounds::text() const {
  auto num = [](double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  };
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi) {
    return "in " + std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + (hi_open ? ")" : "]");
  }
  if (has_lo) return (lo_open ? "> " : ">= ") + num(lo);
  if (has_hi) return (hi_open ? "< " : "<= ") + num(hi);
  return "";
}

const char* keyTypeName(KeyType t) {
  switch (t) {
    case KeyType::kSection: return "section";
    case KeyType::kList: return "list";
    case KeyType::kNames: return "map of names";
    case KeyType::kNumber: return "number";
    case KeyType::kInteger: return "integer";
    case KeyType::kBool: return "true | false";
    case KeyType::kText: return "text";
    case KeyType::kChoice: return "choice";
    case KeyType::kVector: return "vector";
    case KeyType::kNumbers: return "list of numbers";
    case KeyType::kValues: return "number or list";
    case KeyType::kQuaternion: return "quaternion";
    case KeyType::kInertia: return "inertia";
    case KeyType::kLimit: return "number or off";
    case KeyType::kYamlMap: return "robot model";
  }
  return "";
}

namespace {

using bounds::kAny;
using bounds::kNonNegative;
using bounds::kPositive;
using bounds::atLeast;
using bounds::between;

template <class E>
using Words = std::vector<std::pair<E, std::string>>;

// An enum as one of its words.
template <class E>
void choice(ScenarioFields& f, const char* key, E& v, const Words<E>& table, const char* doc) {
  std::vector<std::string> words;
  std::string word;
  for (const auto& [e, w] : table) {
    words.push_back(w);
    if (e == v) word = w;
  }
  f.choice(key, word, words, doc);
  for (const auto& [e, w] : table) {
    if (word == w) v = e;
  }
}

// An enum as one of the words of its table (core/sim/scenario.hpp).
template <class E, std::size_t N>
void choice(ScenarioFields& f, const char* key, E& v, const EnumWord<E> (&table)[N], const char* doc) {
  Words<E> words;
  for (const EnumWord<E>& w : table) words.emplace_back(w.value, w.word);
  choice(f, key, v, words, doc);
}

// The words of an enum's values, as its name function spells them.
template <class E, class Name>
Words<E> wordsOf(std::initializer_list<E> values, Name name) {
  Words<E> w;
  for (E e : values) w.emplace_back(e, std::string(name(e)));
  return w;
}

const Words<BaseMode> kBaseModes = wordsOf({BaseMode::kFixed, BaseMode::kFloating, BaseMode::kFlying}, baseModeName);
const Words<FlexModel> kFlexModels =
    wordsOf({FlexModel::kFull, FlexModel::kConstantMass, FlexModel::kConstantMassPrinted, FlexModel::kNominalA,
             FlexModel::kNominalR},
            flexModelName);
const Words<InertiaPolicy> kInertiaPolicies{{InertiaPolicy::kRefuse, "refuse"}, {InertiaPolicy::kRepair, "repair"}};
const Words<IntegratorType> kIntegrators =
    wordsOf({IntegratorType::kRk4, IntegratorType::kDormandPrince, IntegratorType::kRk43, IntegratorType::kRosenbrockW,
             IntegratorType::kQuasiStatic},
            integratorName);
const Words<ControllerType> kControllerTypes{{ControllerType::kJointTrajectory, "joint_trajectory"},
                                             {ControllerType::kTorqueWindows, "torque_windows"},
                                             {ControllerType::kCapture, "capture"},
                                             {ControllerType::kAerial, "aerial"}};

// What a check function (checkEnvironment, ...) finds wrong, "" if nothing.
template <class F>
std::string problem(F check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// A list of sections, each item visited by `item(T&, index)`.
template <class T, class F>
void list(ScenarioFields& f, const char* key, std::vector<T>& v, const char* doc, F item, bool flow,
          Presence p = Presence::kOptional) {
  f.list(key, doc, v.size(), [&](std::size_t n) { v.resize(n); }, [&](std::size_t k) { item(v[k], k); }, flow, p);
}

// An optional section (absent: std::nullopt).
template <class T, class F>
void optionalSection(ScenarioFields& f, const char* key, std::optional<T>& v, const char* doc, F body, bool flow) {
  if (!f.wants(key, v.has_value())) return;
  if (!v) v = T{};  // (not emplace(): clang decides T is not default-constructible, its default
                   // member initializers being parsed after std::optional<T> is instantiated)
  f.section(key, doc, [&] { body(*v); }, flow);
}

void vector3(ScenarioFields& f, const char* key, Vector3& v, const char* unit, const char* doc, Scale scale = {}) {
  f.vector(key, v.data(), 3, unit, doc, scale);
}

// chaser.initial.joints / modes: by name, {position, velocity}, each a number or a list.
void visitStates(ScenarioFields& f, const char* key, std::map<std::string, std::vector<double>>& pos,
                 std::map<std::string, std::vector<double>>& vel, const char* doc, const char* pos_unit,
                 const char* vel_unit) {
  std::vector<std::string> names;
  for (const auto& [n, v] : pos) names.push_back(n);
  for (const auto& [n, v] : vel) {
    if (!pos.count(n)) names.push_back(n);
  }
  if (!f.wants(key, !names.empty())) return;
  f.names(key, doc, names, [&](const std::string& name) {
    f.section(name.c_str(), "", [&] {
      if (f.wants("position", pos.count(name) > 0)) f.values("position", pos[name], pos_unit, "initial position");
      if (f.wants("velocity", vel.count(name) > 0)) f.values("velocity", vel[name], vel_unit, "initial velocity");
    }, true);
  }, false);
}

void visitChaser(ScenarioFields& f, Scenario& s) {
  ChaserSpec& c = s.chaser;
  f.robot(c, "robot file, YAML or URDF, relative to the scenario",
          "the robot embedded instead: a robot file's `model` map");
  if (f.wants("base_mode", c.base_mode.has_value())) {
    BaseMode m = c.base_mode.value_or(BaseMode::kFloating);
    choice(f, "base_mode", m, kBaseModes, "overrides the robot file's");
    c.base_mode = m;
  }
  if (f.wants("flex_model", c.flex_model.has_value())) {
    FlexModel m = c.flex_model.value_or(FlexModel::kFull);
    choice(f, "flex_model", m, kFlexModels, "overrides the robot file's (thesis §5.2.6.1)");
    c.flex_model = m;
  }
  choice(f, "inertia", c.inertia, kInertiaPolicies, "a URDF robot's non-physical inertias");
  if (f.wants("structural_damping", c.structural_damping.has_value())) {
    double z = c.structural_damping.value_or(0);
    f.number("structural_damping", z, "", between(0, 1, false, true),
             "damping ratio ξ of every flexible body whose modes have none in the robot file", Presence::kIfSet);
    c.structural_damping = z;
  }
  optionalSection(f, "attitude_control", c.attitude_control, "the floating bus' attitude held (absent: it floats)",
                  [&](ChaserSpec::AttitudeControl& a) {
                    f.number("kp", a.kp, "1/s²", kNonNegative, "bus angular acceleration -kp e - kd ω: kp");
                    f.number("kd", a.kd, "1/s", kNonNegative, "... kd");
                    f.number("torque_limit", a.torque_limit, "N m", kPositive, "per axis (thesis Table 8.1)");
                    f.boolean("feedforward", a.feedforward, "the arm's reaction fed forward; false: the thesis' AOCS");
                    f.number("rate_filter", a.rate_filter, "s", kNonNegative,
                             "low-pass on the rate term, gains compensated for its lag (0: none)");
                  }, true);
  optionalSection(f, "thrusters", c.thrusters, "the bus' force and torque from thrusters: fuel (thesis eq. 9.1)",
                  [&](ChaserSpec::Thrusters& t) {
                    f.number("isp", t.isp, "s", kPositive, "specific impulse");
                    f.number("lever_arm", t.lever_arm, "m", kPositive, "torque arm of the thrusters");
                  }, true);
  ChaserInitialState& i = c.initial;
  f.section("initial", "the initial state", [&] {
    f.section("base", "inertial pose and twist of the base", [&] {
      vector3(f, "position", i.base_position, "m", "inertial");
      f.quaternion("attitude", i.base_attitude, "base -> inertial");
      f.vector("twist", i.base_twist.data(), 6, "m/s, rad/s", "base frame, linear first (free bases only)");
    });
    visitStates(f, "joints", i.joint_position, i.joint_velocity, "by joint name; a list for multi-DOF joints",
                "rad or m", "rad/s or m/s");
    visitStates(f, "modes", i.mode_position, i.mode_velocity, "by flexible body name, one value per mode", "", "");
  });
}

void visitDebris(ScenarioFields& f, Scenario& s) {
  DebrisSpec& d = s.debris;
  if (!f.wants("debris", d.enabled)) return;
  d.enabled = true;
  f.section("debris", "the debris (absent: none)", [&] {
    f.number("mass", d.properties.mass, "kg", kPositive, "mass", Presence::kRequired);
    f.inertia("inertia", d.properties.inertia, "about the centre of mass, body axes; physical");
    const std::string bad = problem([&] { checkDebrisProperties(d.properties); });
    f.check(bad.empty(), "inertia", bad, false);
    vector3(f, "size", d.size, "m", "bounding box, for display");
    f.text("mesh", d.mesh, "mesh file, for display", Presence::kIfSet);
    vector3(f, "target", d.properties.target_B, "m", "grasp point, body frame from the centre of mass");
    f.section("initial", "the initial state", [&] {
      vector3(f, "position", d.initial.r_W, "m", "centre of mass, inertial");
      vector3(f, "velocity", d.initial.v_W, "m/s", "inertial");
      f.quaternion("attitude", d.initial.Q_WB, "body -> inertial");
      vector3(f, "rate_deg_s", d.initial.w_B, "deg/s", "angular velocity, body frame", kDegrees);
    });
  });
}

void visitEnvironment(ScenarioFields& f, Scenario& s) {
  EnvironmentSettings& e = s.environment;
  f.section("environment", "orbit and disturbances (every effect off by default)", [&] {
    f.number("altitude", e.altitude, "m", kPositive, "circular orbit above the equatorial radius");
    f.boolean("gravity_gradient", e.gravity_gradient, "gravity-gradient torque on every body");
    f.boolean("relative_motion", e.relative_motion, "tidal forces (Clohessy–Wiltshire) on every body and the debris");
    vector3(f, "gravity", s.gravity, "m/s²", "uniform gravity (aerial manipulators)");
    f.section("drag", "aerodynamic drag on the base", [&] {
      if (f.loading()) e.drag.enabled = true;
      f.boolean("enabled", e.drag.enabled, "default true when the section is given");
      f.number("density", e.drag.density, "kg/m³", kAny, "atmospheric density");
      f.number("drag_coefficient", e.drag.drag_coefficient, "", kAny, "drag coefficient");
      f.number("area", e.drag.area, "m²", kAny, "reference area");
      vector3(f, "center_of_pressure", e.drag.center_of_pressure, "m", "base frame");
    });
    f.section("solar_pressure", "solar radiation pressure on the base", [&] {
      auto& p = e.solar_pressure;
      if (f.loading()) p.enabled = true;
      f.boolean("enabled", p.enabled, "default true when the section is given");
      f.number("pressure", p.pressure, "N/m²", kAny, "solar pressure");
      f.number("area", p.area, "m²", kAny, "illuminated area");
      vector3(f, "normal", p.normal, "", "surface normal, base frame");
      vector3(f, "center_of_pressure", p.center_of_pressure, "m", "base frame");
      vector3(f, "sun_direction", p.sun_direction, "", "towards the sun, inertial");
      f.number("absorbed", p.absorbed, "", kAny, "absorbed fraction");
      f.number("diffuse", p.diffuse, "", kAny, "diffusely reflected fraction");
      f.number("specular", p.specular, "", kAny, "specularly reflected fraction (the three sum to 1)");
    });
    f.section("magnetic", "magnetic torque on the base", [&] {
      if (f.loading()) e.magnetic.enabled = true;
      f.boolean("enabled", e.magnetic.enabled, "default true when the section is given");
      vector3(f, "dipole", e.magnetic.dipole, "A m²", "residual dipole, base frame");
      vector3(f, "field", e.magnetic.field, "T", "inertial; zero: the Earth's dipole");
    });
    const std::string bad = problem([&] { checkEnvironment(e); });
    f.check(bad.empty(), "", bad, false);
  });
}

void visitJointTrajectory(ScenarioFields& f, ControllerSpec& c) {
  choice(f, "profile", c.profile, kPathProfileWords, "the path's time law");
  f.number("start", c.start, "s", kAny, "start time");
  f.number("duration", c.duration, "s", kPositive, "duration of the path", Presence::kRequired);
  std::vector<std::string> joints;
  for (const auto& [n, v] : c.target) joints.push_back(n);
  f.names("target", "final positions by joint name", joints, [&](const std::string& name) {
    f.number(name.c_str(), c.target[name], "rad or m", kAny, "final position");
  }, true, Presence::kRequired);
  f.number("kp", c.kp, "1/s²", kNonNegative, "error dynamics ë + kd ė + kp e = 0: kp");
  f.number("kd", c.kd, "1/s", kNonNegative, "... kd");
  f.number("rate_filter", c.rate_filter, "s", kNonNegative, "low-pass on the rate term, gains compensated for its lag (0: none)");
}

// The capture's section `window` (planning/feasibility).
void visitCaptureWindow(ScenarioFields& f, ControllerSpec::Capture::Window& w) {
  if (f.loading()) w.search = true;
  f.boolean("search", w.search, "search the window (default true when the section is given)");
  f.number("horizon", w.horizon, "s", between(0, 3600, true), "latest start searched after `start`");
  f.number("periods", w.periods, "", between(0, 100, true), "tumbling periods searched (and a twentieth), within the horizon");
  f.number("step_deg", w.step_deg, "deg", atLeast(0.1), "start times every this much debris rotation ...");
  f.number("min_step", w.min_step, "s", atLeast(0.01), "... and at least this far apart");
  f.integer("threads", w.threads, between(0, 256), "threads predicting the start times at once (the same window for any number; 0: one per core)");
  f.number("torque_margin", w.torque_margin, "", between(0, 1, true), "fraction of each torque limit a plan may use");
  f.number("clearance", w.clearance, "m", kNonNegative, "arm to the debris' box and the bus' box");
  f.number("link_radius", w.link_radius, "m", kPositive, "radius of the arm's capsules");
  f.number("corridor_radius", w.corridor_radius, "m", kPositive, "approach corridor: radius ...");
  f.number("corridor_length", w.corridor_length, "m", kPositive, "... and length, on the grasp point's outward axis");
}

void visitCaptureAbort(ScenarioFields& f, ControllerSpec::Capture::Abort& a) {
  if (f.loading()) a.enabled = true;
  f.boolean("enabled", a.enabled, "default true when the section is given");
  f.number("plan_error", a.plan_error, "m", kPositive, "hand from the plan");
  f.number("saturation_time", a.saturation_time, "s", kPositive, "some joint or the bus at its torque limit, continuously");
  f.number("bus_attitude_deg", a.bus_attitude_deg, "deg", kPositive, "bus from its held attitude");
  f.number("clearance", a.clearance, "m", kAny, "arm to the debris' box outside the corridor");
  f.number("grasp_timeout", a.grasp_timeout, "s", kPositive, "no grasp this long after the planned meeting + hold");
  f.number("retreat_time", a.retreat_time, "s", between(0, 3600, true), "back to the stand-off pose on a joint path");
  f.integer("retries", a.retries, between(0, 100), "windows searched again after an abort");
}

void visitCaptureReplan(ScenarioFields& f, ControllerSpec::Capture::Replan& r) {
  f.integer("max", r.max, between(0, 100), "replans per plan flown (0: none)");
  f.number("false_alarm", r.false_alarm, "", between(0, 1, true, true), "probability that one test fires on a consistent filter");
  f.number("tolerance", r.tolerance, "m", kNonNegative, "partings of the grasp point below this do not matter");
  f.integer("min_images", r.min_images, between(1, 100000), "images applied since the plan before the first test");
  f.number("min_time", r.min_time, "s", kNonNegative, "no replan closer than this to the meeting");
}

void visitCapture(ScenarioFields& f, ControllerSpec& c, const Scenario& s) {
  auto& cap = c.capture;
  if (f.loading()) c.kp = c.kd = 4;
  f.number("start", c.start, "s", kNonNegative, "the plan is made at this instant");
  choice(f, "matching", cap.matching, kCaptureMatchingWords, "what the Ch. 7 planner matches at the meeting");
  f.number("w_u", cap.w_u, "", kPositive, "planner weight of the input");
  f.number("w_1", cap.w_1, "", kNonNegative, "planner weight of the velocity or acceleration; 0: polynomial forms");
  // The planner scans [0, horizon] for the capture time and propagates the debris over it: an hour
  // bounds the work (the thesis searches two minutes).
  f.number("horizon", cap.horizon, "s", between(0, 3600, true), "largest capture time searched");
  f.number("kp", c.kp, "1/s²", kNonNegative, "the hand's Cartesian error dynamics: kp");
  f.number("kd", c.kd, "1/s", kNonNegative, "... kd");
  f.number("rate_filter", c.rate_filter, "s", kNonNegative,
           "low-pass on the hand's (and the held joints') rate error, gains compensated for its lag (0: none)");
  f.number("posture_kp", cap.posture_kp, "1/s²", kNonNegative, "redundant joints pulled to their start pose: kp");
  f.number("posture_kd", cap.posture_kd, "1/s", kNonNegative, "... kd");
  f.number("damping", cap.damping, "", kNonNegative, "damped pseudo-inverse: λ_max");
  f.number("singular_threshold", cap.singular_threshold, "", kPositive, "smallest singular value below which it damps");
  f.number("tolerance", cap.tolerance, "m", kPositive, "the gripper closes when the hand is this close ...");
  f.number("speed_tolerance", cap.speed_tolerance, "m/s", kPositive, "... at this relative speed ...");
  f.number("hold", cap.hold, "s", kNonNegative, "... for this long");
  f.number("post_kp", cap.post_kp, "1/s²", kNonNegative, "after the grasp: joints held, kp");
  f.number("post_kd", cap.post_kd, "1/s", kNonNegative, "... kd");
  choice(f, "law", cap.law, kCaptureLawWords, "the tracking law");
  f.number("force_kp", cap.force_kp, "N/m", kNonNegative, "transpose_jacobian: the hand's spring");
  f.number("force_kd", cap.force_kd, "N s/m", kNonNegative, "transpose_jacobian: the hand's damper");
  f.boolean("align", cap.align, "turn the hand's approach axis onto the grasp axis by the meeting (resolved_acceleration)");
  f.boolean("reactionless", cap.reactionless, "zero reaction manoeuvre: the bus does not turn");
  choice(f, "reaction_inverse", cap.reaction_inverse, kReactionInverseWords,
         "how [bus; hand] is inverted (adjugate: SPART eq. 48, 6 joints)");
  f.number("adjugate_limit", cap.adjugate_limit, "", kPositive, "cap of 1/det G (adjugate)");
  vector3(f, "reaction_rate_deg_s", cap.reaction_rate, "deg/s", "the bus' rate driven to this (SPART eq. 47)", kDegrees);
  choice(f, "arm_pd", cap.arm_pd, kArmPdWords, "joint_pd: the joint PD's structure");
  f.numbers("joint_kp", cap.joint_kp, "N m/rad", kNonNegative, "joint_pd: one per joint (centralized: 1/s²)",
            Presence::kIfSet);
  f.numbers("joint_kd", cap.joint_kd, "N m s/rad", kNonNegative, "joint_pd: one per joint (centralized: 1/s)",
            Presence::kIfSet);
  f.numbers("joint_rolloff", cap.joint_rolloff, "rad/s", kPositive, "joint_pd: first-order low-pass on each joint's torque (one, or one per joint)",
            Presence::kIfSet);
  if (f.wants("window", cap.window.search)) {
    f.section("window", "the capture window (absent: plan at `start`)", [&] { visitCaptureWindow(f, cap.window); }, true);
  }
  auto& ap = cap.approach;
  if (f.wants("approach", ap.distance > 0)) {
    f.section("approach", "two-stage approach (absent or distance 0: one stage)", [&] {
      f.number("distance", ap.distance, "m", kNonNegative, "the approach point, out on the grasp axis");
      f.number("duration", ap.duration, "s", between(0, 600, true), "from the approach point to the grasp point");
      f.check(!(cap.window.search && ap.distance > cap.window.corridor_length), "distance",
              "the approach point must lie in the approach corridor (window.corridor_length " +
                  std::to_string(cap.window.corridor_length) + " m)");
    }, true);
  }
  if (f.wants("abort", cap.abort.enabled)) {
    f.section("abort", "monitor while tracking: abort and retreat (absent: none)", [&] { visitCaptureAbort(f, cap.abort); },
              true);
  }
  if (f.wants("replan", !(cap.replan == ControllerSpec::Capture::Replan{}))) {
    f.section("replan", "replanning when the plan's prediction and the estimate part (with sensors.camera)",
              [&] { visitCaptureReplan(f, cap.replan); }, true);
  }
  f.check(!((cap.window.search || cap.abort.enabled) && cap.reactionless), "",
          "the capture window and the abort monitor hold the bus' attitude; a reactionless approach lets it float");
  f.check(!(cap.reactionless && s.chaser.attitude_control && s.chaser.attitude_control->active()), "reactionless",
          "the bus floats in a reactionless approach: drop chaser.attitude_control (or reactionless)");
}

void visitAerial(ScenarioFields& f, ControllerSpec::Aerial& a) {
  f.integer("rotors", a.rotors, between(3, 12), "rotors in the base's x-y plane, thrust along +z");
  f.number("arm_length", a.arm_length, "m", kPositive, "rotors' distance from the base origin");
  f.number("first_angle_deg", a.first_angle_deg, "deg", kAny, "the first rotor's angle from +x");
  f.number("k_t", a.k_t, "N/rpm²", kPositive, "thrust k_t ω²");
  f.number("k_p", a.k_p, "N m/rpm²", kPositive, "drag torque k_p ω²");
  f.number("max_rpm", a.max_rpm, "rpm", kPositive, "rotor speed limit");
  f.number("rotor_time_constant", a.rotor_time_constant, "s", kPositive, "first-order lag of the rotors' speed");
  f.number("joint_time_constant", a.joint_time_constant, "s", kPositive, "first-order lag of the joints' torque");
  f.numbers("kp", a.kp, "1/s²", kNonNegative, "computed torque on x y z, roll pitch yaw, joints: kp");
  f.numbers("kv", a.kv, "1/s", kNonNegative, "... kv");
  list(f, "waypoints", a.waypoints, "quintic rest-to-rest blends (at least one)",
       [&](ControllerSpec::Aerial::Waypoint& p, std::size_t k) {
         f.number("t", p.t, "s", kNonNegative, "time", Presence::kRequired);
         f.check(k == 0 || p.t > a.waypoints[k - 1].t, "t", "waypoint times must increase");
         for (auto [key, v, unit] : {std::tuple{"position", &p.position, "m"}, std::tuple{"rpy_deg", &p.rpy_deg, "deg"}}) {
           if (!f.wants(key, v->has_value())) continue;
           if (!*v) v->emplace(Vector3::Zero());
           vector3(f, key, **v, unit, key == std::string("position") ? "inertial (absent: the previous one's)"
                                                                      : "roll, pitch, yaw (Z-Y-X)");
         }
         f.numbers("joints", p.joints, "rad", kAny, "one per joint", Presence::kIfSet);
       }, true, Presence::kRequired);
  f.check(!(a.waypoints.empty() && f.loading()), "waypoints", "expected at least one waypoint");
}

void visitTorqueWindows(ScenarioFields& f, ControllerSpec& c) {
  list(f, "windows", c.windows, "τ = amplitude sin(t / divisor) for start < t < end", [&](ControllerSpec::Window& w, std::size_t) {
    f.text("joint", w.joint, "joint name", Presence::kRequired);
    f.number("amplitude", w.amplitude, "N m", kAny, "amplitude", Presence::kRequired);
    f.number("divisor", w.divisor, "s", kPositive, "divisor of t", Presence::kRequired);
    f.number("start", w.start, "s", kAny, "start time", Presence::kRequired);
    f.number("end", w.end, "s", kAny, "end time", Presence::kRequired);
    f.check(!(w.end < w.start), "", "end is before start");
  }, true, Presence::kRequired);
}

void visitControllers(ScenarioFields& f, Scenario& s) {
  list(f, "controllers", s.controllers, "the controllers (none: the robot moves freely)", [&](ControllerSpec& c, std::size_t) {
    std::vector<std::string> words;
    std::string word;
    for (const auto& [t, w] : kControllerTypes) {
      words.push_back(w);
      if (t == c.type) word = w;
    }
    f.variant(word, words, "the kind of controller");
    for (const auto& [t, w] : kControllerTypes) {
      if (word == w) c.type = t;
    }
    switch (c.type) {
      case ControllerType::kJointTrajectory: visitJointTrajectory(f, c); break;
      case ControllerType::kTorqueWindows: visitTorqueWindows(f, c); break;
      case ControllerType::kCapture: visitCapture(f, c, s); break;
      case ControllerType::kAerial: visitAerial(f, c.aerial); break;
    }
  }, false);
}

void visitRun(ScenarioFields& f, Scenario& s) {
  RunSettings& run = s.run;
  f.section("run", "the run", [&] {
    f.number("duration", run.duration, "s", kPositive, "simulated time");
    choice(f, "integrator", run.integrator, kIntegrators, "the integrator");
    f.number("step", run.step, "s", kPositive, "rk4 step (at most the recording interval)");
    f.number("rtol", run.rtol, "", kPositive, "adaptive integrators: relative tolerance");
    f.number("atol", run.atol, "", kPositive, "adaptive integrators: absolute tolerance");
    f.number("max_step", run.max_step, "s", kPositive, "adaptive integrators: largest step");
    f.number("quasi_static_above", run.quasi_static_above, "rad/s", kNonNegative,
             "quasi_static: modes above this frequency keep only their static deflection");
    choice(f, "quasi_static_modes", run.quasi_static_modes, kCondensedModesWords,
           "quasi_static: each body's own modes, its modes coupled with the joints and the base, or the whole "
           "model's coupled modes");
    choice(f, "quasi_static_pair", run.quasi_static_pair, kQuasiStaticPairWords,
           "quasi_static: the explicit pair integrating the modes kept, the joints and the base");
    f.number("record_rate", run.record_rate, "Hz", kPositive, "rows recorded per second");
    f.number("control_rate", run.control_rate, "Hz", kNonNegative, "controllers sampled with a zero-order hold; 0: continuously");
    f.text("end_effector", run.end_effector, "frame recorded as the end effector (default: the deepest body's last)",
           Presence::kIfSet);
    // Every recorded row is kept in memory (the app's timeline scrubs through them).
    f.check(!(run.duration * run.record_rate > 2e7), "",
            "duration x record_rate = " + std::to_string(run.duration * run.record_rate) +
                " recorded rows; at most 2e7 are kept in memory, lower record_rate");
    f.check(!(run.step > 1.0 / run.record_rate + 1e-12 && run.integrator == IntegratorType::kRk4), "",
            "the RK4 step must not exceed the recording interval 1/record_rate");
  });
}

void visitRequirements(ScenarioFields& f, Scenario& s) {
  Requirements& q = s.requirements;
  f.section("requirements", "what a capture is judged against (default: the thesis' Table 8.1)", [&] {
    f.limit("hand_to_plan", q.hand_to_plan, "m", "hand from the plan, from the plan that grasped to the grasp");
    f.limit("bus_attitude_deg", q.bus_attitude_deg, "deg", "bus from its initial attitude, until the grasp");
    f.limit("bus_torque", q.bus_torque, "N m", "bus torque the controllers ask, per axis, until the grasp");
    f.limit("joint_torque", q.joint_torque, "N m", "joint torque the controllers ask, whole run");
  });
}

void visitCamera(ScenarioFields& f, DebrisCameraSpec& k) {
  CameraSettings& c = k.camera;
  f.text("frame", k.frame, "chaser frame carrying the camera (default: the base body)", Presence::kIfSet);
  vector3(f, "position", k.mount.p, "m", "camera in that frame ...");
  if (f.wants("rpy_deg", true)) {
    Vector3 rpy = matrixToRpy(k.mount.R) * (180 / M_PI);
    vector3(f, "rpy_deg", rpy, "deg", "... and its axes (z: the line of sight)");
    k.mount.R = rpyToMatrix(rpy * (M_PI / 180));
  }
  double wh[2] = {static_cast<double>(c.width), static_cast<double>(c.height)};
  f.vector("resolution", wh, 2, "px", "[width, height]: the grasp point must fall on the sensor");
  f.check(wh[0] >= 1 && wh[1] >= 1 && wh[0] == std::floor(wh[0]) && wh[1] == std::floor(wh[1]) && wh[0] <= 1e5 &&
              wh[1] <= 1e5,
          "resolution", "[width, height] in whole pixels, 1 to 100000 expected");
  c.width = static_cast<int>(wh[0]);
  c.height = static_cast<int>(wh[1]);
  f.number("focal_length", c.focal_length, "m", kPositive, "f (thesis §9.2.2)");
  f.number("pixel_size", c.pixel_size, "m", kPositive, "ρ (thesis §9.2.2)");
  f.number("rate", c.rate, "Hz", kPositive, "images per second");
  f.number("latency", c.latency, "s", kNonNegative, "from the image to its use");
  f.number("pixel_noise", c.pixel_noise, "px", kPositive, "σ of the grasp point's image coordinates");
  f.number("depth_noise", c.depth_noise, "m", kPositive, "σ of its depth");
  f.number("attitude_noise_deg", c.attitude_noise_deg, "deg", kNonNegative, "σ per axis of the relative attitude; 0: not measured");
  f.number("max_range", c.max_range, "m", kPositive, "no image beyond");
  f.number("occlusion_tolerance", c.occlusion_tolerance, "m", kNonNegative,
           "a line of sight may graze the debris' box this deep and still see the grasp point");
  int seed = static_cast<int>(c.seed);
  f.integer("seed", seed, atLeast(0), "the noise and the filter's prior error");
  c.seed = static_cast<std::uint64_t>(seed);
  f.section("filter", "the debris filter", [&] {
    f.number("accel_noise", k.filter.accel_noise, "m/s²/√Hz", kNonNegative, "white acceleration the model leaves out");
    f.number("angular_accel_noise", k.filter.angular_accel_noise, "rad/s²/√Hz", kNonNegative, "the same on the rate");
    f.number("step", k.filter.step, "s", kPositive, "prediction step");
    f.number("sigma_position", k.sigma_position, "m", kPositive, "σ of the prior's error ...");
    f.number("sigma_velocity", k.sigma_velocity, "m/s", kPositive, "...");
    f.number("sigma_attitude_deg", k.sigma_attitude_deg, "deg", kPositive, "...");
    f.number("sigma_rate_deg_s", k.sigma_rate_deg_s, "deg/s", kPositive, "...");
  });
}

// Relative errors per axis: one number (the same on the three axes) or three, each > -1.
void relativeErrors(ScenarioFields& f, const char* key, Vector3& e, const char* doc) {
  std::vector<double> in{e[0]};
  if (e[1] != e[0] || e[2] != e[0]) in = {e[0], e[1], e[2]};
  f.values(key, in, "", doc);
  f.check(in.size() == 1 || in.size() == 3, key, "one relative error, or three (x, y, z), expected");
  f.check(std::all_of(in.begin(), in.end(), [](double x) { return x > -1; }), key,
          "relative errors > -1 expected (the inertia must stay positive)");
  e = in.size() == 3 ? Vector3(in[0], in[1], in[2]) : Vector3::Constant(in.empty() ? 0.0 : in[0]);
}

// One body's errors (MassPropertiesError).
void visitMassError(ScenarioFields& f, MassPropertiesError& e) {
  f.number("mass", e.mass, "", between(-1, INFINITY, true), "relative error: the controllers' mass is (1 + mass) m");
  vector3(f, "com", e.com, "m", "error of the centre of mass, in the link's axes");
  relativeErrors(f, "inertia", e.inertia, "relative error of the inertia about the centre of mass: one, or one per link axis");
}

void visitKnowledge(ScenarioFields& f, Scenario& s) {
  optionalSection(f, "knowledge", s.knowledge, "the model the controllers and planners use (absent: the truth)",
                  [&](KnowledgeSpec& k) {
    f.text("robot", k.robot, "another robot file, same bodies and joints, relative to the scenario (default: the chaser's)",
           Presence::kIfSet);
    optionalSection(f, "bus", k.bus, "errors on the bus' mass properties", [&](MassPropertiesError& e) { visitMassError(f, e); },
                    true);
    optionalSection(f, "payload", k.payload, "errors on the body carrying the end effector",
                    [&](MassPropertiesError& e) { visitMassError(f, e); }, true);
    std::vector<std::string> names;
    for (const auto& [name, e] : k.links) names.push_back(name);
    if (f.wants("links", !names.empty())) {
      f.names("links", "errors on other bodies, by name", names, [&](const std::string& name) {
        f.section(name.c_str(), "", [&] { visitMassError(f, k.links[name]); }, true);
      }, false);
    }
    KnowledgeSpec::Debris& d = k.debris;
    if (f.wants("debris", !d.zero())) {
      f.section("debris", "the debris as the controllers know it", [&] {
        f.number("mass", d.mass, "", between(-1, INFINITY, true), "relative error of its mass");
        relativeErrors(f, "inertia", d.inertia, "relative error of its inertia: one, or one per body axis");
        f.boolean("ratios_only", d.ratios_only, "only the inertia's ratios known: scaled to a uniform box of debris.size");
        vector3(f, "grasp_point", d.grasp_point, "m", "error of the grasp point, debris body axes");
      }, true);
    }
    choice(f, "flexible", k.rigid, Words<bool>{{false, "modes"}, {true, "rigid"}},
           "modes: the chaser's flexible modes as the truth's; rigid: left out of the controllers' model");
    if (f.wants("modes_below", std::isfinite(k.modes_below))) {
      f.number("modes_below", k.modes_below, "rad/s", kPositive,
               "only the modes at or below this frequency in the controllers' model (each body's own: clamped-loaded "
               "for segments, given for appendages); the others left out, as flexible: rigid leaves out all",
               Presence::kIfSet);
    }
    f.check(!(f.loading() && !k.debris.zero() && !s.debris.enabled), "debris", "the scenario has no debris");
  }, false);
}

std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// A sensor's seed (an integer >= 0 in the file).
void seedKey(ScenarioFields& f, std::uint64_t& seed, const char* doc) {
  int v = static_cast<int>(seed);
  f.integer("seed", v, atLeast(0), doc);
  seed = static_cast<std::uint64_t>(v);
}

// A chaser sensor's rate and delay: it samples at control instants (estimation/chaser_sensing).
void sensorTiming(ScenarioFields& f, double& rate, double& delay, const RunSettings& run, const char* rate_doc) {
  f.number("rate", rate, "Hz", kNonNegative, rate_doc);
  f.number("delay", delay, "s", kNonNegative, "from the sample to its arrival (used at the next control instant)");
  f.check(run.control_rate > 0, "", "the chaser's sensors sample at control instants: set run.control_rate > 0");
  const double k = run.control_rate > 0 && rate > 0 ? std::max(1.0, std::round(run.control_rate / rate)) : 1;
  f.check(!(run.control_rate > 0) || samplingDivisor(run.control_rate, rate) > 0, "rate",
          "must be the control rate " + numberText(run.control_rate) + " Hz divided by a whole number (e.g. " +
              numberText(run.control_rate / k) + ")");
}

void visitEncoders(ScenarioFields& f, EncoderSpec& e, const RunSettings& run) {
  sensorTiming(f, e.rate, e.delay, run, "samples per second; 0: the control rate");
  f.integer("bits_per_turn", e.bits_per_turn, between(1, 40), "revolute joints: a quantum of 2π / 2^bits");
  f.number("linear_resolution", e.linear_resolution, "m", kPositive, "prismatic joints' quantum");
  f.number("noise", e.noise, "rad or m", kNonNegative, "σ of the white noise before quantization");
  f.number("bias_sigma", e.bias_sigma, "rad or m", kNonNegative, "σ of each joint's constant offset (drawn)");
  f.integer("rate_window", e.rate_window, between(1, 1000), "joint rates: backward difference over this many samples");
  seedKey(f, e.seed, "the noise and the offsets");
}

void visitStarTracker(ScenarioFields& f, StarTrackerSpec& st, const Scenario& s) {
  sensorTiming(f, st.rate, st.delay, s.run, "measurements per second");
  f.check(st.rate > 0, "rate", "must be > 0");
  f.vector("noise_arcsec", st.noise_arcsec.data(), 3, "arcsec", "σ per bus axis (cross-boresight, cross, about the boresight)");
  f.check(*std::min_element(st.noise_arcsec.begin(), st.noise_arcsec.end()) > 0, "noise_arcsec", "each σ must be > 0");
  f.vector("bias_arcsec", st.bias_arcsec.data(), 3, "arcsec", "constant misalignment, bus axes");
  seedKey(f, st.seed, "the noise");
  f.check(s.sensors.gyro.has_value(), "", "needs sensors.gyro (the attitude filter propagates with it)");
}

void visitGyro(ScenarioFields& f, GyroSpec& g, const RunSettings& run) {
  sensorTiming(f, g.rate, g.delay, run, "samples per second; 0: the control rate");
  f.number("arw_deg_sqrt_h", g.arw_deg_sqrt_h, "deg/√h", kNonNegative, "angle random walk σ_v");
  f.number("bias_walk_deg_h_sqrt_h", g.bias_walk_deg_h_sqrt_h, "deg/h/√h", kNonNegative, "bias random walk σ_u");
  f.number("bias_sigma_deg_h", g.bias_sigma_deg_h, "deg/h", kNonNegative, "σ of the initial bias per axis (drawn; the filter's prior)");
  f.number("prior_attitude_arcsec", g.prior_attitude_arcsec, "arcsec", kPositive,
           "σ per axis of the attitude filter's initial error (drawn)");
  f.number("history", g.history, "s", kNonNegative, "the attitude filter keeps this much to insert late star-tracker measurements");
  seedKey(f, g.seed, "the noise, the bias walk, the initial bias and the filter's prior error");
}

void visitActuators(ScenarioFields& f, Scenario& s) {
  ActuatorsSpec& a = s.actuators;
  optionalSection(f, "wheels", a.wheels, "the bus torque of reaction wheels: noise and quantization", [&](ActuatorsSpec::Wheels& w) {
    f.number("noise", w.noise, "N m", kNonNegative, "σ per axis, drawn at each control instant");
    f.number("quantization", w.quantization, "N m", kNonNegative, "the command's quantum; 0: none");
  }, true);
  optionalSection(f, "thrusters", a.thrusters, "chaser.thrusters' minimum impulse bit", [&](ActuatorsSpec::Thrusters& t) {
    f.number("minimum_impulse_bit", t.minimum_impulse_bit, "N s", kNonNegative,
             "impulses below half of it are not fired, the others at least it");
    f.check(s.chaser.thrusters.has_value(), "", "needs chaser.thrusters");
    f.check(!a.wheels, "", "the bus torque comes from the wheels or from the thrusters: drop actuators.wheels");
  }, true);
  optionalSection(f, "friction", a.friction, "joint friction, Coulomb and viscous", [&](ActuatorsSpec::Friction& r) {
    f.number("coulomb", r.coulomb, "N m or N", kNonNegative, "Coulomb friction F_c");
    f.number("viscous", r.viscous, "N m s/rad or N s/m", kNonNegative, "viscous coefficient");
    f.number("width", r.width, "rad/s or m/s", kPositive, "the sign tanh(q̇ / width) smoothed over this");
  }, true);
  seedKey(f, a.seed, "the wheels' noise");
  f.check(!(a.sampled() && !(s.run.control_rate > 0)), "",
          "the wheels and the thrusters act at control instants: set run.control_rate > 0");
}

}  // namespace

void visitScenario(ScenarioFields& f, Scenario& s) {
  int format = 1;
  f.integer("format", format, kAny, "the version of the format", Presence::kRequired);
  f.check(format == 1, "format", "this Grapple reads format 1, got " + std::to_string(format));
  f.text("name", s.name, "shown by the programs (default: the file name)");
  f.text("description", s.description, "free text", Presence::kIfSet);
  f.section("chaser", "the chaser: a robot and its initial state", [&] { visitChaser(f, s); }, false, Presence::kRequired);
  visitDebris(f, s);
  visitEnvironment(f, s);
  visitControllers(f, s);
  visitRun(f, s);
  visitRequirements(f, s);
  visitKnowledge(f, s);
  Scenario::Sensors& sn = s.sensors;
  if (f.wants("sensors", sn.camera.has_value() || sn.any())) {
    f.section("sensors", "what the controllers know of the debris and of the chaser (absent: the truth)", [&] {
      optionalSection(f, "camera", sn.camera, "the debris seen by a camera and estimated by a filter",
                      [&](DebrisCameraSpec& k) { visitCamera(f, k); }, false);
      optionalSection(f, "encoders", sn.encoders, "the 1-DOF joints' positions and rates from encoders",
                      [&](EncoderSpec& e) { visitEncoders(f, e, s.run); }, false);
      optionalSection(f, "gyro", sn.gyro, "the bus' rate from a gyro (with the star tracker: the attitude filter)",
                      [&](GyroSpec& g) { visitGyro(f, g, s.run); }, false);
      optionalSection(f, "star_tracker", sn.star_tracker, "the bus' attitude from a star tracker",
                      [&](StarTrackerSpec& st) { visitStarTracker(f, st, s); }, false);
    });
  }
  if (f.wants("actuators", s.actuators.any())) {
    f.section("actuators", "the actuators' imperfections, unknown to the controllers (absent: none)",
              [&] { visitActuators(f, s); });
  }
}

namespace {

std::string join(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }


std::string listText(const double* v, std::size_t n, double scale = 1) {
  std::string s;
  for (std::size_t k = 0; k < n; ++k) s += (k ? ", " : "") + numberText(v[k] * scale);
  return "[" + s + "]";
}

// Lists the keys (with the defaults of a default-constructed Scenario): the table.
class Describer : public ScenarioFields {
 public:
  std::vector<ScenarioKey> keys;

  bool loading() const override { return true; }
  bool wants(const char*, bool) override { return true; }
  void number(const char* key, double& v, const char* unit, Bounds range, const char* doc, Presence p) override {
    const bool none = p != Presence::kOptional || std::string(key) == "*";  // required, optional or by name
    add(key, KeyType::kNumber, unit, doc, none ? "" : numberText(v), p).range = range;
  }
  void integer(const char* key, int& v, Bounds range, const char* doc, Presence p) override {
    add(key, KeyType::kInteger, "", doc, p == Presence::kRequired ? "" : std::to_string(v), p).range = range;
  }
  void boolean(const char* key, bool& v, const char* doc) override {
    add(key, KeyType::kBool, "", doc, v ? "true" : "false");
  }
  void text(const char* key, std::string& v, const char* doc, Presence p) override {
    add(key, KeyType::kText, "", doc, v, p);
  }
  void choice(const char* key, std::string& word, const std::vector<std::string>& words, const char* doc) override {
    add(key, KeyType::kChoice, "", doc, word).choices = words;
  }
  void vector(const char* key, double* v, int n, const char* unit, const char* doc, Scale scale) override {
    add(key, KeyType::kVector, unit, doc, listText(v, static_cast<std::size_t>(n), scale.to_file));
  }
  void numbers(const char* key, std::vector<double>& v, const char* unit, Bounds each, const char* doc,
               Presence p) override {
    add(key, KeyType::kNumbers, unit, doc, v.empty() ? "" : listText(v.data(), v.size()), p).range = each;
  }
  void values(const char* key, std::vector<double>&, const char* unit, const char* doc) override {
    add(key, KeyType::kValues, unit, doc, "");
  }
  void quaternion(const char* key, Vector4& q, const char* doc) override {
    add(key, KeyType::kQuaternion, "", doc, listText(q.data(), 4));
  }
  void inertia(const char* key, Matrix3&, const char* doc) override {
    add(key, KeyType::kInertia, "kg m²", doc, "", Presence::kRequired);
  }
  void limit(const char* key, std::optional<double>& v, const char* unit, const char* doc) override {
    add(key, KeyType::kLimit, unit, doc, v ? numberText(*v) : "off").range = bounds::kPositive;
  }
  void robot(ChaserSpec&, const char* robot_doc, const char* model_doc) override {
    add("robot", KeyType::kText, "", robot_doc, "");
    add("model", KeyType::kYamlMap, "", model_doc, "");
  }
  void section(const char* key, const char* doc, const std::function<void()>& body, bool, Presence p) override {
    add(key, KeyType::kSection, "", doc, "", p);
    enter(join(parent_, key), body);
  }
  void list(const char* key, const char* doc, std::size_t, const std::function<void(std::size_t)>& resize,
            const std::function<void(std::size_t)>& item, bool, Presence p) override {
    add(key, KeyType::kList, "", doc, "", p);
    const std::string items = join(parent_, key) + "[]";
    const std::vector<std::string> outer_variants = std::move(variants_);
    const std::string outer_forced = forced_;
    variants_.clear();
    forced_.clear();
    resize(0);
    resize(1);
    enter(items, [&] { item(0); });
    // A typed list: each type's keys, from a fresh item forced to that type.
    const std::vector<std::string> others(variants_.empty() ? variants_.end() : variants_.begin() + 1, variants_.end());
    for (const std::string& w : others) {
      forced_ = w;
      resize(0);
      resize(1);
      enter(items, [&] { item(0); });
    }
    variants_ = outer_variants;
    forced_ = outer_forced;
  }
  void variant(std::string& word, const std::vector<std::string>& words, const char* doc) override {
    if (forced_.empty()) {
      add("type", KeyType::kChoice, "", doc, "", Presence::kRequired).choices = words;
      variants_ = words;
    }
    word = forced_.empty() ? words.front() : forced_;
    parent_ = parent_.substr(0, parent_.size() - 2) + "[" + word + "]";
  }
  void names(const char* key, const char* doc, const std::vector<std::string>&,
             const std::function<void(const std::string&)>& entry, bool, Presence p) override {
    add(key, KeyType::kNames, "", doc, "", p);
    enter(join(parent_, key), [&] { entry("*"); });
  }
  void check(bool, const char*, const std::string&, bool) override {}

 private:
  ScenarioKey& add(const char* key, KeyType type, const char* unit, const char* doc, std::string default_value,
                   Presence p = Presence::kOptional) {
    ScenarioKey k;
    k.parent = parent_;
    k.key = key;
    k.type = type;
    k.unit = unit;
    k.doc = doc;
    k.default_value = std::move(default_value);
    k.required = p == Presence::kRequired;
    keys.push_back(std::move(k));
    return keys.back();
  }
  void enter(const std::string& path, const std::function<void()>& body) {
    const std::string saved = parent_;
    parent_ = path;
    body();
    parent_ = saved;
  }
  std::string parent_;
  std::string forced_;
  std::vector<std::string> variants_;
};

}  // namespace

const std::vector<ScenarioKey>& scenarioSchema() {
  static const std::vector<ScenarioKey> table = [] {
    Describer d;
    Scenario s;
    visitScenario(d, s);
    return d.keys;
  }();
  return table;
}

const ScenarioKey* scenarioKey(const std::string& path) {
  for (const ScenarioKey& k : scenarioSchema()) {
    if (k.path() == path) return &k;
  }
  return nullptr;
}

std::vector<std::string> scenarioKeysUnder(const std::string& section) {
  std::vector<std::string> keys;
  for (const ScenarioKey& k : scenarioSchema()) {
    if (k.parent == section) keys.push_back(k.key);
  }
  return keys;
}

const ScenarioKey* scenarioKeyAt(const YAML::Node& doc, const std::vector<PathStep>& steps) {
  std::string path;
  const ScenarioKey* key = nullptr;
  YAML::Node node;
  node.reset(doc);
  for (const PathStep& step : steps) {
    const YAML::Node at = node;  // const access: never inserts
    if (step.index < 0) {
      const std::size_t open = path.rfind('[');
      const std::string any_item = open == std::string::npos ? "" : path.substr(0, open) + "[]";
      if (scenarioKey(join(path, step.key))) {
        path = join(path, step.key);
      } else if (!any_item.empty() && scenarioKey(join(any_item, step.key))) {  // a typed item's `type`
        path = join(any_item, step.key);
      } else if (scenarioKey(join(path, "*"))) {
        path = join(path, "*");
      } else {
        return nullptr;
      }
      key = scenarioKey(path);
      const YAML::Node next = at.IsMap() ? at[step.key] : YAML::Node();
      node.reset(next.IsDefined() ? next : YAML::Node());  // (reset refuses a missing key's node)
      continue;
    }
    node.reset(at.IsSequence() && step.index < static_cast<int>(at.size()) ? at[step.index] : YAML::Node());
    if (!key || key->type != KeyType::kList) continue;  // a component of a vector: the vector's key
    if (!scenarioKeysUnder(path + "[]").empty() && !scenarioKey(path + "[].type")) {
      path += "[]";
    } else {
      const YAML::Node type = node.IsMap() ? YAML::Node(static_cast<const YAML::Node&>(node)["type"]) : YAML::Node();
      if (!type.IsDefined() || !type.IsScalar()) return nullptr;
      path += "[" + type.Scalar() + "]";
    }
  }
  return key;
}

}  // namespace grapple::core
