// Manipulability of an arm (thesis §8.1.2, eq. 4.35; SPART's workspace and manipulability tools):
// Yoshikawa's measure w = sqrt(det(J Jᵀ)) and the condition number σ_max/σ_min of the hand's
// Jacobian, for the arm on a fixed base (J_m, the joint columns of the frame Jacobian) or the
// free-floating robot (the generalized Jacobian J* = J_m - J_0 H_0⁻¹ H_0m, zero momentum), and maps
// of them over a grid of two joints or over a plane of the workspace.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::core {

enum class ManipulabilityJacobian {
  kFixedBase,    // J_m: the joints' columns, the base held
  kGeneralized,  // J*: the base free, the momentum zero (floating bases only)
};

// Which rows of the hand's twist [v; ω] (inertial axes) count.
enum class ManipulabilityTask {
  kPosition,  // v (3 rows): the thesis' choice ("the three main segments")
  kPlanarXY,  // v_x, v_y (2 rows): planar arms
  kFull,      // v and ω (6 rows)
};

struct ManipulabilityOptions {
  int frame = -1;                     // the hand (end-effector frame)
  Vector3 point = Vector3::Zero();    // the point of that frame (frame components)
  ManipulabilityJacobian jacobian = ManipulabilityJacobian::kFixedBase;
  ManipulabilityTask task = ManipulabilityTask::kPosition;
};

struct Manipulability {
  double yoshikawa = 0;   // sqrt(det(J Jᵀ)); 0 at a singular configuration
  double condition = 0;   // σ_max / σ_min (infinite at a singular configuration)
};

// The task rows of the chosen Jacobian at q (rows x joints).
Eigen::MatrixXd manipulabilityJacobian(const Model& model, const Eigen::VectorXd& q, const ManipulabilityOptions& options);
Manipulability manipulability(const Model& model, const Eigen::VectorXd& q, const ManipulabilityOptions& options);

// A map over two joints (velocity indices of 1-DOF joints a and b), the other coordinates at q:
// value(i, j) at joint a = a_values[i], joint b = b_values[j]. Computed on `threads` threads.
struct ManipulabilityMap {
  std::vector<double> a_values, b_values;   // [rad or m] the grid (or [m] along the plane's axes)
  Eigen::MatrixXd yoshikawa, condition;     // (a x b); NaN where unreachable (plane maps)
};
ManipulabilityMap jointManipulabilityMap(const Model& model, const Eigen::VectorXd& q, const ManipulabilityOptions& options,
                                         int joint_a, double a_min, double a_max, int na, int joint_b, double b_min,
                                         double b_max, int nb, int threads = 2);

// A map over a plane of the workspace, origin + u s + v t (inertial, u and v orthonormal), with
// s, t on the grid: at each point the hand is placed there by moving joints a and b only
// (Newton on the two in-plane coordinates, warm-started from the neighbouring point: the branch,
// elbow up or down, is q's), the others at q; points it cannot reach are NaN (thesis §8.1.2,
// Fig. 8.3: the map in the arm's vertical plane, the inverse kinematics reduced to θ2, θ3).
ManipulabilityMap planeManipulabilityMap(const Model& model, const Eigen::VectorXd& q, const ManipulabilityOptions& options,
                                         int joint_a, int joint_b, const Vector3& origin, const Vector3& u,
                                         const Vector3& v, double s_min, double s_max, int ns, double t_min,
                                         double t_max, int nt, int threads = 2);

// The plane in which two revolute joints with parallel axes move the hand (the thesis' arm plane,
// Fig. 8.3): normal to joint a's axis, through the hand (the hand stays in it as a and b turn);
// origin on a's axis, u from there to the hand, v = axis × u. reach: the farthest the two joints can put the hand from the origin
// (|origin→b| + |b→hand|, in the plane). Throws std::invalid_argument if a or b is not a revolute
// joint.
struct ArmPlane {
  Vector3 origin = Vector3::Zero(), u = Vector3::UnitX(), v = Vector3::UnitY();
  double reach = 0;  // [m]
};
ArmPlane armPlane(const Model& model, const Eigen::VectorXd& q, const ManipulabilityOptions& options, int joint_a,
                  int joint_b);

// The arm plane as carried by joint a's parent body: the base and the joints before a move it
// with the arm's shoulder, a and b turn the hand within it. `local`: the plane in that body's
// frame.
struct CarriedArmPlane {
  int body = 0;
  ArmPlane local;
};
// `plane` (inertial, at q) expressed in the frame of the parent body of joint_a (a velocity
// index). Throws std::invalid_argument if joint_a is not a 1-DOF joint or q has the wrong size.
CarriedArmPlane carryArmPlane(const Model& model, const Eigen::VectorXd& q, const ArmPlane& plane, int joint_a);
// The carried plane in the inertial frame at configuration q; with `hand`, also the position of
// frame `frame`'s origin there (inertial; one forward kinematics for both).
ArmPlane armPlaneAt(const Model& model, const Eigen::VectorXd& q, const CarriedArmPlane& carried, int frame = -1,
                    Vector3* hand = nullptr);

// The manipulability ellipsoid of the task velocities {J q̇ : |q̇| <= 1}: its semi-axes (radii,
// decreasing: the singular values) and directions (columns, in the task's rows' axes).
struct ManipulabilityEllipsoid {
  Eigen::VectorXd radii;
  Eigen::MatrixXd axes;
};
ManipulabilityEllipsoid manipulabilityEllipsoid(const Model& model, const Eigen::VectorXd& q,
                                                const ManipulabilityOptions& options);

// The workspace as a point cloud: the hand's position (inertial) for `samples` joint
// configurations drawn uniformly within the joints' limits ([-π, π] where a revolute joint has
// none), the base and the other coordinates at q; deterministic for a given seed.
std::vector<Vector3> workspaceCloud(const Model& model, const Eigen::VectorXd& q, int frame, int samples,
                                    unsigned seed = 1, const Vector3& point = Vector3::Zero());

// The image of a box of two joints' angles in the workspace: the frame's position (inertial)
// along the edges of [lower_a, upper_a] x [lower_b, upper_b] (q indices qa, qb), the other
// coordinates as in q; per_edge points an edge, from (lower_a, lower_b) through (upper_a,
// lower_b), (upper_a, upper_b), (lower_a, upper_b) and back to the first: 4 per_edge + 1 points.
std::vector<Vector3> frameAlongJointBox(const Model& model, const Eigen::VectorXd& q, int frame, int qa, double lower_a,
                                        double upper_a, int qb, double lower_b, double upper_b, int per_edge);

}  // namespace grapple::core
