#include "core/io/model_yaml.hpp"

#include "core/geometry/collision.hpp"
#include "core/io/urdf.hpp"
#include "core/math/dh.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

SourceLocation at(const yaml::Reader& r, const YAML::Node& n) { return {r.file(), yaml::lineOf(n)}; }

// mass [kg], com [m] and inertia about the com, in the link frame.
Inertia readBody(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  const YAML::Node mass = n["mass"];
  const double m = mass.IsDefined() ? r.nonNegative(mass, what + ".mass") : 0.0;
  const Vector3 com = n["com"].IsDefined() ? r.vector3(n["com"], what + ".com") : Vector3::Zero();
  const Matrix3 I = n["inertia"].IsDefined() ? r.inertia(n["inertia"], what + ".inertia")
                                             : Matrix3::Zero();
  const std::string why = checkPhysicalInertia(m, I);
  if (!why.empty()) r.fail(n["inertia"].IsDefined() ? n["inertia"] : n, what + ": " + why);
  if (m == 0.0 && com.norm() > 0) r.fail(n["com"], what + ": a massless link has no centre of mass");
  return Inertia::FromCom(m, com, I);
}

Transform readOrigin(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  r.checkKeys(n, {"xyz", "rpy"}, what);
  const Vector3 xyz = n["xyz"].IsDefined() ? r.vector3(n["xyz"], what + ".xyz") : Vector3::Zero();
  const Vector3 rpy = n["rpy"].IsDefined() ? r.vector3(n["rpy"], what + ".rpy") : Vector3::Zero();
  return {rpyToMatrix(rpy), xyz};
}

// Per-DOF values: a number for a 1-DOF joint, a list for more.
std::vector<double> readPerDof(const yaml::Reader& r, const YAML::Node& n, int nv,
                               const std::string& what) {
  if (n.IsSequence()) return r.numbers(n, nv, what);
  if (nv != 1) r.fail(n, what + ": expected a list of " + std::to_string(nv) + " numbers");
  return {r.number(n, what)};
}

