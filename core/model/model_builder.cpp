#include "core/model/model_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"

namespace grapple::core {
namespace {

[[noreturn]] void fail(const SourceLocation& where, const std::string& what) {
  throw ModelError(where, what);
}

bool allFinite(const Transform& X) { return X.R.allFinite() && X.p.allFinite(); }

// A mimic joint's chain followed to the joint it ends at: q = m1 (m2 q' + o2) + o1 =
// (m1 m2) q' + (m1 o2 + o1). Returns that joint's index, the composed multiplier and offset.
struct ComposedMimic {
  int joint;
  double multiplier, offset;
};
ComposedMimic composedMimic(const std::vector<JointSpec>& joints, const std::map<std::string, int>& index,
                            const JointSpec& J) {
  ComposedMimic c{index.at(J.mimic), J.multiplier, J.offset};
  for (; !joints[c.joint].mimic.empty(); c.joint = index.at(joints[c.joint].mimic)) {
    c.offset += c.multiplier * joints[c.joint].offset;
    c.multiplier *= joints[c.joint].multiplier;
  }
  return c;
}

// The rotation of smallest angle taking +z to the unit vector a.
Matrix3 rotationFromZ(const Vector3& a) {
  const Vector3 z = Vector3::UnitZ();
  const Vector3 k = z.cross(a);
  const double s = k.norm(), c = z.dot(a);
  if (s < 1e-15) return c > 0 ? Matrix3::Identity() : axisAngle(Vector3::UnitX(), M_PI);
  return axisAngle(k / s, std::atan2(s, c));
}

}  // namespace

std::string checkPhysicalInertia(double mass, const Matrix3& I) {
  if (!std::isfinite(mass) || !I.allFinite()) return "mass and inertia must be finite numbers";
  if (mass < 0.0) return "mass must be >= 0 kg (got " + std::to_string(mass) + ")";
  const double scale = std::max(1e-12, I.cwiseAbs().maxCoeff());
  if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) return "inertia must be symmetric";
  Eigen::SelfAdjointEigenSolver<Matrix3> eig(I, Eigen::EigenvaluesOnly);
  const Vector3 d = eig.eigenvalues();
  const double tol = 1e-9 * scale;
  if (d.minCoeff() < -tol) {
    std::ostringstream os;
    os << "inertia about the centre of mass must be positive semi-definite (principal moments "
       << d.transpose() << " kg m^2)";
    return os.str();
  }
  if (d[0] + d[1] < d[2] - tol) {
    std::ostringstream os;
    os << "principal moments " << d.transpose()
       << " kg m^2 violate the triangle inequality (I1 + I2 >= I3): no body has this inertia";
    return os.str();
  }
  return {};
}

Matrix3 nearestPhysicalInertia(const Matrix3& I_com) {
  const Matrix3 I = 0.5 * (I_com + I_com.transpose());
  Eigen::SelfAdjointEigenSolver<Matrix3> eig(I);
  const Vector3 d = eig.eigenvalues();  // increasing: d0 <= d1 <= d2
  // With the moments sorted, physical means d0 >= 0 and d0 + d1 >= d2 (the other inequalities
  // follow). The nearest such point is the nearest feasible one among the point itself and its
  // projections onto each set of active constraints (a convex set: one of them is the answer).
  const double m = std::max(0.0, 0.5 * (d[1] + d[2]));
  const double t = (d[2] - d[0] - d[1]) / 3.0;
  const Vector3 candidates[] = {d,
                                d + t * Vector3(1, 1, -1),   // onto d0 + d1 = d2
                                Vector3(0, d[1], d[2]),      // onto d0 = 0
                                Vector3(0, m, m),            // onto both
                                Vector3::Zero()};
  Vector3 best = Vector3::Zero();
  double best_distance = std::numeric_limits<double>::infinity();
  const double tol = 1e-12 * std::max(1e-300, d.cwiseAbs().maxCoeff());
  for (const Vector3& c : candidates) {
    const bool physical = c.minCoeff() >= -tol && c[0] + c[1] >= c[2] - tol && c[0] + c[2] >= c[1] - tol &&
                          c[1] + c[2] >= c[0] - tol;
    if (physical && (c - d).norm() < best_distance) {
      best = c.cwiseMax(0.0);
      best_distance = (c - d).norm();
    }
  }
  return eig.eigenvectors() * best.asDiagonal() * eig.eigenvectors().transpose();
}

LinkSpec& ModelBuilder::link(const std::string& name) {
  for (LinkSpec& l : links_) {
    if (l.name == name) return l;
  }
  throw ModelError({}, "no link '" + name + "'");
}

