#include "core/sim/knowledge.hpp"

#include <numeric>

#include "core/control/capture_controller.hpp"
#include "core/control/controller.hpp"
#include "core/planning/feasibility.hpp"
#include "core/model/model_builder.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::core {

namespace {

std::string jointText(const Model& m, int i) {
  return "'" + m.body_name[i] + "' (joint '" + m.joint[i].name + "', " + std::string(jointTypeName(m.joint[i].type)) + ")";
}

// The knowledge's robot against the truth: the same tree of bodies, joints and coordinates (the
// modes only when they are kept).
void checkStructure(const Model& truth, const Model& known, bool rigid) {
  auto fail = [](const std::string& why) {
    throw KnowledgeError({"robot"}, "knowledge.robot: not the chaser's structure (same bodies, joints and coordinates "
                                    "expected): " + why);
  };
  if (known.nbodies != truth.nbodies) {
    fail(std::to_string(known.nbodies) + " bodies, the chaser " + std::to_string(truth.nbodies));
  }
  if (known.base_mode != truth.base_mode) {
    fail("its base is " + std::string(baseModeName(known.base_mode)) + ", the chaser's " +
         std::string(baseModeName(truth.base_mode)));
  }
  for (int i = 0; i < truth.nbodies; ++i) {
    const Joint &a = truth.joint[i], &b = known.joint[i];
    if (known.parent[i] != truth.parent[i] || a.name != b.name || a.type != b.type || a.nq != b.nq || a.nv != b.nv ||
        a.mimic_body != b.mimic_body) {
      fail("body " + std::to_string(i) + " is " + jointText(known, i) + ", the chaser's " + jointText(truth, i));
    }
    if (!rigid && known.flex[i].nf != truth.flex[i].nf) {
      fail("body '" + known.body_name[i] + "' has " + std::to_string(known.flex[i].nf) + " modes, the chaser's " +
           std::to_string(truth.flex[i].nf) + " (or set knowledge.flexible: rigid)");
    }
  }
}

}  // namespace

Inertia perturbedInertia(const Inertia& body, const MassPropertiesError& e, const Matrix3& R_BL) {
  const double mass = body.m * (1 + e.mass);
  const Vector3 com = body.com() + R_BL * e.com;
  const Vector3 s = (Vector3::Ones() + e.inertia).cwiseMax(0.0).cwiseSqrt();
  const Matrix3 I_L = R_BL.transpose() * body.inertiaAboutCom() * R_BL;  // in the link's axes
  const Matrix3 J_L = s.asDiagonal() * I_L * s.asDiagonal();
  Matrix3 I = R_BL * J_L * R_BL.transpose();
  I = 0.5 * (I + I.transpose());
  const std::string why = checkPhysicalInertia(mass, I);
  if (!why.empty()) throw std::invalid_argument("the perturbed body is not physical: " + why);
  return Inertia::FromCom(mass, com, I);
}

DebrisProperties knownDebris(const DebrisProperties& truth, const Vector3& size, const KnowledgeSpec::Debris& k) {
  DebrisProperties p = truth;
  p.mass = truth.mass * (1 + k.mass);
  Matrix3 I = truth.inertia;
  if (k.ratios_only) {
    if (!(size.minCoeff() > 0)) {
      throw KnowledgeError({"debris", "ratios_only"},
                           "knowledge.debris.ratios_only: the inertia's scale is guessed from the debris' box of "
                           "uniform density: give debris.size");
    }
    // A uniform box a x b x c: trace m (a² + b² + c²) / 6.
    I *= p.mass * size.squaredNorm() / 6 / truth.inertia.trace();
  }
  const Vector3 s = (Vector3::Ones() + k.inertia).cwiseMax(0.0).cwiseSqrt();
  p.inertia = s.asDiagonal() * I * s.asDiagonal();
  p.target_B = truth.target_B + k.grasp_point;
  try {
    checkDebrisProperties(p);
  } catch (const std::invalid_argument& e) {
    throw KnowledgeError({"debris", "inertia"}, std::string("knowledge.debris: the debris the controllers know is not "
                                                            "physical: ") + e.what());
  }
  return p;
}