// flexible: {model: flex, beam: {...}} or {model: ..., modal: {...}}
FlexSpec readFlexible(const yaml::Reader& r, const YAML::Node& n, const std::string& what) {
  r.checkKeys(n, {"model", "beam", "modal"}, what);
  FlexSpec f;
  if (n["model"].IsDefined()) {
    f.model = *flexModelFromName(r.choice(
        n["model"], {"flex", "flex-M", "flex-M-printed", "flex-MA", "flex-MR"}, what + ".model"));
  }
  if (n["beam"].IsDefined() == n["modal"].IsDefined()) {
    r.fail(n, what + ": give exactly one of 'beam' (an assumed-mode segment) or 'modal' (an "
                     "appendage by modal participation)");
  }
  if (n["beam"].IsDefined()) {
    const YAML::Node b = n["beam"];
    const std::string w = what + ".beam";
    r.checkKeys(b, {"length", "root", "density", "area", "young", "shear", "Iy", "Iz", "modes",
                    "damping_ratio", "tip_load", "rotary_inertia", "modal_mass"}, w);
    BeamSpec bs;
    bs.properties.length = r.positive(r.require(b, "length", w), w + ".length");
    bs.properties.density = r.positive(r.require(b, "density", w), w + ".density");
    bs.properties.area = r.positive(r.require(b, "area", w), w + ".area");
    bs.properties.young = r.number(b, "young", 0.0, w + ".young");
    bs.properties.shear = r.number(b, "shear", 0.0, w + ".shear");
    bs.properties.Iy = r.number(b, "Iy", 0.0, w + ".Iy");
    bs.properties.Iz = r.number(b, "Iz", 0.0, w + ".Iz");
    if (b["root"].IsDefined()) bs.root = r.vector3(b["root"], w + ".root");
    const YAML::Node md = r.require(b, "modes", w);
    r.checkKeys(md, {"traction", "bending_y", "bending_z", "torsion"}, w + ".modes");
    auto count = [&](const char* key) {
      if (!md[key].IsDefined()) return 0;
      const int c = r.integer(md[key], w + ".modes." + key);
      if (c < 0) r.fail(md[key], w + ".modes." + key + ": must be >= 0");
      return c;
    };
    bs.modes = ModeCounts{count("traction"), count("bending_y"), count("bending_z"), count("torsion")};
    if (b["damping_ratio"].IsDefined()) bs.damping_ratio = r.nonNegative(b["damping_ratio"], w + ".damping_ratio");
    if (b["rotary_inertia"].IsDefined()) bs.rotary_inertia = r.boolean(b["rotary_inertia"], w + ".rotary_inertia");
    if (b["modal_mass"].IsDefined()) {
      bs.segment_modal_mass =
          r.choice(b["modal_mass"], {"integrals", "segment_mass"}, w + ".modal_mass") == "segment_mass";
    }
    if (b["tip_load"].IsDefined()) {
      const YAML::Node t = b["tip_load"];
      r.checkKeys(t, {"mass", "Jx", "Jy", "Jz"}, w + ".tip_load");
      bs.tip_load = TipLoad{r.number(t, "mass", 0.0, w + ".tip_load.mass"), r.number(t, "Jx", 0.0, w + ".tip_load.Jx"),
                            r.number(t, "Jy", 0.0, w + ".tip_load.Jy"), r.number(t, "Jz", 0.0, w + ".tip_load.Jz")};
    }
    f.beam = bs;
  } else {
    const YAML::Node mo = n["modal"];
    const std::string w = what + ".modal";
    r.checkKeys(mo, {"participation", "frequency", "damping_ratio", "modal_mass", "stiffness", "tip"}, w);
    const YAML::Node L = r.require(mo, "participation", w);
    r.requireSequence(L, w + ".participation");
    ModalSpec ms;
    const int nf = static_cast<int>(L.size());
    ms.participation.resize(nf, 6);
    for (int k = 0; k < nf; ++k) {
      const std::vector<double> row = r.numbers(L[k], 6, w + ".participation[" + std::to_string(k) + "]");
      for (int c = 0; c < 6; ++c) ms.participation(k, c) = row[c];
    }
    const std::vector<double> fr = r.numbers(r.require(mo, "frequency", w), nf, w + ".frequency");
    ms.frequency = Eigen::Map<const Eigen::VectorXd>(fr.data(), nf);
    ms.damping_ratio = Eigen::VectorXd::Zero(nf);
    if (mo["damping_ratio"].IsDefined()) {
      const std::vector<double> z = r.numbers(mo["damping_ratio"], nf, w + ".damping_ratio");
      ms.damping_ratio = Eigen::Map<const Eigen::VectorXd>(z.data(), nf);
    }
    // (nf rows of nf numbers) matrices, and tip shapes given mode by mode
    auto square = [&](const char* key, Eigen::MatrixXd& M) {
      if (!mo[key].IsDefined()) return;
      const YAML::Node rows = mo[key];
      r.requireSequence(rows, w + "." + key);
      if (static_cast<int>(rows.size()) != nf) r.fail(rows, w + "." + key + ": expected " + std::to_string(nf) + " rows");
      M.resize(nf, nf);
      for (int i = 0; i < nf; ++i) {
        const std::vector<double> row = r.numbers(rows[i], nf, w + "." + key + "[" + std::to_string(i) + "]");
        for (int j = 0; j < nf; ++j) M(i, j) = row[j];
      }
    };
    square("modal_mass", ms.modal_mass);
    square("stiffness", ms.stiffness);
    if (mo["tip"].IsDefined()) {
      const YAML::Node t = mo["tip"];
      const std::string wt = w + ".tip";
      r.checkKeys(t, {"position", "translation", "rotation"}, wt);
      ModalSpec::Tip tip;
      tip.position = r.vector3(r.require(t, "position", wt), wt + ".position");
      auto shapes = [&](const char* key, Eigen::MatrixXd& S) {
        S = Eigen::MatrixXd::Zero(3, nf);
        if (!t[key].IsDefined()) return;
        r.requireSequence(t[key], wt + "." + key);
        if (static_cast<int>(t[key].size()) != nf) r.fail(t[key], wt + "." + key + ": expected one [x, y, z] per mode");
        for (int k = 0; k < nf; ++k) S.col(k) = r.vector3(t[key][k], wt + "." + key + "[" + std::to_string(k) + "]");
      };
      shapes("translation", tip.translation);
      shapes("rotation", tip.rotation);
      ms.tip = tip;
    }
    f.modal = ms;
  }
  return f;
}

