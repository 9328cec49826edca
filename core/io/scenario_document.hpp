// Edits of a scenario's YAML document, by paths of map keys and list indices
// ("chaser.model.links[2].mass", "controllers[1].kd", "debris.initial.rate_deg_s[2]") as the
// command lines' --set and the scenario editor name its nodes. Qt-free: the editor (ui/) and the
// loader's overrides share it. The edits work on the document in place; validating the result is
// the loader's (loadScenarioDocument).
//
// (yaml-cpp: assigning a YAML::Node to another copies the value into the node it points at;
// handles are re-pointed with reset(), and lists are rebuilt from clones rather than shifted.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/io/scenario_schema.hpp"

namespace grapple::core {

// "a.b[1].c" as steps (map key, or list index >= 0). Throws std::invalid_argument saying what is
// wrong: "empty key component", "'b[x]': expected NAME or NAME[INDEX] (an index of 0 or more)".
std::vector<PathStep> parseDocumentPath(const std::string& path);

// A handle to the node at `steps` in root (assigning through it edits root), or nullopt if there
// is none. Never inserts anything.
std::optional<YAML::Node> nodeAt(const YAML::Node& root, const std::vector<PathStep>& steps);

// The node at `steps` becomes `value`: the parent must exist (a map gains the key, a list must
// have the index). Throws std::invalid_argument when it does not.
void setNode(YAML::Node doc, const std::vector<PathStep>& steps, const YAML::Node& value);
// Removes a map key or a list item. Throws std::invalid_argument if there is none.
void removeNode(YAML::Node doc, const std::vector<PathStep>& steps);
// Inserts a copy of a list item after it; its `name` (and its joint's `name`, for a link) made
// unique among the list's by a suffix ("_copy", "_copy2", ...). Throws std::invalid_argument if
// `steps` names no list item.
void duplicateItem(YAML::Node doc, const std::vector<PathStep>& steps);
// Moves a list item by `delta` places (-1: up). Throws std::invalid_argument if it cannot.
void moveItem(YAML::Node doc, const std::vector<PathStep>& steps, int delta);

// A copy of the document with the chaser's `robot` replaced by (keep_robot: followed by) `model`,
// the keys in their order.
YAML::Node withModel(const YAML::Node& doc, const YAML::Node& model, bool keep_robot);

// The reference a scenario saved at `scenario_path` writes for the robot file `robot_path` (as
// resolved when it was read): relative to the scenario's folder, or absolute when there is no
// relative path between them.
std::string robotReference(const std::string& robot_path, const std::string& scenario_path);

// The document as text (yaml-cpp's emitter), ending with a newline.
std::string documentText(const YAML::Node& doc);

}  // namespace grapple::core