namespace {

// A flexible link's data: either a beam or a modal appendage, of consistent sizes.
void checkFlexibleLink(const LinkSpec& L) {
  const FlexSpec& f = *L.flexible;
  if (f.beam.has_value() == f.modal.has_value()) {
    fail(L.where, "link '" + L.name + "': a flexible link is either a beam or a modal appendage");
  }
  if (f.modal) {
    const ModalSpec& ms = *f.modal;
    const Eigen::Index n = ms.participation.rows();
    if (n < 1 || n > kMaxModes || ms.participation.cols() != 6 || ms.frequency.size() != n ||
        ms.damping_ratio.size() != n) {
      fail(L.where, "link '" + L.name + "': modal data need n x 6 participation, n frequencies "
                    "and n damping ratios, 1 <= n <= " + std::to_string(kMaxModes));
    }
    const auto square = [n](const Eigen::MatrixXd& M) {
      return M.size() == 0 || (M.rows() == n && M.cols() == n && M.allFinite() &&
                               (M - M.transpose()).cwiseAbs().maxCoeff() <= 1e-9 * (1 + M.cwiseAbs().maxCoeff()));
    };
    if (!square(ms.modal_mass) || !square(ms.stiffness)) {
      fail(L.where, "link '" + L.name + "': modal mass and stiffness must be symmetric n x n matrices");
    }
    if (ms.tip && (ms.tip->translation.rows() != 3 || ms.tip->translation.cols() != n ||
                   ms.tip->rotation.rows() != 3 || ms.tip->rotation.cols() != n ||
                   !ms.tip->translation.allFinite() || !ms.tip->rotation.allFinite())) {
      fail(L.where, "link '" + L.name + "': tip shapes need 3 x n translations and rotations");
    }
    if (!ms.participation.allFinite() || !(ms.frequency.array() > 0).all() ||
        !(ms.damping_ratio.array() >= 0).all()) {
      fail(L.where, "link '" + L.name + "': modal data must be finite, frequencies > 0, "
                    "damping ratios >= 0");
    }
  } else if (f.beam->modes.total() > kMaxModes) {
    fail(L.where, "link '" + L.name + "': a flexible segment has at most " +
                      std::to_string(kMaxModes) + " modes");
  } else if (f.beam->damping_ratio < 0 || !f.beam->root.allFinite()) {
    fail(L.where, "link '" + L.name + "': damping ratio must be >= 0 and root finite");
  }
}

// Links: unique names, physical inertias. Returns the index of each name.
std::map<std::string, int> checkLinks(const std::string& model_name, const std::vector<LinkSpec>& links) {
  if (links.empty()) fail({}, "model '" + model_name + "' has no links");
  std::map<std::string, int> link_index;
  for (std::size_t k = 0; k < links.size(); ++k) {
    const LinkSpec& L = links[k];
    if (L.name.empty()) fail(L.where, "a link has no name");
    if (!link_index.emplace(L.name, static_cast<int>(k)).second) {
      fail(L.where, "link '" + L.name + "' is defined twice");
    }
    if (!L.inertia.h.allFinite() || !std::isfinite(L.inertia.m)) {
      fail(L.where, "link '" + L.name + "': mass and inertia must be finite numbers");
    }
    if (L.inertia.m == 0.0 && L.inertia.h.norm() > 0.0) {
      fail(L.where, "link '" + L.name + "': a massless link cannot have a centre of mass offset");
    }
    const std::string why = checkPhysicalInertia(L.inertia.m, L.inertia.inertiaAboutCom());
    if (!why.empty()) fail(L.where, "link '" + L.name + "': " + why);
    if (L.flexible) checkFlexibleLink(L);
  }
  return link_index;
}

// The links and joints as checked: indices by name, the tree's edges, the unit axes.
struct Tree {
  std::map<std::string, int> link_index, joint_index;
  std::vector<int> parent_joint;                 // per link: its parent joint (-1: the root)
  std::vector<std::vector<int>> child_joints;    // per link: its child joints, in the order given
  std::vector<Vector3> axis, axis2;              // per joint (normalized)
  int root = -1;                                 // the base link
  bool has_mimic = false;
};

// One joint's own data: origin, axes, limits (the names and the tree checked by the caller).
void checkJoint(const JointSpec& J, Vector3& axis, Vector3& axis2) {
  const std::string who = "joint '" + J.name + "'";
  if (!allFinite(J.origin)) fail(J.where, who + ": origin must be finite");
  if ((J.origin.R.transpose() * J.origin.R - Matrix3::Identity()).cwiseAbs().maxCoeff() > 1e-9 ||
      J.origin.R.determinant() < 0) {
    fail(J.where, who + ": origin rotation is not a rotation matrix");
  }
  const bool needs_axis = J.type == JointType::kRevolute || J.type == JointType::kPrismatic ||
                          J.type == JointType::kCylindrical || J.type == JointType::kUniversal ||
                          J.type == JointType::kPlanar;
  if (needs_axis) {
    if (!J.axis.allFinite() || J.axis.norm() < 1e-12) fail(J.where, who + ": axis is zero");
    axis = J.axis.normalized();
  }
  if (J.type == JointType::kUniversal) {
    if (!J.axis2.allFinite() || J.axis2.norm() < 1e-12) fail(J.where, who + ": axis2 is zero");
    axis2 = J.axis2.normalized();
    if (std::abs(axis.dot(axis2)) > 1e-9) {
      fail(J.where, who + ": the two axes of a universal joint must be perpendicular");
    }
  }
  const std::size_t nv = static_cast<std::size_t>(jointNv(J.type));
  auto check_size = [&](const std::vector<double>& values, const char* what) {
    if (!values.empty() && values.size() != nv) {
      fail(J.where, who + ": " + what + " needs " + std::to_string(nv) + " value(s) for a " +
                        std::string(jointTypeName(J.type)) + " joint, got " +
                        std::to_string(values.size()));
    }
    for (double x : values) {
      if (std::isnan(x)) fail(J.where, who + ": " + what + " is NaN");
    }
  };
  check_size(J.lower, "lower limit");
  check_size(J.upper, "upper limit");
  check_size(J.velocity, "velocity limit");
  check_size(J.effort, "effort limit");
  check_size(J.armature, "armature");
  if ((!J.lower.empty() || !J.upper.empty()) &&
      (J.type == JointType::kSpherical || J.type == JointType::kFree)) {
    fail(J.where, who + ": position limits are not supported on a " +
                      std::string(jointTypeName(J.type)) + " joint");
  }
  for (std::size_t d = 0; d < J.lower.size() && d < J.upper.size(); ++d) {
    if (J.lower[d] > J.upper[d]) fail(J.where, who + ": lower limit is above the upper limit");
  }
  for (double x : J.velocity) if (x <= 0) fail(J.where, who + ": velocity limit must be > 0");
  for (double x : J.effort) if (x <= 0) fail(J.where, who + ": effort limit must be > 0");
  for (double x : J.armature) if (x < 0) fail(J.where, who + ": armature must be >= 0");
}

// Joints: unique names, existing links, one parent per link, valid axes and limits.
void checkJoints(const std::vector<JointSpec>& joints, Tree& tree) {
  const std::size_t nlinks = tree.link_index.size();
  tree.parent_joint.assign(nlinks, -1);
  tree.child_joints.assign(nlinks, {});
  tree.axis.resize(joints.size());
  tree.axis2.resize(joints.size());
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const JointSpec& J = joints[k];
    const std::string who = "joint '" + J.name + "'";
    if (J.name.empty()) fail(J.where, "a joint has no name");
    if (!tree.joint_index.emplace(J.name, static_cast<int>(k)).second) {
      fail(J.where, who + " is defined twice");
    }
    auto p = tree.link_index.find(J.parent);
    if (p == tree.link_index.end()) fail(J.where, who + ": parent link '" + J.parent + "' does not exist");
    auto c = tree.link_index.find(J.child);
    if (c == tree.link_index.end()) fail(J.where, who + ": child link '" + J.child + "' does not exist");
    if (p->second == c->second) fail(J.where, who + ": parent and child are the same link");
    if (tree.parent_joint[c->second] >= 0) {
      fail(J.where, who + ": link '" + J.child + "' already has a parent joint '" +
                        joints[tree.parent_joint[c->second]].name + "' (a model is a tree)");
    }
    tree.parent_joint[c->second] = static_cast<int>(k);
    tree.child_joints[p->second].push_back(static_cast<int>(k));
    checkJoint(J, tree.axis[k], tree.axis2[k]);
  }
}

