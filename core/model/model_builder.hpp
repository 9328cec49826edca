// ModelBuilder: the mutable, link-and-joint description (the shape of URDF) that build() turns into
// an immutable Model. Readers (URDF, YAML) and tests fill it; nothing else creates a Model.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <optional>

#include "core/flex/beam_modes.hpp"
#include "core/model/model.hpp"

namespace grapple::core {

// Where a link or joint was defined, for messages ("robot.urdf:12").
struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based, 0 if unknown
  std::string str() const {
    return file.empty() ? std::string() : line > 0 ? file + ":" + std::to_string(line) : file;
  }
};

// A model that cannot be built: the message says which link or joint; the location where it was
// defined (empty for models built in code). what() is "file:line: message".
class ModelError : public std::runtime_error {
 public:
  ModelError(SourceLocation where, const std::string& message)
      : std::runtime_error(where.str().empty() ? message : where.str() + ": " + message),
        where_(std::move(where)),
        message_(message) {}
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// An assumed-mode segment: the beam starts at `root` and runs along +x of the link frame.
struct BeamSpec {
  BeamProperties properties;
  Vector3 root = Vector3::Zero();     // [m] start of the flexible part, link components
  ModeCounts modes;
  std::optional<TipLoad> tip_load;    // default: the bodies at the tip, at the neutral configuration
  double damping_ratio = 0.0;         // ξ of every mode
  bool rotary_inertia = true;         // the sections' rotary inertia (needed for torsion modes)
  // De Luca & Siciliano compatibility (App. D.1.1): modal masses m I instead of the
  // integrals, the modes assumed orthogonal, as the thesis did to compare with their model.
  bool segment_modal_mass = false;
};

// A flexible appendage by modal participation (thesis App. D.2.1).
// Also the way to give modal tables computed elsewhere (a finite-element model, the thesis'
// tables): participation, modal masses, stiffness, and the shapes at a tip where bodies hang.
struct ModalSpec {
  Eigen::MatrixXd participation;      // L (nf x 6): [v ω] at the link origin, link components
  Eigen::VectorXd frequency;          // (nf) [rad/s]: K = diag(ω_j² M_jj), unless stiffness is given
  Eigen::VectorXd damping_ratio;      // (nf)
  Eigen::MatrixXd modal_mass;         // (nf x nf) default I
  Eigen::MatrixXd stiffness;          // (nf x nf) optional, replaces the frequencies
  struct Tip {
    Vector3 position = Vector3::Zero();  // [m] link components
    Eigen::MatrixXd translation;         // (3 x nf) tip displacement per unit δ
    Eigen::MatrixXd rotation;            // (3 x nf) tip rotation (3-2-1 angles) per unit δ
  };
  std::optional<Tip> tip;
};

struct FlexSpec {
  FlexModel model = FlexModel::kFull;
  std::optional<BeamSpec> beam;       // exactly one of beam and modal
  std::optional<ModalSpec> modal;
};

// ({name, inertia} is a rigid link: the other fields have default initializers, so that brace
// initialization may leave them out.)
struct LinkSpec {
  std::string name;
  Inertia inertia;      // about the link origin, link components (the undeformed body)
  SourceLocation where{};
  std::optional<FlexSpec> flexible{};
  std::vector<Geometry> visual{}, collision{};  // origins in the link frame
};

struct JointSpec {
  std::string name;
  JointType type = JointType::kFixed;
  std::string parent, child;          // link names
  Transform origin;                   // joint frame in the parent link frame (q = 0: child = joint frame)
  Vector3 axis = Vector3::UnitZ();    // normalized by build()
  Vector3 axis2 = Vector3::UnitY();   // universal joints
  // One value per velocity coordinate of the joint, or empty (no limit, no armature).
  std::vector<double> lower, upper;   // [rad or m]
  std::vector<double> velocity;       // [rad/s or m/s]
  std::vector<double> effort;         // [N m or N]
  std::vector<double> armature;       // [kg m^2 or kg]
  // A mimic joint (revolute or prismatic) follows the joint named `mimic` (revolute or
  // prismatic, itself possibly a mimic): q = multiplier * q_mimic + offset. Its own limits are
  // not used: the master's bound it.
  std::string mimic;
  double multiplier = 1.0, offset = 0.0;
  SourceLocation where;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string name = "model") : name_(std::move(name)) {}

  void setName(std::string name) { name_ = std::move(name); }
  void setBaseMode(BaseMode mode) { base_mode_ = mode; }
  // Pose of the base link in the inertial frame (a fixed base only; a free base takes it from q).
  void setBasePlacement(const Transform& X_world_base) { base_placement_ = X_world_base; }
  void setGravity(const Vector3& g_W) { gravity_W_ = g_W; }
  // Every flexible link uses this approximate model (§5.2.6.1), whatever its own spec says.
  void setFlexModel(FlexModel model) { flex_model_ = model; }

  void addLink(LinkSpec link) { links_.push_back(std::move(link)); }
  void addJoint(JointSpec joint) { joints_.push_back(std::move(joint)); }

  const std::vector<LinkSpec>& links() const { return links_; }
  // The link of that name, to edit before build(); throws ModelError if there is none.
  LinkSpec& link(const std::string& name);
  const std::vector<JointSpec>& joints() const { return joints_; }
  BaseMode baseMode() const { return base_mode_; }

  // Checks everything (names, tree, axes, inertias, limits, a non-singular mass matrix) and throws
  // ModelError naming the faulty link or joint. The link without a parent joint becomes the base.
  Model build() const;
  // Mimic joints whose own position limits the range of the joint they follow (composed along a
  // chain of mimics: multiplier * [lower, upper] + offset, unbounded if that joint has no limits)
  // goes beyond, one error each (the mimic's location, both ranges). The model does not use a
  // mimic's own limits; the readers say what they do with a conflict. Call after build().
  std::vector<ModelError> mimicLimitConflicts() const;

 private:
  std::string name_;
  BaseMode base_mode_ = BaseMode::kFixed;
  Transform base_placement_;
  Vector3 gravity_W_ = Vector3::Zero();
  std::optional<FlexModel> flex_model_;
  std::vector<LinkSpec> links_;
  std::vector<JointSpec> joints_;
};

// Checks that (mass, inertia about the centre of mass) can be a physical body: finite, mass >= 0,
// symmetric, positive semi-definite, principal moments satisfying the triangle inequality.
// Returns an empty string when valid, otherwise what is wrong.
std::string checkPhysicalInertia(double mass, const Matrix3& I_com);
// The physical inertia nearest to I_com (Frobenius norm) with the same principal axes: its principal
// moments are the Euclidean projection of I_com's onto the physical ones (all >= 0, I1 + I2 >= I3),
// e.g. moments with I1 + I2 < I3 move along (1, 1, -1) onto I1 + I2 = I3. Returns I_com if it is
// already physical.
Matrix3 nearestPhysicalInertia(const Matrix3& I_com);

}  // namespace grapple::core
