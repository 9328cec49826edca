// The scenario format, declared once. Each section of a Scenario lists its keys in one visit
// function (scenario_schema.cpp): key, type, unit, valid range and a line of documentation, bound
// to the member that holds the value, whose initializer is the default (as Drake's config structs
// declare their fields once in Serialize(Archive*)). Walked by different "field visitors", that one
// list is the loader (scenario_yaml.cpp), the writer (scenarioToYaml) and the table below
// (scenarioSchema), from which the scenario editor takes its units, the tuning pages their units and
// ranges, and a test checks the key reference of scenarios/README.md.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/sim/scenario.hpp"

namespace grapple::core {

// The valid range of a number: lo < x (lo_open) or lo <= x, and likewise for hi.
struct Bounds {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;

  bool contains(double x) const {
    return (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  }
  // "> 0", ">= 0.1", "<= 3600", "in (0, 1]"; "" when every number is valid.
  std::string text() const;
};

namespace bounds {
inline constexpr Bounds kAny{};
inline constexpr Bounds kPositive{0, std::numeric_limits<double>::infinity(), true, false};
inline constexpr Bounds kNonNegative{0, std::numeric_limits<double>::infinity(), false, false};
constexpr Bounds between(double lo, double hi, bool lo_open = false, bool hi_open = false) {
  return {lo, hi, lo_open, hi_open};
}
constexpr Bounds atLeast(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
}  // namespace bounds

// Multiplies a value on the way in (file -> Scenario) and out: [deg] in the file, [rad] inside.
struct Scale {
  double to_model = 1, to_file = 1;
};
inline const Scale kDegrees{M_PI / 180, 180 / M_PI};

enum class KeyType {
  kSection,     // a map of keys
  kList,        // a list of sections
  kNames,       // a map from names (joints, flexible bodies) to values or sections
  kNumber,
  kInteger,
  kBool,
  kText,
  kChoice,      // one of `choices`
  kVector,      // a fixed number of numbers
  kNumbers,     // a list of numbers, any length
  kValues,      // a number, or a list for a multi-DOF joint
  kQuaternion,  // [w, x, y, z], normalized when read
  kInertia,     // {xx, yy, zz, xy, xz, yz}
  kLimit,       // a number or `off`
  kYamlMap,     // a map read by another format (the embedded robot)
};
const char* keyTypeName(KeyType t);

// One key of the format. `path` spells list items "[]", the items of a typed list by their type
// ("controllers[capture].kp") and the entries of a map of names "*" ("chaser.initial.joints.*").
struct ScenarioKey {
  std::string parent, key;
  KeyType type = KeyType::kNumber;
  std::string unit;                  // "" for none (a ratio, a count, a word)
  Bounds range;                      // numbers (of a kNumbers list: each one)
  std::vector<std::string> choices;  // kChoice
  std::string default_value;         // as a file writes it; "" when there is none to show
  bool required = false;
  std::string doc;

  std::string path() const { return parent.empty() ? key : parent + "." + key; }
};

// Every key of the format, in the order the writer writes them.
const std::vector<ScenarioKey>& scenarioSchema();
// The key at `path` as scenarioSchema spells it, or nullptr.
const ScenarioKey* scenarioKey(const std::string& path);
// The keys a section at schema path `section` ("" for the top level) may hold.
std::vector<std::string> scenarioKeysUnder(const std::string& section);
// The key a location in a scenario document names: steps of map keys and list indices ("controllers",
// 1, "window", "horizon"; index -1 means a key step). The document tells a typed list's item types.
// An index into a vector or list of numbers gives the vector's key. nullptr if not a scenario key.
struct PathStep {
  std::string key;
  int index = -1;
};
const ScenarioKey* scenarioKeyAt(const YAML::Node& doc, const std::vector<PathStep>& steps);

// How a value is present in a file. kOptional: read when given, written always; kRequired: must be
// given; kIfSet: written only when set (a non-empty text or list).
enum class Presence { kOptional, kRequired, kIfSet };

// Walks the fields of a Scenario (the visit functions of scenario_schema.cpp call these for each
// key). A reader sets the fields from a document, a writer emits them, a describer lists them.
class ScenarioFields {
 public:
  virtual ~ScenarioFields() = default;
  // Reading or describing (not writing): the defaults that hold when a section is given apply.
  virtual bool loading() const = 0;
  // Whether to visit an optional key: reading, when the document has it; writing, when `is_set`.
  virtual bool wants(const char* key, bool is_set) = 0;

  virtual void number(const char* key, double& v, const char* unit, Bounds range, const char* doc,
                      Presence p = Presence::kOptional) = 0;
  virtual void integer(const char* key, int& v, Bounds range, const char* doc, Presence p = Presence::kOptional) = 0;
  virtual void boolean(const char* key, bool& v, const char* doc) = 0;
  virtual void text(const char* key, std::string& v, const char* doc, Presence p = Presence::kOptional) = 0;
  virtual void choice(const char* key, std::string& word, const std::vector<std::string>& words,
                      const char* doc) = 0;
  virtual void vector(const char* key, double* v, int n, const char* unit, const char* doc,
                      Scale scale = {}) = 0;
  virtual void numbers(const char* key, std::vector<double>& v, const char* unit, Bounds each,
                       const char* doc, Presence p = Presence::kOptional) = 0;
  virtual void values(const char* key, std::vector<double>& v, const char* unit, const char* doc) = 0;
  virtual void quaternion(const char* key, Vector4& q, const char* doc) = 0;
  virtual void inertia(const char* key, Matrix3& I, const char* doc) = 0;  // required
  virtual void limit(const char* key, std::optional<double>& v, const char* unit, const char* doc) = 0;
  // chaser.robot (a file, resolved against the scenario's) or chaser.model (embedded): one of them.
  virtual void robot(ChaserSpec& c, const char* robot_doc, const char* model_doc) = 0;

  virtual void section(const char* key, const char* doc, const std::function<void()>& body, bool flow = false,
                       Presence p = Presence::kOptional) = 0;
  // A list of `size` items (resized when reading); `item(k)` visits item k. `flow`: items written on
  // one line each.
  virtual void list(const char* key, const char* doc, std::size_t size, const std::function<void(std::size_t)>& resize,
                    const std::function<void(std::size_t)>& item, bool flow, Presence p = Presence::kOptional) = 0;
  // The `type` of a typed list's item: its keys are those of the type.
  virtual void variant(std::string& word, const std::vector<std::string>& words, const char* doc) = 0;
  // A map from names to entries; writing, `names` are written; `entry(name)` visits one.
  virtual void names(const char* key, const char* doc, const std::vector<std::string>& names,
                     const std::function<void(const std::string&)>& entry, bool flow,
                     Presence p = Presence::kOptional) = 0;
  // A condition across keys: reading, false is an error at `key` ("" the section) saying
  // "<where>: <message>" (prefixed) or "<message>".
  virtual void check(bool ok, const char* key, const std::string& message, bool prefixed = true) = 0;
};

// Visits every field of the scenario (the format, declared once).
void visitScenario(ScenarioFields& f, Scenario& s);

}  // namespace grapple::core
