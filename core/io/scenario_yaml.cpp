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
#include "core/io/scenario_document.hpp"
#include "core/io/scenario_schema.hpp"
#include "core/io/yaml_util.hpp"
#include "core/sim/knowledge.hpp"

namespace grapple::core {

namespace fs = std::filesystem;

// Applies "a.b.c" = value to the document, creating maps on the way. A component may index a
// list, "controllers[1].kd" or "debris.initial.rate_deg_s[2]": the list must exist and have the
// entry (lists are not grown).
void applyOverride(YAML::Node doc, const std::string& key, const std::string& value,
                   const std::string& file) {
  std::vector<PathStep> steps;
  try {
    steps = parseDocumentPath(key);
  } catch (const std::invalid_argument& e) {
    throw LoadError(file, 0, "--set " + key + ": " + e.what());
  }
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
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const PathStep& step = steps[k];
    const bool last = k + 1 == steps.size();
    if (step.index < 0) {
      if (node.IsDefined() && !node.IsNull() && !node.IsMap()) {
        throw LoadError(file, 0, "--set " + key + ": '" + where + "' is not a map");
      }
      where += (where.empty() ? "" : ".") + step.key;
      if (last) {
        node[step.key] = value_node;
        return;
      }
      YAML::Node next = node[step.key];
      node.reset(next);
    } else {
      if (!node.IsSequence()) throw LoadError(file, 0, "--set " + key + ": '" + where + "' is not a list");
      if (step.index >= static_cast<int>(node.size())) {
        throw LoadError(file, 0, "--set " + key + ": '" + where + "' has " + std::to_string(node.size()) +
                                     " entries (indices from 0)");
      }
      where += "[" + std::to_string(step.index) + "]";
      if (last) {
        node[step.index] = value_node;
        return;
      }
      YAML::Node next = node[step.index];
      node.reset(next);
    }
  }
}

namespace {

Vector4 readQuaternion(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  const std::vector<double> v = r.numbers(n, 4, what);
  const Vector4 q(v[0], v[1], v[2], v[3]);
  if (q.norm() < 1e-9) r.fail(n, what + ": a quaternion [w, x, y, z] must not be zero");
  return q.normalized();
}

// Sets a Scenario's fields from a document: each value checked against its type and range, each
// map's keys against the schema's (unknown keys are errors with a did-you-mean), every message
// "file:line: where: what was expected".
class FieldReader : public ScenarioFields {
 public:
  FieldReader(const yaml::Reader& r, const YAML::Node& doc) : r_(r) {
    frames_.push_back({doc, "", ""});
    checkKeys(scenarioKeysUnder(""));
  }

  bool loading() const override { return true; }
  bool wants(const char* key, bool) override { return child(key).IsDefined(); }