// Mimic joints: 1-DOF joints following an existing 1-DOF joint, without cycles.
bool checkMimics(const std::vector<LinkSpec>& links, const std::vector<JointSpec>& joints,
                 const std::map<std::string, int>& joint_index) {
  bool has_mimic = false;
  const auto one_dof = [](JointType t) { return t == JointType::kRevolute || t == JointType::kPrismatic; };
  for (const JointSpec& J : joints) {
    if (J.mimic.empty()) continue;
    has_mimic = true;
    const std::string who = "joint '" + J.name + "'";
    if (!one_dof(J.type)) fail(J.where, who + ": only a revolute or prismatic joint can mimic another");
    if (!std::isfinite(J.multiplier) || !std::isfinite(J.offset)) {
      fail(J.where, who + ": the mimic's multiplier and offset must be finite");
    }
    auto m = joint_index.find(J.mimic);
    if (m == joint_index.end()) fail(J.where, who + " mimics joint '" + J.mimic + "', which does not exist");
    if (!one_dof(joints[m->second].type)) {
      fail(J.where, who + " mimics joint '" + J.mimic + "', which is not revolute or prismatic");
    }
  }
  for (const JointSpec& J : joints) {
    if (J.mimic.empty()) continue;
    const std::string who = "joint '" + J.name + "'";
    auto m = joint_index.find(J.mimic);
    std::string chain = J.name;
    std::vector<char> seen(joints.size(), 0);
    seen[joint_index.at(J.name)] = 1;
    for (int k = m->second;; k = joint_index.at(joints[k].mimic)) {
      chain += " -> " + joints[k].name;
      if (seen[k]) fail(J.where, who + ": mimic joints form a cycle (" + chain + ")");
      seen[k] = 1;
      if (joints[k].mimic.empty()) break;
    }
  }
  if (has_mimic) {
    for (const LinkSpec& L : links) {
      if (L.flexible) fail(L.where, "link '" + L.name + "': mimic joints and flexible links cannot be combined");
    }
  }
  return has_mimic;
}

