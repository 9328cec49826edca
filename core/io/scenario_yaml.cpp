#include "core/io/scenario_yaml.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "core/flex/beam_modes.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/yaml_util.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

namespace fs = std::filesystem;

constexpr double kMaxCaptureHorizon = 3600;  // [s]

}  // namespace

// Applies "a.b.c" = value to the document, creating maps on the way. A component may index a
// list, "controllers[1].kd" or "debris.initial.rate_deg_s[2]": the list must exist and have the
// entry (lists are not grown).
void applyOverride(YAML::Node doc, const std::string& key, const std::string& value,
                   const std::string& file) {
  // Each component: a map key (possibly empty before an index) and the list indices after it.
  struct Part {
    std::string name;
    std::vector<std::size_t> indices;
  };
  std::vector<Part> parts;
  std::stringstream ss(key);
  for (std::string p; std::getline(ss, p, '.');) {
    if (p.empty()) throw LoadError(file, 0, "--set " + key + ": empty key component");
    Part part;
    const std::size_t open = p.find('[');
    part.name = p.substr(0, open);
    for (std::size_t at = open; at != std::string::npos && at < p.size();) {
      const std::size_t close = p.find(']', at);
      const std::string digits = close == std::string::npos ? "" : p.substr(at + 1, close - at - 1);
      if (p[at] != '[' || digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        throw LoadError(file, 0, "--set " + key + ": '" + p + "': expected NAME or NAME[INDEX] (an index of 0 or more)");
      }
      part.indices.push_back(std::stoul(digits));
      at = close + 1;
    }
    if (part.name.empty() && (parts.empty() || part.indices.empty())) {
      throw LoadError(file, 0, "--set " + key + ": empty key component");
    }
    parts.push_back(part);
  }
  if (parts.empty()) throw LoadError(file, 0, "--set: empty key");
  if (!doc.IsMap() && !doc.IsNull()) throw LoadError(file, 0, "--set " + key + ": the document is not a map of keys");
  YAML::Node value_node;
  try {
    value_node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw LoadError(file, 0, "--set " + key + "=" + value + ": " + e.msg);
  }
  // Handles are re-pointed with reset() (assigning a node to a node copies the value).
  YAML::Node node;
  node.reset(doc);
  std::string where;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Part& part = parts[k];
    const bool last = k + 1 == parts.size();
    if (!part.name.empty()) {
      if (node.IsDefined() && !node.IsNull() && !node.IsMap()) {
        throw LoadError(file, 0, "--set " + key + ": '" + where + "' is not a map");
      }
      where += (where.empty() ? "" : ".") + part.name;
      if (last && part.indices.empty()) {
        node[part.name] = value_node;
        return;
      }
      YAML::Node next = node[part.name];
      node.reset(next);
    }
    for (std::size_t i = 0; i < part.indices.size(); ++i) {
      const std::size_t index = part.indices[i];
      if (!node.IsSequence()) throw LoadError(file, 0, "--set " + key + ": '" + where + "' is not a list");
      if (index >= node.size()) {
        throw LoadError(file, 0, "--set " + key + ": '" + where + "' has " + std::to_string(node.size()) +
                                     " entries (indices from 0)");
      }
      where += "[" + std::to_string(index) + "]";
      if (last && i + 1 == part.indices.size()) {
        node[index] = value_node;
        return;
      }
      YAML::Node next = node[index];
      node.reset(next);
    }
  }
}