  void number(const char* key, double& v, const char* unit, Bounds range, const char* doc, Presence p) override {
    if (const YAML::Node n = given(key, p)) v = inRange(n, r_.number(n, what(key)), range, unit, doc, what(key));
  }
  void integer(const char* key, int& v, Bounds range, const char* doc, Presence p) override {
    if (const YAML::Node n = given(key, p)) v = static_cast<int>(inRange(n, r_.integer(n, what(key)), range, "", doc, what(key)));
  }
  void boolean(const char* key, bool& v, const char*) override {
    if (const YAML::Node n = given(key)) v = r_.boolean(n, what(key));
  }
  void text(const char* key, std::string& v, const char*, Presence p) override {
    if (const YAML::Node n = given(key, p)) v = r_.string(n, what(key));
  }
  void choice(const char* key, std::string& word, const std::vector<std::string>& words, const char*) override {
    if (const YAML::Node n = given(key)) word = r_.choice(n, words, what(key));
  }
  void vector(const char* key, double* v, int count, const char*, const char*, Scale scale) override {
    const YAML::Node n = given(key);
    if (!n) return;
    const std::vector<double> x = r_.numbers(n, count, what(key));
    for (int k = 0; k < count; ++k) v[k] = x[static_cast<std::size_t>(k)] * scale.to_model;
  }
  void numbers(const char* key, std::vector<double>& v, const char* unit, Bounds each, const char* doc,
               Presence) override {
    const YAML::Node n = given(key);
    if (!n) return;
    v = r_.numbers(n, -1, what(key));
    for (std::size_t k = 0; k < v.size(); ++k) {
      inRange(n[k], v[k], each, unit, doc, what(key) + "[" + std::to_string(k) + "]");
    }
  }
  void values(const char* key, std::vector<double>& v, const char*, const char*) override {
    const YAML::Node n = given(key);
    if (!n) return;
    v = n.IsSequence() ? r_.numbers(n, -1, what(key)) : std::vector<double>{r_.number(n, what(key))};
  }
  void quaternion(const char* key, Vector4& q, const char*) override {
    if (const YAML::Node n = given(key)) q = readQuaternion(r_, n, what(key));
  }
  void inertia(const char* key, Matrix3& I, const char*) override {
    I = r_.inertia(given(key, Presence::kRequired), what(key));
  }
  void limit(const char* key, std::optional<double>& v, const char*, const char*) override {
    const YAML::Node n = given(key);
    if (!n) return;
    if (n.IsScalar() && (n.Scalar() == "off" || n.Scalar() == "false")) {
      v.reset();
    } else {
      v = r_.positive(n, what(key));
    }
  }
  void robot(ChaserSpec& c, const char*, const char*) override {
    const YAML::Node n = top().node;
    if (n["robot"].IsDefined() == n["model"].IsDefined()) {
      r_.fail(n, where() + ": give exactly one of 'robot' (a robot file) or 'model' (the robot embedded, the map of a "
                           "robot file's 'model')");
    }
    if (n["model"].IsDefined()) {
      r_.requireMap(n["model"], what("model"));
      YAML::Emitter e;
      e << n["model"];
      c.model_yaml = e.c_str();
      return;
    }
    c.robot = r_.string(n["robot"], what("robot"));
    fs::path p(c.robot);
    if (p.is_relative() && !r_.file().empty()) p = fs::path(r_.file()).parent_path() / p;
    c.robot_path = p.lexically_normal().string();
    if (!fs::exists(c.robot_path)) r_.fail(n["robot"], what("robot") + ": no robot file '" + c.robot_path + "'");
  }

  void section(const char* key, const char*, const std::function<void()>& body, bool, Presence p) override {
    const YAML::Node n = given(key, p);
    if (!n) return;
    enter({n, what(key), schemaOf(key)}, body, true);
  }
  void list(const char* key, const char*, std::size_t, const std::function<void(std::size_t)>& resize,
            const std::function<void(std::size_t)>& item, bool, Presence p) override {
    const YAML::Node n = given(key, p);
    if (!n) return;
    r_.requireSequence(n, what(key));
    resize(n.size());
    const std::string items = schemaOf(key) + "[]";
    const bool typed = scenarioKey(items + ".type") != nullptr;  // keys known once the type is read
    for (std::size_t k = 0; k < n.size(); ++k) {
      const YAML::Node at = n[k];
      const std::string w = what(key) + "[" + std::to_string(k) + "]";
      r_.requireMap(at, w);
      enter({at, w, items}, [&] { item(k); }, !typed);
    }
  }
  void variant(std::string& word, const std::vector<std::string>& words, const char*) override {
    word = r_.choice(given("type", Presence::kRequired), words, what("type"));
    Frame& f = top();
    std::vector<std::string> keys = scenarioKeysUnder(f.schema);  // the item's `type`
    f.schema = f.schema.substr(0, f.schema.size() - 2) + "[" + word + "]";
    for (const std::string& k : scenarioKeysUnder(f.schema)) keys.push_back(k);
    checkKeys(keys);
  }
  void names(const char* key, const char*, const std::vector<std::string>&,
             const std::function<void(const std::string&)>& entry, bool, Presence p) override {
    const YAML::Node n = given(key, p);
    if (!n) return;
    r_.requireMap(n, what(key));
    Frame f{n, what(key), schemaOf(key)};
    f.named = true;
    enter(f, [&] {
      for (auto it = n.begin(); it != n.end(); ++it) entry(it->first.Scalar());
    }, false);
  }
  void check(bool ok, const char* key, const std::string& message, bool prefixed) override {
    if (ok) return;
    const bool keyed = *key && child(key).IsDefined();
    r_.fail(keyed ? child(key) : top().node, prefixed ? (*key ? what(key) : where()) + ": " + message : message);
  }

