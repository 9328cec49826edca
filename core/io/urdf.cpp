#include "core/io/urdf.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <Eigen/Eigenvalues>
#include <tinyxml2.h>

#include "core/io/load_error.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\n\r"));
  s.erase(s.find_last_not_of(" \t\n\r") + 1);
  return s;
}

// The name a ROS package folder declares in its package.xml (<name>), empty if it has none.
std::string packageName(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "package.xml", ec)) return {};
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile((dir / "package.xml").c_str()) != tinyxml2::XML_SUCCESS) return {};
  const XMLElement* root = doc.RootElement();
  const XMLElement* name = root ? root->FirstChildElement("name") : nullptr;
  return name && name->GetText() ? trimmed(name->GetText()) : std::string();
}

// The folder of package `pkg` under `root`: root itself, root/pkg, or a package folder up to
// `depth` levels down (rospack crawls ROS_PACKAGE_PATH the same way).
std::optional<fs::path> findPackageUnder(const fs::path& root, const std::string& pkg, int depth) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  if (packageName(root) == pkg) return root;
  if (fs::is_regular_file(root / pkg / "package.xml", ec)) return root / pkg;
  if (depth == 0) return std::nullopt;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    if (it->is_directory(ec) && !leaf.empty() && leaf[0] != '.') {
      if (auto found = findPackageUnder(it->path(), pkg, depth - 1)) return found;
    }
  }
  return std::nullopt;
}

