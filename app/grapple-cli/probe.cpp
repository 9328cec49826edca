// grapple-cli probe: everything the dynamics core computes for one state, as JSON.
#include "app/grapple-cli/commands.hpp"

#include <iostream>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/json.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/yaml_util.hpp"
#include "core/math/rotation.hpp"

namespace grapple::cli {
namespace {

using namespace grapple::core;
using Eigen::VectorXd;

struct JacobianRequest {
  int frame = -1;
  Vector3 point = Vector3::Zero();
  ReferenceFrame reference = ReferenceFrame::kWorld;
};

struct ProbeState {
  VectorXd q, v, a, tau;
  BodyWrenches fext;
  bool has_fext = false;
  std::optional<JacobianRequest> jacobian;
};

std::string frameNames(const Model& m) {
  std::string s;
  for (const Frame& f : m.frames) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

int frameByName(const yaml::Reader& r, const YAML::Node& node, const Model& m,
                const std::string& what) {
  const std::string name = r.string(node, what);
  const int id = m.frameId(name);
  if (id >= 0) return id;
  std::vector<std::string> names;
  for (const Frame& f : m.frames) names.push_back(f.name);
  const std::string hint = closestMatch(name, names);
  r.fail(node, what + ": no link '" + name + "'" +
                   (hint.empty() ? " (links: " + frameNames(m) + ")" : " (did you mean '" + hint + "'?)"));
}

// Values of one joint coordinate family ("position", "velocity"...): a number for 1 DOF, a list.
void readJointValues(const yaml::Reader& r, const YAML::Node& node, int n, double* out,
                     const std::string& what) {
  if (n == 1 && !node.IsSequence()) {
    out[0] = r.number(node, what);
    return;
  }
  const std::vector<double> x = r.numbers(node, n, what);
  std::copy(x.begin(), x.end(), out);
}

// The base's pose, twist, acceleration and actuator wrench (a free base only).
void readBase(const yaml::Reader& r, const YAML::Node& doc, const Model& m, ProbeState& s) {
  const YAML::Node base = doc["base"];
  if (m.hasFreeBase()) {
    r.requireMap(r.require(doc, "base", "state"), "state.base");
    r.checkKeys(base, {"position", "quaternion", "twist", "acceleration", "wrench"}, "state.base");
    s.q.head<3>() = r.vector3(r.require(base, "position", "state.base"), "state.base.position");
    const std::vector<double> Q =
        r.numbers(r.require(base, "quaternion", "state.base"), 4, "state.base.quaternion");
    const Vector4 quat(Q[0], Q[1], Q[2], Q[3]);
    if (quat.norm() < 1e-9) r.fail(base["quaternion"], "state.base.quaternion: must not be zero");
    s.q.segment<4>(3) = quat.normalized();
    const std::vector<double> tw = r.numbers(r.require(base, "twist", "state.base"), 6, "state.base.twist");
    s.v.head<6>() = Eigen::Map<const Vector6>(tw.data());
    if (base["acceleration"].IsDefined()) {
      const std::vector<double> x = r.numbers(base["acceleration"], 6, "state.base.acceleration");
      s.a.head<6>() = Eigen::Map<const Vector6>(x.data());
    }
    if (base["wrench"].IsDefined()) {
      if (m.base_mode != BaseMode::kFlying) {
        r.fail(base["wrench"], "state.base.wrench: the base is floating (unactuated); only a "
                               "flying base takes an actuator wrench. Use external_wrenches on "
                               "the base link for other forces");
      }
      const std::vector<double> x = r.numbers(base["wrench"], 6, "state.base.wrench");
      s.tau.head<6>() = Eigen::Map<const Vector6>(x.data());
    }
  } else if (base.IsDefined()) {
    r.fail(base, "state.base: the model's base is fixed; remove 'base' (or probe with "
                 "--base floating|flying)");
  }
}

// Joints: every joint needs position and velocity.
void readJoints(const yaml::Reader& r, const YAML::Node& doc, const Model& m, ProbeState& s) {
  std::vector<std::string> names;
  for (int i = 1; i < m.nbodies; ++i) {
    if (m.joint[i].nv > 0) names.push_back(m.joint[i].name);  // fixed joints have no state
  }
  const YAML::Node joints = doc["joints"];
  if (m.nbodies > 1) r.requireMap(r.require(doc, "joints", "state"), "state.joints");
  if (joints.IsDefined() && !joints.IsNull()) {
    r.requireMap(joints, "state.joints");
    for (auto it = joints.begin(); it != joints.end(); ++it) {
      const std::string name = it->first.Scalar();
      const int body = m.bodyOfJoint(name);
      if (body < 0) {
        const std::string hint = closestMatch(name, names);
        r.fail(it->first, "state.joints: the model has no joint '" + name + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      const Joint& j = m.joint[body];
      const YAML::Node jn = it->second;
      const std::string w = "state.joints." + name;
      r.checkKeys(jn, {"position", "velocity", "acceleration", "torque"}, w);
      readJointValues(r, r.require(jn, "position", w), j.nq, s.q.data() + j.idx_q, w + ".position");
      readJointValues(r, r.require(jn, "velocity", w), j.nv, s.v.data() + j.idx_v, w + ".velocity");
      if (jn["acceleration"].IsDefined()) {
        readJointValues(r, jn["acceleration"], j.nv, s.a.data() + j.idx_v, w + ".acceleration");
      }
      if (jn["torque"].IsDefined()) {
        readJointValues(r, jn["torque"], j.nv, s.tau.data() + j.idx_v, w + ".torque");
      }
      if (j.type == JointType::kSpherical) {
        const double n = s.q.segment<4>(j.idx_q).norm();
        if (n < 1e-9) r.fail(jn["position"], w + ".position: the quaternion must not be zero");
        s.q.segment<4>(j.idx_q) /= n;
      }
    }
    for (const std::string& name : names) {
      if (!joints[name].IsDefined()) {
        r.fail(joints, "state.joints: joint '" + name + "' is missing (every joint needs a "
                       "position and a velocity)");
      }
    }
  }
}

// Modal coordinates of flexible bodies, by body name (default zero: undeformed, at rest).
void readModes(const yaml::Reader& r, const YAML::Node& doc, const Model& m, ProbeState& s) {
  if (const YAML::Node modes = doc["modes"]; modes.IsDefined()) {
    r.requireMap(modes, "state.modes");
    for (auto it = modes.begin(); it != modes.end(); ++it) {
      const std::string name = it->first.Scalar();
      int body = -1;
      std::vector<std::string> flexible;
      for (int i = 0; i < m.nbodies; ++i) {
        if (m.flex[i].nf == 0) continue;
        flexible.push_back(m.body_name[i]);
        if (m.body_name[i] == name) body = i;
      }
      if (body < 0) {
        const std::string hint = closestMatch(name, flexible);
        r.fail(it->first, "state.modes: the model has no flexible body '" + name + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      const FlexibleBody& f = m.flex[body];
      const YAML::Node fn = it->second;
      const std::string w = "state.modes." + name;
      r.checkKeys(fn, {"position", "velocity", "acceleration", "force"}, w);
      auto read = [&](const char* key, Eigen::VectorXd& x, int idx) {
        if (!fn[key].IsDefined()) return;
        const std::vector<double> vals = r.numbers(fn[key], f.nf, w + "." + key);
        for (int k = 0; k < f.nf; ++k) x[idx + k] = vals[k];
      };
      read("position", s.q, f.idx_q);
      read("velocity", s.v, f.idx_v);
      read("acceleration", s.a, f.idx_v);
      read("force", s.tau, f.idx_v);
    }
  }
}

// External wrenches, at a point of a link, in world or link components.
void readExternalWrenches(const yaml::Reader& r, const YAML::Node& doc, const Model& m, ProbeState& s) {
  s.fext.assign(m.nbodies, Vector6::Zero());
  if (const YAML::Node ws = doc["external_wrenches"]; ws.IsDefined()) {
    r.requireSequence(ws, "state.external_wrenches");
    Data d(m);
    forwardKinematics(m, d, s.q);
    for (std::size_t k = 0; k < ws.size(); ++k) {
      const YAML::Node w = ws[k];
      const std::string what = "state.external_wrenches[" + std::to_string(k) + "]";
      r.checkKeys(w, {"link", "point", "force", "torque", "frame"}, what);
      const int f = frameByName(r, r.require(w, "link", what), m, what + ".link");
      const Vector3 p = w["point"].IsDefined() ? r.vector3(w["point"], what + ".point") : Vector3::Zero();
      const Vector3 F = w["force"].IsDefined() ? r.vector3(w["force"], what + ".force") : Vector3::Zero();
      const Vector3 n = w["torque"].IsDefined() ? r.vector3(w["torque"], what + ".torque") : Vector3::Zero();
      const std::string frame = w["frame"].IsDefined()
                                    ? r.choice(w["frame"], {"world", "link"}, what + ".frame")
                                    : std::string("world");
      const Frame& fr = m.frames[f];
      // Into body components at the body origin.
      const Matrix3 R_BF = fr.X_body_frame.R;
      const Matrix3 R_WB = d.X_world[fr.body].R;
      const Vector3 F_B = frame == "world" ? Vector3(R_WB.transpose() * F) : Vector3(R_BF * F);
      const Vector3 n_B = frame == "world" ? Vector3(R_WB.transpose() * n) : Vector3(R_BF * n);
      const Vector3 p_B = fr.X_body_frame.act(p);
      s.fext[fr.body].head<3>() += F_B;
      s.fext[fr.body].tail<3>() += n_B + p_B.cross(F_B);
      s.has_fext = true;
    }
  }
}

// The frame, point and components of the Jacobian to print, if asked.
void readJacobianRequest(const yaml::Reader& r, const YAML::Node& doc, const Model& m, ProbeState& s) {
  if (const YAML::Node jr = doc["jacobian"]; jr.IsDefined()) {
    r.checkKeys(jr, {"link", "point", "frame"}, "state.jacobian");
    JacobianRequest req;
    req.frame = frameByName(r, r.require(jr, "link", "state.jacobian"), m, "state.jacobian.link");
    if (jr["point"].IsDefined()) req.point = r.vector3(jr["point"], "state.jacobian.point");
    if (jr["frame"].IsDefined()) {
      req.reference = r.choice(jr["frame"], {"world", "link"}, "state.jacobian.frame") == "world"
                          ? ReferenceFrame::kWorld
                          : ReferenceFrame::kLocal;
    }
    s.jacobian = req;
  }
}

ProbeState readState(const YAML::Node& doc, const std::string& path, const Model& m) {
  const yaml::Reader r(path);
  r.checkKeys(doc, {"base", "joints", "modes", "external_wrenches", "jacobian"}, "state");
  ProbeState s;
  s.q = neutralConfiguration(m);
  s.v = VectorXd::Zero(m.nv);
  s.a = VectorXd::Zero(m.nv);
  s.tau = VectorXd::Zero(m.nv);
  readBase(r, doc, m, s);
  readJoints(r, doc, m, s);
  readModes(r, doc, m, s);
  readExternalWrenches(r, doc, m, s);  // after the joints: the links' poses turn world components
  readJacobianRequest(r, doc, m, s);
  return s;
}

void writeProbe(std::ostream& out, const Model& m, const std::string& model_path, ProbeState& s) {
  Data d(m);
  const BodyWrenches* fext = s.has_fext ? &s.fext : nullptr;
  Json j{{"model",
          {{"file", model_path},
           {"name", m.name},
           {"base_mode", baseModeName(m.base_mode)},
           {"nq", m.nq},
           {"nv", m.nv},
           {"nbodies", m.nbodies},
           {"mass_kg", m.totalMass()}}},
         {"coordinates", {{"configuration", m.configurationNames()}, {"velocity", m.velocityNames()}}},
         {"q", jsonArray(s.q)},
         {"v", jsonArray(s.v)}};
  j["mass_matrix"] = jsonMatrix(massMatrix(m, d, s.q));
  const Eigen::MatrixXd C = coriolisMatrix(m, d, s.q, s.v);
  j["coriolis_matrix"] = jsonMatrix(C);
  j["coriolis_times_velocity"] = jsonArray(C * s.v);
  j["nonlinear_effects"] = jsonArray(nonlinearEffects(m, d, s.q, s.v, fext));
  j["forward_dynamics"] = {{"tau", jsonArray(s.tau)}, {"acceleration", jsonArray(forwardDynamics(m, d, s.q, s.v, s.tau, fext))}};
  Json& inverse = j["inverse_dynamics"] = {{"acceleration", jsonArray(s.a)},
                                           {"tau", jsonArray(inverseDynamics(m, d, s.q, s.v, s.a, fext))}};
  if (m.hasFreeBase()) inverse["base_reaction_wrench"] = jsonArray(baseReactionWrench(m, d));

  if (m.base_mode == BaseMode::kFloating) {
    const VectorXd tau = inverseDynamicsFloatingBase(m, d, s.q, s.v, s.a, fext);
    j["floating_inverse_dynamics"] = {{"base_acceleration", jsonArray(d.ddq.head<6>())},
                                      {"joint_torques", jsonArray(tau.tail(m.nv - 6))},
                                      {"base_reaction_wrench", jsonArray(baseReactionWrench(m, d))}};
  }

  if (s.jacobian) {
    const JacobianRequest& jr = *s.jacobian;
    forwardKinematics(m, d, s.q);
    const Eigen::MatrixXd J = frameJacobian(m, d, jr.frame, jr.point, jr.reference);
    Json& jac = j["jacobian"] = {{"link", m.frames[jr.frame].name},
                                 {"point", jsonArray(jr.point)},
                                 {"frame", jr.reference == ReferenceFrame::kWorld ? "world" : "link"},
                                 {"J", jsonMatrix(J)}};
    if (m.hasFreeBase()) {
      jac["J0"] = jsonMatrix(J.leftCols<6>());
      jac["Jm"] = jsonMatrix(J.rightCols(m.nv - 6));
      if (m.nv > 6) jac["generalized"] = jsonMatrix(generalizedJacobian(m, d, s.q, jr.frame, jr.point, jr.reference));
    }
  }

  const Vector6 h = momentum(m, d, s.q, s.v);
  j["momentum"] = {{"linear", jsonArray(h.head<3>())},
                   {"angular_about_origin", jsonArray(h.tail<3>())},
                   {"angular_about_com", jsonArray(angularMomentumAboutCom(m, d, s.q, s.v))}};
  j["kinetic_energy"] = kineticEnergy(m, d, s.q, s.v);
  j["center_of_mass"] = jsonArray(centerOfMass(m, d, s.q));
  writeJson(out, j);
}

}  // namespace

void writeProbeOfState(std::ostream& out, const Model& m, const std::string& model_path,
                       const YAML::Node& state, const std::string& state_path) {
  ProbeState s = readState(state, state_path, m);
  writeProbe(out, m, model_path, s);
}

int runProbe(const ProbeArgs& a) {
  std::vector<std::string> warnings;
  const Model m = loadModelFile(a.model.path, a.model.base, &warnings, std::nullopt, a.model.inertia);
  for (const std::string& w : warnings) std::cerr << w << '\n';
  writeProbeOfState(std::cout, m, a.model.path, yaml::loadFile(a.state), a.state);
  return 0;
}

}  // namespace grapple::cli