// visual: / collision: a list of shapes, each
//   {type: box, size: [x, y, z]} | {type: cylinder or capsule, radius: r, length: l} |
//   {type: sphere, radius: r} | {type: mesh, file: URI, scale: [sx, sy, sz]}
// with an optional origin {xyz, rpy} in the link frame and colour [r, g, b, a] (0-1).
std::vector<Geometry> readShapes(const yaml::Reader& r, const YAML::Node& n, const std::string& link,
                                 const std::string& what) {
  r.requireSequence(n, what);
  std::vector<Geometry> out;
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node s = n[k];
    const std::string w = what + "[" + std::to_string(k) + "]";
    r.checkKeys(s, {"type", "size", "radius", "length", "file", "scale", "origin", "color"}, w);
    Geometry g;
    g.link = link;
    const std::string type = r.choice(r.require(s, "type", w), {"box", "cylinder", "sphere", "capsule", "mesh"},
                                      w + ".type");
    auto only = [&](std::initializer_list<const char*> keys) {
      for (const char* key : {"size", "radius", "length", "file", "scale"}) {
        bool allowed = false;
        for (const char* a : keys) allowed = allowed || std::string(a) == key;
        if (s[key].IsDefined() && !allowed) r.fail(s[key], w + "." + key + ": not used by a " + type);
      }
    };
    if (type == "box") {
      only({"size"});
      g.type = ShapeType::kBox;
      g.size = r.vector3(r.require(s, "size", w), w + ".size");
    } else if (type == "cylinder" || type == "capsule") {
      only({"radius", "length"});
      g.type = type == "cylinder" ? ShapeType::kCylinder : ShapeType::kCapsule;
      g.size = Vector3(r.nonNegative(r.require(s, "radius", w), w + ".radius"),
                       r.nonNegative(r.require(s, "length", w), w + ".length"), 0);
    } else if (type == "sphere") {
      only({"radius"});
      g.type = ShapeType::kSphere;
      g.size.x() = r.nonNegative(r.require(s, "radius", w), w + ".radius");
    } else {
      only({"file", "scale"});
      g.type = ShapeType::kMesh;
      g.mesh_uri = r.string(r.require(s, "file", w), w + ".file");
      g.mesh_path = resolveMeshUri(g.mesh_uri, r.file());
      if (s["scale"].IsDefined()) g.scale = r.vector3(s["scale"], w + ".scale");
    }
    if ((g.size.array() < 0).any()) r.fail(s["size"], w + ".size: sides must be >= 0 m");
    if (s["origin"].IsDefined()) g.origin = readOrigin(r, s["origin"], w + ".origin");
    if (s["color"].IsDefined()) {
      const std::vector<double> c = r.numbers(s["color"], 4, w + ".color");
      for (int i = 0; i < 4; ++i) {
        if (c[i] < 0 || c[i] > 1) r.fail(s["color"], w + ".color: expected [r, g, b, a] between 0 and 1");
        g.rgba[i] = float(c[i]);
      }
      g.has_color = true;
    }
    out.push_back(std::move(g));
  }
  return out;
}

void readLinkShapes(const yaml::Reader& r, const YAML::Node& n, LinkSpec& link, const std::string& what) {
  if (n["visual"].IsDefined()) link.visual = readShapes(r, n["visual"], link.name, what + ".visual");
  if (n["collision"].IsDefined()) {
    link.collision = readShapes(r, n["collision"], link.name, what + ".collision");
  }
}