// The root: the only link without a parent joint.
int findRoot(const std::vector<LinkSpec>& links, const std::vector<JointSpec>& joints, const Tree& tree) {
  int root = -1;
  for (std::size_t k = 0; k < links.size(); ++k) {
    if (tree.parent_joint[k] >= 0) continue;
    if (root >= 0) {
      fail(links[k].where, "links '" + links[root].name + "' and '" + links[k].name +
                               "' both have no parent joint: a model has one base");
    }
    root = static_cast<int>(k);
  }
  if (root < 0) {
    // Every link has a parent: follow parents from the first link until one repeats.
    std::vector<bool> seen(links.size(), false);
    int link = 0, joint = tree.parent_joint[0];
    while (!seen[link]) {
      seen[link] = true;
      joint = tree.parent_joint[link];
      link = tree.link_index.at(joints[joint].parent);
    }
    fail(joints[joint].where, "joint '" + joints[joint].name +
                                  "' closes a loop of joints: a model is a tree with one base");
  }
  return root;
}

// Each link's body and its pose in the body's frame; each body's JointSpec (-1 for the base).
struct Placement {
  struct LinkPlace {
    int body = -1;
    Transform X_body_link;
  };
  std::vector<LinkPlace> place;
  std::vector<int> joint_of_body;
};

// A child at the tip of a flexible segment follows the deformed tip: whether the joint J on
// parent_link is there, and the tip's position in the link frame.
bool atFlexibleTip(const LinkSpec& parent_link, const JointSpec& J, Vector3& p_tip) {
  p_tip = Vector3::Zero();
  if (parent_link.flexible && parent_link.flexible->beam) {
    const BeamSpec& bs = *parent_link.flexible->beam;
    p_tip = bs.root + bs.properties.length * Vector3::UnitX();
  } else if (parent_link.flexible && parent_link.flexible->modal && parent_link.flexible->modal->tip) {
    p_tip = parent_link.flexible->modal->tip->position;
  } else {
    return false;
  }
  return (J.origin.p - p_tip).norm() < 1e-9 * std::max(1.0, p_tip.norm());
}

// The base body (its joint fixed at the base placement, or free).
void addBaseBody(const std::string& root_name, BaseMode base_mode, const Transform& base_placement, Model& model) {
  model.body_name.push_back(root_name);
  model.parent.push_back(-1);
  Joint base;
  base.name = "base";
  base.type = base_mode == BaseMode::kFixed ? JointType::kFixed : JointType::kFree;
  model.joint.push_back(base);
  model.X_parent_joint.push_back(base_mode == BaseMode::kFixed ? base_placement : Transform::Identity());
  model.at_tip.push_back(0);
  model.X_tip_joint.push_back(Transform::Identity());
}

