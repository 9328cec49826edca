// Scenario files (YAML, format 1; documented in scenarios/README.md). Loading validates every
// field against its type, range and the robot (joint and body names), and reports
// "file:line: what is wrong, what was expected"; unknown keys are errors with a did-you-mean.
// Saving writes every field, defaults included, to a temporary file renamed over the target, so
// a crash never leaves half a scenario.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/model/model.hpp"
#include "core/sim/scenario.hpp"

namespace grapple::core {

struct LoadedScenario {
  Scenario scenario;
  Model model;      // the chaser, with the scenario's overrides (base mode, flexible model, gravity)
  std::vector<std::string> warnings;  // from the robot file ("file:line: warning: ..."), e.g. URDF
                                      // joint damping, which Grapple ignores
};

using Overrides = std::vector<std::pair<std::string, std::string>>;

// One override as the command lines take it (`--set key=value`, grapple-cli's and the desktop
// application's): the key path before the first '=', the YAML value after it (possibly empty,
// possibly holding '='). Throws std::invalid_argument ("expects key=value, got '...'") when there
// is no '=' or no key.
std::pair<std::string, std::string> parseOverride(const std::string& text);

// `overrides`: (key path, YAML value) pairs applied before validation, e.g. ("run.duration", "5")
// or ("debris.initial.rate_deg_s", "[0, 0, 4]"): the CLI's --set. Throws LoadError.
LoadedScenario loadScenario(const std::string& path, const Overrides& overrides = {});

// The two halves of loadScenario, for a program that edits the document (the scenario editor):
// the file parsed, with the overrides applied but nothing validated (throws LoadError on a syntax
// error or a bad override) ...
YAML::Node readScenarioDocument(const std::string& path, const Overrides& overrides = {});
// One override applied to a parsed document ("a.b.c", YAML value; maps created on the way);
// `file` names the document in the LoadError thrown for a bad key or value.
void applyOverride(YAML::Node doc, const std::string& key, const std::string& value,
                   const std::string& file);
// ... and a parsed document validated and turned into a scenario and its model. `path` names the
// document in messages ("path:line: ...", lines of `doc`'s marks) and anchors a relative
// `chaser.robot`. `doc` is only read. Throws LoadError.
LoadedScenario loadScenarioDocument(const std::string& path, const YAML::Node& doc);

// The same validation for a scenario given as YAML text (e.g. scenarioToYaml of an edited
// Scenario, as the tuning panels do): `path` is where it lives (relative robot files resolve
// against it) and names it in the errors. Throws LoadError.
LoadedScenario loadScenarioText(const std::string& text, const std::string& path);

// The scenario as YAML text (every field written).
std::string scenarioToYaml(const Scenario& scenario);
// Writes atomically (temporary file + rename). Throws std::runtime_error if the file cannot be
// written (the message names it).
void saveScenario(const Scenario& scenario, const std::string& path);

}  // namespace grapple::core
