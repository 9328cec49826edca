// writeUrdf: a Model as URDF (declared in urdf.hpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

#include "core/io/urdf.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

// Shortest text that reads back as the same double.
std::string num(double x) {
  char buf[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string vec(const Vector3& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }

// XML attribute text: & < > " escaped.
std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string originTag(const Transform& X) {
  return "<origin xyz=\"" + vec(X.p) + "\" rpy=\"" + vec(matrixToRpy(X.R)) + "\"/>";
}

class Writer {
 public:
  explicit Writer(const Model& m) : m_(m) {
    for (const Frame& f : m.frames) names_.insert(f.name);
  }

  std::string write() {
    for (int i = 0; i < m_.nbodies; ++i) {
      if (m_.joint[i].type == JointType::kSpherical) {
        throw ModelError({}, "joint '" + m_.joint[i].name + "' is spherical: URDF has no ball joint "
                             "with the same coordinates (a quaternion), so the model cannot be written "
                             "as URDF");
      }
    }
    os_ << "<?xml version=\"1.0\"?>\n";
    os_ << "<!-- Written by Grapple from the model '" << comment(m_.name) << "'. -->\n";
    if (m_.gravity_W.norm() > 0) {
      os_ << "<!-- Gravity " << vec(m_.gravity_W) << " m/s^2 is not part of URDF. -->\n";
    }
    os_ << "<robot name=\"" << esc(m_.name) << "\">\n";
    // The base: "world" welds it at its placement, or frees it.
    if (m_.base_mode == BaseMode::kFixed) {
      if (!isIdentity(m_.X_parent_joint[0] * linkFrame(0))) {
        os_ << "  <link name=\"" << freshName("world") << "\"/>\n";
        joint("base_placement", "fixed", last_fresh_, m_.body_name[0],
              m_.X_parent_joint[0] * linkFrame(0), std::nullopt, "");
      }
    } else {
      if (m_.base_mode == BaseMode::kFlying) {
        os_ << "  <!-- The base is flying (actuated) in Grapple; URDF only says it is free. -->\n";
      }
      os_ << "  <link name=\"" << freshName("world") << "\"/>\n";
      joint("base_free", "floating", last_fresh_, m_.body_name[0], Transform::Identity(),
            std::nullopt, "");
    }
    for (int i = 0; i < m_.nbodies; ++i) {
      body(i);
      if (i > 0) bodyJoint(i);
    }
    // Links merged into bodies (fixed joints) and other frames: massless links on fixed joints.
    for (const Frame& f : m_.frames) {
      if (f.name == m_.body_name[f.body]) continue;
      os_ << "  <link name=\"" << esc(f.name) << "\"/>\n";
      joint(f.name + "_fixed", "fixed", m_.body_name[f.body], f.name,
            linkFrame(f.body).inverse() * f.X_body_frame, std::nullopt, "");
    }
    os_ << "</robot>\n";
    return os_.str();
  }

 private:
  static bool isIdentity(const Transform& X) {
    return (X.R - Matrix3::Identity()).cwiseAbs().maxCoeff() == 0 && X.p.cwiseAbs().maxCoeff() == 0;
  }
  static std::string comment(std::string s) {
    for (std::size_t k; (k = s.find("--")) != std::string::npos;) s.replace(k, 2, "- -");
    return s;
  }
  // A link name not used by the model.
  std::string freshName(const std::string& base) {
    std::string n = base;
    for (int k = 1; names_.count(n); ++k) n = base + "_" + std::to_string(k);
    names_.insert(n);
    last_fresh_ = n;
    return n;
  }
  // The frame of the link that defines body i, in the body frame (the body frame of a revolute or
  // prismatic joint has its z axis on the joint axis; the link keeps its own).
  Transform linkFrame(int i) const {
    const int f = m_.frameId(m_.body_name[i]);
    return f >= 0 && m_.frames[f].body == i ? m_.frames[f].X_body_frame : Transform::Identity();
  }

  void body(int i) {
    const Transform F = linkFrame(i);
    const Transform F_inv = F.inverse();
    os_ << "  <link name=\"" << esc(m_.body_name[i]) << "\">\n";
    if (m_.flex[i].nf > 0) {
      os_ << "    <!-- Flexible in Grapple (" << m_.flex[i].nf
          << " modes): written as its rigid equivalent, the undeformed body. -->\n";
    }
    const Inertia I = m_.inertia[i].toParent(F_inv);  // about the link origin, link components
    if (I.m > 0) {
      const Matrix3 Ic = I.inertiaAboutCom();
      os_ << "    <inertial>\n      " << originTag({Matrix3::Identity(), I.com()}) << "\n"
          << "      <mass value=\"" << num(I.m) << "\"/>\n"
          << "      <inertia ixx=\"" << num(Ic(0, 0)) << "\" ixy=\"" << num(Ic(0, 1)) << "\" ixz=\""
          << num(Ic(0, 2)) << "\" iyy=\"" << num(Ic(1, 1)) << "\" iyz=\"" << num(Ic(1, 2))
          << "\" izz=\"" << num(Ic(2, 2)) << "\"/>\n    </inertial>\n";
    }
    for (const auto& [tag, shapes] : {std::pair{"visual", &m_.visual}, std::pair{"collision", &m_.collision}}) {
      for (const Geometry& g : *shapes) {
        if (g.body != i) continue;
        const Transform X = F_inv * g.origin;
        if (g.type == ShapeType::kCapsule) {  // urdfdom has no capsule: a cylinder and two balls
          const double r = g.size.x(), h = g.size.y();
          shape(tag, X, "<cylinder radius=\"" + num(r) + "\" length=\"" + num(h) + "\"/>", g);
          for (double s : {-0.5, 0.5}) {
            shape(tag, X * Transform{Matrix3::Identity(), Vector3(0, 0, s * h)},
                  "<sphere radius=\"" + num(r) + "\"/>", g);
          }
          continue;
        }
        std::string geo;
        switch (g.type) {
          case ShapeType::kBox: geo = "<box size=\"" + vec(g.size) + "\"/>"; break;
          case ShapeType::kCylinder:
            geo = "<cylinder radius=\"" + num(g.size.x()) + "\" length=\"" + num(g.size.y()) + "\"/>";
            break;
          case ShapeType::kSphere: geo = "<sphere radius=\"" + num(g.size.x()) + "\"/>"; break;
          case ShapeType::kMesh:
            geo = "<mesh filename=\"" + esc(g.mesh_path.empty() ? g.mesh_uri : g.mesh_path) +
                  "\" scale=\"" + vec(g.scale) + "\"/>";
            break;
          case ShapeType::kCapsule: break;
        }
        shape(tag, X, geo, g);
      }
    }
    os_ << "  </link>\n";
  }

  void shape(const char* tag, const Transform& X, const std::string& geo, const Geometry& g) {
    os_ << "    <" << tag << ">\n      " << originTag(X) << "\n      <geometry>" << geo << "</geometry>\n";
    if (std::string(tag) == "visual" && g.has_color) {
      os_ << "      <material name=\"" << esc(g.link) << "_" << ++material_count_ << "\"><color rgba=\""
          << num(g.rgba[0]) << " " << num(g.rgba[1]) << " " << num(g.rgba[2]) << " " << num(g.rgba[3])
          << "\"/></material>\n";
    }
    os_ << "    </" << tag << ">\n";
  }

  // The limits of velocity coordinate k of body i's joint, configuration coordinate kq.
  std::string limit(int kq, int kv, bool position) const {
    auto finite = [](double x) { return std::isfinite(x) ? x : 0.0; };  // 0: none, in URDF
    std::string s = "<limit";
    if (position) {
      s += " lower=\"" + num(m_.lower_position_limit[kq]) + "\" upper=\"" +
           num(m_.upper_position_limit[kq]) + "\"";
    }
    return s + " effort=\"" + num(finite(m_.effort_limit[kv])) + "\" velocity=\"" +
           num(finite(m_.velocity_limit[kv])) + "\"/>";
  }

  // One degree of freedom of a joint: revolute/continuous or prismatic with its limits.
  std::string dofType(bool revolute, int kq, bool* limited) const {
    *limited = std::isfinite(m_.lower_position_limit[kq]) && std::isfinite(m_.upper_position_limit[kq]);
    if (revolute) return *limited ? "revolute" : "continuous";
    return "prismatic";  // urdfdom needs lower/upper on a prismatic joint: 0 0 means none
  }

  void bodyJoint(int i) {
    const Joint& j = m_.joint[i];
    const int p = m_.parent[i];
    const Transform X = linkFrame(p).inverse() * m_.X_parent_joint[i] * linkFrame(i);
    const Matrix3 R_LB = linkFrame(i).R.transpose();  // body -> child link components
    for (int d = 0; d < j.nv; ++d) {
      if (m_.armature[j.idx_v + d] > 0) {
        os_ << "  <!-- Joint '" << comment(j.name) << "' has an armature of "
            << num(m_.armature[j.idx_v + d]) << " (not part of URDF). -->\n";
      }
    }
    const std::string& parent = m_.body_name[p];
    const std::string& child = m_.body_name[i];
    if (isMimic(j)) {  // following the joint its chain of mimics ends at; its own limits unused
      const bool revolute = j.type == JointType::kRevolute;
      joint(j.name, revolute ? "continuous" : "prismatic", parent, child, X, R_LB * j.axis,
            revolute ? "" : "<limit lower=\"0\" upper=\"0\" effort=\"0\" velocity=\"0\"/>",
            "<mimic joint=\"" + esc(m_.joint[j.mimic_body].name) + "\" multiplier=\"" +
                num(j.mimic_multiplier) + "\" offset=\"" + num(j.mimic_offset) + "\"/>");
      return;
    }
    switch (j.type) {
      case JointType::kFixed:
        joint(j.name, "fixed", parent, child, X, std::nullopt, "");
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic: {
        bool limited = false;
        const std::string type = dofType(j.type == JointType::kRevolute, j.idx_q, &limited);
        joint(j.name, type, parent, child, X, R_LB * j.axis,
              limit(j.idx_q, j.idx_v, limited || j.type == JointType::kPrismatic));
        break;
      }
      case JointType::kCylindrical:
      case JointType::kUniversal: {
        // First DOF to a massless link placed as the child at q = 0, second DOF to the child.
        const bool cyl = j.type == JointType::kCylindrical;
        os_ << "  <!-- Grapple's " << jointTypeName(j.type) << " joint '" << comment(j.name)
            << "' as two joints through a massless link. -->\n";
        const std::string mid = freshName(child + "_" + (cyl ? "rotation" : "first_axis"));
        os_ << "  <link name=\"" << esc(mid) << "\"/>\n";
        bool limited = false;
        std::string type = dofType(true, j.idx_q, &limited);
        joint(j.name + "_0", type, parent, mid, X, R_LB * j.axis, limit(j.idx_q, j.idx_v, limited));
        type = dofType(!cyl, j.idx_q + 1, &limited);
        joint(j.name + "_1", type, mid, child, Transform::Identity(), R_LB * (cyl ? j.axis : j.axis2),
              limit(j.idx_q + 1, j.idx_v + 1, limited || cyl));
        break;
      }
      case JointType::kPlanar:
        if (isIdentity(linkFrame(i))) {
          joint(j.name, "planar", parent, child, X, j.axis, "");
        } else {
          // The joint frame (z on the axis) becomes the frame of a massless link, so that the
          // in-plane coordinates read back along the same directions.
          os_ << "  <!-- Grapple's planar joint '" << comment(j.name)
              << "' moves a massless link in its joint frame, which carries the child. -->\n";
          const std::string mid = freshName(child + "_plane");
          os_ << "  <link name=\"" << esc(mid) << "\"/>\n";
          joint(j.name, "planar", parent, mid, linkFrame(p).inverse() * m_.X_parent_joint[i], j.axis, "");
          joint(j.name + "_link", "fixed", mid, child, linkFrame(i), std::nullopt, "");
        }
        break;
      case JointType::kFree:
        joint(j.name, "floating", parent, child, X, std::nullopt, "");
        break;
      case JointType::kSpherical:
        break;  // refused above
    }
  }

  void joint(const std::string& name, const std::string& type, const std::string& parent,
             const std::string& child, const Transform& X, const std::optional<Vector3>& axis,
             const std::string& limit, const std::string& mimic = "") {
    os_ << "  <joint name=\"" << esc(name) << "\" type=\"" << type << "\">\n"
        << "    <parent link=\"" << esc(parent) << "\"/>\n    <child link=\"" << esc(child) << "\"/>\n"
        << "    " << originTag(X) << "\n";
    if (axis) os_ << "    <axis xyz=\"" << vec(*axis) << "\"/>\n";
    if (!limit.empty()) os_ << "    " << limit << "\n";
    if (!mimic.empty()) os_ << "    " << mimic << "\n";
    os_ << "  </joint>\n";
  }

  const Model& m_;
  std::ostringstream os_;
  std::set<std::string> names_;
  std::string last_fresh_;
  int material_count_ = 0;
};

}  // namespace

std::string writeUrdf(const Model& model) { return Writer(model).write(); }

}  // namespace grapple::core