 private:
  struct Frame {
    YAML::Node node;
    std::string what;    // as messages name it: "controllers[1].window"
    std::string schema;  // as the schema names it: "controllers[capture].window"
    bool named = false;  // a map of names: its entries' schema key is "*"
  };

  const Frame& top() const { return frames_.back(); }
  Frame& top() { return frames_.back(); }
  std::string what(const std::string& key) const { return top().what.empty() ? key : top().what + "." + key; }
  std::string where() const { return top().what.empty() ? "scenario" : top().what; }
  std::string schemaOf(const std::string& key) const {
    const std::string k = top().named ? "*" : key;
    return top().schema.empty() ? k : top().schema + "." + k;
  }
  YAML::Node child(const char* key) const {
    const YAML::Node& n = top().node;  // const access: never inserts
    return n[key];
  }
  // The value of `key`, or an empty node when it is absent (an error if required).
  YAML::Node given(const char* key, Presence p = Presence::kOptional) const {
    return p == Presence::kRequired ? r_.require(top().node, key, where()) : child(key);
  }
  double inRange(const YAML::Node& n, double x, Bounds range, const char* unit, const char* doc,
                 const std::string& w) const {
    if (range.contains(x)) return x;
    const std::string got = n.IsScalar() ? n.Scalar() : std::to_string(x);
    if (!std::isfinite(range.hi)) r_.fail(n, w + ": must be " + range.text() + ", got " + got);
    r_.fail(n, w + ": expected a value " + range.text() + (*unit ? std::string(" [") + unit + "]" : "") + " (" + doc +
                   "), got " + got);
  }
  void checkKeys(const std::vector<std::string>& keys) const { r_.checkKeys(top().node, keys, where()); }
  void enter(Frame f, const std::function<void()>& body, bool check_keys) {
    frames_.push_back(std::move(f));
    if (check_keys) checkKeys(scenarioKeysUnder(top().schema));
    body();
    frames_.pop_back();
  }

  const yaml::Reader& r_;
  std::vector<Frame> frames_;
};

// Emits a Scenario's fields as YAML.
class FieldWriter : public ScenarioFields {
 public:
  explicit FieldWriter(YAML::Emitter& e) : e_(e) {}