// The bodies: walk the tree depth-first from the root (parents before children, children in the
// order their joints were given). Links on fixed joints are merged into the body of their parent;
// a child at the tip of a flexible segment gets a body of its own even on a fixed joint, as does
// every flexible link.
Placement placeBodies(const std::vector<LinkSpec>& links, const std::vector<JointSpec>& joints, const Tree& tree,
                      BaseMode base_mode, const Transform& base_placement, Model& model) {
  Placement out;
  std::vector<Placement::LinkPlace>& place = out.place;
  place.resize(links.size());
  place[tree.root] = {0, Transform::Identity()};
  addBaseBody(links[tree.root].name, base_mode, base_placement, model);
  out.joint_of_body.push_back(-1);
  std::vector<int> stack(tree.child_joints[tree.root].rbegin(), tree.child_joints[tree.root].rend());
  int visited = 1;
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    const JointSpec& J = joints[k];
    const int pl = tree.link_index.at(J.parent), cl = tree.link_index.at(J.child);
    const Placement::LinkPlace& pp = place[pl];
    Vector3 p_tip;
    const bool at_tip = atFlexibleTip(links[pl], J, p_tip);
    if (J.type == JointType::kFixed && !at_tip && !links[cl].flexible) {
      place[cl] = {pp.body, pp.X_body_link * J.origin};
    } else {
      // Revolute, prismatic, cylindrical and planar joints get a body frame whose z axis is the
      // joint axis (R_a z = axis): their transform is then a rotation about or a shift along z
      // and P_i a unit vector, which the recursions exploit (a planar joint then moves along
      // the joint frame's R_a x and R_a y). The link keeps its own frame, placed in the body by R_aᵀ.
      const bool align = J.type == JointType::kRevolute || J.type == JointType::kPrismatic ||
                         J.type == JointType::kCylindrical || J.type == JointType::kPlanar;
      const Matrix3 Ra = align ? rotationFromZ(tree.axis[k]) : Matrix3::Identity();
      const int b = static_cast<int>(model.parent.size());
      place[cl] = {b, Transform{Ra.transpose(), Vector3::Zero()}};
      model.parent.push_back(pp.body);
      model.body_name.push_back(J.child);
      out.joint_of_body.push_back(k);
      Joint joint;
      joint.type = J.type;
      joint.name = J.name;
      joint.axis = align ? Vector3::UnitZ() : tree.axis[k];
      if (J.type == JointType::kUniversal) joint.axis2 = tree.axis2[k];
      model.joint.push_back(joint);
      model.X_parent_joint.push_back(pp.X_body_link * J.origin * Transform{Ra, Vector3::Zero()});
      model.at_tip.push_back(at_tip ? 1 : 0);
      model.X_tip_joint.push_back(at_tip ? Transform{Matrix3::Identity(), -p_tip} * J.origin *
                                               Transform{Ra, Vector3::Zero()}
                                         : Transform::Identity());
    }
    ++visited;
    for (auto it = tree.child_joints[cl].rbegin(); it != tree.child_joints[cl].rend(); ++it) {
      stack.push_back(*it);
    }
  }
  if (visited != static_cast<int>(links.size())) {
    for (std::size_t k = 0; k < links.size(); ++k) {
      if (place[k].body < 0) {
        fail(links[k].where, "link '" + links[k].name +
                                 "' is not connected to the base: its joints form a loop");
      }
    }
  }
  model.nbodies = static_cast<int>(model.parent.size());
  model.children.assign(model.nbodies, {});
  for (int i = 1; i < model.nbodies; ++i) model.children[model.parent[i]].push_back(i);
  return out;
}

// Inertias: merge every link into its body; its frame and shapes placed in the body.
void mergeLinks(const std::vector<LinkSpec>& links, const Placement& placement, Model& model) {
  model.inertia.assign(model.nbodies, Inertia{});
  for (std::size_t k = 0; k < links.size(); ++k) {
    const Placement::LinkPlace& pk = placement.place[k];
    model.inertia[pk.body] += links[k].inertia.toParent(pk.X_body_link);
    model.frames.push_back({links[k].name, pk.body, pk.X_body_link});
    for (auto [from, to] : {std::pair{&links[k].visual, &model.visual},
                            std::pair{&links[k].collision, &model.collision}}) {
      for (Geometry g : *from) {
        g.link = links[k].name;
        g.body = pk.body;
        g.origin = pk.X_body_link * g.origin;
        to->push_back(std::move(g));
      }
    }
  }
  for (const Inertia& I : model.inertia) model.inertia_matrix.push_back(I.matrix());
}

// The composite bodies' inertias at the neutral configuration (each body with its subtree).
std::vector<Inertia> compositeInertias(const Model& model) {
  std::vector<Inertia> Ic = model.inertia;
  for (int i = model.nbodies - 1; i > 0; --i) {
    Ic[model.parent[i]] += Ic[i].toParent(model.X_parent_joint[i]);
  }
  return Ic;
}

