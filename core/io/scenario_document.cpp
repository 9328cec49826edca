#include "core/io/scenario_document.hpp"

#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace grapple::core {

namespace fs = std::filesystem;

std::vector<PathStep> parseDocumentPath(const std::string& path) {
  std::vector<PathStep> steps;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) {
    if (p.empty()) throw std::invalid_argument("empty key component");
    const std::size_t open = p.find('[');
    const std::string name = p.substr(0, open);
    if (!name.empty()) steps.push_back({name, -1});
    if (name.empty() && (steps.empty() || open == std::string::npos)) throw std::invalid_argument("empty key component");
    for (std::size_t at = open; at != std::string::npos && at < p.size();) {
      const std::size_t close = p.find(']', at);
      const std::string digits = close == std::string::npos ? "" : p.substr(at + 1, close - at - 1);
      if (p[at] != '[' || digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        throw std::invalid_argument("'" + p + "': expected NAME or NAME[INDEX] (an index of 0 or more)");
      }
      steps.push_back({{}, std::stoi(digits)});
      at = close + 1;
    }
  }
  if (steps.empty()) throw std::invalid_argument("empty key");
  return steps;
}

std::optional<YAML::Node> nodeAt(const YAML::Node& root, const std::vector<PathStep>& steps) {
  YAML::Node cur;
  cur.reset(root);
  for (const PathStep& s : steps) {
    const YAML::Node c = cur;  // const access: no insertion
    if (s.index >= 0) {
      if (!c.IsSequence() || s.index >= static_cast<int>(c.size())) return std::nullopt;
      cur.reset(c[s.index]);
    } else {
      if (!c.IsMap()) return std::nullopt;
      const YAML::Node next = c[s.key];
      if (!next.IsDefined()) return std::nullopt;
      cur.reset(next);
    }
  }
  return cur;
}

namespace {

std::string scalarOf(const YAML::Node& map, const char* key) {
  if (!map.IsDefined() || !map.IsMap()) return {};  // (a missing key's node throws on IsMap)
  const YAML::Node v = map[key];
  return v.IsDefined() && v.IsScalar() ? v.Scalar() : std::string();
}

// The parent of the node at `steps` (the document itself for a top-level key).
YAML::Node parentOf(YAML::Node doc, const std::vector<PathStep>& steps) {
  if (steps.size() == 1) return doc;
  const std::optional<YAML::Node> parent = nodeAt(doc, {steps.begin(), steps.end() - 1});
  if (!parent) throw std::invalid_argument("no such node");
  return *parent;
}

// The list that holds item `steps` (which must name one), as its items (handles into doc).
// (Only ever push_back into a vector of nodes: insert and erase shift its elements by assignment,
// and assigning a YAML::Node rewrites the node it points at.)
std::vector<YAML::Node> itemsOf(const YAML::Node& seq) {
  std::vector<YAML::Node> items;
  for (const YAML::Node& n : seq) items.push_back(n);
  return items;
}

// The list at `steps` minus its last step replaced by clones of `items`, in its style.
void replaceList(YAML::Node doc, const std::vector<PathStep>& steps, const YAML::Node& list,
                 const std::vector<YAML::Node>& items) {
  YAML::Node seq(YAML::NodeType::Sequence);
  seq.SetStyle(list.Style());
  for (const YAML::Node& n : items) seq.push_back(YAML::Clone(n));
  const std::vector<PathStep> list_steps(steps.begin(), steps.end() - 1);
  YAML::Node holder = parentOf(doc, list_steps);
  if (list_steps.back().index >= 0) {
    holder[list_steps.back().index] = seq;
  } else {
    holder[list_steps.back().key] = seq;
  }
}

// The list holding the item `steps` names; throws if it names none.
YAML::Node listOf(YAML::Node doc, const std::vector<PathStep>& steps) {
  if (steps.size() < 2 || steps.back().index < 0) throw std::invalid_argument("not a list item");
  YAML::Node list = parentOf(doc, steps);
  if (!list.IsSequence() || steps.back().index >= static_cast<int>(list.size())) {
    throw std::invalid_argument("no such list item");
  }
  return list;
}

// `name` made unique among `taken` by a suffix.
std::string uniqueName(const std::string& name, const std::set<std::string>& taken) {
  std::string candidate = name + "_copy";
  for (int k = 2; taken.count(candidate); ++k) candidate = name + "_copy" + std::to_string(k);
  return candidate;
}

}  // namespace