JointSpec readJoint(const yaml::Reader& r, const YAML::Node& n, const std::string& child,
                    const std::string& what) {
  r.checkKeys(n, {"name", "type", "parent", "origin", "dh", "axis", "axis2", "limits", "armature", "mimic"},
              what);
  JointSpec j;
  j.where = at(r, n);
  j.child = child;
  j.name = r.string(r.require(n, "name", what), what + ".name");
  const std::string type =
      r.choice(r.require(n, "type", what),
               {"revolute", "prismatic", "fixed", "cylindrical", "universal", "planar", "spherical"},
               what + ".type");
  j.type = *jointTypeFromName(type);
  j.parent = r.string(r.require(n, "parent", what), what + ".parent");
  const int nv = jointNv(j.type);
  if (n["origin"].IsDefined() && n["dh"].IsDefined()) {
    r.fail(n["dh"], what + ": give either origin or dh, not both");
  }
  if (n["origin"].IsDefined()) j.origin = readOrigin(r, n["origin"], what + ".origin");
  if (n["dh"].IsDefined()) {
    const YAML::Node dh = n["dh"];
    const std::string w = what + ".dh";
    r.checkKeys(dh, {"convention", "d", "a", "alpha", "theta"}, w);
    const std::string conv = r.choice(r.require(dh, "convention", w), {"adapted", "modified"},
                                      w + ".convention");
    const double d = r.number(dh, "d", 0.0, w + ".d"), a = r.number(dh, "a", 0.0, w + ".a");
    const double alpha = r.number(dh, "alpha", 0.0, w + ".alpha");
    const double theta = r.number(dh, "theta", 0.0, w + ".theta");
    if (conv == "adapted") {
      // Trans(d,Z) Trans(a,X) Rot(α,X) Rot(θ,Z): the joint variable of a revolute joint adds to
      // θ; a prismatic variable would add to d, before the rotations (thesis footnote 6).
      if (j.type == JointType::kPrismatic || j.type == JointType::kCylindrical) {
        r.fail(dh, w + ": the adapted DH convention cannot carry a prismatic joint (its d comes "
                       "before the rotations); use the modified convention or an origin");
      }
      j.origin = dhAdapted(d, a, alpha, theta);
    } else {
      j.origin = dhModified(d, a, alpha, theta);
    }
    if (n["axis"].IsDefined()) r.fail(n["axis"], what + ": a DH joint moves along its z axis");
  }
  if (n["axis"].IsDefined()) j.axis = r.vector3(n["axis"], what + ".axis");
  if (n["axis2"].IsDefined()) {
    if (j.type != JointType::kUniversal) r.fail(n["axis2"], what + ": axis2 is for universal joints");
    j.axis2 = r.vector3(n["axis2"], what + ".axis2");
  }
  if (n["limits"].IsDefined()) {
    const YAML::Node l = n["limits"];
    const std::string w = what + ".limits";
    r.checkKeys(l, {"lower", "upper", "velocity", "effort"}, w);
    if (nv == 0) r.fail(l, what + ": a fixed joint has no limits");
    if (l["lower"].IsDefined()) j.lower = readPerDof(r, l["lower"], nv, w + ".lower");
    if (l["upper"].IsDefined()) j.upper = readPerDof(r, l["upper"], nv, w + ".upper");
    if (l["velocity"].IsDefined()) j.velocity = readPerDof(r, l["velocity"], nv, w + ".velocity");
    if (l["effort"].IsDefined()) j.effort = readPerDof(r, l["effort"], nv, w + ".effort");
  }
  if (n["armature"].IsDefined()) {
    if (nv == 0) r.fail(n["armature"], what + ": a fixed joint has no armature");
    j.armature = readPerDof(r, n["armature"], nv, what + ".armature");
  }
  if (const YAML::Node m = n["mimic"]; m.IsDefined()) {
    // As URDF's <mimic>: q = multiplier * q_joint + offset (the builder checks the rest, here).
    const std::string w = what + ".mimic";
    r.checkKeys(m, {"joint", "multiplier", "offset"}, w);
    j.mimic = r.string(r.require(m, "joint", w), w + ".joint");
    j.multiplier = r.number(m, "multiplier", 1.0, w + ".multiplier");
    j.offset = r.number(m, "offset", 0.0, w + ".offset");
    j.where = at(r, m);
  }
  return j;
}

}  // namespace

ModelBuilder readModelYaml(const yaml::Reader& r, const YAML::Node& model) {
  r.checkKeys(model, {"name", "gravity", "base", "links", "flex_model"}, "model");
  ModelBuilder b(model["name"].IsDefined() ? r.string(model["name"], "model.name") : "model");
  if (model["gravity"].IsDefined()) b.setGravity(r.vector3(model["gravity"], "model.gravity"));
  if (model["flex_model"].IsDefined()) {
    // every flexible link of the model uses this approximate model (§5.2.6.1)
    b.setFlexModel(*flexModelFromName(r.choice(
        model["flex_model"], {"flex", "flex-M", "flex-M-printed", "flex-MA", "flex-MR"},
        "model.flex_model")));
  }
  const YAML::Node base = r.require(model, "base", "model");
  r.checkKeys(base, {"name", "mode", "mass", "com", "inertia", "placement", "visual", "collision"},
              "model.base");
  const std::string mode = r.choice(r.require(base, "mode", "model.base"),
                                    {"fixed", "floating", "flying"}, "model.base.mode");
  b.setBaseMode(mode == "fixed" ? BaseMode::kFixed
                                : mode == "floating" ? BaseMode::kFloating : BaseMode::kFlying);
  if (base["placement"].IsDefined()) {
    if (mode != "fixed") {
      r.fail(base["placement"], "model.base.placement: only a fixed base has a placement (a free "
                                "base takes its pose from the state)");
    }
    b.setBasePlacement(readOrigin(r, base["placement"], "model.base.placement"));
  }
  const std::string base_name = base["name"].IsDefined() ? r.string(base["name"], "model.base.name")
                                                         : std::string("base");
  LinkSpec base_link{base_name, readBody(r, base, "model.base"), at(r, base), std::nullopt, {}, {}};
  readLinkShapes(r, base, base_link, "model.base");
  b.addLink(std::move(base_link));
  if (model["links"].IsDefined()) {
    const YAML::Node links = model["links"];
    r.requireSequence(links, "model.links");
    for (std::size_t k = 0; k < links.size(); ++k) {
      const YAML::Node l = links[k];
      const std::string what = "model.links[" + std::to_string(k) + "]";
      r.checkKeys(l, {"name", "mass", "com", "inertia", "joint", "flexible", "visual", "collision"}, what);
      const std::string name = r.string(r.require(l, "name", what), what + ".name");
      LinkSpec link{name, readBody(r, l, "link '" + name + "'"), at(r, l), std::nullopt, {}, {}};
      readLinkShapes(r, l, link, what);
      if (l["flexible"].IsDefined()) {
        link.flexible = readFlexible(r, l["flexible"], "link '" + name + "'.flexible");
      }
      b.addLink(link);
      b.addJoint(readJoint(r, r.require(l, "joint", what), name, "link '" + name + "'.joint"));
    }
  }
  return b;
}