  bool loading() const override { return false; }
  bool wants(const char*, bool is_set) override { return is_set; }
  void number(const char* key, double& v, const char*, Bounds, const char*, Presence) override { put(key) << v; }
  void integer(const char* key, int& v, Bounds, const char*, Presence) override { put(key) << v; }
  void boolean(const char* key, bool& v, const char*) override { put(key) << v; }
  void text(const char* key, std::string& v, const char*, Presence p) override {
    if (p != Presence::kIfSet || !v.empty()) put(key) << v;
  }
  void choice(const char* key, std::string& word, const std::vector<std::string>&, const char*) override {
    put(key) << word;
  }
  void vector(const char* key, double* v, int n, const char*, const char*, Scale scale) override {
    put(key) << YAML::Flow << YAML::BeginSeq;
    for (int k = 0; k < n; ++k) e_ << v[k] * scale.to_file;
    e_ << YAML::EndSeq;
  }
  void numbers(const char* key, std::vector<double>& v, const char*, Bounds, const char*, Presence p) override {
    if (p != Presence::kIfSet || !v.empty()) put(key) << YAML::Flow << v;
  }
  void values(const char* key, std::vector<double>& v, const char*, const char*) override {
    if (v.size() == 1) {
      put(key) << v[0];
    } else {
      put(key) << YAML::Flow << v;
    }
  }
  void quaternion(const char* key, Vector4& q, const char* doc) override { vector(key, q.data(), 4, "", doc, {}); }
  void inertia(const char* key, Matrix3& I, const char*) override {
    put(key) << YAML::Flow << YAML::BeginMap;
    for (const auto& [name, value] : {std::pair{"xx", I(0, 0)}, std::pair{"yy", I(1, 1)}, std::pair{"zz", I(2, 2)},
                                      std::pair{"xy", I(0, 1)}, std::pair{"xz", I(0, 2)}, std::pair{"yz", I(1, 2)}}) {
      put(name) << value;
    }
    e_ << YAML::EndMap;
  }
  void limit(const char* key, std::optional<double>& v, const char*, const char*) override {
    if (v) {
      put(key) << *v;
    } else {
      put(key) << "off";
    }
  }
  void robot(ChaserSpec& c, const char*, const char*) override {
    if (c.model_yaml.empty()) {
      put("robot") << c.robot;
    } else {
      put("model") << YAML::Load(c.model_yaml);
    }
  }
  void section(const char* key, const char*, const std::function<void()>& body, bool flow, Presence) override {
    put(key);
    if (flow) e_ << YAML::Flow;
    e_ << YAML::BeginMap;
    body();
    e_ << YAML::EndMap;
  }
  void list(const char* key, const char*, std::size_t size, const std::function<void(std::size_t)>&,
            const std::function<void(std::size_t)>& item, bool flow, Presence) override {
    put(key) << YAML::BeginSeq;
    for (std::size_t k = 0; k < size; ++k) {
      if (flow) e_ << YAML::Flow;
      e_ << YAML::BeginMap;
      item(k);
      e_ << YAML::EndMap;
    }
    e_ << YAML::EndSeq;
  }
  void variant(std::string& word, const std::vector<std::string>&, const char*) override { put("type") << word; }
  void names(const char* key, const char*, const std::vector<std::string>& names,
             const std::function<void(const std::string&)>& entry, bool flow, Presence) override {
    put(key);
    if (flow) e_ << YAML::Flow;
    e_ << YAML::BeginMap;
    for (const std::string& n : names) entry(n);
    e_ << YAML::EndMap;
  }
  void check(bool, const char*, const std::string&, bool) override {}

 private:
  YAML::Emitter& put(const char* key) { return e_ << YAML::Key << key << YAML::Value; }
  YAML::Emitter& e_;
};

// Checks everything that needs the robot: names and sizes of the initial state and controllers,
// the frames the scenario names.
class ModelCheck {
 public:
  ModelCheck(const yaml::Reader& r, const YAML::Node& doc, const Scenario& s, const Model& m)
      : r_(r), doc_(doc), s_(s), m_(m) {
    for (int i = 1; i < m.nbodies; ++i) {
      if (m.joint[i].nv > 0) joints_.push_back(m.joint[i].name);
      if (m.flex[i].nf > 0) flexible_.push_back(m.body_name[i]);
    }
  }