// A flexible link's modes, from its physical data and (a beam without a given tip load) the
// bodies at its tip (Ic0: the composite inertias at the neutral configuration).
FlexibleBody flexibleBody(const LinkSpec& L, int b, const Matrix3& R_BL, const std::vector<Inertia>& Ic0,
                          const Model& model) {
  if (L.flexible->modal) {
    const ModalSpec& ms = *L.flexible->modal;
    FlexibleBody fb = modalFlexibleBody(ms.participation, ms.frequency, ms.damping_ratio, R_BL,
                                        ms.modal_mass, ms.stiffness);
    if (ms.tip) {
      fb.has_tip = true;
      fb.p_tip = ms.tip->position;
      fb.Phi_e = ms.tip->translation;
      fb.Delta_e = ms.tip->rotation;
    }
    return fb;
  }
  const BeamSpec& bs = *L.flexible->beam;
  TipLoad load;
  if (bs.tip_load) {
    load = *bs.tip_load;
  } else {
    Inertia outboard;  // about the tip, link axes
    for (int c : model.children[b]) {
      if (model.at_tip[c]) outboard += Ic0[c].toParent(model.X_tip_joint[c]);
    }
    load = {outboard.m, outboard.I(0, 0), outboard.I(1, 1), outboard.I(2, 2)};
  }
  const SegmentModes sm = computeSegmentModes(bs.properties, load, bs.modes);
  if (!bs.rotary_inertia && bs.modes.torsion > 0) {
    fail(L.where, "link '" + L.name + "': torsion modes need the sections' rotary inertia");
  }
  return beamFlexibleBody(sm, bs.properties, bs.root, R_BL, bs.damping_ratio, bs.rotary_inertia,
                          bs.segment_modal_mass);
}

// Flexible bodies: their modes, and a check that each link's rigid inertia holds its flexible part's.
void addFlexibleBodies(const std::vector<LinkSpec>& links, const Placement& placement,
                       const std::optional<FlexModel>& flex_model, Model& model) {
  model.flex.assign(model.nbodies, FlexibleBody{});
  const std::vector<Inertia> Ic0 = compositeInertias(model);
  for (std::size_t k = 0; k < links.size(); ++k) {
    const LinkSpec& L = links[k];
    if (!L.flexible) continue;
    const int b = placement.place[k].body;
    FlexibleBody& fb = model.flex[b];
    try {
      fb = flexibleBody(L, b, placement.place[k].X_body_link.R, Ic0, model);
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      fail(L.where, "link '" + L.name + "': " + e.what());
    }
    fb.model = flex_model ? *flex_model : L.flexible->model;
    // M_f^(0) = [M_r M_td; M_tdᵀ M_dd] must be positive semi-definite: the link's rigid inertia has to
    // hold at least the beam's own (or the appendage's participating) inertia.
    Eigen::MatrixXd M0(6 + fb.nf, 6 + fb.nf);
    M0 << L.inertia.toParent(placement.place[k].X_body_link).matrix(), fb.M_td, fb.M_td.transpose(), fb.M_dd;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M0, Eigen::EigenvaluesOnly);
    if (!(eig.eigenvalues().minCoeff() > -1e-9 * std::max(1.0, eig.eigenvalues().maxCoeff()))) {
      fail(L.where, "link '" + L.name + "': its mass and inertia are smaller than those of its "
                    "flexible part (the extended mass matrix M_f is not positive semi-definite); give "
                    "the link at least the beam's mass ρ S l and inertia");
    }
  }
}

// Coordinates (each body: its joint's, then its modes'), limits and armature.
void assignCoordinates(const std::vector<JointSpec>& joints, const std::vector<int>& joint_of_body, Model& model) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int nq = 0, nv = 0;
  for (int i = 0; i < model.nbodies; ++i) {
    Joint& j = model.joint[i];
    j.nq = jointNq(j.type);
    j.nv = jointNv(j.type);
    j.idx_q = nq;
    j.idx_v = nv;
    nq += j.nq;
    nv += j.nv;
    FlexibleBody& fb = model.flex[i];
    fb.idx_q = nq;
    fb.idx_v = nv;
    nq += fb.nf;
    nv += fb.nf;
    model.nflex += fb.nf;
  }
  model.nq = nq;
  model.nv = nv;
  model.lower_position_limit = Eigen::VectorXd::Constant(nq, -kInf);
  model.upper_position_limit = Eigen::VectorXd::Constant(nq, kInf);
  model.velocity_limit = Eigen::VectorXd::Constant(nv, kInf);
  model.effort_limit = Eigen::VectorXd::Constant(nv, kInf);
  model.armature = Eigen::VectorXd::Zero(nv);
  model.v_body.assign(nv, 0);
  for (int i = 0; i < model.nbodies; ++i) {
    const Joint& j = model.joint[i];
    for (int d = 0; d < j.nv; ++d) model.v_body[j.idx_v + d] = i;
    for (int d = 0; d < model.flex[i].nf; ++d) model.v_body[model.flex[i].idx_v + d] = i;
    if (joint_of_body[i] < 0) continue;
    const JointSpec& J = joints[joint_of_body[i]];
    for (int d = 0; d < j.nv; ++d) {
      if (!J.velocity.empty()) model.velocity_limit[j.idx_v + d] = J.velocity[d];
      if (!J.effort.empty()) model.effort_limit[j.idx_v + d] = J.effort[d];
      if (!J.armature.empty()) model.armature[j.idx_v + d] = J.armature[d];
      if (j.nq == j.nv) {
        if (!J.lower.empty()) model.lower_position_limit[j.idx_q + d] = J.lower[d];
        if (!J.upper.empty()) model.upper_position_limit[j.idx_q + d] = J.upper[d];
      }
    }
  }
}