void setNode(YAML::Node doc, const std::vector<PathStep>& steps, const YAML::Node& value) {
  YAML::Node parent = parentOf(doc, steps);
  const PathStep& last = steps.back();
  if (last.index >= 0) {
    if (!parent.IsSequence() || last.index >= static_cast<int>(parent.size())) throw std::invalid_argument("no such node");
    parent[last.index] = value;
  } else {
    if (!parent.IsMap()) throw std::invalid_argument("no such node");
    parent[last.key] = value;
  }
}

void removeNode(YAML::Node doc, const std::vector<PathStep>& steps) {
  if (!nodeAt(doc, steps)) throw std::invalid_argument("no such node");
  if (steps.back().index < 0) {
    parentOf(doc, steps).remove(steps.back().key);
    return;
  }
  const YAML::Node list = listOf(doc, steps);
  std::vector<YAML::Node> items = itemsOf(list), kept;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (static_cast<int>(i) != steps.back().index) kept.push_back(items[i]);
  }
  replaceList(doc, steps, list, kept);
}

void duplicateItem(YAML::Node doc, const std::vector<PathStep>& steps) {
  const YAML::Node list = listOf(doc, steps);
  const int index = steps.back().index;
  const std::vector<YAML::Node> items = itemsOf(list);
  YAML::Node copy = YAML::Clone(items[static_cast<std::size_t>(index)]);
  // Names must stay unique: the link's and its joint's.
  std::set<std::string> names, joints;
  for (const YAML::Node& n : items) {
    names.insert(scalarOf(n, "name"));
    if (n.IsMap()) joints.insert(scalarOf(n["joint"], "name"));
  }
  if (!scalarOf(copy, "name").empty()) copy["name"] = uniqueName(scalarOf(copy, "name"), names);
  if (copy.IsMap() && !scalarOf(copy["joint"], "name").empty()) {
    copy["joint"]["name"] = uniqueName(scalarOf(copy["joint"], "name"), joints);
  }
  std::vector<YAML::Node> with_copy;
  for (int i = 0; i < static_cast<int>(items.size()); ++i) {
    with_copy.push_back(items[static_cast<std::size_t>(i)]);
    if (i == index) with_copy.push_back(copy);
  }
  replaceList(doc, steps, list, with_copy);
}

void moveItem(YAML::Node doc, const std::vector<PathStep>& steps, int delta) {
  const YAML::Node list = listOf(doc, steps);
  const int from = steps.back().index, to = from + delta;
  if (to < 0 || to >= static_cast<int>(list.size())) throw std::invalid_argument("no place there");
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    if (i != from) order.push_back(i);
  }
  order.insert(order.begin() + to, from);
  std::vector<YAML::Node> items;
  for (int i : order) items.push_back(list[static_cast<std::size_t>(i)]);
  replaceList(doc, steps, list, items);
}

YAML::Node withModel(const YAML::Node& doc, const YAML::Node& model, bool keep_robot) {
  YAML::Node out(YAML::NodeType::Map);
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key != "chaser" || !it->second.IsMap()) {
      out[key] = YAML::Clone(it->second);
      continue;
    }
    YAML::Node chaser(YAML::NodeType::Map);
    for (auto c = it->second.begin(); c != it->second.end(); ++c) {
      const std::string ck = c->first.Scalar();
      if (ck == "robot") {
        if (keep_robot) chaser["robot"] = YAML::Clone(c->second);
        chaser["model"] = YAML::Clone(model);
      } else {
        chaser[ck] = YAML::Clone(c->second);
      }
    }
    out[key] = chaser;
  }
  return out;
}

std::string robotReference(const std::string& robot_path, const std::string& scenario_path) {
  const fs::path robot = fs::absolute(robot_path).lexically_normal();
  const fs::path rel = robot.lexically_relative(fs::absolute(scenario_path).lexically_normal().parent_path());
  return rel.empty() ? robot.string() : rel.generic_string();
}

std::string documentText(const YAML::Node& doc) {
  YAML::Emitter e;
  e << doc;
  return std::string(e.c_str()) + "\n";
}

}  // namespace grapple::core