  void run() const {
    initialState();
    for (std::size_t k = 0; k < s_.controllers.size(); ++k) controller(k);
    if (s_.chaser.attitude_control && m_.base_mode != BaseMode::kFloating) {
      r_.fail(doc_["chaser"]["attitude_control"], "chaser.attitude_control: only a floating bus has its attitude "
                                                  "controlled this way (the robot's base is " +
                                                  std::string(baseModeName(m_.base_mode)) + ")");
    }
    if (const auto& a = s_.chaser.attitude_control) {
      rateFilter(a->rate_filter, a->kd, doc_["chaser"]["attitude_control"], "chaser.attitude_control");
    }
    if (const auto& cam = s_.sensors.camera) {
      const YAML::Node at = doc_["sensors"]["camera"];
      if (!s_.debris.enabled) r_.fail(at, "sensors.camera: the camera sees the debris (the scenario has none)");
      if (!cam->frame.empty() && m_.frameId(cam->frame) < 0) noFrame(at["frame"], "sensors.camera.frame", cam->frame);
    }
    // The bus' sensors and actuators need a bus that moves.
    if (s_.sensors.gyro && !m_.hasFreeBase()) r_.fail(at("sensors", nullptr, nullptr, "gyro"), "sensors.gyro: the chaser's base is fixed");
    const ActuatorsSpec& a = s_.actuators;
    for (const char* key : {"wheels", "thrusters"}) {
      const bool given = std::string(key) == "wheels" ? a.wheels.has_value() : a.thrusters.has_value();
      if (given && m_.base_mode != BaseMode::kFloating) {
        std::string what = "actuators.";  // (appended piece by piece: GCC 12 warns on "a" + s)
        what += key;
        what += ": they act on a floating bus (the robot's base is ";
        what += baseModeName(m_.base_mode);
        r_.fail(at("actuators", nullptr, nullptr, key), what + ")");
      }
    }
    if (!s_.run.end_effector.empty() && m_.frameId(s_.run.end_effector) < 0) {
      noFrame(doc_["run"]["end_effector"], "run.end_effector", s_.run.end_effector);
    }
    if (s_.knowledge) knowledge();
  }

 private:
  // The node of doc[a][b][c][key], or the deepest that exists. (Handles are re-pointed with
  // reset(): `n = n[b]` would assign the child's value to the node n points at, rewriting the
  // caller's document.)
  YAML::Node at(const char* a, const char* b, const char* c, const std::string& key) const {
    YAML::Node n;
    n.reset(doc_[a]);
    if (n.IsDefined() && b) n.reset(static_cast<const YAML::Node&>(n)[b]);
    if (n.IsDefined() && c) n.reset(static_cast<const YAML::Node&>(n)[c]);
    const YAML::Node cn = n;
    if (cn.IsDefined() && cn.IsMap() && cn[key].IsDefined()) return YAML::Node(cn[key]);
    return n;
  }