namespace {

std::optional<BaseMode> baseModeOf(const std::string& s) {
  if (s == "fixed") return BaseMode::kFixed;
  if (s == "floating") return BaseMode::kFloating;
  if (s == "flying") return BaseMode::kFlying;
  return std::nullopt;
}

Vector4 readQuaternion(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  const std::vector<double> v = r.numbers(n, 4, what);
  const Vector4 q(v[0], v[1], v[2], v[3]);
  if (q.norm() < 1e-9) r.fail(n, what + ": a quaternion [w, x, y, z] must not be zero");
  return q.normalized();
}

bool enabledSection(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  return n["enabled"].IsDefined() ? r.boolean(n["enabled"], what + ".enabled") : true;
}

void readEnvironment(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  const std::string w = "environment";
  r.checkKeys(n, {"altitude", "gravity_gradient", "relative_motion", "drag", "solar_pressure",
                  "magnetic", "gravity"}, w);
  EnvironmentSettings& e = s.environment;
  if (n["altitude"].IsDefined()) e.altitude = r.positive(n["altitude"], w + ".altitude");
  if (n["gravity_gradient"].IsDefined()) e.gravity_gradient = r.boolean(n["gravity_gradient"], w + ".gravity_gradient");
  if (n["relative_motion"].IsDefined()) e.relative_motion = r.boolean(n["relative_motion"], w + ".relative_motion");
  if (n["gravity"].IsDefined()) s.gravity = r.vector3(n["gravity"], w + ".gravity");
  if (const YAML::Node d = n["drag"]; d.IsDefined()) {
    const std::string wd = w + ".drag";
    r.checkKeys(d, {"enabled", "density", "drag_coefficient", "area", "center_of_pressure"}, wd);
    e.drag.enabled = enabledSection(r, d, wd);
    e.drag.density = r.number(d, "density", e.drag.density, wd + ".density");
    e.drag.drag_coefficient = r.number(d, "drag_coefficient", e.drag.drag_coefficient, wd + ".drag_coefficient");
    e.drag.area = r.number(d, "area", e.drag.area, wd + ".area");
    if (d["center_of_pressure"].IsDefined()) e.drag.center_of_pressure = r.vector3(d["center_of_pressure"], wd + ".center_of_pressure");
  }
  if (const YAML::Node p = n["solar_pressure"]; p.IsDefined()) {
    const std::string wp = w + ".solar_pressure";
    r.checkKeys(p, {"enabled", "pressure", "area", "normal", "center_of_pressure", "sun_direction",
                    "absorbed", "diffuse", "specular"}, wp);
    auto& sp = e.solar_pressure;
    sp.enabled = enabledSection(r, p, wp);
    sp.pressure = r.number(p, "pressure", sp.pressure, wp + ".pressure");
    sp.area = r.number(p, "area", sp.area, wp + ".area");
    if (p["normal"].IsDefined()) sp.normal = r.vector3(p["normal"], wp + ".normal");
    if (p["center_of_pressure"].IsDefined()) sp.center_of_pressure = r.vector3(p["center_of_pressure"], wp + ".center_of_pressure");
    if (p["sun_direction"].IsDefined()) sp.sun_direction = r.vector3(p["sun_direction"], wp + ".sun_direction");
    sp.absorbed = r.number(p, "absorbed", sp.absorbed, wp + ".absorbed");
    sp.diffuse = r.number(p, "diffuse", sp.diffuse, wp + ".diffuse");
    sp.specular = r.number(p, "specular", sp.specular, wp + ".specular");
  }
  if (const YAML::Node mg = n["magnetic"]; mg.IsDefined()) {
    const std::string wm = w + ".magnetic";
    r.checkKeys(mg, {"enabled", "dipole", "field"}, wm);
    e.magnetic.enabled = enabledSection(r, mg, wm);
    if (mg["dipole"].IsDefined()) e.magnetic.dipole = r.vector3(mg["dipole"], wm + ".dipole");
    if (mg["field"].IsDefined()) e.magnetic.field = r.vector3(mg["field"], wm + ".field");
  }
  try {
    checkEnvironment(e);
  } catch (const std::invalid_argument& ex) {
    r.fail(n, ex.what());
  }
}

void readDebris(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  const std::string w = "debris";
  r.checkKeys(n, {"mass", "inertia", "size", "mesh", "target", "initial"}, w);
  DebrisSpec& d = s.debris;
  d.enabled = true;
  d.properties.mass = r.positive(r.require(n, "mass", w), w + ".mass");
  d.properties.inertia = r.inertia(r.require(n, "inertia", w), w + ".inertia");
  if (n["size"].IsDefined()) d.size = r.vector3(n["size"], w + ".size");
  if (n["mesh"].IsDefined()) d.mesh = r.string(n["mesh"], w + ".mesh");
  if (n["target"].IsDefined()) d.properties.target_B = r.vector3(n["target"], w + ".target");
  try {
    checkDebrisProperties(d.properties);
  } catch (const std::invalid_argument& ex) {
    r.fail(n["inertia"], ex.what());
  }
  if (const YAML::Node i = n["initial"]; i.IsDefined()) {
    const std::string wi = w + ".initial";
    r.checkKeys(i, {"position", "velocity", "attitude", "rate_deg_s"}, wi);
    if (i["position"].IsDefined()) d.initial.r_W = r.vector3(i["position"], wi + ".position");
    if (i["velocity"].IsDefined()) d.initial.v_W = r.vector3(i["velocity"], wi + ".velocity");
    if (i["attitude"].IsDefined()) d.initial.Q_WB = readQuaternion(r, i["attitude"], wi + ".attitude");
    if (i["rate_deg_s"].IsDefined()) d.initial.w_B = r.vector3(i["rate_deg_s"], wi + ".rate_deg_s") * (M_PI / 180);
  }
}

void readChaser(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  const std::string w = "chaser";
  r.checkKeys(n, {"robot", "model", "base_mode", "flex_model", "inertia", "structural_damping", "initial",
                  "thrusters", "attitude_control"},
              w);
  if (const YAML::Node a = n["attitude_control"]; a.IsDefined()) {
    const std::string wa = w + ".attitude_control";
    r.checkKeys(a, {"kp", "kd", "torque_limit", "feedforward"}, wa);
    ChaserSpec::AttitudeControl ac;
    if (a["kp"].IsDefined()) ac.kp = r.nonNegative(a["kp"], wa + ".kp");
    if (a["kd"].IsDefined()) ac.kd = r.nonNegative(a["kd"], wa + ".kd");
    if (a["torque_limit"].IsDefined()) ac.torque_limit = r.positive(a["torque_limit"], wa + ".torque_limit");
    if (a["feedforward"].IsDefined()) ac.feedforward = r.boolean(a["feedforward"], wa + ".feedforward");
    s.chaser.attitude_control = ac;
  }
  if (const YAML::Node t = n["thrusters"]; t.IsDefined()) {
    r.checkKeys(t, {"isp", "lever_arm"}, w + ".thrusters");
    ChaserSpec::Thrusters th;
    if (t["isp"].IsDefined()) th.isp = r.positive(t["isp"], w + ".thrusters.isp");
    if (t["lever_arm"].IsDefined()) th.lever_arm = r.positive(t["lever_arm"], w + ".thrusters.lever_arm");
    s.chaser.thrusters = th;
  }
  ChaserSpec& c = s.chaser;
  if (n["robot"].IsDefined() == n["model"].IsDefined()) {
    r.fail(n, w + ": give exactly one of 'robot' (a robot file) or 'model' (the robot embedded, the map of a "
                  "robot file's 'model')");
  }
  if (n["model"].IsDefined()) {
    r.requireMap(n["model"], w + ".model");
    YAML::Emitter e;
    e << n["model"];
    c.model_yaml = e.c_str();
  } else {
    c.robot = r.string(n["robot"], w + ".robot");
    fs::path p(c.robot);
    if (p.is_relative() && !s.file.empty()) p = fs::path(s.file).parent_path() / p;
    c.robot_path = p.lexically_normal().string();
    if (!fs::exists(c.robot_path)) {
      r.fail(n["robot"], w + ".robot: no robot file '" + c.robot_path + "'");
    }
  }
  if (n["base_mode"].IsDefined()) {
    c.base_mode = baseModeOf(r.choice(n["base_mode"], {"fixed", "floating", "flying"}, w + ".base_mode"));
  }
  if (n["flex_model"].IsDefined()) {
    c.flex_model = flexModelFromName(r.choice(n["flex_model"], {"flex", "flex-M", "flex-M-printed", "flex-MA", "flex-MR"},
                                              w + ".flex_model"));
  }
  if (n["inertia"].IsDefined()) {
    c.inertia = r.choice(n["inertia"], {"refuse", "repair"}, w + ".inertia") == "repair" ? InertiaPolicy::kRepair
                                                                                          : InertiaPolicy::kRefuse;
  }
  if (n["structural_damping"].IsDefined()) {
    const double z = r.nonNegative(n["structural_damping"], w + ".structural_damping");
    if (z >= 1) r.fail(n["structural_damping"], w + ".structural_damping: expected a damping ratio ξ in [0, 1), got " + std::to_string(z));
    c.structural_damping = z;
  }
  if (const YAML::Node i = n["initial"]; i.IsDefined()) {
    const std::string wi = w + ".initial";
    r.checkKeys(i, {"base", "joints", "modes"}, wi);
    if (const YAML::Node b = i["base"]; b.IsDefined()) {
      const std::string wb = wi + ".base";
      r.checkKeys(b, {"position", "attitude", "twist"}, wb);
      if (b["position"].IsDefined()) c.initial.base_position = r.vector3(b["position"], wb + ".position");
      if (b["attitude"].IsDefined()) c.initial.base_attitude = readQuaternion(r, b["attitude"], wb + ".attitude");
      if (b["twist"].IsDefined()) {
        const std::vector<double> t = r.numbers(b["twist"], 6, wb + ".twist");
        c.initial.base_twist = Eigen::Map<const Vector6>(t.data());
      }
    }
    auto readMap = [&](const YAML::Node& m, const std::string& wm,
                       std::map<std::string, std::vector<double>>& pos,
                       std::map<std::string, std::vector<double>>& vel) {
      r.requireMap(m, wm);
      for (auto it = m.begin(); it != m.end(); ++it) {
        const std::string name = it->first.Scalar();
        const std::string wj = wm + "." + name;
        r.checkKeys(it->second, {"position", "velocity"}, wj);
        auto values = [&](const YAML::Node& v, const std::string& what) {
          if (v.IsSequence()) return r.numbers(v, -1, what);
          return std::vector<double>{r.number(v, what)};
        };
        if (it->second["position"].IsDefined()) pos[name] = values(it->second["position"], wj + ".position");
        if (it->second["velocity"].IsDefined()) vel[name] = values(it->second["velocity"], wj + ".velocity");
      }
    };
    if (i["joints"].IsDefined()) readMap(i["joints"], wi + ".joints", c.initial.joint_position, c.initial.joint_velocity);
    if (i["modes"].IsDefined()) readMap(i["modes"], wi + ".modes", c.initial.mode_position, c.initial.mode_velocity);
  }
}

void readControllers(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  r.requireSequence(n, "controllers");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node c = n[k];
    const std::string w = "controllers[" + std::to_string(k) + "]";
    r.requireMap(c, w);
    ControllerSpec spec;
    const std::string type = r.choice(r.require(c, "type", w), {"joint_trajectory", "torque_windows", "capture", "aerial"}, w + ".type");
    if (type == "joint_trajectory") {
      r.checkKeys(c, {"type", "profile", "start", "duration", "target", "kp", "kd"}, w);
      spec.type = ControllerType::kJointTrajectory;
      if (c["profile"].IsDefined()) spec.profile = r.choice(c["profile"], {"quintic", "cycloidal"}, w + ".profile");
      spec.start = r.number(c, "start", 0.0, w + ".start");
      spec.duration = r.positive(r.require(c, "duration", w), w + ".duration");
      const YAML::Node t = r.require(c, "target", w);
      r.requireMap(t, w + ".target");
      for (auto it = t.begin(); it != t.end(); ++it) {
        spec.target[it->first.Scalar()] = r.number(it->second, w + ".target." + it->first.Scalar());
      }
      spec.kp = c["kp"].IsDefined() ? r.nonNegative(c["kp"], w + ".kp") : 0.0;
      spec.kd = c["kd"].IsDefined() ? r.nonNegative(c["kd"], w + ".kd") : 0.0;
    } else if (type == "capture") {
      r.checkKeys(c, {"type", "start", "matching", "w_u", "w_1", "horizon", "kp", "kd", "posture_kp",
                      "posture_kd", "damping", "singular_threshold", "tolerance", "speed_tolerance",
                      "hold", "post_kp", "post_kd", "reactionless", "reaction_rate_deg_s", "reaction_inverse",
                      "adjugate_limit", "law", "force_kp", "force_kd", "arm_pd",
                      "joint_kp", "joint_kd", "window", "abort", "approach", "align"}, w);
      spec.type = ControllerType::kCapture;
      auto& cap = spec.capture;
      spec.start = c["start"].IsDefined() ? r.nonNegative(c["start"], w + ".start") : 0.0;
      if (c["matching"].IsDefined()) {
        cap.matching = r.choice(c["matching"], {"position", "position_velocity", "position_velocity_acceleration"},
                                w + ".matching");
      }
      if (c["law"].IsDefined()) {
        cap.law = r.choice(c["law"], {"resolved_acceleration", "resolved_rate", "transpose_jacobian", "joint_pd"}, w + ".law");
      }
      if (c["arm_pd"].IsDefined()) cap.arm_pd = r.choice(c["arm_pd"], {"decentralized", "centralized"}, w + ".arm_pd");
      for (const char* key : {"joint_kp", "joint_kd"}) {
        if (!c[key].IsDefined()) continue;
        std::vector<double>& g = std::string(key) == "joint_kp" ? cap.joint_kp : cap.joint_kd;
        g = r.numbers(c[key], -1, w + "." + key);
        for (double x : g) {
          if (x < 0) r.fail(c[key], w + "." + key + ": gains must be >= 0");
        }
      }
      auto positive = [&](const char* key, double& value) {
        if (c[key].IsDefined()) value = r.positive(c[key], w + "." + key);
      };
      auto nonNegative = [&](const char* key, double& value) {
        if (c[key].IsDefined()) value = r.nonNegative(c[key], w + "." + key);
      };
      spec.kp = 4;
      spec.kd = 4;
      positive("w_u", cap.w_u);
      nonNegative("w_1", cap.w_1);
      positive("horizon", cap.horizon);
      // The planner scans [0, horizon] for the capture time and propagates the debris over it: an
      // hour bounds the work (the thesis searches two minutes).
      if (cap.horizon > kMaxCaptureHorizon) {
        r.fail(c["horizon"], w + ".horizon: expected at most " + std::to_string(static_cast<int>(kMaxCaptureHorizon)) +
                                 " s, got " + std::to_string(cap.horizon));
      }
      nonNegative("kp", spec.kp);
      nonNegative("kd", spec.kd);
      nonNegative("posture_kp", cap.posture_kp);
      nonNegative("posture_kd", cap.posture_kd);
      nonNegative("damping", cap.damping);
      positive("singular_threshold", cap.singular_threshold);
      positive("tolerance", cap.tolerance);
      positive("speed_tolerance", cap.speed_tolerance);
      nonNegative("hold", cap.hold);
      nonNegative("post_kp", cap.post_kp);
      nonNegative("post_kd", cap.post_kd);
      nonNegative("force_kp", cap.force_kp);
      nonNegative("force_kd", cap.force_kd);
      if (c["reactionless"].IsDefined()) cap.reactionless = r.boolean(c["reactionless"], w + ".reactionless");
      if (c["align"].IsDefined()) cap.align = r.boolean(c["align"], w + ".align");
      if (c["reaction_rate_deg_s"].IsDefined()) {
        cap.reaction_rate = r.vector3(c["reaction_rate_deg_s"], w + ".reaction_rate_deg_s") * (M_PI / 180);
      }
      if (c["reaction_inverse"].IsDefined()) {
        cap.reaction_inverse = r.choice(c["reaction_inverse"], {"pseudo_inverse", "adjugate"}, w + ".reaction_inverse");
      }
      if (c["adjugate_limit"].IsDefined()) cap.adjugate_limit = r.positive(c["adjugate_limit"], w + ".adjugate_limit");
      if (const YAML::Node n = c["window"]; n.IsDefined()) {
        const std::string ww = w + ".window";
        r.requireMap(n, ww);
        r.checkKeys(n, {"search", "horizon", "periods", "step_deg", "min_step", "torque_margin", "clearance", "link_radius",
                        "corridor_radius", "corridor_length"}, ww);
        auto& win = cap.window;
        win.search = n["search"].IsDefined() ? r.boolean(n["search"], ww + ".search") : true;
        for (const auto& [key, value] : {std::pair{"horizon", &win.horizon}, std::pair{"periods", &win.periods},
                                         std::pair{"step_deg", &win.step_deg},
                                         std::pair{"min_step", &win.min_step}, std::pair{"link_radius", &win.link_radius},
                                         std::pair{"corridor_radius", &win.corridor_radius},
                                         std::pair{"corridor_length", &win.corridor_length}}) {
          if (n[key].IsDefined()) *value = r.positive(n[key], ww + "." + key);
        }
        if (n["clearance"].IsDefined()) win.clearance = r.nonNegative(n["clearance"], ww + ".clearance");
        if (win.horizon > 3600) r.fail(n["horizon"], ww + ".horizon: at most 3600 s");
        if (win.periods > 100) r.fail(n["periods"], ww + ".periods: at most 100");
        if (win.step_deg < 0.1) r.fail(n["step_deg"], ww + ".step_deg: expected at least 0.1 deg");
        if (win.min_step < 0.01) r.fail(n["min_step"], ww + ".min_step: expected at least 0.01 s");
        if (n["torque_margin"].IsDefined()) {
          win.torque_margin = r.positive(n["torque_margin"], ww + ".torque_margin");
          if (win.torque_margin > 1) r.fail(n["torque_margin"], ww + ".torque_margin: expected a fraction of the limits, in (0, 1]");
        }
      }
      if (const YAML::Node n = c["approach"]; n.IsDefined()) {
        const std::string wp = w + ".approach";
        r.requireMap(n, wp);
        r.checkKeys(n, {"distance", "duration"}, wp);
        auto& ap = cap.approach;
        if (n["distance"].IsDefined()) ap.distance = r.nonNegative(n["distance"], wp + ".distance");
        if (n["duration"].IsDefined()) ap.duration = r.positive(n["duration"], wp + ".duration");
        if (ap.duration > 600) r.fail(n["duration"], wp + ".duration: at most 600 s");
        if (cap.window.search && ap.distance > cap.window.corridor_length) {
          r.fail(n["distance"], wp + ".distance: the approach point must lie in the approach corridor (window.corridor_length " +
                                    std::to_string(cap.window.corridor_length) + " m)");
        }
      }
      if (const YAML::Node n = c["abort"]; n.IsDefined()) {
        const std::string wa = w + ".abort";
        r.requireMap(n, wa);
        r.checkKeys(n, {"enabled", "plan_error", "saturation_time", "bus_attitude_deg", "clearance", "grasp_timeout",
                        "retreat_time", "retries"}, wa);
        auto& ab = cap.abort;
        ab.enabled = n["enabled"].IsDefined() ? r.boolean(n["enabled"], wa + ".enabled") : true;
        for (const auto& [key, value] : {std::pair{"plan_error", &ab.plan_error}, std::pair{"saturation_time", &ab.saturation_time},
                                         std::pair{"bus_attitude_deg", &ab.bus_attitude_deg},
                                         std::pair{"grasp_timeout", &ab.grasp_timeout}, std::pair{"retreat_time", &ab.retreat_time}}) {
          if (n[key].IsDefined()) *value = r.positive(n[key], wa + "." + key);
        }
        if (n["clearance"].IsDefined()) ab.clearance = r.number(n["clearance"], wa + ".clearance");
        if (ab.retreat_time > 3600) r.fail(n["retreat_time"], wa + ".retreat_time: at most 3600 s");
        if (n["retries"].IsDefined()) {
          ab.retries = r.integer(n["retries"], wa + ".retries");
          if (ab.retries < 0 || ab.retries > 100) r.fail(n["retries"], wa + ".retries: expected 0 to 100");
        }
      }
      if ((cap.window.search || cap.abort.enabled) && cap.reactionless) {
        r.fail(c, w + ": the capture window and the abort monitor hold the bus' attitude; a reactionless approach lets it float");
      }
      if (cap.reactionless && s.chaser.attitude_control && s.chaser.attitude_control->active()) {
        r.fail(c["reactionless"], w + ".reactionless: the bus floats in a reactionless approach: drop "
                                      "chaser.attitude_control (or reactionless)");
      }
    } else if (type == "aerial") {
      r.checkKeys(c, {"type", "rotors", "arm_length", "first_angle_deg", "k_t", "k_p", "max_rpm", "rotor_time_constant",
                      "joint_time_constant", "kp", "kv", "waypoints"}, w);
      spec.type = ControllerType::kAerial;
      ControllerSpec::Aerial& a = spec.aerial;
      if (c["rotors"].IsDefined()) {
        a.rotors = r.integer(c["rotors"], w + ".rotors");
        if (a.rotors < 3 || a.rotors > 12) r.fail(c["rotors"], w + ".rotors: expected 3 to 12 rotors");
      }
      for (const auto& [key, value] : {std::pair{"arm_length", &a.arm_length}, std::pair{"k_t", &a.k_t},
                                       std::pair{"k_p", &a.k_p}, std::pair{"max_rpm", &a.max_rpm},
                                       std::pair{"rotor_time_constant", &a.rotor_time_constant},
                                       std::pair{"joint_time_constant", &a.joint_time_constant}}) {
        if (c[key].IsDefined()) *value = r.positive(c[key], w + "." + key);
      }
      if (c["first_angle_deg"].IsDefined()) a.first_angle_deg = r.number(c["first_angle_deg"], w + ".first_angle_deg");
      for (const auto& [key, gains] : {std::pair{"kp", &a.kp}, std::pair{"kv", &a.kv}}) {
        if (!c[key].IsDefined()) continue;
        *gains = r.numbers(c[key], -1, w + "." + key);
        for (double g : *gains) {
          if (g < 0) r.fail(c[key], w + "." + key + ": gains must be >= 0");
        }
      }
      const YAML::Node ws = r.require(c, "waypoints", w);
      r.requireSequence(ws, w + ".waypoints");
      if (ws.size() == 0) r.fail(ws, w + ".waypoints: expected at least one waypoint");
      for (std::size_t j = 0; j < ws.size(); ++j) {
        const std::string ww = w + ".waypoints[" + std::to_string(j) + "]";
        r.checkKeys(ws[j], {"t", "position", "rpy_deg", "joints"}, ww);
        ControllerSpec::Aerial::Waypoint p;
        p.t = r.nonNegative(r.require(ws[j], "t", ww), ww + ".t");
        if (!a.waypoints.empty() && !(p.t > a.waypoints.back().t)) r.fail(ws[j]["t"], ww + ".t: waypoint times must increase");
        if (ws[j]["position"].IsDefined()) p.position = r.vector3(ws[j]["position"], ww + ".position");
        if (ws[j]["rpy_deg"].IsDefined()) p.rpy_deg = r.vector3(ws[j]["rpy_deg"], ww + ".rpy_deg");
        if (ws[j]["joints"].IsDefined()) p.joints = r.numbers(ws[j]["joints"], -1, ww + ".joints");
        a.waypoints.push_back(p);
      }
    } else {
      r.checkKeys(c, {"type", "windows"}, w);
      spec.type = ControllerType::kTorqueWindows;
      const YAML::Node ws = r.require(c, "windows", w);
      r.requireSequence(ws, w + ".windows");
      for (std::size_t j = 0; j < ws.size(); ++j) {
        const std::string ww = w + ".windows[" + std::to_string(j) + "]";
        r.checkKeys(ws[j], {"joint", "amplitude", "divisor", "start", "end"}, ww);
        ControllerSpec::Window win;
        win.joint = r.string(r.require(ws[j], "joint", ww), ww + ".joint");
        win.amplitude = r.number(r.require(ws[j], "amplitude", ww), ww + ".amplitude");
        win.divisor = r.positive(r.require(ws[j], "divisor", ww), ww + ".divisor");
        win.start = r.number(r.require(ws[j], "start", ww), ww + ".start");
        win.end = r.number(r.require(ws[j], "end", ww), ww + ".end");
        if (win.end < win.start) r.fail(ws[j], ww + ": end is before start");
        spec.windows.push_back(win);
      }
    }
    s.controllers.push_back(spec);
  }
}

