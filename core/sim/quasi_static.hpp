// Quasi-static condensation of a flexible model's fast modes: the modes whose frequency exceeds a
// cutoff keep their static deflection under the current loads and lose their dynamics, so that
// an explicit integrator's step is set by the motion and the slow modes, not by the stiffest mode.
//
// The modes condensed are either each body's own (clamped-loaded frequencies) or each body's
// modes coupled with the rigid joints and base (CondensedModes below): these bound an explicit
// step, since a joint's armature lets the outboard body turn where the clamped-loaded mode holds it.
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

#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "core/dynamics/data.hpp"

namespace grapple::core {

// The model restricted to a subspace of each flexible body's modal coordinates, δ_i = P_i η_i
// (P_i: nf_i x k_i, full column rank; k_i = 0 locks every mode of body i): every modal integral is
// linear or bilinear in the mode shapes (thesis App. B.2: V_u, W_u, H_ru, the tip shapes Φ_e, Δ_e
// linear; Z_uu, the stiffness, the damping and the products Φ_j Φ_kᵀ bilinear), so the restricted
// model is the full one with its modes Φ P_i, its coordinates η_i. frequency[i] (k_i) and
// names[i] name them. Throws std::invalid_argument for a model with mimic joints.
Model restrictModes(const Model& model, const std::vector<Eigen::MatrixXd>& P,
                    const std::vector<Eigen::VectorXd>& frequency, const std::vector<std::vector<std::string>>& names);

// The model with its modes restricted (restrictModes), a workspace for it, and the maps between its
// coordinates and the full model's: what the quasi-static integrator integrates (below), and the
// rigid model the controllers may be given (sim/knowledge, `knowledge.flexible: rigid`).
// A full state whose modal coordinates lie in the subspaces, δ_i = P_i η_i, maps to η_i = G_i δ_i
// (G_i P_i = I); lockQ/lockV project any δ_i onto them along the complement the owner chose.
class LockedModes {
 public:
  // Per body (empty for a rigid body): its kept subspace P_i (nf_i x k_i), a left inverse G_i
  // (k_i x nf_i, G_i P_i = I; P_i G_i is the projection lockQ applies), and the frequencies and
  // names of the kept coordinates η_i.
  struct Bases {
    std::vector<Eigen::MatrixXd> P, G;
    std::vector<Eigen::VectorXd> frequency;
    std::vector<std::vector<std::string>> names;
  };
  // The modes locked at zero deflection: keep[i] lists, for body i, the indices (in 0 .. nf_i - 1,
  // increasing) of the modes it keeps (P_i: those columns of the identity), so the reduced model is
  // the full one restricted to δ_c = 0, δ̇_c = 0. Throws std::invalid_argument as restrictModes does.
  LockedModes(const Model& model, const std::vector<std::vector<int>>& keep);
  // Throws std::invalid_argument as restrictModes does, or if a G_i does not fit its P_i.
  LockedModes(const Model& model, Bases bases);

  int locked() const { return locked_; }
  // The full model with the locked modes at zero, and a workspace for it.
  const Model& reduced() const { return reduced_; }
  Data& reducedData() { return data_; }
  // The full indices of the reduced coordinates: q_full[qMap()[k]] is q_reduced[k] (same for v);
  // -1 for a reduced modal coordinate that combines several modes (bases that are no selection).
  const std::vector<int>& qMap() const { return q_map_; }
  const std::vector<int>& vMap() const { return v_map_; }
  // v = T v_r (nv x reduced nv): the velocities the reduced coordinates move the full model by.
  Eigen::MatrixXd velocityBasis() const;

  // Full <-> reduced coordinates (sizes: the full model's nq, nv; the reduced model's).
  void gatherQ(const Eigen::VectorXd& q, Eigen::VectorXd& q_r) const;
  void gatherV(const Eigen::VectorXd& v, Eigen::VectorXd& v_r) const;
  // Generalized forces on the reduced coordinates from the full ones: τ_r = Tᵀ τ.
  void gatherForce(const Eigen::VectorXd& tau, Eigen::VectorXd& tau_r) const;
  // v (full size) from v_r: v = T v_r.
  void scatterV(const Eigen::VectorXd& v_r, Eigen::VectorXd& v) const;
  // A full configuration's (positions) or velocity-sized vector's modal coordinates projected onto
  // the kept subspaces (a selection: the locked entries set to zero).
  void lockQ(Eigen::VectorXd& q) const;
  void lockV(Eigen::VectorXd& v) const;

