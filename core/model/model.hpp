// Model: the immutable description of a multibody system, a kinematic tree rooted at the base
// (body 0). Built once by ModelBuilder (from code, URDF or YAML) and then shared read-only by every
// algorithm and thread, as mjModel / pinocchio::Model. Everything that changes lives in Data.
//
// Bodies are the rigid sets that move independently: links joined by fixed joints are merged into
// one body when the model is built, and every link stays reachable as a named Frame.
// Bodies are numbered so that parent[i] < i (parents first), which every recursion relies on.
// The frame of a body moved by a revolute, prismatic, cylindrical or planar joint has its z axis on
// the joint axis (ModelBuilder rotates it there; the link's own frame is kept as a Frame), so such a
// joint turns about, or slides along, z and its P_i is a unit vector.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "core/math/spatial.hpp"
#include "core/model/flexible.hpp"
#include "core/model/geometry.hpp"
#include "core/model/joint.hpp"

namespace grapple::core {

// How the base moves (thesis §6.2; SPART's "floating" and "flying"):
enum class BaseMode {
  kFixed,     // welded to the inertial frame (a fixed-base manipulator)
  kFloating,  // free and unactuated: with no external wrench, momentum is conserved
  kFlying,    // free and actuated by a 6-DOF wrench (thrusters, wheels)
};
std::string_view baseModeName(BaseMode mode);

// What a reader does with a link whose inertia no body can have: refuse the file (the default),
// or replace it by nearestPhysicalInertia (model_builder.hpp) and report the repair as a warning.
enum class InertiaPolicy { kRefuse, kRepair };

// A named frame attached to a body: every URDF/YAML link, the tool frame, etc.
struct Frame {
  std::string name;
  int body = 0;                    // body it is attached to
  Transform X_body_frame;          // pose of the frame in the body frame
};

struct Model {
  std::string name;
  BaseMode base_mode = BaseMode::kFixed;
  int nq = 0;        // size of the configuration q (quaternions count 4)
  int nv = 0;        // size of the velocity v (= of accelerations and generalized forces)
  int nbodies = 0;   // number of bodies, the base included

  std::vector<int> parent;                 // (nbodies) parent body, -1 for the base
  std::vector<std::vector<int>> children;  // (nbodies) child bodies, increasing
  std::vector<std::string> body_name;      // (nbodies) name of the link defining the body frame
  std::vector<Joint> joint;                // (nbodies) joint from the parent into body i;
                                           //   joint[0]: kFree (floating/flying) or kFixed
  std::vector<Transform> X_parent_joint;   // (nbodies) joint frame in the parent body frame;
                                           //   for body 0, in the inertial frame
  std::vector<Inertia> inertia;            // (nbodies) about the body origin, body components,
                                           //   with all fixed links merged in
  std::vector<Matrix6> inertia_matrix;     // (nbodies) the same as 6x6 matrices M_i
  std::vector<Frame> frames;               // every named link
  std::vector<Geometry> visual;            // shapes drawn, placed in their bodies' frames
  std::vector<Geometry> collision;         // shapes for planning and contact checks, likewise

  Vector3 gravity_W = Vector3::Zero();     // [m/s^2] uniform gravity, inertial components

  Eigen::VectorXd lower_position_limit;    // (nq) [rad or m], -inf where none
  Eigen::VectorXd upper_position_limit;    // (nq) [rad or m], +inf where none
  Eigen::VectorXd velocity_limit;          // (nv) [rad/s or m/s], +inf where none
  Eigen::VectorXd effort_limit;            // (nv) [N m or N], +inf where none
  Eigen::VectorXd armature;                // (nv) [kg m^2 or kg] reflected rotor inertia N² J_m,
                                           //   added to the diagonal of the mass matrix

  std::vector<int> v_body;                 // (nv) body whose joint (or modes) own coordinate k

  // Flexible bodies (model/flexible.hpp). Body i's modal coordinates follow its joint's.
  std::vector<FlexibleBody> flex;          // (nbodies) nf = 0 for a rigid body
  std::vector<char> at_tip;                // (nbodies) body i hangs from the deformed tip of its parent
  std::vector<Transform> X_tip_joint;      // (nbodies) for those: the joint frame in the parent's
                                           //   undeformed tip frame (axes of the parent's link)
  int nflex = 0;                           // number of modal coordinates in all
  bool hasFlexibleBodies() const { return nflex > 0; }

  // Mimic joints (Joint::mimic_body): they have no coordinates of their own. `full` is the same
  // tree with a coordinate for every joint (null when there is no mimic joint), and the
  // algorithms run on it and project (dynamics/mimic.hpp): its coordinates are
  //   q_full[k] = mimic_q_gain[k] q[mimic_q_source[k]] + mimic_q_offset[k],
  //   v_full[k] = mimic_v_gain[k] v[mimic_v_source[k]],
  // i.e. v_full = G v with a constant G (so Ġ = 0); a joint that is not a mimic has gain 1.
  // The algorithms take the gravity, base placement, inertias and armature from this model (a
  // program may change them after the build), not from `full`.
  std::shared_ptr<const Model> full;
  std::vector<int> mimic_q_source, mimic_v_source;  // (full->nq), (full->nv)
  Eigen::VectorXd mimic_q_gain, mimic_q_offset;     // (full->nq)
  Eigen::VectorXd mimic_v_gain;                     // (full->nv)
  bool hasMimicJoints() const { return full != nullptr; }

  bool hasFreeBase() const { return !joint.empty() && joint[0].type == JointType::kFree; }
  // Number of velocity coordinates of the base (6 for floating and flying, 0 for fixed).
  int baseDofs() const { return hasFreeBase() ? 6 : 0; }

  int frameId(std::string_view frame_name) const;   // -1 if there is no such frame
  int bodyOfJoint(std::string_view joint_name) const;  // -1 if no moving joint has that name
  // Names of the velocity coordinates, in order: base_vx … base_wz, then joint[:k].
  std::vector<std::string> velocityNames() const;
  // Names of the configuration coordinates, in order: base_x … base_qz, then joint[:k].
  std::vector<std::string> configurationNames() const;
  double totalMass() const;
};

}  // namespace grapple::core
