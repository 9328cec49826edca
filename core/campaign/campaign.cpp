#include "core/campaign/campaign.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/campaign/random.hpp"
#include "core/io/load_error.hpp"
#include "core/io/yaml_util.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core::campaign {
namespace {

namespace fs = std::filesystem;

// A key path "a.b[1].c[2]" as steps: a map key (index < 0) or a list index.
struct Step {
  std::string key;
  long index = -1;
};

std::vector<Step> parseKey(const std::string& path) {
  std::vector<Step> steps;
  std::size_t k = 0;
  auto bad = [&](const std::string& why) {
    throw std::invalid_argument("key path '" + path + "': " + why +
                                " (expected names separated by dots, list items as [i], e.g. controllers[1].kp)");
  };
  while (k < path.size()) {
    std::size_t end = k;
    while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
    if (end == k) bad("empty name at character " + std::to_string(k + 1));
    steps.push_back({path.substr(k, end - k), -1});
    k = end;
    while (k < path.size() && path[k] == '[') {
      const std::size_t close = path.find(']', k);
      if (close == std::string::npos) bad("unclosed '['");
      const std::string digits = path.substr(k + 1, close - k - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) bad("'[" + digits + "]' is not an index");
      steps.push_back({"", std::stol(digits)});
      k = close + 1;
    }
    if (k < path.size()) {
      if (path[k] != '.') bad("unexpected '" + path.substr(k, 1) + "'");
      if (++k == path.size()) bad("ends with '.'");
    }
  }
  if (steps.empty()) bad("empty");
  return steps;
}

// The node at `path` (undefined if a map key is missing). Throws for an index out of range or a
// step through a scalar.
YAML::Node nodeAt(const YAML::Node& doc, const std::string& path) {
  YAML::Node n = doc;
  for (const Step& s : parseKey(path)) {
    if (!n.IsDefined() || n.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    if (s.index >= 0) {
      if (!n.IsSequence() || s.index >= static_cast<long>(n.size())) {
        throw std::invalid_argument("'" + path + "': no item [" + std::to_string(s.index) + "] there (" +
                                    (n.IsSequence() ? "the list has " + std::to_string(n.size()) + " items" : "not a list") + ")");
      }
      n.reset(std::as_const(n)[s.index]);  // reset: Node's operator= would write into the document
    } else {
      if (!n.IsMap()) throw std::invalid_argument("'" + path + "': '" + s.key + "' is inside a value that is not a map");
      const YAML::Node next = std::as_const(n)[s.key];
      if (!next.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
      n.reset(next);
    }
  }
  return n;
}

// Writes `value` at `path`, creating missing map keys (as --set does); list items must exist.
void setAt(YAML::Node doc, const std::string& path, const YAML::Node& value) {
  const std::vector<Step> steps = parseKey(path);
  YAML::Node n = doc;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Step& s = steps[k];
    const bool last = k + 1 == steps.size();
    if (s.index >= 0) {
      if (!n.IsSequence() || s.index >= static_cast<long>(n.size())) {
        throw std::invalid_argument("'" + path + "': no item [" + std::to_string(s.index) + "] in the base scenario");
      }
      if (last) {
        n[s.index] = value;
        return;
      }
      n.reset(n[s.index]);
    } else {
      if (n.IsDefined() && !n.IsNull() && !n.IsMap()) {
        throw std::invalid_argument("'" + path + "': '" + s.key + "' is inside a value that is not a map");
      }
      if (last) {
        n[s.key] = value;
        return;
      }
      const YAML::Node existing = std::as_const(n)[s.key];
      if (!existing.IsDefined() || existing.IsNull()) n[s.key] = YAML::Node(YAML::NodeType::Map);
      const YAML::Node next = n[s.key];
      n.reset(next);
    }
  }
}

Value numbersOf(const YAML::Node& n, const std::string& path) {
  Value v;
  auto number = [&](const YAML::Node& x) {
    if (!x.IsScalar()) throw std::invalid_argument("'" + path + "' is not a number or a list of numbers");
    try {
      return yaml::evaluateExpression(x.Scalar());
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("'" + path + "' = '" + x.Scalar() + "' is not a number");
    }
  };
  if (n.IsSequence()) {
    for (const YAML::Node& x : n) v.numbers.push_back(number(x));
  } else {
    v.numbers.push_back(number(n));
  }
  return v;
}

YAML::Node toNode(const Value& v) {
  if (v.isText()) return YAML::Load(v.text);
  if (v.numbers.size() == 1) return YAML::Node(formatNumber(v.numbers[0]));
  YAML::Node seq(YAML::NodeType::Sequence);
  for (double x : v.numbers) seq.push_back(formatNumber(x));
  seq.SetStyle(YAML::EmitterStyle::Flow);
  return seq;
}

// Probability that a standard normal lies in [a, b].
double normalMass(double a, double b) { return 0.5 * (std::erfc(-b / M_SQRT2) - std::erfc(-a / M_SQRT2)); }

Value readValue(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  // Numbers (or lists of numbers) are kept as numbers; anything else as its YAML text.
  try {
    if (n.IsScalar() || n.IsSequence()) {
      Value v = numbersOf(n, what);
      if (!v.numbers.empty()) return v;
    }
  } catch (const std::invalid_argument&) {
  }
  if (!n.IsDefined() || n.IsNull()) r.fail(n, what + ": expected a value");
  YAML::Emitter e;
  e << YAML::Flow << n;
  return Value{{}, e.c_str()};
}

Entry readEntry(const yaml::Reader& r, const YAML::Node& n, const std::string& what, bool grid) {
  r.requireMap(n, what);
  Entry e;
  e.line = yaml::lineOf(n);
  if (grid) {
    r.checkKeys(n, {"key", "name", "values", "apply", "normalize", "scale", "rotate_about"}, what);
  } else {
    r.checkKeys(n, {"key", "name", "distribution", "min", "max", "mean", "sigma", "sigma_deg", "values", "apply",
                    "normalize", "scale", "rotate_about"}, what);
  }
  if (n["key"].IsDefined()) e.key = r.string(n["key"], what + ".key");
  if (n["name"].IsDefined()) e.name = r.string(n["name"], what + ".name");
  if (e.key.empty() && e.name.empty()) r.fail(n, what + ": expected a `key` (the scenario value to vary) or a `name`");
  if (e.name.empty()) e.name = e.key;
  if (!e.key.empty()) {
    try {
      parseKey(e.key);
    } catch (const std::invalid_argument& ex) {
      r.fail(n["key"], what + ".key: " + ex.what());
    }
  }
  auto numberAt = [&](const char* k) { return r.number(r.require(n, k, what), what + "." + k); };
  if (grid) {
    const YAML::Node values = r.require(n, "values", what);
    r.requireSequence(values, what + ".values");
    if (values.size() == 0) r.fail(values, what + ".values: expected at least one value");
    for (std::size_t k = 0; k < values.size(); ++k) e.values.push_back(readValue(r, values[k], what + ".values[" + std::to_string(k) + "]"));
  } else {
    const std::string d = r.choice(r.require(n, "distribution", what),
                                   {"uniform", "normal", "truncated_normal", "log_uniform", "choice", "unit_vector", "rotation", "integer"},
                                   what + ".distribution");
    auto only = [&](std::initializer_list<const char*> used) {
      for (const char* k : {"min", "max", "mean", "sigma", "sigma_deg", "values"}) {
        bool allowed = false;
        for (const char* u : used) allowed = allowed || std::string(u) == k;
        if (!allowed && n[k].IsDefined()) r.fail(n[k], what + "." + k + ": not a parameter of a " + d + " distribution");
      }
    };
    if (d == "uniform" || d == "log_uniform") {
      only({"min", "max"});
      e.distribution = d == "uniform" ? Distribution::kUniform : Distribution::kLogUniform;
      e.min = numberAt("min");
      e.max = numberAt("max");
      if (!(e.max > e.min)) r.fail(n["max"], what + ".max: expected more than min (" + formatNumber(e.min) + ")");
      if (d == "log_uniform" && !(e.min > 0)) r.fail(n["min"], what + ".min: a log-uniform distribution needs min > 0");
    } else if (d == "normal" || d == "truncated_normal") {
      e.distribution = d == "normal" ? Distribution::kNormal : Distribution::kTruncatedNormal;
      e.mean = numberAt("mean");
      e.sigma = r.positive(r.require(n, "sigma", what), what + ".sigma");
      if (d == "normal") {
        only({"mean", "sigma"});
      } else {
        only({"mean", "sigma", "min", "max"});
        e.min = numberAt("min");
        e.max = numberAt("max");
        if (!(e.max > e.min)) r.fail(n["max"], what + ".max: expected more than min (" + formatNumber(e.min) + ")");
        if (normalMass((e.min - e.mean) / e.sigma, (e.max - e.mean) / e.sigma) < 1e-4) {
          r.fail(n, what + ": [min, max] holds less than 1e-4 of the normal distribution; expected an interval near the mean");
        }
      }
    } else if (d == "choice") {
      only({"values"});
      e.distribution = Distribution::kChoice;
      const YAML::Node values = r.require(n, "values", what);
      r.requireSequence(values, what + ".values");
      if (values.size() == 0) r.fail(values, what + ".values: expected at least one value");
      for (std::size_t k = 0; k < values.size(); ++k) e.values.push_back(readValue(r, values[k], what + ".values[" + std::to_string(k) + "]"));
    } else if (d == "integer") {
      // Whole numbers (seeds, counts), exact as doubles up to 2^53.
      only({"min", "max"});
      e.distribution = Distribution::kInteger;
      e.min = numberAt("min");
      e.max = numberAt("max");
      for (const auto& [k, x] : {std::pair{"min", e.min}, std::pair{"max", e.max}}) {
        if (x != std::floor(x) || std::abs(x) > 0x1p53) {
          r.fail(n[k], what + "." + k + ": expected a whole number of magnitude at most 2^53");
        }
      }
      if (!(e.max >= e.min)) r.fail(n["max"], what + ".max: expected at least min (" + formatNumber(e.min) + ")");
    } else if (d == "unit_vector") {
      only({});
      e.distribution = Distribution::kUnitVector;
    } else {
      only({"sigma_deg"});
      e.distribution = Distribution::kRotation;
      if (n["sigma_deg"].IsDefined()) e.sigma_deg = r.positive(n["sigma_deg"], what + ".sigma_deg");
    }
  }
  if (n["apply"].IsDefined()) {
    const std::string a = r.choice(n["apply"], {"set", "add", "multiply"}, what + ".apply");
    e.apply = a == "set" ? Apply::kSet : a == "add" ? Apply::kAdd : Apply::kMultiply;
  }
  if (n["normalize"].IsDefined()) e.normalize = r.boolean(n["normalize"], what + ".normalize");
  if (n["scale"].IsDefined()) e.scale = r.string(n["scale"], what + ".scale");
  if (n["rotate_about"].IsDefined()) e.rotate_about = r.string(n["rotate_about"], what + ".rotate_about");
  if (e.distribution == Distribution::kRotation && e.apply != Apply::kSet) {
    r.fail(n["apply"], what + ".apply: a rotation is always composed with the base attitude");
  }
  if ((e.distribution == Distribution::kRotation || !e.rotate_about.empty()) && e.key.empty()) {
    r.fail(n, what + ": a rotation needs the `key` of the attitude it turns");
  }
  return e;
}

// The value drawn for entry `k` of run `run` (grid entries: from the run's grid point).
Value drawEntry(const Campaign& c, std::size_t k, long run, long point) {
  const Entry& e = c.entries[k];
  if (e.distribution == Distribution::kGrid) {
    long stride = 1;
    for (std::size_t a = k + 1; a < static_cast<std::size_t>(c.grid_axes); ++a) stride *= static_cast<long>(c.entries[a].values.size());
    return e.values[static_cast<std::size_t>((point / stride) % static_cast<long>(e.values.size()))];
  }
  RandomStream s(c.seed, static_cast<std::uint64_t>(run), static_cast<std::uint32_t>(k));
  switch (e.distribution) {
    case Distribution::kUniform: return Value{{e.min + (e.max - e.min) * s.uniform()}, ""};
    case Distribution::kLogUniform:
      return Value{{std::exp(std::log(e.min) + (std::log(e.max) - std::log(e.min)) * s.uniform())}, ""};
    case Distribution::kNormal: return Value{{e.mean + e.sigma * s.normal()}, ""};
    case Distribution::kTruncatedNormal:
      // Rejection: exact, and the interval was checked at load to hold at least 1e-4 of the mass.
      for (;;) {
        const double x = e.mean + e.sigma * s.normal();
        if (x >= e.min && x <= e.max) return Value{{x}, ""};
      }
    case Distribution::kChoice: {
      const auto n = static_cast<std::uint64_t>(e.values.size());
      return e.values[static_cast<std::size_t>(s.uniform() * static_cast<double>(n)) % n];
    }
    case Distribution::kInteger: {
      // min + floor(u (max - min + 1)), u uniform on (0, 1) with 53 random bits: each of the
      // n = max - min + 1 values equally likely up to n / 2^53.
      const double n = e.max - e.min + 1;
      return Value{{std::min(e.max, e.min + std::floor(s.uniform() * n))}, ""};
    }
    case Distribution::kUnitVector: {
      const Vector3 u = s.unitVector();
      return Value{{u[0], u[1], u[2]}, ""};
    }
    case Distribution::kRotation: {
      Vector4 q = e.sigma_deg > 0 ? quatExp(Vector3(s.normal(), s.normal(), s.normal()) * (e.sigma_deg * M_PI / 180))
                                  : s.rotation();
      if (q[0] < 0) q = -q;
      return Value{{q[0], q[1], q[2], q[3]}, ""};
    }
    case Distribution::kGrid: break;
  }
  return {};
}

Vector4 baseQuaternion(const YAML::Node& base, const std::string& key) {
  const YAML::Node n = nodeAt(base, key);
  if (!n.IsDefined() || n.IsNull()) return Vector4(1, 0, 0, 0);
  const Value v = numbersOf(n, key);
  if (v.numbers.size() != 4) throw std::invalid_argument("'" + key + "' is not a quaternion [w, x, y, z]");
  const Vector4 q(v.numbers[0], v.numbers[1], v.numbers[2], v.numbers[3]);
  return q.normalized();
}

int entryIndex(const Campaign& c, const std::string& name, std::size_t before) {
  for (std::size_t k = 0; k < before; ++k) {
    if (c.entries[k].name == name) return static_cast<int>(k);
  }
  return -1;
}

// What entry `e` does with a value (normalize it, scale it, turn about an axis by it, add it to
// or multiply the base value by it) needs numbers of a shape. The values of grid axes and
// choices are listed, so each is checked at load; the other distributions draw numbers of a
// fixed shape, checked on run 0.
void checkShape(const Campaign& c, const Entry& e, const Value& v) {
  const bool numeric = e.normalize || !e.scale.empty() || !e.rotate_about.empty() || e.apply != Apply::kSet;
  if (numeric && v.isText()) {
    throw std::invalid_argument("'" + v.text + "' is not a number, and the entry " +
                                (e.normalize ? "normalizes" : !e.scale.empty() ? "scales" : !e.rotate_about.empty() ? "turns by" : "adds or multiplies") +
                                " its value");
  }
  if (!e.rotate_about.empty() && v.numbers.size() != 1) {
    throw std::invalid_argument("the angle about '" + e.rotate_about + "' is one number (degrees), not " +
                                std::to_string(v.numbers.size()));
  }
  if (e.normalize && std::all_of(v.numbers.begin(), v.numbers.end(), [](double x) { return x == 0; })) {
    throw std::invalid_argument("a zero vector has no direction to normalize to");
  }
  if (e.apply != Apply::kSet && !e.key.empty()) {
    const Value base = numbersOf(nodeAt(c.base, e.key), e.key);
    if (base.numbers.size() != v.numbers.size() && v.numbers.size() != 1) {
      throw std::invalid_argument("'" + e.key + "': the value has " + std::to_string(v.numbers.size()) +
                                  " numbers, the base scenario's " + std::to_string(base.numbers.size()));
    }
  }
}

// Draw, then shape (normalize, scale) and compose with the base value: what the key receives.
RunValues draw(const Campaign& c, long run) {
  RunValues out;
  out.run = run;
  const long point = run % c.grid_points;
  std::vector<Value> shaped(c.entries.size());
  for (std::size_t k = 0; k < c.entries.size(); ++k) {
    const Entry& e = c.entries[k];
    Value v = drawEntry(c, k, run, point);
    checkShape(c, e, v);
    if (e.normalize && !v.isText()) {
      double n = 0;
      for (double x : v.numbers) n += x * x;
      n = std::sqrt(n);
      for (double& x : v.numbers) x /= n;
    }
    out.drawn.push_back(v);  // its columns: before the scale (e.g. a unit axis)
    if (!e.scale.empty()) {
      const double f = shaped[static_cast<std::size_t>(entryIndex(c, e.scale, k))].numbers.at(0);
      for (double& x : v.numbers) x *= f;
    }
    shaped[k] = v;
    if (e.key.empty()) continue;
    Value w = v;
    if (e.distribution == Distribution::kRotation || !e.rotate_about.empty()) {
      Vector4 r;
      if (!e.rotate_about.empty()) {
        const std::vector<double>& a = shaped[static_cast<std::size_t>(entryIndex(c, e.rotate_about, k))].numbers;
        const Vector3 axis = Vector3(a[0], a[1], a[2]).normalized();
        r = quatExp(axis * (v.numbers.at(0) * M_PI / 180));
      } else {
        r = Vector4(v.numbers[0], v.numbers[1], v.numbers[2], v.numbers[3]);
      }
      const Vector4 q = quatMultiply(baseQuaternion(c.base, e.key), r);
      w = Value{{q[0], q[1], q[2], q[3]}, ""};
    } else if (e.apply != Apply::kSet) {
      Value r = numbersOf(nodeAt(c.base, e.key), e.key);
      for (std::size_t i = 0; i < r.numbers.size(); ++i) {
        const double x = w.numbers[w.numbers.size() == 1 ? 0 : i];
        r.numbers[i] = e.apply == Apply::kAdd ? r.numbers[i] + x : r.numbers[i] * x;
      }
      w = r;
    }
    out.assigned.emplace_back(e.key, w);
  }
  return out;
}

}  // namespace

std::string formatNumber(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string toYaml(const Value& v) {
  if (v.isText()) return v.text;
  if (v.numbers.size() == 1) return formatNumber(v.numbers[0]);
  std::string s = "[";
  for (std::size_t k = 0; k < v.numbers.size(); ++k) s += (k ? ", " : "") + formatNumber(v.numbers[k]);
  return s + "]";
}

Value valueAt(const YAML::Node& doc, const std::string& key) {
  const YAML::Node n = nodeAt(doc, key);
  if (!n.IsDefined() || n.IsNull()) throw std::invalid_argument("'" + key + "' is not in the scenario");
  return numbersOf(n, key);
}

Campaign loadCampaign(const std::string& path) { return loadCampaignDocument(path, yaml::loadFile(path)); }

Campaign loadCampaignDocument(const std::string& path, const YAML::Node& doc) {
  const yaml::Reader r(path);
  r.requireMap(doc, "campaign");
  r.checkKeys(doc, {"format", "name", "description", "scenario", "set", "runs", "seed", "grid", "dispersions", "outputs"}, "campaign");
  Campaign c;
  c.file = path;
  if (doc["format"].IsDefined() && r.integer(doc["format"], "format") != 1) r.fail(doc["format"], "format: expected 1");
  c.name = doc["name"].IsDefined() ? r.string(doc["name"], "name") : fs::path(path).stem().string();
  if (doc["description"].IsDefined()) c.description = r.string(doc["description"], "description");
  const YAML::Node scenario = r.require(doc, "scenario", "campaign");
  const fs::path rel = r.string(scenario, "scenario");
  c.scenario_path = (rel.is_absolute() ? rel : fs::path(path).parent_path() / rel).lexically_normal().string();
  if (!fs::exists(c.scenario_path)) r.fail(scenario, "scenario: no file " + c.scenario_path + " (relative paths start at the campaign file)");
  if (const YAML::Node s = doc["set"]; s.IsDefined()) {
    r.requireMap(s, "set");
    for (auto it = s.begin(); it != s.end(); ++it) {
      YAML::Emitter e;
      e << YAML::Flow << it->second;
      c.set.emplace_back(it->first.Scalar(), e.c_str());
    }
  }
  c.seed = static_cast<std::uint64_t>(r.integer(r.require(doc, "seed", "campaign"), "seed"));
  if (const YAML::Node s = doc["seed"]; s.Scalar().find('-') != std::string::npos) r.fail(s, "seed: expected a non-negative integer");
  if (const YAML::Node o = doc["outputs"]; o.IsDefined()) {
    r.checkKeys(o, {"channels"}, "outputs");
    if (o["channels"].IsDefined()) c.channels = r.boolean(o["channels"], "outputs.channels");
  }
  // The base scenario, validated once: its own errors name its own file and line.
  c.base = readScenarioDocument(c.scenario_path, c.set);
  loadScenarioDocument(c.scenario_path, c.base);

  std::set<std::string> names, keys;
  auto add = [&](const YAML::Node& list, const std::string& what, bool grid) {
    if (!list.IsDefined()) return;
    r.requireSequence(list, what);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string w = what + "[" + std::to_string(k) + "]";
      Entry e = readEntry(r, list[k], w, grid);
      if (!names.insert(e.name).second) r.fail(list[k], w + ": the name '" + e.name + "' is used twice");
      if (!e.key.empty() && !keys.insert(e.key).second) r.fail(list[k], w + ": the key '" + e.key + "' is varied twice");
      for (const std::string* ref : {&e.scale, &e.rotate_about}) {
        if (ref->empty()) continue;
        const int at = entryIndex(c, *ref, c.entries.size());
        if (at < 0) r.fail(list[k], w + ": '" + *ref + "' is not the name of an earlier grid axis or dispersion");
        const Entry& other = c.entries[static_cast<std::size_t>(at)];
        const std::size_t want = ref == &e.scale ? 1 : 3;
        bool ok = other.distribution == Distribution::kUnitVector ? want == 3 : other.distribution != Distribution::kRotation;
        for (const Value& v : other.values) ok = ok && !v.isText() && v.numbers.size() == want;
        if (!ok) r.fail(list[k], w + ": '" + *ref + "' must be " + (want == 1 ? "a number" : "a 3-vector"));
      }
      if (!e.key.empty()) {
        // The path must lead into the base scenario (list items must exist), and a value of
        // the right shape must be there for the operations that need one.
        try {
          const YAML::Node at = nodeAt(c.base, e.key);
          if (e.apply != Apply::kSet && !at.IsDefined()) {
            throw std::invalid_argument("'" + e.key + "' is not in the base scenario, so there is nothing to add to or multiply");
          }
          if (e.distribution == Distribution::kRotation || !e.rotate_about.empty()) baseQuaternion(c.base, e.key);
          YAML::Node probe = YAML::Clone(c.base);
          setAt(probe, e.key, YAML::Node("0"));
        } catch (const std::invalid_argument& ex) {
          r.fail(list[k]["key"], w + ".key: " + ex.what());
        }
      }
      for (std::size_t i = 0; i < e.values.size(); ++i) {
        try {
          checkShape(c, e, e.values[i]);
        } catch (const std::invalid_argument& ex) {
          r.fail(list[k]["values"][i], w + ".values[" + std::to_string(i) + "]: " + ex.what());
        }
      }
      c.entries.push_back(std::move(e));
    }
  };
  add(doc["grid"], "grid", true);
  c.grid_axes = static_cast<int>(c.entries.size());
  for (const Entry& e : c.entries) c.grid_points *= static_cast<long>(e.values.size());
  add(doc["dispersions"], "dispersions", false);

  if (doc["runs"].IsDefined()) {
    c.runs = r.integer(doc["runs"], "runs");
    if (c.runs < 1) r.fail(doc["runs"], "runs: expected a positive number of runs");
    if (c.runs % c.grid_points != 0) {
      r.fail(doc["runs"], "runs: expected a multiple of the grid's " + std::to_string(c.grid_points) +
                              " points (each point gets the same number of random draws)");
    }
  } else if (c.grid_axes > 0) {
    c.runs = c.grid_points;
  } else {
    r.fail(doc, "campaign: missing key 'runs' (the number of runs)");
  }
  // Run 0, through the loader: a dispersion whose values the scenario refuses shows here, at
  // load time, rather than as every run failing.
  try {
    const RunValues v = draw(c, 0);
    loadScenarioDocument(c.scenario_path, scenarioDocument(c, v));
  } catch (const std::invalid_argument& ex) {
    r.fail(doc, std::string("campaign: run 0 cannot be drawn: ") + ex.what());
  } catch (const LoadError& ex) {
    r.fail(doc, "campaign: run 0's scenario is refused: " + std::string(ex.what()));
  }
  return c;
}

RunValues drawRun(const Campaign& c, long run) {
  if (run < 0 || run >= c.runs) throw std::invalid_argument("run " + std::to_string(run) + " is not in 0.." + std::to_string(c.runs - 1));
  return draw(c, run);
}

YAML::Node scenarioDocument(const Campaign& c, const RunValues& values) {
  YAML::Node doc = YAML::Clone(c.base);
  for (const auto& [key, v] : values.assigned) setAt(doc, key, toNode(v));
  return doc;
}

std::string scenarioText(const Campaign& c, const RunValues& values) {
  YAML::Node doc = scenarioDocument(c, values);
  if (const YAML::Node robot = std::as_const(doc)["chaser"]["robot"]; robot.IsDefined() && robot.IsScalar()) {
    const fs::path p = robot.Scalar();
    if (p.is_relative()) doc["chaser"]["robot"] = fs::absolute(fs::path(c.scenario_path).parent_path() / p).lexically_normal().string();
  }
  YAML::Emitter e;
  e << doc;
  return "# Run " + std::to_string(values.run) + " of the campaign " + c.file + "\n" + e.c_str() + "\n";
}

std::vector<std::string> valueColumns(const Campaign& c) {
  const RunValues v = draw(c, 0);
  std::vector<std::string> cols;
  for (std::size_t k = 0; k < c.entries.size(); ++k) {
    const Value& x = v.drawn[k];
    if (x.isText() || x.numbers.size() == 1) {
      cols.push_back(c.entries[k].name);
    } else {
      for (std::size_t i = 0; i < x.numbers.size(); ++i) cols.push_back(c.entries[k].name + "[" + std::to_string(i) + "]");
    }
  }
  return cols;
}

std::vector<std::string> valueCells(const RunValues& values) {
  std::vector<std::string> cells;
  for (const Value& x : values.drawn) {
    if (x.isText()) {
      cells.push_back(x.text);
    } else {
      for (double n : x.numbers) cells.push_back(formatNumber(n));
    }
  }
  return cells;
}

Value effectiveValue(const Simulation& sim, const std::string& key) {
  // Component [i] of a vector key: the vector's value, then the component.
  const std::vector<Step> steps = parseKey(key);
  std::string head = key;
  long component = -1;
  if (steps.size() > 1 && steps.back().index >= 0) {
    component = steps.back().index;
    head = key.substr(0, key.rfind('['));
  }
  auto pick = [&](Value v) {
    if (component < 0) return v;
    if (component >= static_cast<long>(v.numbers.size())) throw std::invalid_argument("'" + key + "': no such component");
    return Value{{v.numbers[static_cast<std::size_t>(component)]}, ""};
  };
  auto vec = [](const auto& x) {
    Value v;
    for (Eigen::Index i = 0; i < x.size(); ++i) v.numbers.push_back(x[i]);
    return v;
  };
  const Model& m = sim.model();
  const DebrisState d = sim.debris();
  const DebrisProperties& p = sim.scenario().debris.properties;
  if (head == "debris.initial.rate_deg_s") return pick(vec(d.w_B * (180 / M_PI)));
  if (head == "debris.initial.attitude") return pick(vec(d.Q_WB));
  if (head == "debris.initial.position") return pick(vec(d.r_W));
  if (head == "debris.initial.velocity") return pick(vec(d.v_W));
  if (head == "debris.mass") return Value{{p.mass}, ""};
  if (head == "debris.target") return pick(vec(p.target_B));
  static const std::map<std::string, std::pair<int, int>> kInertia = {
      {"xx", {0, 0}}, {"yy", {1, 1}}, {"zz", {2, 2}}, {"xy", {0, 1}}, {"xz", {0, 2}}, {"yz", {1, 2}}};
  if (head.rfind("debris.inertia.", 0) == 0) {
    const auto it = kInertia.find(head.substr(15));
    // The tensor as the simulation holds it (products as the file gives them).
    if (it != kInertia.end()) return Value{{p.inertia(it->second.first, it->second.second)}, ""};
  }
  if (m.hasFreeBase()) {
    if (head == "chaser.initial.base.position") return pick(vec(sim.q().head<3>()));
    if (head == "chaser.initial.base.attitude") return pick(vec(sim.q().segment<4>(3)));
  }
  const std::string joints = "chaser.initial.joints.";
  if (head.rfind(joints, 0) == 0 && head.size() > joints.size() + 9 &&
      head.compare(head.size() - 9, 9, ".position") == 0) {
    const std::string name = head.substr(joints.size(), head.size() - joints.size() - 9);
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].name == name) return pick(vec(sim.q().segment(m.joint[b].idx_q, m.joint[b].nq)));
    }
  }
  // Any other value: from the scenario the simulation holds, written back to the file's format.
  return pick(valueAt(YAML::Load(scenarioToYaml(sim.scenario())), head));
}

}  // namespace grapple::core::campaign