Model knownChaser(const Model& truth, const Scenario& s) {
  const KnowledgeSpec& k = *s.knowledge;
  Model m = k.robot_model ? *k.robot_model : truth;
  if (k.robot_model) {
    checkStructure(truth, m, k.rigid);
    if (!s.run.end_effector.empty() && m.frameId(s.run.end_effector) < 0) {
      throw KnowledgeError({"robot"}, "knowledge.robot: no frame '" + s.run.end_effector + "' (run.end_effector)");
    }
  }
  auto apply = [&](int body, const MassPropertiesError& e, const std::vector<std::string>& keys) {
    std::string what = "knowledge";
    for (const std::string& key : keys) what += "." + key;
    if (m.flex[body].nf > 0 && !k.rigid) {
      throw KnowledgeError(keys, what + ": body '" + m.body_name[body] + "' is flexible: its modal integrals, "
                                 "computed from its beam or modal table, would no longer match its mass; set "
                                 "knowledge.flexible: rigid, or give a knowledge.robot with the body changed");
    }
    // The errors are in the axes of the link that defines the body (its frame of that name).
    const int f = m.frameId(m.body_name[body]);
    const Matrix3 R_BL = f >= 0 && m.frames[f].body == body ? m.frames[f].X_body_frame.R : Matrix3::Identity();
    try {
      m.inertia[body] = perturbedInertia(m.inertia[body], e, R_BL);
    } catch (const std::invalid_argument& x) {
      throw KnowledgeError(keys, what + " (body '" + m.body_name[body] + "'): " + x.what());
    }
    m.inertia_matrix[body] = m.inertia[body].matrix();
  };
  if (k.bus) apply(0, *k.bus, {"bus"});
  const int ee = endEffectorFrame(m, s);
  const int payload = ee >= 0 ? m.frames[ee].body : -1;
  for (const auto& [name, e] : k.links) {
    int body = -1;
    for (int i = 0; i < m.nbodies; ++i) {
      if (m.body_name[i] == name) body = i;
    }
    if (body < 0) {
      const int f = m.frameId(name);
      if (f >= 0) {
        throw KnowledgeError({"links", name}, "knowledge.links." + name + ": link '" + name + "' is fixed to body '" +
                                                  m.body_name[m.frames[f].body] + "' and merged into it; errors apply "
                                                  "to whole bodies: name '" + m.body_name[m.frames[f].body] + "'");
      }
      std::string bodies;
      for (int i = 1; i < m.nbodies; ++i) bodies += (i > 1 ? ", " : "") + m.body_name[i];
      throw KnowledgeError({"links", name}, "knowledge.links." + name + ": the robot has no body '" + name +
                                                "' (its links that are bodies: " + bodies + ")");
    }
    if (body == 0) throw KnowledgeError({"links", name}, "knowledge.links." + name + ": the base: give it as knowledge.bus");
    if (body == payload && k.payload) {
      throw KnowledgeError({"links", name}, "knowledge.links." + name + ": body '" + name +
                                                "' carries the end effector: given as knowledge.payload already");
    }
    apply(body, e, {"links", name});
  }
  if (k.payload) {
    if (payload < 0) throw KnowledgeError({"payload"}, "knowledge.payload: the robot has no end effector frame");
    apply(payload, *k.payload, {"payload"});
  }
  return m;
}