std::vector<std::string> splitPathList(const char* env) {
  std::vector<std::string> out;
  if (env == nullptr) return out;
  std::stringstream in(env);
  std::string item;
  while (std::getline(in, item, ':')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

std::string resolveMeshUri(const std::string& uri, const std::string& urdf_file) {
  std::error_code ec;
  const fs::path here = fs::absolute(fs::path(urdf_file), ec).parent_path();
  fs::path file;
  if (uri.rfind("package://", 0) == 0) {
    const std::string rest = uri.substr(10);
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos) return {};
    const std::string pkg = rest.substr(0, slash), inside = rest.substr(slash + 1);
    std::optional<fs::path> dir;
    for (const std::string& root : splitPathList(std::getenv("ROS_PACKAGE_PATH"))) {
      if ((dir = findPackageUnder(root, pkg, 2))) break;
    }
    if (!dir) {
      for (const std::string& prefix : splitPathList(std::getenv("AMENT_PREFIX_PATH"))) {
        if (fs::is_directory(fs::path(prefix) / "share" / pkg, ec)) {
          dir = fs::path(prefix) / "share" / pkg;
          break;
        }
      }
    }
    // Near the file: the package holding it, or a folder of that name beside one of its folders.
    for (fs::path p = here; !dir && !p.empty(); p = p.parent_path()) {
      if (packageName(p) == pkg) {
        dir = p;
      } else if (fs::is_directory(p / pkg, ec)) {
        dir = p / pkg;
      }
      if (p == p.parent_path()) break;
    }
    if (!dir) return {};
    file = *dir / inside;
  } else if (uri.rfind("file://", 0) == 0) {
    file = uri.substr(7);
  } else {
    file = fs::path(uri).is_absolute() ? fs::path(uri) : here / uri;
  }
  file = file.lexically_normal();  // "urdf/../meshes" even where urdf/ does not exist
  return fs::is_regular_file(file, ec) ? file.string() : std::string();
}

namespace {

class UrdfReader {
 public:
  UrdfReader(std::string file, const UrdfOptions& options) : file_(std::move(file)), options_(options) {}

  UrdfResult read(tinyxml2::XMLDocument& doc) {
    const XMLElement* robot = doc.RootElement();
    if (robot == nullptr || std::string(robot->Name()) != "robot") {
      fail(robot, std::string("the root element must be <robot>") +
                      (robot ? ", got <" + std::string(robot->Name()) + ">" : ""));
    }
    std::string name = robot->Attribute("name") ? robot->Attribute("name") : "robot";
    // Materials first: a link may use a material defined anywhere in the file.
    for (const XMLElement* e = robot->FirstChildElement("material"); e;
         e = e->NextSiblingElement("material")) {
      readMaterial(e);
    }
    ModelBuilder builder(name);
    std::vector<JointSpec> joints;
    std::map<std::string, const XMLElement*> link_elements;
    for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "link") {
        LinkSpec link = readLink(e);
        link_elements[link.name] = e;
        builder.addLink(std::move(link));
      } else if (tag == "joint") {
        joints.push_back(readJoint(e));
      } else if (tag == "material" || tag == "transmission" || tag == "ros2_control" ||
                 tag == "gazebo") {
        continue;  // colours (read above), ROS control and Gazebo data: not part of the dynamics
      } else {
        ignored(e, "element <" + tag + "> in <robot>");
      }
    }

    // The "world" idiom: a massless root link named world, joined to the robot by one joint.
    BaseMode mode = BaseMode::kFixed;
    std::vector<LinkSpec> links = builder.links();
    auto world = std::find_if(links.begin(), links.end(), [](const LinkSpec& l) { return l.name == "world"; });
    if (world != links.end()) {
      std::vector<std::size_t> from_world;
      for (std::size_t k = 0; k < joints.size(); ++k) {
        if (joints[k].child == "world") fail(joint_elements_[k], "link 'world' cannot be a child");
        if (joints[k].parent == "world") from_world.push_back(k);
      }
      if (from_world.size() != 1) {
        fail(link_elements["world"], "link 'world' must be joined to the robot by exactly one joint");
      }
      const JointSpec& wj = joints[from_world[0]];
      if (wj.type == JointType::kFixed) {
        mode = BaseMode::kFixed;
        base_placement_ = wj.origin;
      } else if (wj.type == JointType::kFree) {
        mode = BaseMode::kFloating;
      } else {
        fail(joint_elements_[from_world[0]],
             "the joint from 'world' must be fixed or floating (it defines the base)");
      }
      joints.erase(joints.begin() + static_cast<long>(from_world[0]));
      links.erase(world);
    }
    if (options_.base_mode) mode = *options_.base_mode;

    ModelBuilder b(name);
    b.setBaseMode(mode);
    b.setBasePlacement(base_placement_);
    for (LinkSpec& l : links) b.addLink(std::move(l));
    for (JointSpec& j : joints) b.addJoint(std::move(j));
    try {
      Model model = b.build();
      // ROS tools read a mimic's own limits and do not enforce them: a conflict is a warning.
      for (const ModelError& e : b.mimicLimitConflicts()) {
        warnings_.push_back(LoadError::format(file_, e.where().line, "warning: " + e.message() +
                                                                         "; its own limits are not used"));
      }
      return {std::move(model), warnings_};
    } catch (const ModelError& e) {
      throw LoadError(file_, e.where().line, e.message());
    }
  }

 private:
  [[noreturn]] void fail(const XMLElement* e, const std::string& message) const {
    throw LoadError(file_, e ? e->GetLineNum() : 0, message);
  }
  void warn(const XMLElement* e, const std::string& message) {
    warnings_.push_back(LoadError::format(file_, e->GetLineNum(), "warning: " + message));
  }
  // Elements and attributes URDF readers skip: one warning per kind, at its first occurrence.
  void ignored(const XMLElement* e, const std::string& what) {
    if (ignored_.insert(what).second) warn(e, "unknown " + what + " is ignored");
  }
  SourceLocation where(const XMLElement* e) const { return {file_, e->GetLineNum()}; }

  std::string attribute(const XMLElement* e, const char* name, bool required = true) const {
    const char* v = e->Attribute(name);
    if (v == nullptr) {
      if (required) fail(e, "<" + std::string(e->Name()) + "> needs the attribute '" + name + "'");
      return {};
    }
    return v;
  }

  std::vector<double> numbers(const XMLElement* e, const char* attr, std::size_t n,
                              const std::string& fallback) const {
    const char* v = e->Attribute(attr);
    const std::string text = v ? v : fallback;
    std::istringstream in(text);
    std::vector<double> out;
    std::string token;
    while (in >> token) {
      char* end = nullptr;
      const double x = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0' || !std::isfinite(x)) {
        fail(e, "<" + std::string(e->Name()) + " " + attr + "=\"" + text +
                    "\">: expected finite numbers, got '" + token + "'");
      }
      out.push_back(x);
    }
    if (out.size() != n) {
      fail(e, "<" + std::string(e->Name()) + " " + attr + "=\"" + text + "\">: expected " +
                  std::to_string(n) + " number(s), got " + std::to_string(out.size()));
    }
    return out;
  }
  double number(const XMLElement* e, const char* attr, double fallback, bool required) const {
    if (e->Attribute(attr) == nullptr) {
      if (required) fail(e, "<" + std::string(e->Name()) + "> needs the attribute '" + attr + "'");
      return fallback;
    }
    return numbers(e, attr, 1, "")[0];
  }

  Transform origin(const XMLElement* parent) {
    const XMLElement* o = parent->FirstChildElement("origin");
    if (o == nullptr) return Transform::Identity();
    checkAttributes(o, {"xyz", "rpy"});
    const std::vector<double> xyz = numbers(o, "xyz", 3, "0 0 0");
    const std::vector<double> rpy = numbers(o, "rpy", 3, "0 0 0");
    return {rpyToMatrix(Vector3(rpy[0], rpy[1], rpy[2])), Vector3(xyz[0], xyz[1], xyz[2])};
  }

  void checkChildren(const XMLElement* e, std::initializer_list<const char*> allowed) {
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || std::string(c->Name()) == a;
      if (!ok) ignored(c, "element <" + std::string(c->Name()) + "> in <" + e->Name() + ">");
    }
  }
  void checkAttributes(const XMLElement* e, std::initializer_list<const char*> allowed) {
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
      bool ok = false;
      for (const char* n : allowed) ok = ok || std::string(a->Name()) == n;
      if (!ok) ignored(e, "attribute '" + std::string(a->Name()) + "' on <" + e->Name() + ">");
    }
  }

  // <material name="..."><color rgba="r g b a"/></material>: its colour, if it has one, is
  // remembered by name for the visuals that name it.
  std::optional<std::array<float, 4>> readMaterial(const XMLElement* e) {
    checkChildren(e, {"color", "texture"});
    const std::string name = e->Attribute("name") ? e->Attribute("name") : "";
    if (const XMLElement* c = e->FirstChildElement("color")) {
      const std::vector<double> v = numbers(c, "rgba", 4, "");
      for (double x : v) {
        if (x < 0 || x > 1) fail(c, "<color rgba>: expected 4 numbers between 0 and 1");
      }
      const std::array<float, 4> rgba = {float(v[0]), float(v[1]), float(v[2]), float(v[3])};
      if (!name.empty()) materials_[name] = rgba;
      return rgba;
    }
    if (auto it = materials_.find(name); it != materials_.end()) return it->second;
    return std::nullopt;
  }

  // <visual> or <collision>: an origin and one <geometry>.
  Geometry readGeometry(const XMLElement* e, const std::string& link) {
    checkChildren(e, {"origin", "geometry", "material"});
    Geometry g;
    g.link = link;
    g.origin = origin(e);
    const XMLElement* geo = e->FirstChildElement("geometry");
    if (geo == nullptr) fail(e, "link '" + link + "': <" + e->Name() + "> needs a <geometry>");
    const XMLElement* s = geo->FirstChildElement();
    if (s == nullptr) fail(geo, "link '" + link + "': <geometry> needs a box, cylinder, sphere or mesh");
    const std::string kind = s->Name();
    if (kind == "box") {
      g.type = ShapeType::kBox;
      const std::vector<double> v = numbers(s, "size", 3, "");
      g.size = Vector3(v[0], v[1], v[2]);
    } else if (kind == "cylinder" || kind == "capsule") {
      g.type = kind == "cylinder" ? ShapeType::kCylinder : ShapeType::kCapsule;
      g.size = Vector3(number(s, "radius", 0, true), number(s, "length", 0, true), 0);
    } else if (kind == "sphere") {
      g.type = ShapeType::kSphere;
      g.size = Vector3(number(s, "radius", 0, true), 0, 0);
    } else if (kind == "mesh") {
      g.type = ShapeType::kMesh;
      g.mesh_uri = attribute(s, "filename");
      g.mesh_path = resolveMeshUri(g.mesh_uri, file_);
      const std::vector<double> v = numbers(s, "scale", 3, "1 1 1");
      g.scale = Vector3(v[0], v[1], v[2]);
    } else {
      fail(s, "link '" + link + "': unknown geometry <" + kind +
                  "> (expected box, cylinder, sphere, capsule or mesh)");
    }
    if ((g.size.array() < 0).any()) fail(s, "link '" + link + "': sizes must be >= 0 m");
    if (const XMLElement* m = e->FirstChildElement("material")) {
      if (auto rgba = readMaterial(m)) {
        g.has_color = true;
        g.rgba = *rgba;
      }
    }
    return g;
  }

  LinkSpec readLink(const XMLElement* e) {
    checkChildren(e, {"inertial", "visual", "collision"});
    LinkSpec link;
    link.name = attribute(e, "name");
    link.where = where(e);
    for (const XMLElement* v = e->FirstChildElement("visual"); v; v = v->NextSiblingElement("visual")) {
      link.visual.push_back(readGeometry(v, link.name));
    }
    for (const XMLElement* c = e->FirstChildElement("collision"); c;
         c = c->NextSiblingElement("collision")) {
      link.collision.push_back(readGeometry(c, link.name));
    }
    const XMLElement* in = e->FirstChildElement("inertial");
    if (in == nullptr) return link;  // massless: fine for frames, checked by the builder
    checkChildren(in, {"origin", "mass", "inertia"});
    const XMLElement* mass = in->FirstChildElement("mass");
    if (mass == nullptr) fail(in, "<inertial> of link '" + link.name + "' needs <mass>");
    const double m = number(mass, "value", 0.0, true);
    if (m < 0) fail(mass, "link '" + link.name + "': mass must be >= 0 kg");
    const XMLElement* I = in->FirstChildElement("inertia");
    Matrix3 I_c = Matrix3::Zero();
    if (I != nullptr) {
      checkAttributes(I, {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"});
      const double ixx = number(I, "ixx", 0, true), iyy = number(I, "iyy", 0, true),
                   izz = number(I, "izz", 0, true), ixy = number(I, "ixy", 0, false),
                   ixz = number(I, "ixz", 0, false), iyz = number(I, "iyz", 0, false);
      I_c << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    } else if (m > 0) {
      fail(in, "<inertial> of link '" + link.name + "' has a mass but no <inertia>");
    }
    const Transform X = origin(in);
    Matrix3 I_link = X.R * I_c * X.R.transpose();
    const std::string why = checkPhysicalInertia(m, I_link);
    if (!why.empty()) {
      if (options_.inertia != InertiaPolicy::kRepair) {
        fail(I ? I : in, "link '" + link.name + "': " + why +
                             " (to load the file anyway with the nearest physical inertia: "
                             "--inertia repair, or 'inertia: repair' in the scenario's chaser)");
      }
      const Matrix3 repaired = nearestPhysicalInertia(I_link);
      Eigen::SelfAdjointEigenSolver<Matrix3> before(I_link, Eigen::EigenvaluesOnly),
          after(repaired, Eigen::EigenvaluesOnly);
      std::ostringstream os;
      os << "link '" << link.name << "': inertia repaired, principal moments ("
         << before.eigenvalues().transpose() << ") -> (" << after.eigenvalues().transpose()
         << ") kg m^2";
      warn(I ? I : in, os.str());
      I_link = repaired;
    }
    link.inertia = Inertia::FromCom(m, X.p, I_link);
    return link;
  }

  JointSpec readJoint(const XMLElement* e) {
    checkChildren(e, {"origin", "parent", "child", "axis", "limit", "dynamics", "safety_controller",
                      "calibration", "mimic"});
    JointSpec j;
    j.name = attribute(e, "name");
    j.where = where(e);
    const std::string type = attribute(e, "type");
    joint_elements_.push_back(e);
    if (type == "revolute" || type == "continuous") {
      j.type = JointType::kRevolute;
    } else if (type == "prismatic") {
      j.type = JointType::kPrismatic;
    } else if (type == "fixed") {
      j.type = JointType::kFixed;
    } else if (type == "floating") {
      j.type = JointType::kFree;
    } else if (type == "planar") {
      j.type = JointType::kPlanar;
    } else {
      fail(e, "joint '" + j.name + "': unknown type '" + type +
                  "' (expected revolute, continuous, prismatic, fixed, floating or planar)");
    }
    const XMLElement* parent = e->FirstChildElement("parent");
    const XMLElement* child = e->FirstChildElement("child");
    if (parent == nullptr) fail(e, "joint '" + j.name + "' needs <parent link=...>");
    if (child == nullptr) fail(e, "joint '" + j.name + "' needs <child link=...>");
    j.parent = attribute(parent, "link");
    j.child = attribute(child, "link");
    j.origin = origin(e);
    const bool moves = j.type == JointType::kRevolute || j.type == JointType::kPrismatic;
    const XMLElement* axis = e->FirstChildElement("axis");
    // Fixed and floating joints have no axis: urdfdom skips it.
    if (axis != nullptr && (moves || j.type == JointType::kPlanar)) {
      const std::vector<double> a = numbers(axis, "xyz", 3, "1 0 0");
      j.axis = Vector3(a[0], a[1], a[2]);
      if (j.axis.norm() < 1e-12) fail(axis, "joint '" + j.name + "': the axis is zero");
    } else {
      j.axis = Vector3::UnitX();  // the URDF default
    }
    if (const XMLElement* limit = e->FirstChildElement("limit")) {
      checkAttributes(limit, {"lower", "upper", "effort", "velocity"});
      if (type == "revolute" || type == "prismatic") {
        if (limit->Attribute("lower") || limit->Attribute("upper")) {
          const double lo = number(limit, "lower", 0.0, false);
          const double hi = number(limit, "upper", 0.0, false);
          if (lo > hi) fail(limit, "joint '" + j.name + "': lower limit is above the upper limit");
          if (lo < hi) {  // URDF writes 0 0 for "no limit"
            j.lower = {lo};
            j.upper = {hi};
          }
        }
      }
      if (moves) {
        const double effort = number(limit, "effort", 0.0, false);
        const double velocity = number(limit, "velocity", 0.0, false);
        if (effort < 0 || velocity < 0) {
          fail(limit, "joint '" + j.name + "': effort and velocity limits must be >= 0");
        }
        if (effort > 0) j.effort = {effort};
        if (velocity > 0) j.velocity = {velocity};
      }
    }
    if (const XMLElement* dyn = e->FirstChildElement("dynamics")) {
      checkAttributes(dyn, {"damping", "friction"});
      const double damping = number(dyn, "damping", 0.0, false);
      const double friction = number(dyn, "friction", 0.0, false);
      if ((damping != 0.0 || friction != 0.0) && ignored_.insert("dynamics").second) {
        warn(dyn, "joint '" + j.name + "': damping and friction are not modelled and are ignored "
                  "(here and in every other joint)");
      }
    }
    if (const XMLElement* mimic = e->FirstChildElement("mimic")) {
      checkAttributes(mimic, {"joint", "multiplier", "offset"});
      j.mimic = attribute(mimic, "joint");
      j.multiplier = number(mimic, "multiplier", 1.0, false);
      j.offset = number(mimic, "offset", 0.0, false);
      if (!moves) {
        fail(mimic, "joint '" + j.name + "': only a revolute, continuous or prismatic joint can "
                    "mimic another");
      }
      j.where = where(mimic);  // mimic errors (unknown joint, cycle) point at the <mimic>
    }
    if (const XMLElement* s = e->FirstChildElement("safety_controller")) {
      warn(s, "joint '" + j.name + "': <safety_controller> is ignored");
    }
    return j;
  }

  std::string file_;
  UrdfOptions options_;
  Transform base_placement_;
  std::vector<const XMLElement*> joint_elements_;
  std::map<std::string, std::array<float, 4>> materials_;
  std::set<std::string> ignored_;
  std::vector<std::string> warnings_;
};

// The first xacro construct in the tree under e, as written (<xacro:include>, xyz="${l} 0 0"): a
// <xacro:...> element or an attribute with a ${...} expression or a $(...) substitution, which
// xacro expands and a URDF reader sees as they are. Null if there is none.
const XMLElement* firstXacro(const XMLElement* e, std::string* what) {
  if (std::string(e->Name()).rfind("xacro:", 0) == 0) {
    *what = "<" + std::string(e->Name()) + ">";
    return e;
  }
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    const std::string v = a->Value();
    if (v.find("${") != std::string::npos || v.find("$(") != std::string::npos) {
      *what = std::string(a->Name()) + "=\"" + v + "\"";
      return e;
    }
  }
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (const XMLElement* x = firstXacro(c, what)) return x;
  }
  return nullptr;
}