// sensors.camera: the camera (its frame and mount, the pinhole's data, rate, latency, noise, seed)
// and the debris filter (process noise, prior σ).
void readSensors(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  r.requireMap(n, "sensors");
  r.checkKeys(n, {"camera"}, "sensors");
  const YAML::Node c = n["camera"];
  if (!c.IsDefined()) return;
  const std::string w = "sensors.camera";
  r.requireMap(c, w);
  r.checkKeys(c, {"frame", "position", "rpy_deg", "focal_length", "pixel_size", "resolution", "rate", "latency",
                  "pixel_noise", "depth_noise", "attitude_noise_deg", "max_range", "seed", "filter"}, w);
  DebrisCameraSpec& k = s.sensors.camera.emplace();
  CameraSettings& cs = k.camera;
  if (c["frame"].IsDefined()) k.frame = r.string(c["frame"], w + ".frame");
  if (c["position"].IsDefined()) k.mount.p = r.vector3(c["position"], w + ".position");
  if (c["rpy_deg"].IsDefined()) k.mount.R = rpyToMatrix(r.vector3(c["rpy_deg"], w + ".rpy_deg") * (M_PI / 180));
  using Field = std::tuple<const char*, double*, bool>;  // key, value, may be zero
  for (const auto& [key, value, zero] : std::initializer_list<Field>{{"focal_length", &cs.focal_length, false}, {"pixel_size", &cs.pixel_size, false},
                                         {"rate", &cs.rate, false}, {"latency", &cs.latency, true},
                                         {"pixel_noise", &cs.pixel_noise, false}, {"depth_noise", &cs.depth_noise, false},
                                         {"attitude_noise_deg", &cs.attitude_noise_deg, true}, {"max_range", &cs.max_range, false}}) {
    if (c[key].IsDefined()) *value = zero ? r.nonNegative(c[key], w + "." + key) : r.positive(c[key], w + "." + key);
  }
  if (const YAML::Node res = c["resolution"]; res.IsDefined()) {
    const std::vector<double> v = r.numbers(res, 2, w + ".resolution");
    if (v[0] < 1 || v[1] < 1 || v[0] != std::floor(v[0]) || v[1] != std::floor(v[1]) || v[0] > 1e5 || v[1] > 1e5) {
      r.fail(res, w + ".resolution: [width, height] in whole pixels, 1 to 100000 expected");
    }
    cs.width = static_cast<int>(v[0]);
    cs.height = static_cast<int>(v[1]);
  }
  if (c["seed"].IsDefined()) {
    const int seed = r.integer(c["seed"], w + ".seed");
    if (seed < 0) r.fail(c["seed"], w + ".seed: an integer >= 0 expected");
    cs.seed = static_cast<std::uint64_t>(seed);
  }
  if (const YAML::Node f = c["filter"]; f.IsDefined()) {
    const std::string wf = w + ".filter";
    r.requireMap(f, wf);
    r.checkKeys(f, {"accel_noise", "angular_accel_noise", "step", "sigma_position", "sigma_velocity",
                    "sigma_attitude_deg", "sigma_rate_deg_s"}, wf);
    for (const auto& [key, value, zero] : std::initializer_list<Field>{{"accel_noise", &k.filter.accel_noise, true},
                                           {"angular_accel_noise", &k.filter.angular_accel_noise, true},
                                           {"step", &k.filter.step, false}, {"sigma_position", &k.sigma_position, false},
                                           {"sigma_velocity", &k.sigma_velocity, false},
                                           {"sigma_attitude_deg", &k.sigma_attitude_deg, false},
                                           {"sigma_rate_deg_s", &k.sigma_rate_deg_s, false}}) {
      if (f[key].IsDefined()) *value = zero ? r.nonNegative(f[key], wf + "." + key) : r.positive(f[key], wf + "." + key);
    }
  }
}

