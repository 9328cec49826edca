// Flexible bodies (thesis Ch. 5, App. B): an assumed-mode Euler–Bernoulli
// segment, or a flexible appendage given by its modal participation (the solar arrays, App. D.2.1).
//
// A flexible body keeps its undeformed "floating frame" (clamped at the segment root) as its body
// frame; its modal coordinates δ (nf of them) follow the coordinates of its joint in q and in v.
// Bodies that hang from the beam tip follow the deformed tip frame E, placed in the link frame by
// (R321(Δ_e δ), p_tip + Φ_e δ) (eq. 5.31–5.34): for the recursions E is reached from the floating
// frame through a virtual nf-DOF joint whose motion matrix is
//   S_E(δ) = [R_eᵀ Φ_e; R_eᵀ R_ψ(ψ_e) Δ_e]   (E components, R_ψ of eq. A.8)   (the thesis' A^f, 5.42a).
//
// Inertia. The rigid (δ-independent) inertia is the link's own (mass, com, inertia). The beam adds
// the exact translational kinetic energy of its deformation, ½∫μ |v + ω × (p_c + Φδ) + Φδ̇|², and
// the rotary energy of its sections to first order, ½∫ρ (ω + Δδ̇)ᵀ J_S (ω + Δδ̇): every term of
// M_f(δ) of eq. 5.16–5.18 except the δ-dependent rotary-inertia corrections I_rψ, I_ψψ, H_ψψ,
// which the thesis shows negligible for slender segments (App. B.2.2.2). The inertial forces are
// Newton's law on that continuum, so the model is Lagrangian and conserves energy.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "core/math/spatial.hpp"

namespace grapple::core {

// The approximate models of the thesis' §5.2.6.1.
enum class FlexModel {
  kFull,          // "flex": M_f(δ) with all its corrections, exact tip kinematics
  kConstantMass,  // "flex-M": constant M_f^(0), exact tip kinematics (energy-conserving form)
  kConstantMassPrinted,  // flex-M as printed in the thesis (γ without v × (V_u δ̇)): not Lagrangian
  kNominalA,      // "flex-MA": as flex-M, and the tip offset of the kinematics left at nominal
  kNominalR,      // "flex-MR": as flex-M, and the tip rotation of the kinematics ignored
};
std::string_view flexModelName(FlexModel m);
std::optional<FlexModel> flexModelFromName(std::string_view name);

constexpr int kMaxModes = 16;  // per body

struct FlexibleBody {
  int nf = 0;                    // number of modal coordinates (0: rigid body)
  int idx_q = 0, idx_v = 0;      // offsets of δ in q and v
  FlexModel model = FlexModel::kFull;
  std::vector<std::string> mode_names;   // (nf) e.g. "bend_y1"
  Eigen::VectorXd frequency;     // (nf) [rad/s] clamped-loaded (segments) or given (appendages)

  // Constant part, body components.
  Eigen::MatrixXd M_td;          // (6 x nf) M_f^(0) coupling of [v; ω] with δ̇ ([V_u; H_ru + H_rψ], or Lᵀ)
  Eigen::MatrixXd M_dd;          // (nf x nf) modal mass (Z̄_uu + Z̄_ψψ, or I)
  Eigen::MatrixXd K;             // (nf x nf) [N/m-like] stiffness
  Eigen::MatrixXd D;             // (nf x nf) modal damping 2 ξ ω m_modal

  // Beam data (segments only; body components), for the δ-dependent terms.
  bool beam = false;
  Eigen::MatrixXd Vu;            // (3 x nf) ∫μ Φ
  std::vector<Matrix3> C;        // (nf) ∫μ Φ_k p_cᵀ
  std::vector<Matrix3> Q;        // (nf*nf) ∫μ Φ_j Φ_kᵀ at [j*nf + k]
  std::vector<Vector3> X;        // (nf*nf) ∫μ Φ_j × Φ_k at [j*nf + k]
  Eigen::MatrixXd Zuu;           // (nf x nf) ∫μ Φᵀ Φ
  Eigen::MatrixXd Hrpsi;         // (3 x nf) ∫ρ J_S Δ (rotary coupling, part of M_td)

  // Tip kinematics (segments, and tables that give tip shapes): link-frame data.
  bool has_tip = false;
  Transform X_body_link;         // the link (beam) frame in the body frame
  Vector3 p_tip = Vector3::Zero();  // undeformed tip in link components
  Eigen::MatrixXd Phi_e, Delta_e;   // (3 x nf) tip translation and rotation shapes, link components
};

}  // namespace grapple::core