  // The full model's body inertias copied to the reduced model (after a payload was grasped).
  void syncInertia(const Model& model);

 protected:
  struct Subspace {                         // one flexible body's kept modes
    int body = 0;
    int q = 0, v = 0, nf = 0;               // its δ in the full q, v
    int rq = 0, rv = 0;                     // its η in the reduced q, v
    Eigen::MatrixXd P, G;                   // (nf x k), (k x nf): δ = P η, η = G δ
  };
  void project(Eigen::VectorXd& x, bool positions) const;

  Model reduced_;
  Data data_;
  int locked_ = 0;
  std::vector<int> q_map_, v_map_;          // (reduced nq), (reduced nv)
  std::vector<int> rigid_q_, rigid_v_;      // full indices of the joints' coordinates ...
  std::vector<int> rigid_rq_, rigid_rv_;    // ... and their reduced ones
  std::vector<Subspace> sub_;
  mutable Eigen::VectorXd scratch_;         // (the largest nf)
};

// Which modes the quasi-static integrator condenses (run.quasi_static_modes).
enum class CondensedModes {
  kBody,     // each body's own modes (FlexibleBody::frequency: clamped-loaded for segments, given
             //   for appendages) above the cutoff
  kCoupled,  // each body's modes coupled with the joints and the base: the eigenvectors of
             //   K_i y = ω² S_i y, S_i = H_ff − H_fr H_rr⁻¹ H_rf the Schur complement of the mass
             //   matrix at a reference configuration on body i's modal rows (its other bodies'
             //   modes held), those above the cutoff
  kWhole,    // kCoupled's, and then the whole model's: while the model restricted to the kept modes
             //   (every joint and the base free, all bodies' kept modes together) has coupled modes
             //   above the cutoff at the reference configuration, each one's part on the body that
             //   carries most of its kinetic energy (a body carried by another flexible one, a
             //   grasped payload couple the bodies' modes where kCoupled holds the others)
};

class QuasiStaticModes : public LockedModes {
 public:
  // Condenses every mode of `model` whose frequency exceeds cutoff [rad/s]: kBody's frequencies,
  // or kCoupled's at the configuration q_ref (full size; required for kCoupled).
  QuasiStaticModes(const Model& model, double cutoff, CondensedModes which = CondensedModes::kBody,
                   const Eigen::VectorXd* q_ref = nullptr);

  int condensed() const { return locked(); }

  // The static deflection of the condensed modes at the full state (q, v) with the accelerations
  // ddq (full size, as scatterV makes them from the reduced model's) under the external wrenches:
  // projects q's modal coordinates onto the kept subspaces (lockQ) and adds the condensed modes'
  // deflection (v must lie in the kept subspaces). Uses data (a workspace of `model`) for the
  // inverse dynamics.
  void deflect(const Model& model, Data& data, Eigen::VectorXd& q, const Eigen::VectorXd& v,
               const Eigen::VectorXd& ddq, const BodyWrenches* fext);

  // The condensed directions of body i's modal coordinates (nf_i x c_i; empty: none).
  const Eigen::MatrixXd& condensedBasis(int body) const { return condensed_[static_cast<std::size_t>(body)]; }

 private:
  struct Parts {
    Bases kept;
    std::vector<Eigen::MatrixXd> condensed;
  };
  static Parts split(const Model& model, double cutoff, CondensedModes which, const Eigen::VectorXd* q_ref);
  QuasiStaticModes(const Model& model, Parts parts);

  struct Block {                            // one body's condensed modes
    int q = 0, v = 0;                       // its δ in the full q, v
    Eigen::MatrixXd C;                      // (nf x c) condensed directions: δ += C η_c
    Eigen::LLT<Eigen::MatrixXd> K;          // Cholesky factor of Cᵀ K C
  };
  std::vector<Block> blocks_;
  std::vector<Eigen::MatrixXd> condensed_;  // per body
  Eigen::VectorXd rhs_;                     // scratch
};

}  // namespace grapple::core