// requirements: each a number (the limit) or `off`.
void readRequirements(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  const std::string w = "requirements";
  r.requireMap(n, w);
  r.checkKeys(n, {"hand_to_plan", "bus_attitude_deg", "bus_torque", "joint_torque"}, w);
  Requirements& q = s.requirements;
  for (const auto& [key, value] : {std::pair{"hand_to_plan", &q.hand_to_plan}, std::pair{"bus_attitude_deg", &q.bus_attitude_deg},
                                   std::pair{"bus_torque", &q.bus_torque}, std::pair{"joint_torque", &q.joint_torque}}) {
    const YAML::Node x = n[key];
    if (!x.IsDefined()) continue;
    if (x.IsScalar() && (x.Scalar() == "off" || x.Scalar() == "false")) {
      value->reset();
    } else {
      *value = r.positive(x, w + "." + key);
    }
  }
}

void readRun(const yaml::Reader& r, const YAML::Node& n, Scenario& s) {
  const std::string w = "run";
  r.checkKeys(n, {"duration", "integrator", "step", "rtol", "atol", "max_step", "quasi_static_above",
                  "record_rate", "control_rate", "end_effector"}, w);
  RunSettings& run = s.run;
  if (n["duration"].IsDefined()) run.duration = r.positive(n["duration"], w + ".duration");
  if (n["integrator"].IsDefined()) {
    const std::string name = r.choice(n["integrator"], {"rk4", "dopri5", "rk43", "ros34pw2", "quasi_static"}, w + ".integrator");
    run.integrator = name == "rk4"            ? IntegratorType::kRk4
                     : name == "rk43"         ? IntegratorType::kRk43
                     : name == "ros34pw2"     ? IntegratorType::kRosenbrockW
                     : name == "quasi_static" ? IntegratorType::kQuasiStatic
                                              : IntegratorType::kDormandPrince;
  }
  if (n["step"].IsDefined()) run.step = r.positive(n["step"], w + ".step");
  if (n["rtol"].IsDefined()) run.rtol = r.positive(n["rtol"], w + ".rtol");
  if (n["atol"].IsDefined()) run.atol = r.positive(n["atol"], w + ".atol");
  if (n["max_step"].IsDefined()) run.max_step = r.positive(n["max_step"], w + ".max_step");
  if (n["quasi_static_above"].IsDefined()) {
    run.quasi_static_above = r.nonNegative(n["quasi_static_above"], w + ".quasi_static_above");
  }
  if (n["record_rate"].IsDefined()) run.record_rate = r.positive(n["record_rate"], w + ".record_rate");
  if (n["control_rate"].IsDefined()) run.control_rate = r.nonNegative(n["control_rate"], w + ".control_rate");
  if (n["end_effector"].IsDefined()) run.end_effector = r.string(n["end_effector"], w + ".end_effector");
  // Every recorded row is kept in memory (the app's timeline scrubs through them).
  constexpr double kMaxRows = 2e7;
  if (run.duration * run.record_rate > kMaxRows) {
    r.fail(n, w + ": duration x record_rate = " + std::to_string(run.duration * run.record_rate) +
                  " recorded rows; at most 2e7 are kept in memory, lower record_rate");
  }
  if (run.step > 1.0 / run.record_rate + 1e-12 && run.integrator == IntegratorType::kRk4) {
    r.fail(n, w + ": the RK4 step must not exceed the recording interval 1/record_rate");
  }
}