// A non-singular mass matrix: at the neutral configuration every joint must move some inertia
// (the diagonal of the composite-rigid-body mass matrix), and a free base needs a mass and a
// positive-definite rotational inertia of the whole system.
void checkMassMatrix(const Model& model, const LinkSpec& root, const std::vector<JointSpec>& joints,
                     const std::vector<int>& joint_of_body) {
  const std::vector<Inertia> Ic = compositeInertias(model);
  const double mass_scale = std::max(1e-9, model.totalMass());
  for (int i = 0; i < model.nbodies; ++i) {
    const Joint& j = model.joint[i];
    if (j.nv == 0) continue;
    Matrix6 S = Matrix6::Zero();
    std::vector<double> q0(j.nq, 0.0);
    if (j.type == JointType::kSpherical) q0[0] = 1.0;
    if (j.type == JointType::kFree) q0[3] = 1.0;
    jointMotionSubspace(j, q0.data(), S);
    if (i == 0) {
      Eigen::SelfAdjointEigenSolver<Matrix6> eig(Ic[0].matrix(), Eigen::EigenvaluesOnly);
      if (!(eig.eigenvalues().minCoeff() > 1e-12 * mass_scale)) {
        fail(root.where, "the free base and its bodies have no mass or no rotational "
                         "inertia: the mass matrix would be singular");
      }
      continue;
    }
    const Matrix6 M = Ic[i].matrix();
    for (int d = 0; d < j.nv; ++d) {
      const double Hdd = S.col(d).dot(M * S.col(d)) + model.armature[j.idx_v + d];
      if (!(Hdd > 1e-12 * mass_scale)) {
        const JointSpec& J = joints[joint_of_body[i]];
        fail(J.where, "joint '" + J.name + "' moves no mass or inertia along its axis: the mass "
                      "matrix would be singular (give the bodies it carries a mass and inertia)");
      }
    }
  }
}

// Body i's coordinates in the model without the mimics' (reduced, its joints' indices set): its
// limits and armature, and where each of the full model's coordinates comes from.
void reduceBody(const Model& model, int i, Model& reduced) {
  const Joint& j = reduced.joint[i];
  const Joint& jf = model.joint[i];
  for (int d = 0; d < j.nq; ++d) {
    reduced.lower_position_limit[j.idx_q + d] = model.lower_position_limit[jf.idx_q + d];
    reduced.upper_position_limit[j.idx_q + d] = model.upper_position_limit[jf.idx_q + d];
  }
  for (int d = 0; d < j.nv; ++d) {
    reduced.velocity_limit[j.idx_v + d] = model.velocity_limit[jf.idx_v + d];
    reduced.effort_limit[j.idx_v + d] = model.effort_limit[jf.idx_v + d];
    reduced.armature[j.idx_v + d] = model.armature[jf.idx_v + d];
    reduced.v_body[j.idx_v + d] = i;
  }
  const Joint& source = isMimic(j) ? reduced.joint[j.mimic_body] : j;
  const double gain = isMimic(j) ? j.mimic_multiplier : 1.0;
  for (int d = 0; d < jf.nq; ++d) {
    reduced.mimic_q_source[jf.idx_q + d] = source.idx_q + d;
    reduced.mimic_q_gain[jf.idx_q + d] = gain;
    reduced.mimic_q_offset[jf.idx_q + d] = isMimic(j) ? j.mimic_offset : 0.0;
  }
  for (int d = 0; d < jf.nv; ++d) {
    reduced.mimic_v_source[jf.idx_v + d] = source.idx_v + d;
    reduced.mimic_v_gain[jf.idx_v + d] = gain;
  }
}

