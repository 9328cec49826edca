// Truth and knowledge: the simulation integrates the true chaser and debris; the controllers and
// planners work on their own model of them (the scenario's `knowledge`, scenarios/README.md):
// another robot file of the same structure, errors on the bodies' mass properties, the debris'
// mass and inertia known roughly (or only the inertia's ratios), the grasp point off, the flexible
// modes left out. The controllers get that model, the state in its coordinates (without the modes
// it leaves out) and give forces in them (padded with zeros on those modes).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dynamics/data.hpp"
#include "core/sim/quasi_static.hpp"
#include "core/sim/scenario.hpp"

namespace grapple::core {

// A knowledge that cannot be: the message, and the keys under `knowledge` of the value at fault
// (e.g. {"links", "segment2", "inertia"}), for the loader to name its line.
class KnowledgeError : public std::invalid_argument {
 public:
  KnowledgeError(std::vector<std::string> keys, const std::string& message)
      : std::invalid_argument(message), keys_(std::move(keys)) {}
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  std::vector<std::string> keys_;
};

// One body's mass properties with the errors e (MassPropertiesError: relative mass, com offset,
// inertia scaled per axis), R_BL: the axes the errors are given in (the link's) in the body's.
// Throws std::invalid_argument if the result is no physical body (checkPhysicalInertia's words).
Inertia perturbedInertia(const Inertia& body, const MassPropertiesError& e, const Matrix3& R_BL = Matrix3::Identity());

// The debris as the controllers know it: mass (1 + mass) m; inertia S I S (S = diag(√(1 + e_k)),
// debris body axes), first scaled, with ratios_only, to the trace of a uniform box of `size` and
// the known mass; grasp point target_B + grasp_point. Throws KnowledgeError.
DebrisProperties knownDebris(const DebrisProperties& truth, const Vector3& size, const KnowledgeSpec::Debris& k);

// The chaser model the controllers use, all coordinates kept: the knowledge's robot (or the truth)
// with the bodies' errors. Checks that the robot has the truth's structure (bodies, parents,
// joints and their types, coordinates) and that every perturbed body exists, is a body (not a link
// merged into one) and stays physical. Throws KnowledgeError.
Model knownChaser(const Model& truth, const Scenario& scenario);

class CaptureController;
class Controller;
struct PlanCheck;

// The controllers' side of a run: their model (knownChaser, reduced to its rigid part with
// `flexible: rigid`, to its modes up to a frequency with `modes_below`) and workspace, the truth's
// state in its coordinates, their forces back.
class Knowledge {
 public:
  // scenario.knowledge must be set. Throws KnowledgeError.
  Knowledge(const Model& truth, const Scenario& scenario);
  // The controllers of the scenario (makeControllers) on this model, the debris known, from the
  // truth's initial configuration q0.
  std::vector<std::unique_ptr<Controller>> makeControllers(const Scenario& scenario, const Eigen::VectorXd& q0);
  const DebrisProperties& debris() const { return debris_; }
  bool debrisOff() const { return debris_off_; }  // the debris known is not the truth
  Knowledge(const Knowledge&) = delete;
  Knowledge& operator=(const Knowledge&) = delete;

  const Model& model() const { return locked_ ? locked_->reduced() : full_; }
  Data& data() { return locked_ ? locked_->reducedData() : *data_; }
  int endEffector() const { return ee_frame_; }
  // The truth's q, v in the controllers' coordinates (the same vectors when no mode is left out).
  const Eigen::VectorXd& q(const Eigen::VectorXd& q_true);
  const Eigen::VectorXd& v(const Eigen::VectorXd& v_true);
  // The controllers' forces (their nv), zeroed; then spread onto the truth's coordinates.
  Eigen::VectorXd& forces();
  void applyForces(Eigen::VectorXd& tau_true) const;
  // The capture controller's current plan checked (checkCapturePlan) on this model from the truth's
  // state (q, v) when it was made: the controllers' own prediction.
  std::unique_ptr<PlanCheck> checkPlan(const CaptureController& capture, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v);
  // The controllers' index of the truth's velocity coordinate k (-1: a mode left out).
  int index(int k) const;
  // The debris grasped: its (known) inertia, about body `body`'s origin in its axes, added to the
  // controllers' model.
  void attach(int body, const Inertia& debris);

 private:
  Model full_;                          // knownChaser
  std::unique_ptr<Data> data_;          // full_'s (without locked_)
  std::unique_ptr<LockedModes> locked_; // flexible: rigid, modes_below: the modes left out locked
  std::vector<int> q_map_, v_map_;      // the truth's coordinates the controllers have (empty: all)
  std::vector<int> index_;              // (truth nv) the controllers' index, -1 if left out
  int ee_frame_ = -1;
  DebrisProperties debris_;
  bool debris_off_ = false;
  Eigen::VectorXd q_, v_, tau_;
};

// The knowledge of a run: null when the scenario has none or it is the truth (the chaser's model
// and the debris' properties unchanged); `debris` set to the debris the controllers know (the
// truth's without knowledge).
std::unique_ptr<Knowledge> makeKnowledge(const Model& truth, const Scenario& scenario, DebrisProperties& debris);

}  // namespace grapple::core
