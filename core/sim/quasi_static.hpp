// Quasi-static condensation of a flexible model's fast modes: the modes whose frequency exceeds a
// cutoff keep their static deflection under the current loads and lose their dynamics, so that
// an explicit integrator's step is set by the motion and the slow modes, not by the stiffest mode.
//
// The modal equations of the condensed coordinates δ_c (thesis eq. 5.63, rows of D_f q̈ + C_f q̇
// + K q = τ_f) are those of a singularly perturbed system, ε = (ω_slow/ω_c)² (Kokotović, Khalil &
// O'Reilly, Singular Perturbation Methods in Control, 1986, Ch. 1 and 6: "fast subsystem" and
// "quasi-steady state"). Its slow manifold to leading order in ε is
//   δ̇_c = 0, δ̈_c = 0:  the rest of the system moves as the model with δ_c locked (the reduced
//                       model below, every other mode, joint and the base kept), and
//   K_cc δ_c = −[ID(q|δ_c=0, q̇|δ̇_c=0, q̈|δ̈_c=0)]_c:  the static deflection under the loads the
//                       locked modes carry (inertial, gyroscopic, elastic coupling, external),
// ID being the inverse dynamics of the whole model (Alg. 5.1). The deflection's own influence on
// the motion is O(δ_c) in the kinematics and O(ε) in the slow dynamics, both dropped; it is kept in
// what is recorded (the modal coordinates, the hand's position, the elastic energy). The dropped
// dynamics are those of modes the thesis itself proposes to neglect (§5.2.7: the traction modes).
#pragma once

#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "core/dynamics/data.hpp"

namespace grapple::core {

// The model with some modal coordinates removed (locked at zero deflection): keep[i] lists, for
// body i, the indices (in 0 .. nf_i - 1, increasing) of the modes it keeps. Every modal integral of
// those modes is kept as it was, so the result is the full model restricted to δ_c = 0, δ̇_c = 0.
// Coordinates are renumbered; bodies, frames and everything else are unchanged. Throws
// std::invalid_argument for a model with mimic joints.
Model keepModes(const Model& model, const std::vector<std::vector<int>>& keep);

// The model with some modes locked (keepModes), a workspace for it, and the maps between its
// coordinates and the full model's: what the quasi-static integrator integrates (below), and the
// rigid model the controllers may be given (sim/knowledge, `knowledge.flexible: rigid`).
class LockedModes {
 public:
  // keep: as keepModes'. Throws std::invalid_argument as keepModes does.
  LockedModes(const Model& model, const std::vector<std::vector<int>>& keep);

  int locked() const { return static_cast<int>(cv_.size()); }
  // The full model with the locked modes at zero, and a workspace for it.
  const Model& reduced() const { return reduced_; }
  Data& reducedData() { return data_; }
  // The full indices of the reduced coordinates: q_full[qMap()[k]] is q_reduced[k] (same for v).
  const std::vector<int>& qMap() const { return q_map_; }
  const std::vector<int>& vMap() const { return v_map_; }

  // Full <-> reduced coordinates (sizes: the full model's nq, nv; the reduced model's).
  void gatherQ(const Eigen::VectorXd& q, Eigen::VectorXd& q_r) const;
  void gatherV(const Eigen::VectorXd& v, Eigen::VectorXd& v_r) const;
  // v (full size) from v_r, the locked entries zero.
  void scatterV(const Eigen::VectorXd& v_r, Eigen::VectorXd& v) const;
  // The locked entries of a full configuration (positions) or velocity-sized vector set to zero.
  void lockQ(Eigen::VectorXd& q) const;
  void lockV(Eigen::VectorXd& v) const;

  // The full model's body inertias copied to the reduced model (after a payload was grasped).
  void syncInertia(const Model& model);

 protected:
  Model reduced_;
  Data data_;
  std::vector<int> q_map_, v_map_;          // (reduced nq), (reduced nv)
  std::vector<int> cq_, cv_;                // full indices of the locked coordinates, body by body
};

class QuasiStaticModes : public LockedModes {
 public:
  // Condenses every mode of `model` whose frequency (FlexibleBody::frequency: clamped-loaded for
  // segments, given for appendages) exceeds cutoff [rad/s].
  QuasiStaticModes(const Model& model, double cutoff);

  int condensed() const { return locked(); }

  // The static deflection of the condensed modes at the full state (q, v) with the accelerations
  // ddq (full size, as scatterV makes them from the reduced model's) under the external wrenches:
  // writes δ_c into q's condensed entries (their values on entry are ignored; v's condensed
  // entries must be zero). Uses data (a workspace of `model`) for the inverse dynamics.
  void deflect(const Model& model, Data& data, Eigen::VectorXd& q, const Eigen::VectorXd& v,
               const Eigen::VectorXd& ddq, const BodyWrenches* fext);

 private:
  struct Block {                            // one body's condensed modes
    int begin = 0, size = 0;                // in cq_, cv_
    Eigen::LLT<Eigen::MatrixXd> K;          // Cholesky factor of K_cc
  };
  std::vector<Block> blocks_;
  Eigen::VectorXd q_, rhs_;                 // scratch
};

}  // namespace grapple::core