UrdfResult parse(tinyxml2::XMLDocument& doc, const std::string& name, const UrdfOptions& options) {
  if (doc.Error()) {
    // "XML_ERROR_MISMATCHED_ELEMENT" -> "mismatched element"
    std::string what = tinyxml2::XMLDocument::ErrorIDToName(doc.ErrorID());
    if (what.rfind("XML_ERROR_", 0) == 0) what = what.substr(10);
    for (char& c : what) c = c == '_' ? ' ' : static_cast<char>(std::tolower(c));
    throw LoadError(name, doc.ErrorLineNum(), "malformed XML (" + what + ")");
  }
  try {
    return UrdfReader(name, options).read(doc);
  } catch (const LoadError& e) {
    // A xacro file read as URDF fails somewhere after its first macro: point at the macro.
    std::string what;
    const XMLElement* x = doc.RootElement() ? firstXacro(doc.RootElement(), &what) : nullptr;
    if (x == nullptr) throw;
    const std::string at = e.line() > 0 ? " at line " + std::to_string(e.line()) : "";
    throw LoadError(name, x->GetLineNum(),
                    what + " is unexpanded xacro, expected URDF: expand the file first (xacro " +
                        fs::path(name).filename().string() + " > robot.urdf) and load the " +
                        "result (read as URDF it fails" + at + ": " + e.message() + ")");
  }
}

}  // namespace

UrdfResult loadUrdf(const std::string& path, const UrdfOptions& options) {
  tinyxml2::XMLDocument doc;
  const tinyxml2::XMLError err = doc.LoadFile(path.c_str());
  if (err == tinyxml2::XML_ERROR_FILE_NOT_FOUND || err == tinyxml2::XML_ERROR_FILE_COULD_NOT_BE_OPENED) {
    throw LoadError(path, 0, "cannot open the file");
  }
  return parse(doc, path, options);
}

UrdfResult loadUrdfString(const std::string& xml, const std::string& name,
                          const UrdfOptions& options) {
  tinyxml2::XMLDocument doc;
  doc.Parse(xml.c_str(), xml.size());
  return parse(doc, name, options);
}

}  // namespace grapple::core