// Mimic joints: the model built so far has a coordinate for every joint and becomes `full`; the
// model returned keeps the coordinates of the other joints. Chains of mimics are followed to the
// joint they end at (composedMimic).
Model withMimics(Model model, const std::vector<JointSpec>& joints, const std::map<std::string, int>& joint_index,
                 const std::vector<int>& joint_of_body) {
  std::vector<int> body_of_joint(joints.size(), -1);
  for (int i = 1; i < model.nbodies; ++i) body_of_joint[joint_of_body[i]] = i;
  Model reduced = model;
  for (int i = 1; i < model.nbodies; ++i) {
    const JointSpec& J = joints[joint_of_body[i]];
    if (J.mimic.empty()) continue;
    const auto [k, gain, offset] = composedMimic(joints, joint_index, J);
    Joint& j = reduced.joint[i];
    j.mimic_body = body_of_joint[k];
    j.mimic_multiplier = gain;
    j.mimic_offset = offset;
    j.nq = j.nv = 0;
  }
  const int nq_full = model.nq, nv_full = model.nv;
  reduced.mimic_q_source.assign(nq_full, 0);
  reduced.mimic_v_source.assign(nv_full, 0);
  reduced.mimic_q_gain = Eigen::VectorXd::Ones(nq_full);
  reduced.mimic_q_offset = Eigen::VectorXd::Zero(nq_full);
  reduced.mimic_v_gain = Eigen::VectorXd::Ones(nv_full);
  int nq = 0, nv = 0;
  for (int i = 0; i < model.nbodies; ++i) {
    Joint& j = reduced.joint[i];
    j.idx_q = nq;
    j.idx_v = nv;
    nq += j.nq;
    nv += j.nv;
  }
  reduced.nq = nq;
  reduced.nv = nv;
  reduced.lower_position_limit.resize(nq);
  reduced.upper_position_limit.resize(nq);
  reduced.velocity_limit.resize(nv);
  reduced.effort_limit.resize(nv);
  reduced.armature.resize(nv);
  reduced.v_body.resize(nv);
  for (int i = 0; i < model.nbodies; ++i) reduceBody(model, i, reduced);
  // A mimic's rotor turns multiplier times as fast as the driving joint's: its armature adds
  // multiplier² to the driving joint's.
  for (int i = 1; i < model.nbodies; ++i) {
    const Joint& j = reduced.joint[i];
    if (isMimic(j)) {
      reduced.armature[reduced.joint[j.mimic_body].idx_v] +=
          j.mimic_multiplier * j.mimic_multiplier * model.armature[model.joint[i].idx_v];
    }
  }
  reduced.full = std::make_shared<const Model>(std::move(model));
  return reduced;
}

}  // namespace

Model ModelBuilder::build() const {
  Model model;
  model.name = name_;
  model.base_mode = base_mode_;
  model.gravity_W = gravity_W_;
  if (!gravity_W_.allFinite()) fail({}, "gravity must be finite");
  if (!allFinite(base_placement_)) fail({}, "base placement must be finite");
  Tree tree;
  tree.link_index = checkLinks(name_, links_);
  checkJoints(joints_, tree);
  tree.has_mimic = checkMimics(links_, joints_, tree.joint_index);
  tree.root = findRoot(links_, joints_, tree);
  const Placement placement = placeBodies(links_, joints_, tree, base_mode_, base_placement_, model);
  mergeLinks(links_, placement, model);
  addFlexibleBodies(links_, placement, flex_model_, model);
  assignCoordinates(joints_, placement.joint_of_body, model);
  checkMassMatrix(model, links_[tree.root], joints_, placement.joint_of_body);
  if (!tree.has_mimic) return model;
  return withMimics(std::move(model), joints_, tree.joint_index, placement.joint_of_body);
}

std::vector<ModelError> ModelBuilder::mimicLimitConflicts() const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::map<std::string, int> index;  // (build() checked the names and chains)
  for (std::size_t k = 0; k < joints_.size(); ++k) index[joints_[k].name] = static_cast<int>(k);
  auto fmt = [](double lo, double hi) {
    std::ostringstream os;
    os << "[" << lo << ", " << hi << "]";
    return os.str();
  };
  std::vector<ModelError> out;
  for (const JointSpec& J : joints_) {
    if (J.mimic.empty() || (J.lower.empty() && J.upper.empty())) continue;
    const auto [k, gain, offset] = composedMimic(joints_, index, J);
    const JointSpec& leader = joints_[k];
    const double lo = leader.lower.empty() ? -kInf : leader.lower[0], hi = leader.upper.empty() ? kInf : leader.upper[0];
    // The image of [lo, hi] under gain * q + offset (a zero gain: the offset alone).
    double a = gain == 0 ? offset : gain * lo + offset, b = gain == 0 ? offset : gain * hi + offset;
    if (a > b) std::swap(a, b);
    const double own_lo = J.lower.empty() ? -kInf : J.lower[0], own_hi = J.upper.empty() ? kInf : J.upper[0];
    auto size = [](double x) { return std::isfinite(x) ? std::abs(x) : 0.0; };
    const double tol = 1e-9 * std::max({1.0, size(own_lo), size(own_hi)});
    if (a < own_lo - tol || b > own_hi + tol) {
      out.emplace_back(J.where, "joint '" + J.name + "' mimics joint '" + leader.name + "', whose range " +
                                    fmt(lo, hi) + " takes it over " + fmt(a, b) + ", beyond its own limits " +
                                    fmt(own_lo, own_hi));
    }
  }
  return out;
}

}  // namespace grapple::core