Knowledge::Knowledge(const Model& truth, const Scenario& s) : full_(knownChaser(truth, s)), debris_(s.debris.properties) {
  if (s.debris.enabled && !s.knowledge->debris.zero()) {
    debris_ = knownDebris(s.debris.properties, s.debris.size, s.knowledge->debris);
    debris_off_ = true;
  }
  // flexible: rigid: the truth's coordinates without the modes, and the model without them (the
  // knowledge's robot may have modes where the truth has none, or none where it has some).
  // modes_below: the modes above it by the controllers' model's frequencies, left out of both (the
  // truth's modes are then the knowledge's, checkStructure).
  std::vector<std::vector<int>> keep(static_cast<std::size_t>(truth.nbodies));  // (the bodies are the truth's)
  int left_out = 0;
  for (int i = 0; i < full_.nbodies; ++i) {
    for (int j = 0; j < full_.flex[i].nf; ++j) {
      if (!s.knowledge->rigid && full_.flex[i].frequency[j] <= s.knowledge->modes_below) {
        keep[static_cast<std::size_t>(i)].push_back(j);
      } else {
        ++left_out;
      }
    }
  }
  const char* key = s.knowledge->rigid ? "flexible" : "modes_below";
  try {
    if (s.knowledge->rigid ? truth.hasFlexibleBodies() : left_out > 0) {
      const LockedModes t(truth, keep);
      q_map_ = t.qMap();
      v_map_ = t.vMap();
    }
    if (left_out > 0) locked_ = std::make_unique<LockedModes>(full_, keep);
  } catch (const std::invalid_argument& e) {
    throw KnowledgeError({key}, "knowledge." + std::string(key) + ": " + e.what());
  }
  index_.resize(static_cast<std::size_t>(truth.nv));
  std::iota(index_.begin(), index_.end(), 0);
  if (!v_map_.empty()) {
    index_.assign(index_.size(), -1);
    for (std::size_t k = 0; k < v_map_.size(); ++k) index_[static_cast<std::size_t>(v_map_[k])] = static_cast<int>(k);
  }
  if (!locked_) data_ = std::make_unique<Data>(full_, full_.hasFlexibleBodies());
  if (model().nv != (v_map_.empty() ? truth.nv : static_cast<int>(v_map_.size()))) {
    throw KnowledgeError({"robot"}, "knowledge.robot: its coordinates are not the chaser's");
  }
  ee_frame_ = endEffectorFrame(model(), s);
  tau_ = Eigen::VectorXd::Zero(model().nv);
}

std::vector<std::unique_ptr<Controller>> Knowledge::makeControllers(const Scenario& scenario, const Eigen::VectorXd& q0) {
  Scenario seen = scenario;
  seen.debris.properties = debris_;
  return grapple::core::makeControllers(model(), seen, q(q0), ee_frame_);
}

const Eigen::VectorXd& Knowledge::q(const Eigen::VectorXd& q_true) {
  if (q_map_.empty()) return q_true;
  q_ = q_true(q_map_);
  return q_;
}

const Eigen::VectorXd& Knowledge::v(const Eigen::VectorXd& v_true) {
  if (v_map_.empty()) return v_true;
  v_ = v_true(v_map_);
  return v_;
}

Eigen::VectorXd& Knowledge::forces() {
  tau_.setZero();
  return tau_;
}

void Knowledge::applyForces(Eigen::VectorXd& tau_true) const {
  if (v_map_.empty()) {
    tau_true = tau_;
    return;
  }
  tau_true.setZero();
  tau_true(v_map_) = tau_;
}

std::unique_ptr<PlanCheck> Knowledge::checkPlan(const CaptureController& capture, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& v) {
  const Eigen::VectorXd q_known = this->q(q), v_known = this->v(v);
  Data data(model(), model().hasFlexibleBodies());
  return std::make_unique<PlanCheck>(checkCapturePlan(model(), data, capture.feasibility(), *capture.plan(), q_known,
                                                      v_known, ee_frame_));
}

int Knowledge::index(int k) const { return index_[static_cast<std::size_t>(k)]; }

void Knowledge::attach(int body, const Inertia& debris) {
  full_.inertia[body] += debris;
  full_.inertia_matrix[body] = full_.inertia[body].matrix();
  if (locked_) locked_->syncInertia(full_);
}

std::unique_ptr<Knowledge> makeKnowledge(const Model& truth, const Scenario& s, DebrisProperties& debris) {
  debris = s.debris.properties;
  if (!s.knowledge || (s.knowledge->chaserIsTruth() && (!s.debris.enabled || s.knowledge->debris.zero()))) return nullptr;
  // (the debris known otherwise: the controllers' model gets it when it is grasped)
  auto k = std::make_unique<Knowledge>(truth, s);
  debris = k->debris();
  return k;
}

}  // namespace grapple::core
