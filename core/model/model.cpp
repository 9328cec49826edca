#include "core/model/model.hpp"

namespace grapple::core {

std::string_view baseModeName(BaseMode mode) {
  switch (mode) {
    case BaseMode::kFixed: return "fixed";
    case BaseMode::kFloating: return "floating";
    case BaseMode::kFlying: return "flying";
  }
  return "?";
}

std::string_view shapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kBox: return "box";
    case ShapeType::kCylinder: return "cylinder";
    case ShapeType::kSphere: return "sphere";
    case ShapeType::kCapsule: return "capsule";
    case ShapeType::kMesh: return "mesh";
  }
  return "?";
}

int Model::frameId(std::string_view frame_name) const {
  for (std::size_t k = 0; k < frames.size(); ++k) {
    if (frames[k].name == frame_name) return static_cast<int>(k);
  }
  return -1;
}

int Model::bodyOfJoint(std::string_view joint_name) const {
  for (int i = 0; i < nbodies; ++i) {
    if (joint[i].nv > 0 && joint[i].name == joint_name) return i;
  }
  return -1;
}

static const char* const kBaseVelocity[6] = {"base_vx", "base_vy", "base_vz",
                                             "base_wx", "base_wy", "base_wz"};
static const char* const kBaseConfiguration[7] = {"base_x",  "base_y",  "base_z", "base_qw",
                                                  "base_qx", "base_qy", "base_qz"};

std::vector<std::string> Model::velocityNames() const {
  std::vector<std::string> names;
  names.reserve(nv);
  for (int i = 0; i < nbodies; ++i) {
    const Joint& j = joint[i];
    for (int k = 0; k < j.nv; ++k) {
      if (i == 0 && j.type == JointType::kFree) {
        names.emplace_back(kBaseVelocity[k]);
      } else if (j.nv == 1) {
        names.push_back(j.name);
      } else {
        names.push_back(j.name + "[" + std::to_string(k) + "]");
      }
    }
    for (const std::string& mode : flex[i].mode_names) names.push_back(body_name[i] + "." + mode);
  }
  return names;
}

std::vector<std::string> Model::configurationNames() const {
  std::vector<std::string> names;
  names.reserve(nq);
  for (int i = 0; i < nbodies; ++i) {
    const Joint& j = joint[i];
    for (int k = 0; k < j.nq; ++k) {
      if (i == 0 && j.type == JointType::kFree) {
        names.emplace_back(kBaseConfiguration[k]);
      } else if (j.nq == 1) {
        names.push_back(j.name);
      } else {
        names.push_back(j.name + "[" + std::to_string(k) + "]");
      }
    }
    for (const std::string& mode : flex[i].mode_names) names.push_back(body_name[i] + "." + mode);
  }
  return names;
}

std::string_view flexModelName(FlexModel m) {
  switch (m) {
    case FlexModel::kFull: return "flex";
    case FlexModel::kConstantMass: return "flex-M";
    case FlexModel::kConstantMassPrinted: return "flex-M-printed";
    case FlexModel::kNominalA: return "flex-MA";
    case FlexModel::kNominalR: return "flex-MR";
  }
  return "?";
}

std::optional<FlexModel> flexModelFromName(std::string_view name) {
  for (FlexModel m : {FlexModel::kFull, FlexModel::kConstantMass, FlexModel::kConstantMassPrinted,
                      FlexModel::kNominalA, FlexModel::kNominalR}) {
    if (flexModelName(m) == name) return m;
  }
  return std::nullopt;
}

double Model::totalMass() const {
  double m = 0.0;
  for (const Inertia& I : inertia) m += I.m;
  return m;
}

}  // namespace grapple::core
