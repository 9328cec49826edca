#include "core/io/urdf.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include <tinyxml2.h>

#include "core/io/load_error.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

using tinyxml2::XMLElement;

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
      } else if (tag == "material" || tag == "transmission" || tag == "gazebo") {
        continue;  // rendering and ROS control data: not part of the dynamics
      } else {
        fail(e, "unknown element <" + tag +
                    "> in <robot> (expected link, joint, material, transmission or gazebo)");
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
      } else if (floating_joints_.count(from_world[0])) {
        mode = BaseMode::kFloating;
      } else {
        fail(joint_elements_[from_world[0]],
             "the joint from 'world' must be fixed or floating (it defines the base)");
      }
      joints.erase(joints.begin() + static_cast<long>(from_world[0]));
      links.erase(world);
    }
    for (const JointSpec& j : joints) {
      if (j.type == JointType::kFree) {
        throw LoadError(file_, j.where.line,
                        "joint '" + j.name + "': a floating joint is only allowed from 'world' "
                        "(Grapple's free joint is the base)");
      }
    }
    if (options_.base_mode) mode = *options_.base_mode;

    ModelBuilder b(name);
    b.setBaseMode(mode);
    b.setBasePlacement(base_placement_);
    for (LinkSpec& l : links) b.addLink(std::move(l));
    for (JointSpec& j : joints) b.addJoint(std::move(j));
    try {
      return {b.build(), warnings_};
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

  Transform origin(const XMLElement* parent) const {
    const XMLElement* o = parent->FirstChildElement("origin");
    if (o == nullptr) return Transform::Identity();
    checkAttributes(o, {"xyz", "rpy"});
    const std::vector<double> xyz = numbers(o, "xyz", 3, "0 0 0");
    const std::vector<double> rpy = numbers(o, "rpy", 3, "0 0 0");
    return {rpyToMatrix(Vector3(rpy[0], rpy[1], rpy[2])), Vector3(xyz[0], xyz[1], xyz[2])};
  }

  void checkChildren(const XMLElement* e, std::initializer_list<const char*> allowed) const {
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || std::string(c->Name()) == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(c, "unknown element <" + std::string(c->Name()) + "> in <" + e->Name() +
                    "> (expected " + list + ")");
      }
    }
  }
  void checkAttributes(const XMLElement* e, std::initializer_list<const char*> allowed) const {
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
      bool ok = false;
      for (const char* n : allowed) ok = ok || std::string(a->Name()) == n;
      if (!ok) fail(e, "unknown attribute '" + std::string(a->Name()) + "' on <" + e->Name() + ">");
    }
  }

  LinkSpec readLink(const XMLElement* e) {
    checkChildren(e, {"inertial", "visual", "collision"});
    LinkSpec link;
    link.name = attribute(e, "name");
    link.where = where(e);
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
    const Matrix3 I_link = X.R * I_c * X.R.transpose();
    const std::string why = checkPhysicalInertia(m, I_link);
    if (!why.empty()) fail(I ? I : in, "link '" + link.name + "': " + why);
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
    const std::size_t index = joint_elements_.size();
    joint_elements_.push_back(e);
    if (type == "revolute" || type == "continuous") {
      j.type = JointType::kRevolute;
    } else if (type == "prismatic") {
      j.type = JointType::kPrismatic;
    } else if (type == "fixed") {
      j.type = JointType::kFixed;
    } else if (type == "floating") {
      j.type = JointType::kFree;
      floating_joints_[index] = true;
    } else if (type == "planar") {
      fail(e, "joint '" + j.name + "': planar joints are not supported (use two prismatic and "
              "one revolute joint)");
    } else {
      fail(e, "joint '" + j.name + "': unknown type '" + type +
                  "' (expected revolute, continuous, prismatic, fixed or floating)");
    }
    const XMLElement* parent = e->FirstChildElement("parent");
    const XMLElement* child = e->FirstChildElement("child");
    if (parent == nullptr) fail(e, "joint '" + j.name + "' needs <parent link=...>");
    if (child == nullptr) fail(e, "joint '" + j.name + "' needs <child link=...>");
    j.parent = attribute(parent, "link");
    j.child = attribute(child, "link");
    j.origin = origin(e);
    if (const XMLElement* axis = e->FirstChildElement("axis")) {
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
      if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
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
      if (damping != 0.0 || friction != 0.0) {
        warn(dyn, "joint '" + j.name + "': damping and friction are not modelled and are ignored");
      }
    }
    if (const XMLElement* mimic = e->FirstChildElement("mimic")) {
      fail(mimic, "joint '" + j.name + "': mimic joints are not supported");
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
  std::map<std::size_t, bool> floating_joints_;
  std::vector<std::string> warnings_;
};

UrdfResult parse(tinyxml2::XMLDocument& doc, const std::string& name, const UrdfOptions& options) {
  if (doc.Error()) {
    // "XML_ERROR_MISMATCHED_ELEMENT" -> "mismatched element"
    std::string what = tinyxml2::XMLDocument::ErrorIDToName(doc.ErrorID());
    if (what.rfind("XML_ERROR_", 0) == 0) what = what.substr(10);
    for (char& c : what) c = c == '_' ? ' ' : static_cast<char>(std::tolower(c));
    throw LoadError(name, doc.ErrorLineNum(), "malformed XML (" + what + ")");
  }
  return UrdfReader(name, options).read(doc);
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