// Checks everything that needs the robot: names and sizes of the initial state and controllers.
void checkAgainstModel(const yaml::Reader& r, const YAML::Node& doc, const Scenario& s,
                       const Model& m) {
  std::vector<std::string> joints, flexible;
  for (int i = 1; i < m.nbodies; ++i) {
    if (m.joint[i].nv > 0) joints.push_back(m.joint[i].name);
    if (m.flex[i].nf > 0) flexible.push_back(m.body_name[i]);
  }
  // (Handles are re-pointed with reset(): `n = n[b]` would assign the child's value to the node
  // n points at, rewriting the caller's document.)
  auto at = [&](const char* a, const char* b, const char* c, const std::string& key) {
    YAML::Node n;
    n.reset(doc[a]);
    if (n.IsDefined() && b) n.reset(static_cast<const YAML::Node&>(n)[b]);
    if (n.IsDefined() && c) n.reset(static_cast<const YAML::Node&>(n)[c]);
    const YAML::Node cn = n;
    if (cn.IsDefined() && cn.IsMap() && cn[key].IsDefined()) return YAML::Node(cn[key]);
    return n;
  };
  auto unknown = [&](const YAML::Node& where, const std::string& what, const std::string& name,
                     const std::vector<std::string>& names) {
    for (int i = 1; i < m.nbodies; ++i) {  // a mimic joint has no coordinate of its own
      const Joint& j = m.joint[i];
      if (names != joints || !isMimic(j) || j.name != name) continue;
      std::ostringstream rule;
      rule << "q = " << j.mimic_multiplier << " * q_" << m.joint[j.mimic_body].name;
      if (j.mimic_offset != 0) rule << (j.mimic_offset < 0 ? " - " : " + ") << std::abs(j.mimic_offset);
      r.fail(where, what + ": joint '" + name + "' mimics joint '" + m.joint[j.mimic_body].name + "' (" +
                        rule.str() + "): a scenario gives only the independent joints; give '" +
                        m.joint[j.mimic_body].name + "' instead");
    }
    const std::string hint = closestMatch(name, names);
    r.fail(where, what + ": the robot has no " + (names == joints ? "joint" : "flexible body") +
                      " '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  };
  for (const auto* table : {&s.chaser.initial.joint_position, &s.chaser.initial.joint_velocity}) {
    for (const auto& [name, values] : *table) {
      const int b = m.bodyOfJoint(name);
      const YAML::Node where = at("chaser", "initial", "joints", name);
      if (b < 0) unknown(where, "chaser.initial.joints", name, joints);
      const Joint& j = m.joint[b];
      const int n = table == &s.chaser.initial.joint_position ? j.nq : j.nv;
      if (static_cast<int>(values.size()) != n) {
        r.fail(where, "chaser.initial.joints." + name + ": a " + std::string(jointTypeName(j.type)) +
                          " joint takes " + std::to_string(n) + " value(s), got " + std::to_string(values.size()));
      }
    }
  }
  for (const auto* table : {&s.chaser.initial.mode_position, &s.chaser.initial.mode_velocity}) {
    for (const auto& [name, values] : *table) {
      const YAML::Node where = at("chaser", "initial", "modes", name);
      int b = -1;
      for (int i = 0; i < m.nbodies; ++i) {
        if (m.body_name[i] == name && m.flex[i].nf > 0) b = i;
      }
      if (b < 0) unknown(where, "chaser.initial.modes", name, flexible);
      if (static_cast<int>(values.size()) != m.flex[b].nf) {
        r.fail(where, "chaser.initial.modes." + name + ": " + std::to_string(m.flex[b].nf) +
                          " modal value(s) expected, got " + std::to_string(values.size()));
      }
    }
  }
  if (m.base_mode == BaseMode::kFixed && s.chaser.initial.base_twist.norm() > 0) {
    r.fail(at("chaser", "initial", "base", "twist"), "chaser.initial.base.twist: the base is fixed");
  }
  for (std::size_t k = 0; k < s.controllers.size(); ++k) {
    const ControllerSpec& c = s.controllers[k];
    const YAML::Node where = doc["controllers"][k];
    for (const auto& [name, value] : c.target) {
      const int b = m.bodyOfJoint(name);
      if (b < 0) unknown(where["target"][name], "controllers[" + std::to_string(k) + "].target", name, joints);
      if (m.joint[b].nv != 1) r.fail(where["target"][name], "controllers: only 1-DOF joints follow a path");
    }
    for (std::size_t j = 0; j < c.windows.size(); ++j) {
      const int b = m.bodyOfJoint(c.windows[j].joint);
      if (b < 0) unknown(where["windows"][j]["joint"], "controllers[" + std::to_string(k) + "].windows", c.windows[j].joint, joints);
      if (m.joint[b].nv != 1) r.fail(where["windows"][j], "controllers: torque windows drive 1-DOF joints");
    }
    if (c.type == ControllerType::kAerial) {
      const std::string w = "controllers[" + std::to_string(k) + "]";
      if (m.base_mode != BaseMode::kFlying) r.fail(where, w + ": an aerial controller drives a flying base (base_mode: flying)");
      if (!(s.run.control_rate > 0)) {
        r.fail(where, w + ": an aerial controller runs sampled, with its motors' lag: set run.control_rate (e.g. 500 Hz)");
      }
      std::size_t n1 = 0;
      for (int b = 0; b < m.nbodies; ++b) {
        if (m.joint[b].nv == 1) ++n1;
        if (b > 0 && m.joint[b].nv > 1) r.fail(where, w + ": an aerial controller drives 1-DOF joints only");
      }
      if (static_cast<int>(n1) + 6 != m.nv) r.fail(where, w + ": an aerial controller needs a rigid robot");
      const ControllerSpec::Aerial& a = c.aerial;
      for (const auto& [key, g] : {std::pair{"kp", &a.kp}, std::pair{"kv", &a.kv}}) {
        if (g->size() != 6 + n1) {
          r.fail(where[key].IsDefined() ? where[key] : where, w + "." + key + ": expected " + std::to_string(6 + n1) +
                                                              " gains (x y z roll pitch yaw, then one per joint), got " +
                                                              std::to_string(g->size()));
        }
      }
      for (std::size_t j = 0; j < a.waypoints.size(); ++j) {
        if (!a.waypoints[j].joints.empty() && a.waypoints[j].joints.size() != n1) {
          r.fail(where["waypoints"][j]["joints"], w + ".waypoints[" + std::to_string(j) + "].joints: expected " +
                                                      std::to_string(n1) + " joint angles, got " + std::to_string(a.waypoints[j].joints.size()));
        }
      }
    }
    if (c.type == ControllerType::kCapture) {
      const std::string w = "controllers[" + std::to_string(k) + "]";
      if (!s.debris.enabled) r.fail(where, w + ": a capture needs a debris (the scenario has none)");
      for (std::size_t j = 0; j < k; ++j) {
        if (s.controllers[j].type == ControllerType::kCapture) r.fail(where, w + ": one capture controller at most");
      }
      std::size_t n1 = 0;  // the 1-DOF joints the capture law drives
      for (int b = 0; b < m.nbodies; ++b) n1 += m.joint[b].nv == 1 ? 1 : 0;
      const ControllerSpec::Capture& cap = c.capture;
      for (const auto& [key, g] : {std::pair{"joint_kp", &cap.joint_kp}, std::pair{"joint_kd", &cap.joint_kd}}) {
        if (!g->empty() && g->size() != n1) {
          r.fail(where[key], w + "." + key + ": expected " + std::to_string(n1) + " gains (one per joint of the robot), got " +
                                 std::to_string(g->size()));
        }
      }
      if (cap.reaction_inverse == "adjugate" && n1 != 6) {
        r.fail(where["reaction_inverse"], w + ".reaction_inverse: the adjugate inverts the square system [bus; hand] of a "
                                          "6-joint arm; the robot has " + std::to_string(n1));
      }
      if (cap.law == "joint_pd" && cap.joint_kp.empty() && n1 != 6) {
        r.fail(where, w + ": law joint_pd needs joint_kp (the default gains, thesis Table 8.2, are for 6 joints; the robot has " +
                          std::to_string(n1) + ")");
      }
    }
  }
  if (s.chaser.attitude_control && m.base_mode != BaseMode::kFloating) {
    r.fail(doc["chaser"]["attitude_control"], "chaser.attitude_control: only a floating bus has its attitude "
                                              "controlled this way (the robot's base is " +
                                              std::string(baseModeName(m.base_mode)) + ")");
  }
  if (const auto& cam = s.sensors.camera) {
    const YAML::Node at = doc["sensors"]["camera"];
    if (!s.debris.enabled) r.fail(at, "sensors.camera: the camera sees the debris (the scenario has none)");
    if (!cam->frame.empty() && m.frameId(cam->frame) < 0) {
      std::vector<std::string> frames;
      for (const Frame& f : m.frames) frames.push_back(f.name);
      const std::string hint = closestMatch(cam->frame, frames);
      r.fail(at["frame"], "sensors.camera.frame: no frame '" + cam->frame + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  if (!s.run.end_effector.empty() && m.frameId(s.run.end_effector) < 0) {
    std::vector<std::string> frames;
    for (const Frame& f : m.frames) frames.push_back(f.name);
    const std::string hint = closestMatch(s.run.end_effector, frames);
    r.fail(doc["run"]["end_effector"], "run.end_effector: no frame '" + s.run.end_effector + "'" +
                                           (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
}

}  // namespace

LoadedScenario loadScenarioDocument(const std::string& path, const YAML::Node& doc) {
  const yaml::Reader r(path);
  r.checkKeys(doc, {"format", "name", "description", "chaser", "debris", "environment",
                    "controllers", "run", "requirements", "sensors"}, "scenario");
  const int format = r.integer(r.require(doc, "format", "scenario"), "format");
  if (format != 1) r.fail(doc["format"], "format: this Grapple reads format 1, got " + std::to_string(format));
  LoadedScenario out;
  Scenario& s = out.scenario;
  s.file = path;
  s.name = doc["name"].IsDefined() ? r.string(doc["name"], "name") : fs::path(path).stem().string();
  if (doc["description"].IsDefined()) s.description = r.string(doc["description"], "description");
  readChaser(r, r.require(doc, "chaser", "scenario"), s);
  if (doc["debris"].IsDefined()) readDebris(r, doc["debris"], s);
  if (doc["environment"].IsDefined()) readEnvironment(r, doc["environment"], s);
  if (doc["controllers"].IsDefined()) readControllers(r, doc["controllers"], s);
  if (doc["run"].IsDefined()) readRun(r, doc["run"], s);
  if (doc["requirements"].IsDefined()) readRequirements(r, doc["requirements"], s);
  if (doc["sensors"].IsDefined()) readSensors(r, doc["sensors"], s);
  // A bad robot file reports its own file and line; an embedded robot, the scenario's.
  out.model = s.chaser.model_yaml.empty()
                  ? loadModelFile(s.chaser.robot_path, s.chaser.base_mode, &out.warnings, s.chaser.flex_model,
                                  s.chaser.inertia)
                  : buildModelYaml(r, doc["chaser"]["model"], s.chaser.base_mode, s.chaser.flex_model);
  out.model.gravity_W = s.gravity;
  if (s.chaser.structural_damping) {
    for (FlexibleBody& f : out.model.flex) {
      if (f.nf == 0 || !f.D.isZero(0.0)) continue;
      f.D = modalDamping(f.K, f.frequency, Eigen::VectorXd::Constant(f.nf, *s.chaser.structural_damping));
    }
  }
  checkAgainstModel(r, doc, s, out.model);
  return out;
}

std::pair<std::string, std::string> parseOverride(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw std::invalid_argument("expects key=value, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

YAML::Node readScenarioDocument(const std::string& path, const Overrides& overrides) {
  YAML::Node doc = yaml::loadFile(path);
  for (const auto& [key, value] : overrides) applyOverride(doc, key, value, path);
  return doc;
}

LoadedScenario loadScenario(const std::string& path, const Overrides& overrides) {
  const YAML::Node doc = readScenarioDocument(path, overrides);
  try {
    return loadScenarioDocument(path, doc);
  } catch (const LoadError& e) {
    if (overrides.empty() || e.line() > 0 || e.file() != path) throw;
    std::string set;
    for (const auto& [key, value] : overrides) set += (set.empty() ? "" : ", ") + key + "=" + value;
    throw LoadError(path, 0, e.message() + " (with --set " + set + ")");
  }
}

LoadedScenario loadScenarioText(const std::string& text, const std::string& path) {
  return loadScenarioDocument(path, yaml::loadString(text, path));
}


namespace {

void emitVector(YAML::Emitter& e, const Eigen::Ref<const Eigen::VectorXd>& v) {
  e << YAML::Flow << YAML::BeginSeq;
  for (Eigen::Index k = 0; k < v.size(); ++k) e << v[k];
  e << YAML::EndSeq;
}

void emitValues(YAML::Emitter& e, const std::vector<double>& v) {
  if (v.size() == 1) {
    e << v[0];
    return;
  }
  e << YAML::Flow << YAML::BeginSeq;
  for (double x : v) e << x;
  e << YAML::EndSeq;
}

}  // namespace

std::string scenarioToYaml(const Scenario& s) {
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  e << YAML::Key << "format" << YAML::Value << 1;
  e << YAML::Key << "name" << YAML::Value << s.name;
  if (!s.description.empty()) e << YAML::Key << "description" << YAML::Value << s.description;
  // chaser
  const ChaserSpec& c = s.chaser;
  e << YAML::Key << "chaser" << YAML::Value << YAML::BeginMap;
  if (c.model_yaml.empty()) {
    e << YAML::Key << "robot" << YAML::Value << c.robot;
  } else {
    e << YAML::Key << "model" << YAML::Value << YAML::Load(c.model_yaml);
  }
  if (c.base_mode) e << YAML::Key << "base_mode" << YAML::Value << std::string(baseModeName(*c.base_mode));
  if (c.flex_model) e << YAML::Key << "flex_model" << YAML::Value << std::string(flexModelName(*c.flex_model));
  if (c.inertia == InertiaPolicy::kRepair) e << YAML::Key << "inertia" << YAML::Value << "repair";
  if (c.structural_damping) e << YAML::Key << "structural_damping" << YAML::Value << *c.structural_damping;
  if (c.attitude_control) {
    const auto& ac = *c.attitude_control;
    e << YAML::Key << "attitude_control" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "kp"
      << YAML::Value << ac.kp << YAML::Key << "kd" << YAML::Value << ac.kd << YAML::Key << "torque_limit"
      << YAML::Value << ac.torque_limit << YAML::Key << "feedforward" << YAML::Value << ac.feedforward
      << YAML::EndMap;
  }
  if (c.thrusters) {
    e << YAML::Key << "thrusters" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "isp"
      << YAML::Value << c.thrusters->isp << YAML::Key << "lever_arm" << YAML::Value << c.thrusters->lever_arm
      << YAML::EndMap;
  }
  e << YAML::Key << "initial" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "base" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "position" << YAML::Value;
  emitVector(e, c.initial.base_position);
  e << YAML::Key << "attitude" << YAML::Value;
  emitVector(e, c.initial.base_attitude);
  e << YAML::Key << "twist" << YAML::Value;
  emitVector(e, c.initial.base_twist);
  e << YAML::EndMap;
  auto emitStates = [&](const char* key, const std::map<std::string, std::vector<double>>& pos,
                        const std::map<std::string, std::vector<double>>& vel) {
    std::vector<std::string> names;
    for (const auto& [n, v] : pos) names.push_back(n);
    for (const auto& [n, v] : vel) {
      if (!pos.count(n)) names.push_back(n);
    }
    if (names.empty()) return;
    e << YAML::Key << key << YAML::Value << YAML::BeginMap;
    for (const std::string& n : names) {
      e << YAML::Key << n << YAML::Value << YAML::Flow << YAML::BeginMap;
      if (pos.count(n)) {
        e << YAML::Key << "position" << YAML::Value;
        emitValues(e, pos.at(n));
      }
      if (vel.count(n)) {
        e << YAML::Key << "velocity" << YAML::Value;
        emitValues(e, vel.at(n));
      }
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  };
  emitStates("joints", c.initial.joint_position, c.initial.joint_velocity);
  emitStates("modes", c.initial.mode_position, c.initial.mode_velocity);
  e << YAML::EndMap << YAML::EndMap;
  // debris
  if (s.debris.enabled) {
    const DebrisSpec& d = s.debris;
    const Matrix3& I = d.properties.inertia;
    e << YAML::Key << "debris" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "mass" << YAML::Value << d.properties.mass;
    e << YAML::Key << "inertia" << YAML::Value << YAML::Flow << YAML::BeginMap
      << YAML::Key << "xx" << YAML::Value << I(0, 0) << YAML::Key << "yy" << YAML::Value << I(1, 1)
      << YAML::Key << "zz" << YAML::Value << I(2, 2) << YAML::Key << "xy" << YAML::Value << I(0, 1)
      << YAML::Key << "xz" << YAML::Value << I(0, 2) << YAML::Key << "yz" << YAML::Value << I(1, 2)
      << YAML::EndMap;
    e << YAML::Key << "size" << YAML::Value;
    emitVector(e, d.size);
    if (!d.mesh.empty()) e << YAML::Key << "mesh" << YAML::Value << d.mesh;
    e << YAML::Key << "target" << YAML::Value;
    emitVector(e, d.properties.target_B);
    e << YAML::Key << "initial" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "position" << YAML::Value;
    emitVector(e, d.initial.r_W);
    e << YAML::Key << "velocity" << YAML::Value;
    emitVector(e, d.initial.v_W);
    e << YAML::Key << "attitude" << YAML::Value;
    emitVector(e, d.initial.Q_WB);
    e << YAML::Key << "rate_deg_s" << YAML::Value;
    emitVector(e, Vector3(d.initial.w_B * (180 / M_PI)));
    e << YAML::EndMap << YAML::EndMap;
  }
  // environment
  const EnvironmentSettings& en = s.environment;
  e << YAML::Key << "environment" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "altitude" << YAML::Value << en.altitude;
  e << YAML::Key << "gravity_gradient" << YAML::Value << en.gravity_gradient;
  e << YAML::Key << "relative_motion" << YAML::Value << en.relative_motion;
  e << YAML::Key << "gravity" << YAML::Value;
  emitVector(e, s.gravity);
  e << YAML::Key << "drag" << YAML::Value << YAML::BeginMap << YAML::Key << "enabled" << YAML::Value
    << en.drag.enabled << YAML::Key << "density" << YAML::Value << en.drag.density << YAML::Key
    << "drag_coefficient" << YAML::Value << en.drag.drag_coefficient << YAML::Key << "area"
    << YAML::Value << en.drag.area << YAML::Key << "center_of_pressure" << YAML::Value;
  emitVector(e, en.drag.center_of_pressure);
  e << YAML::EndMap;
  const auto& sp = en.solar_pressure;
  e << YAML::Key << "solar_pressure" << YAML::Value << YAML::BeginMap << YAML::Key << "enabled"
    << YAML::Value << sp.enabled << YAML::Key << "pressure" << YAML::Value << sp.pressure
    << YAML::Key << "area" << YAML::Value << sp.area << YAML::Key << "normal" << YAML::Value;
  emitVector(e, sp.normal);
  e << YAML::Key << "center_of_pressure" << YAML::Value;
  emitVector(e, sp.center_of_pressure);
  e << YAML::Key << "sun_direction" << YAML::Value;
  emitVector(e, sp.sun_direction);
  e << YAML::Key << "absorbed" << YAML::Value << sp.absorbed << YAML::Key << "diffuse" << YAML::Value
    << sp.diffuse << YAML::Key << "specular" << YAML::Value << sp.specular << YAML::EndMap;
  e << YAML::Key << "magnetic" << YAML::Value << YAML::BeginMap << YAML::Key << "enabled"
    << YAML::Value << en.magnetic.enabled << YAML::Key << "dipole" << YAML::Value;
  emitVector(e, en.magnetic.dipole);
  e << YAML::Key << "field" << YAML::Value;
  emitVector(e, en.magnetic.field);
  e << YAML::EndMap << YAML::EndMap;
  // controllers
  e << YAML::Key << "controllers" << YAML::Value << YAML::BeginSeq;
  for (const ControllerSpec& cs : s.controllers) {
    e << YAML::BeginMap;
    if (cs.type == ControllerType::kJointTrajectory) {
      e << YAML::Key << "type" << YAML::Value << "joint_trajectory" << YAML::Key << "profile"
        << YAML::Value << cs.profile << YAML::Key << "start" << YAML::Value << cs.start
        << YAML::Key << "duration" << YAML::Value << cs.duration;
      e << YAML::Key << "target" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const auto& [n, v] : cs.target) e << YAML::Key << n << YAML::Value << v;
      e << YAML::EndMap << YAML::Key << "kp" << YAML::Value << cs.kp << YAML::Key << "kd"
        << YAML::Value << cs.kd;
    } else if (cs.type == ControllerType::kCapture) {
      const auto& cap = cs.capture;
      e << YAML::Key << "type" << YAML::Value << "capture" << YAML::Key << "start" << YAML::Value
        << cs.start << YAML::Key << "matching" << YAML::Value << cap.matching << YAML::Key << "w_u"
        << YAML::Value << cap.w_u << YAML::Key << "w_1" << YAML::Value << cap.w_1 << YAML::Key
        << "horizon" << YAML::Value << cap.horizon << YAML::Key << "kp" << YAML::Value << cs.kp
        << YAML::Key << "kd" << YAML::Value << cs.kd << YAML::Key << "posture_kp" << YAML::Value
        << cap.posture_kp << YAML::Key << "posture_kd" << YAML::Value << cap.posture_kd << YAML::Key
        << "damping" << YAML::Value << cap.damping << YAML::Key << "singular_threshold"
        << YAML::Value << cap.singular_threshold << YAML::Key << "tolerance" << YAML::Value
        << cap.tolerance << YAML::Key << "speed_tolerance" << YAML::Value << cap.speed_tolerance
        << YAML::Key << "hold" << YAML::Value << cap.hold << YAML::Key << "post_kp"
        << YAML::Value << cap.post_kp << YAML::Key << "post_kd" << YAML::Value << cap.post_kd
        << YAML::Key << "law" << YAML::Value << cap.law << YAML::Key << "force_kp" << YAML::Value
        << cap.force_kp << YAML::Key << "force_kd" << YAML::Value << cap.force_kd
        << YAML::Key << "align" << YAML::Value << cap.align
        << YAML::Key << "reactionless" << YAML::Value << cap.reactionless << YAML::Key << "reaction_inverse"
        << YAML::Value << cap.reaction_inverse << YAML::Key << "adjugate_limit" << YAML::Value << cap.adjugate_limit;
      e << YAML::Key << "reaction_rate_deg_s" << YAML::Value;
      emitVector(e, cap.reaction_rate * (180 / M_PI));
      e << YAML::Key << "arm_pd"
        << YAML::Value << cap.arm_pd;
      if (!cap.joint_kp.empty()) e << YAML::Key << "joint_kp" << YAML::Value << YAML::Flow << cap.joint_kp;
      if (!cap.joint_kd.empty()) e << YAML::Key << "joint_kd" << YAML::Value << YAML::Flow << cap.joint_kd;
      if (cap.window.search) {
        const auto& win = cap.window;
        e << YAML::Key << "window" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "search" << YAML::Value
          << true << YAML::Key << "horizon" << YAML::Value << win.horizon << YAML::Key << "periods" << YAML::Value
          << win.periods << YAML::Key << "step_deg" << YAML::Value
          << win.step_deg << YAML::Key << "min_step" << YAML::Value << win.min_step << YAML::Key << "torque_margin"
          << YAML::Value << win.torque_margin << YAML::Key << "clearance" << YAML::Value << win.clearance << YAML::Key
          << "link_radius" << YAML::Value << win.link_radius << YAML::Key << "corridor_radius" << YAML::Value
          << win.corridor_radius << YAML::Key << "corridor_length" << YAML::Value << win.corridor_length << YAML::EndMap;
      }
      if (cap.approach.distance > 0) {
        e << YAML::Key << "approach" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "distance"
          << YAML::Value << cap.approach.distance << YAML::Key << "duration" << YAML::Value << cap.approach.duration
          << YAML::EndMap;
      }
      if (cap.abort.enabled) {
        const auto& ab = cap.abort;
        e << YAML::Key << "abort" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "enabled" << YAML::Value
          << true << YAML::Key << "plan_error" << YAML::Value << ab.plan_error << YAML::Key << "saturation_time"
          << YAML::Value << ab.saturation_time << YAML::Key << "bus_attitude_deg" << YAML::Value << ab.bus_attitude_deg
          << YAML::Key << "clearance" << YAML::Value << ab.clearance << YAML::Key << "grasp_timeout" << YAML::Value
          << ab.grasp_timeout << YAML::Key << "retreat_time" << YAML::Value << ab.retreat_time << YAML::Key << "retries"
          << YAML::Value << ab.retries << YAML::EndMap;
      }
    } else if (cs.type == ControllerType::kAerial) {
      const auto& a = cs.aerial;
      e << YAML::Key << "type" << YAML::Value << "aerial" << YAML::Key << "rotors" << YAML::Value << a.rotors
        << YAML::Key << "arm_length" << YAML::Value << a.arm_length << YAML::Key << "first_angle_deg" << YAML::Value
        << a.first_angle_deg << YAML::Key << "k_t" << YAML::Value << a.k_t << YAML::Key << "k_p" << YAML::Value << a.k_p
        << YAML::Key << "max_rpm" << YAML::Value << a.max_rpm << YAML::Key << "rotor_time_constant" << YAML::Value
        << a.rotor_time_constant << YAML::Key << "joint_time_constant" << YAML::Value << a.joint_time_constant
        << YAML::Key << "kp" << YAML::Value << YAML::Flow << a.kp << YAML::Key << "kv" << YAML::Value << YAML::Flow
        << a.kv << YAML::Key << "waypoints" << YAML::Value << YAML::BeginSeq;
      for (const auto& p : a.waypoints) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "t" << YAML::Value << p.t;
        if (p.position) {
          e << YAML::Key << "position" << YAML::Value;
          emitVector(e, *p.position);
        }
        if (p.rpy_deg) {
          e << YAML::Key << "rpy_deg" << YAML::Value;
          emitVector(e, *p.rpy_deg);
        }
        if (!p.joints.empty()) e << YAML::Key << "joints" << YAML::Value << YAML::Flow << p.joints;
        e << YAML::EndMap;
      }
      e << YAML::EndSeq;
    } else {
      e << YAML::Key << "type" << YAML::Value << "torque_windows" << YAML::Key << "windows"
        << YAML::Value << YAML::BeginSeq;
      for (const auto& w : cs.windows) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "joint" << YAML::Value << w.joint
          << YAML::Key << "amplitude" << YAML::Value << w.amplitude << YAML::Key << "divisor"
          << YAML::Value << w.divisor << YAML::Key << "start" << YAML::Value << w.start
          << YAML::Key << "end" << YAML::Value << w.end << YAML::EndMap;
      }
      e << YAML::EndSeq;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  // run
  const RunSettings& run = s.run;
  e << YAML::Key << "run" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "duration" << YAML::Value << run.duration;
  e << YAML::Key << "integrator" << YAML::Value << integratorName(run.integrator);
  e << YAML::Key << "step" << YAML::Value << run.step;
  e << YAML::Key << "rtol" << YAML::Value << run.rtol;
  e << YAML::Key << "atol" << YAML::Value << run.atol;
  e << YAML::Key << "max_step" << YAML::Value << run.max_step;
  e << YAML::Key << "quasi_static_above" << YAML::Value << run.quasi_static_above;
  e << YAML::Key << "record_rate" << YAML::Value << run.record_rate;
  e << YAML::Key << "control_rate" << YAML::Value << run.control_rate;
  if (!run.end_effector.empty()) e << YAML::Key << "end_effector" << YAML::Value << run.end_effector;
  e << YAML::EndMap;
  // requirements
  e << YAML::Key << "requirements" << YAML::Value << YAML::BeginMap;
  const Requirements& q = s.requirements;
  for (const auto& [key, value] : {std::pair{"hand_to_plan", &q.hand_to_plan}, std::pair{"bus_attitude_deg", &q.bus_attitude_deg},
                                   std::pair{"bus_torque", &q.bus_torque}, std::pair{"joint_torque", &q.joint_torque}}) {
    e << YAML::Key << key << YAML::Value;
    if (*value) {
      e << **value;
    } else {
      e << "off";
    }
  }
  e << YAML::EndMap;
  if (const auto& k = s.sensors.camera) {
    const CameraSettings& c = k->camera;
    e << YAML::Key << "sensors" << YAML::Value << YAML::BeginMap << YAML::Key << "camera" << YAML::Value << YAML::BeginMap;
    if (!k->frame.empty()) e << YAML::Key << "frame" << YAML::Value << k->frame;
    e << YAML::Key << "position" << YAML::Value;
    emitVector(e, k->mount.p);
    e << YAML::Key << "rpy_deg" << YAML::Value;
    emitVector(e, matrixToRpy(k->mount.R) * (180 / M_PI));
    e << YAML::Key << "resolution" << YAML::Value << YAML::Flow << YAML::BeginSeq << c.width << c.height << YAML::EndSeq;
    using Value = std::pair<const char*, double>;
    for (const auto& [key, value] : std::initializer_list<Value>{{"focal_length", c.focal_length}, {"pixel_size", c.pixel_size}, {"rate", c.rate},
                                     {"latency", c.latency}, {"pixel_noise", c.pixel_noise}, {"depth_noise", c.depth_noise},
                                     {"attitude_noise_deg", c.attitude_noise_deg}, {"max_range", c.max_range}}) {
      e << YAML::Key << key << YAML::Value << value;
    }
    e << YAML::Key << "seed" << YAML::Value << c.seed;
    e << YAML::Key << "filter" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, value] : std::initializer_list<Value>{{"accel_noise", k->filter.accel_noise}, {"angular_accel_noise", k->filter.angular_accel_noise},
                                     {"step", k->filter.step}, {"sigma_position", k->sigma_position},
                                     {"sigma_velocity", k->sigma_velocity}, {"sigma_attitude_deg", k->sigma_attitude_deg},
                                     {"sigma_rate_deg_s", k->sigma_rate_deg_s}}) {
      e << YAML::Key << key << YAML::Value << value;
    }
    e << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  }
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

void saveScenario(const Scenario& s, const std::string& path) {
  // The robot file is referenced relative to the scenario: saved elsewhere ("save as"), the
  // reference is rewritten relative to the new place.
  Scenario moved = s;
  if (!s.chaser.robot_path.empty()) {
    const fs::path dir = fs::absolute(fs::path(path)).parent_path();
    const fs::path rel = fs::absolute(s.chaser.robot_path).lexically_normal().lexically_relative(dir);
    moved.chaser.robot = rel.empty() ? fs::absolute(s.chaser.robot_path).string() : rel.generic_string();
  }
  writeFileAtomically(path, scenarioToYaml(moved));
}

}  // namespace grapple::core