  // A joint (names: joints_) or flexible body (flexible_) the robot does not have.
  [[noreturn]] void unknown(const YAML::Node& where, const std::string& what, const std::string& name,
                            const std::vector<std::string>& names) const {
    for (int i = 1; i < m_.nbodies; ++i) {  // a mimic joint has no coordinate of its own
      const Joint& j = m_.joint[i];
      if (names != joints_ || !isMimic(j) || j.name != name) continue;
      std::ostringstream rule;
      rule << "q = " << j.mimic_multiplier << " * q_" << m_.joint[j.mimic_body].name;
      if (j.mimic_offset != 0) rule << (j.mimic_offset < 0 ? " - " : " + ") << std::abs(j.mimic_offset);
      r_.fail(where, what + ": joint '" + name + "' mimics joint '" + m_.joint[j.mimic_body].name + "' (" +
                         rule.str() + "): a scenario gives only the independent joints; give '" +
                         m_.joint[j.mimic_body].name + "' instead");
    }
    const std::string hint = closestMatch(name, names);
    r_.fail(where, what + ": the robot has no " + (names == joints_ ? "joint" : "flexible body") +
                       " '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }

  [[noreturn]] void noFrame(const YAML::Node& where, const std::string& what, const std::string& name) const {
    std::vector<std::string> frames;
    for (const Frame& f : m_.frames) frames.push_back(f.name);
    const std::string hint = closestMatch(name, frames);
    r_.fail(where, what + ": no frame '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }

  void initialState() const {
    const ChaserInitialState& init = s_.chaser.initial;
    for (const auto* table : {&init.joint_position, &init.joint_velocity}) {
      for (const auto& [name, values] : *table) {
        const int b = m_.bodyOfJoint(name);
        const YAML::Node where = at("chaser", "initial", "joints", name);
        if (b < 0) unknown(where, "chaser.initial.joints", name, joints_);
        const Joint& j = m_.joint[b];
        const int n = table == &init.joint_position ? j.nq : j.nv;
        if (static_cast<int>(values.size()) != n) {
          r_.fail(where, "chaser.initial.joints." + name + ": a " + std::string(jointTypeName(j.type)) +
                             " joint takes " + std::to_string(n) + " value(s), got " + std::to_string(values.size()));
        }
      }
    }
    for (const auto* table : {&init.mode_position, &init.mode_velocity}) {
      for (const auto& [name, values] : *table) {
        const YAML::Node where = at("chaser", "initial", "modes", name);
        int b = -1;
        for (int i = 0; i < m_.nbodies; ++i) {
          if (m_.body_name[i] == name && m_.flex[i].nf > 0) b = i;
        }
        if (b < 0) unknown(where, "chaser.initial.modes", name, flexible_);
        if (static_cast<int>(values.size()) != m_.flex[b].nf) {
          r_.fail(where, "chaser.initial.modes." + name + ": " + std::to_string(m_.flex[b].nf) +
                             " modal value(s) expected, got " + std::to_string(values.size()));
        }
      }
    }
    if (m_.base_mode == BaseMode::kFixed && init.base_twist.norm() > 0) {
      r_.fail(at("chaser", "initial", "base", "twist"), "chaser.initial.base.twist: the base is fixed");
    }
  }

  // The controllers' model and debris can be built from the knowledge (sim/knowledge): errors at
  // the key at fault.
  void knowledge() const {
    try {
      if (s_.debris.enabled) knownDebris(s_.debris.properties, s_.debris.size, s_.knowledge->debris);
      Knowledge k(m_, s_);
    } catch (const KnowledgeError& e) {
      YAML::Node n;
      n.reset(doc_["knowledge"]);
      for (const std::string& key : e.keys()) {
        const YAML::Node cn = n;
        if (!cn.IsMap() || !cn[key].IsDefined()) break;
        n.reset(static_cast<const YAML::Node&>(cn)[key]);
      }
      r_.fail(n, e.what());
    }
  }

  // The robot's one-coordinate joints (those the aerial and capture laws drive).
  std::size_t oneDofJoints() const {
    std::size_t n1 = 0;
    for (int b = 0; b < m_.nbodies; ++b) n1 += m_.joint[b].nv == 1 ? 1 : 0;
    return n1;
  }

  void controller(std::size_t k) const {
    const ControllerSpec& c = s_.controllers[k];
    const YAML::Node where = doc_["controllers"][k];
    const std::string w = "controllers[" + std::to_string(k) + "]";
    for (const auto& [name, value] : c.target) {
      const int b = m_.bodyOfJoint(name);
      if (b < 0) unknown(where["target"][name], w + ".target", name, joints_);
      if (m_.joint[b].nv != 1) r_.fail(where["target"][name], "controllers: only 1-DOF joints follow a path");
    }
    for (std::size_t j = 0; j < c.windows.size(); ++j) {
      const int b = m_.bodyOfJoint(c.windows[j].joint);
      if (b < 0) unknown(where["windows"][j]["joint"], w + ".windows", c.windows[j].joint, joints_);
      if (m_.joint[b].nv != 1) r_.fail(where["windows"][j], "controllers: torque windows drive 1-DOF joints");
    }
    if (c.type == ControllerType::kAerial) aerial(c, where, w);
    if (c.type == ControllerType::kCapture) capture(k, c, where, w);
    rateFilter(c.rate_filter, c.kd, where, w);
  }

  // A rate filter (control/rate_filter) is sampled at the control instants, and its lag can be
  // compensated only while kd τ < 1.
  void rateFilter(double tau, double kd, const YAML::Node& where, const std::string& w) const {
    if (!(tau > 0)) return;
    if (!(s_.run.control_rate > 0)) {
      r_.fail(where["rate_filter"], w + ".rate_filter: the filter is sampled at the control rate; set run.control_rate (> 0)");
    }
    if (!(kd * tau < 1)) {
      r_.fail(where["rate_filter"], w + ".rate_filter: expected kd rate_filter < 1 (the lag is compensated only then; "
                                        "kd " + std::to_string(kd) + " 1/s, rate_filter " + std::to_string(tau) + " s)");
    }
  }

  void aerial(const ControllerSpec& c, const YAML::Node& where, const std::string& w) const {
    if (m_.base_mode != BaseMode::kFlying) r_.fail(where, w + ": an aerial controller drives a flying base (base_mode: flying)");
    if (!(s_.run.control_rate > 0)) {
      r_.fail(where, w + ": an aerial controller runs sampled, with its motors' lag: set run.control_rate (e.g. 500 Hz)");
    }
    for (int b = 1; b < m_.nbodies; ++b) {
      if (m_.joint[b].nv > 1) r_.fail(where, w + ": an aerial controller drives 1-DOF joints only");
    }
    const std::size_t n1 = oneDofJoints();
    if (static_cast<int>(n1) + 6 != m_.nv) r_.fail(where, w + ": an aerial controller needs a rigid robot");
    const ControllerSpec::Aerial& a = c.aerial;
    for (const auto& [key, g] : {std::pair{"kp", &a.kp}, std::pair{"kv", &a.kv}}) {
      if (g->size() != 6 + n1) {
        r_.fail(where[key].IsDefined() ? where[key] : where, w + "." + key + ": expected " + std::to_string(6 + n1) +
                                                             " gains (x y z roll pitch yaw, then one per joint), got " +
                                                             std::to_string(g->size()));
      }
    }
    for (std::size_t j = 0; j < a.waypoints.size(); ++j) {
      if (!a.waypoints[j].joints.empty() && a.waypoints[j].joints.size() != n1) {
        r_.fail(where["waypoints"][j]["joints"], w + ".waypoints[" + std::to_string(j) + "].joints: expected " +
                                                     std::to_string(n1) + " joint angles, got " +
                                                     std::to_string(a.waypoints[j].joints.size()));
      }
    }
  }

  void capture(std::size_t k, const ControllerSpec& c, const YAML::Node& where, const std::string& w) const {
    if (!s_.debris.enabled) r_.fail(where, w + ": a capture needs a debris (the scenario has none)");
    for (std::size_t j = 0; j < k; ++j) {
      if (s_.controllers[j].type == ControllerType::kCapture) r_.fail(where, w + ": one capture controller at most");
    }
    const std::size_t n1 = oneDofJoints();
    const ControllerSpec::Capture& cap = c.capture;
    for (const auto& [key, g] : {std::pair{"joint_kp", &cap.joint_kp}, std::pair{"joint_kd", &cap.joint_kd}}) {
      if (!g->empty() && g->size() != n1) {
        r_.fail(where[key], w + "." + key + ": expected " + std::to_string(n1) + " gains (one per joint of the robot), got " +
                                std::to_string(g->size()));
      }
    }
    if (cap.joint_rolloff.size() > 1 && cap.joint_rolloff.size() != n1) {
      r_.fail(where["joint_rolloff"], w + ".joint_rolloff: expected one bandwidth, or " + std::to_string(n1) +
                                          " (one per joint of the robot), got " + std::to_string(cap.joint_rolloff.size()));
    }
    if (!cap.joint_rolloff.empty() && !(s_.run.control_rate > 0)) {
      r_.fail(where["joint_rolloff"], w + ".joint_rolloff: the roll-off is a filter sampled at the control rate; set "
                                          "run.control_rate (> 0)");
    }
    if (cap.reaction_inverse == ReactionInverse::kAdjugate && n1 != 6) {
      r_.fail(where["reaction_inverse"], w + ".reaction_inverse: the adjugate inverts the square system [bus; hand] of a "
                                         "6-joint arm; the robot has " + std::to_string(n1));
    }
    if (cap.law == CaptureLaw::kJointPd && cap.joint_kp.empty() && n1 != 6) {
      r_.fail(where, w + ": law joint_pd needs joint_kp (the default gains, thesis Table 8.2, are for 6 joints; the robot has " +
                         std::to_string(n1) + ")");
    }
  }

  const yaml::Reader& r_;
  const YAML::Node& doc_;
  const Scenario& s_;
  const Model& m_;
  std::vector<std::string> joints_, flexible_;  // the robot's joints with coordinates, its flexible bodies
};

void checkAgainstModel(const yaml::Reader& r, const YAML::Node& doc, const Scenario& s, const Model& m) {
  ModelCheck(r, doc, s, m).run();
}

}  // namespace

LoadedScenario loadScenarioDocument(const std::string& path, const YAML::Node& doc) {
  const yaml::Reader r(path);
  LoadedScenario out;
  Scenario& s = out.scenario;
  s.file = path;
  s.name = fs::path(path).stem().string();
  FieldReader reader(r, doc);
  visitScenario(reader, s);
  // The scenario's settings that apply to the robot's model (the chaser's and the knowledge's).
  auto settle = [&](Model& m) {
    m.gravity_W = s.gravity;
    if (!s.chaser.structural_damping) return;
    for (FlexibleBody& f : m.flex) {
      if (f.nf == 0 || !f.D.isZero(0.0)) continue;
      f.D = modalDamping(f.K, f.frequency, Eigen::VectorXd::Constant(f.nf, *s.chaser.structural_damping));
    }
  };
  // A bad robot file reports its own file and line; an embedded robot, the scenario's.
  out.model = s.chaser.model_yaml.empty()
                  ? loadModelFile(s.chaser.robot_path, s.chaser.base_mode, &out.warnings, s.chaser.flex_model,
                                  s.chaser.inertia)
                  : buildModelYaml(r, doc["chaser"]["model"], s.chaser.base_mode, s.chaser.flex_model);
  settle(out.model);
  if (s.knowledge && !s.knowledge->robot.empty()) {
    KnowledgeSpec& k = *s.knowledge;
    fs::path p(k.robot);
    if (p.is_relative() && !path.empty()) p = fs::path(path).parent_path() / p;
    k.robot_path = p.lexically_normal().string();
    if (!fs::exists(k.robot_path)) r.fail(doc["knowledge"]["robot"], "knowledge.robot: no robot file '" + k.robot_path + "'");
    Model known = loadModelFile(k.robot_path, s.chaser.base_mode, &out.warnings, s.chaser.flex_model, s.chaser.inertia);
    settle(known);
    k.robot_model = std::make_shared<const Model>(std::move(known));
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



std::string scenarioToYaml(const Scenario& s) {
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  FieldWriter writer(e);
  Scenario copy = s;
  visitScenario(writer, copy);
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

void saveScenario(const Scenario& s, const std::string& path) {
  // The robot file is referenced relative to the scenario: saved elsewhere ("save as"), the
  // reference is rewritten relative to the new place.
  Scenario moved = s;
  if (!s.chaser.robot_path.empty()) {
    moved.chaser.robot = robotReference(s.chaser.robot_path, path);
  }
  if (s.knowledge && !s.knowledge->robot_path.empty()) {
    moved.knowledge->robot = robotReference(s.knowledge->robot_path, path);
  }
  writeFileAtomically(path, scenarioToYaml(moved));
}

}  // namespace grapple::core
