// Campaign files (YAML, format 1; documented in scenarios/campaigns/README.md): a base scenario,
// values varied over a full-factorial grid and random dispersions on any scenario value by its key
// path (list items and vector components included: `controllers[1].kp`,
// `debris.initial.rate_deg_s[2]`), a number of runs and a seed. Run i's values are a pure function
// of (seed, i) (core/campaign/random.hpp), so any run is reproduced alone. Loading validates every
// field and reports "file:line: what is wrong, what was expected", as scenario files do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::core::campaign {

// One value: numbers (a scalar is one number) or, for a choice among non-numeric items, YAML text.
struct Value {
  std::vector<double> numbers;
  std::string text;  // non-empty: the value is this YAML text (numbers unused)
  bool isText() const { return !text.empty(); }
};

enum class Distribution { kGrid, kUniform, kNormal, kTruncatedNormal, kLogUniform, kChoice, kUnitVector, kRotation, kInteger };
enum class Apply { kSet, kAdd, kMultiply };

struct Entry {
  std::string name;  // its column in runs.csv (default: the key)
  std::string key;   // the scenario value it sets; empty: a variable other entries refer to
  int line = 0;      // in the campaign file
  Distribution distribution = Distribution::kGrid;
  std::vector<Value> values;                     // grid values, or the choice's items
  double min = 0, max = 0, mean = 0, sigma = 0;  // as the distribution needs them (integer: whole numbers)
  double sigma_deg = 0;   // rotation: 0 = uniform over all rotations, else a normal rotation vector
  Apply apply = Apply::kSet;   // the value replaces, is added to or multiplies the base value
  bool normalize = false;      // a vector value scaled to unit length
  std::string scale;           // the value multiplied by this earlier entry's scalar (its
                               // runs.csv columns keep the value before the scale)
  std::string rotate_about;    // the value is an angle [deg] about this earlier entry's vector,
                               // composed with the base attitude in the body frame
};

struct Campaign {
  std::string file;           // the campaign file
  std::string name, description;
  std::string scenario_path;  // the base scenario, resolved
  Overrides set;              // fixed changes to the base scenario
  YAML::Node base;            // the base scenario document, `set` applied
  std::vector<Entry> entries; // the grid's axes first (the last varies fastest), then dispersions
  int grid_axes = 0;          // entries[0, grid_axes) are the grid
  long grid_points = 1;       // product of the axes' sizes
  long runs = 0;
  std::uint64_t seed = 0;
  bool channels = false;      // each run also writes its channels.csv
};

// Throws LoadError (file:line) for a bad campaign, a base scenario that does not load, or a key
// path that does not lead into the base scenario.
Campaign loadCampaign(const std::string& path);
// The same for a campaign document already read (`path` names it in messages, and relative
// paths start at its folder).
Campaign loadCampaignDocument(const std::string& path, const YAML::Node& doc);

// What run i uses: each entry's drawn value (its runs.csv columns), and each key's value as
// written into the scenario.
struct RunValues {
  long run = 0;
  std::vector<Value> drawn;                               // per entry
  std::vector<std::pair<std::string, Value>> assigned;    // key -> value written
};
RunValues drawRun(const Campaign& c, long run);
// The base scenario document with run i's values written (a deep copy; `c.base` untouched).
YAML::Node scenarioDocument(const Campaign& c, const RunValues& values);

// Run i's scenario as YAML text, self-contained (a relative robot path made absolute): what
// runs/NNNNNN/scenario.yaml holds, and what re-runs it anywhere.
std::string scenarioText(const Campaign& c, const RunValues& values);

// Column names of the drawn values (scalar "name", vector "name[k]") and the run's cells.
std::vector<std::string> valueColumns(const Campaign& c);
std::vector<std::string> valueCells(const RunValues& values);

// A number printed so that it reads back to the same double (17 significant digits).
std::string formatNumber(double x);
// A value as YAML text (a scalar or a flow sequence), exact.
std::string toYaml(const Value& v);

// The value at `key` of a scenario document; throws std::invalid_argument if the path is absent.
Value valueAt(const YAML::Node& doc, const std::string& key);

// The effective value of a dispersed key as the simulation uses it, read back from the built
// simulation before it runs: the debris' initial state and properties, the chaser's initial
// configuration (base pose, joints) from the simulation's state; any other key from the scenario
// the simulation holds (written back to YAML, in the file's units). Throws std::invalid_argument
// for a key the scenario does not have.
Value effectiveValue(const Simulation& sim, const std::string& key);

}  // namespace grapple::core::campaign