namespace {

ModelBuilder readModelDocument(const YAML::Node& doc, const std::string& path) {
  const yaml::Reader r(path);
  r.checkKeys(doc, {"format", "model"}, "file");
  const int format = r.integer(r.require(doc, "format", "file"), "format");
  if (format != 1) {
    r.fail(doc["format"], "format: this Grapple reads format 1, got " + std::to_string(format));
  }
  return readModelYaml(r, r.require(doc, "model", "file"));
}

// A mimic joint whose own limits the joint it follows would take it beyond is refused: the model
// would not keep those limits, and this format is written for Grapple (URDF files only warn).
Model buildOrThrow(const ModelBuilder& b, const std::string& path) {
  try {
    Model m = b.build();
    for (const ModelError& e : b.mimicLimitConflicts()) {
      throw LoadError(path, e.where().line, e.message() + " (narrow the limits of the joint it follows, or widen or drop its own)");
    }
    return m;
  } catch (const ModelError& e) {
    throw LoadError(path, e.where().line, e.message());
  }
}

void overrideModes(ModelBuilder& b, std::optional<BaseMode> base_mode, std::optional<FlexModel> flex_model) {
  if (flex_model) b.setFlexModel(*flex_model);
  if (base_mode && *base_mode != b.baseMode()) {
    b.setBaseMode(*base_mode);
    b.setBasePlacement(Transform::Identity());
  }
}

}  // namespace

Model buildModelYaml(const yaml::Reader& reader, const YAML::Node& model_node, std::optional<BaseMode> base_mode,
                     std::optional<FlexModel> flex_model) {
  ModelBuilder b = readModelYaml(reader, model_node);
  overrideModes(b, base_mode, flex_model);
  return buildOrThrow(b, reader.file());
}

Model loadModelYaml(const std::string& path) {
  return buildOrThrow(readModelDocument(yaml::loadFile(path), path), path);
}

Model loadModelYamlString(const std::string& text, const std::string& name) {
  return buildOrThrow(readModelDocument(yaml::loadString(text, name), name), name);
}

Model loadModelFile(const std::string& path, std::optional<BaseMode> base_mode,
                    std::vector<std::string>* warnings, std::optional<FlexModel> flex_model,
                    InertiaPolicy inertia) {
  auto ends_with = [&](const char* ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  // Collision meshes the clearance checks cannot read are reported (their links keep a capsule).
  auto with_collision_warnings = [&](Model model) {
    if (warnings) {
      for (const std::string& w : collisionWarnings(model)) warnings->push_back(path + ": " + w);
    }
    return model;
  };
  // A .xacro file goes to the URDF reader too, which says where its first macro is.
  if (ends_with(".urdf") || ends_with(".URDF") || ends_with(".xacro")) {
    UrdfOptions o;
    o.base_mode = base_mode;
    o.inertia = inertia;
    UrdfResult res = loadUrdf(path, o);
    if (warnings) warnings->insert(warnings->end(), res.warnings.begin(), res.warnings.end());
    return with_collision_warnings(std::move(res.model));
  }
  if (ends_with(".yaml") || ends_with(".yml")) {
    ModelBuilder b = readModelDocument(yaml::loadFile(path), path);
    overrideModes(b, base_mode, flex_model);
    return with_collision_warnings(buildOrThrow(b, path));
  }
  throw LoadError(path, 0, "unknown model file type (expected .urdf, .yaml or .yml)");
}

}  // namespace grapple::core
