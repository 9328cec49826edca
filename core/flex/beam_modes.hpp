// Assumed modes of a clamped–loaded Euler–Bernoulli segment (thesis App. B.1
// §3.3): traction, bending in two planes and torsion, clamped at the segment base and loaded at the
// tip by the mass and inertia of everything outboard. From the physical data alone: the natural
// frequencies (roots of the characteristic equations B.5–B.7), the mode shapes, and every modal
// integral the flexible dynamics needs (B.19–B.27), so a user can describe a new flexible link
// without precomputed tables.
//
// Beam frame: x along the beam (s ∈ [0, l]), Y-bending = displacement u_y with slope ψ_z = u_y',
// Z-bending = u_z with ψ_y = -u_z', torsion ψ_x. The flexible coordinates are ordered
// δ = [δ_x; δ_y; δ_z; δ_α] (traction, Y-bending, Z-bending, torsion), eq. B.11.
//
// Normalization (App. D; App. B.1's ∫ρSφ² = 1 replaced by it): each mode's load-augmented generalized mass equals the segment
// mass, ∫ρSφ² + M_L φ(l)² + J_L φ'(l)² = m (rotary terms for torsion), so that K(j,j) = m ω_j²;
// sign: ∫φ ds > 0.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

namespace grapple::core {

// Physical data of a uniform segment. Units SI.
struct BeamProperties {
  double length = 0;          // l [m]
  double density = 0;         // ρ [kg/m^3]
  double area = 0;            // S [m^2] (density × area = mass per unit length)
  double young = 0;           // E [N/m^2]
  double shear = 0;           // G [N/m^2]
  double Iy = 0, Iz = 0;      // second moments of area [m^4]; I_p = Iy + Iz for torsion
};

// Everything outboard of the tip, seen at the tip in the nominal configuration.
struct TipLoad {
  double mass = 0;            // M_L [kg]
  double Jx = 0, Jy = 0, Jz = 0;  // J_L about the beam axes at the tip [kg m^2]
};

struct ModeCounts {
  int traction = 0, bending_y = 0, bending_z = 0, torsion = 0;
  int total() const { return traction + bending_y + bending_z + torsion; }
};

enum class ModeFamily { kTraction, kBendingY, kBendingZ, kTorsion };

// One mode: its frequency and its shape in closed form.
struct BeamMode {
  ModeFamily family;
  double omega = 0;   // [rad/s]
  double k = 0;       // wave number [1/m]
  double a = 0, b = 0;  // shape coefficients (see shape())
  // φ(s) and its derivatives φ', φ'' (traction, torsion: a sin(ks); bending:
  // a (cos ks - cosh ks) + b (sin ks - sinh ks)).
  double shape(double s, int derivative = 0) const;
};

// The modal data of one segment, all from the same scaled shapes (nf = counts.total()).
struct SegmentModes {
  ModeCounts counts;
  std::vector<BeamMode> modes;   // in the order of δ
  double mass = 0;               // m = ρ S l [kg]
  Eigen::VectorXd omega;         // (nf) [rad/s]
  Eigen::MatrixXd K;             // (nf x nf) stiffness ∫ ES φx'φx' … (= m ω² on the diagonal)
  Eigen::MatrixXd Phi_e;         // (3 x nf) tip displacement shapes Φ(l)
  Eigen::MatrixXd Delta_e;       // (3 x nf) tip rotation shapes Δ(l)
  Eigen::MatrixXd Vu;            // (3 x nf) ∫ρS Φ ds
  Eigen::MatrixXd Wu;            // (3 x nf) ∫ρS s Φ ds
  Eigen::MatrixXd Vpsi;          // (3 x nf) ∫ρ Δ ds
  Eigen::MatrixXd Zuu;           // (nf x nf) ∫ρS φ_u φ_uᵀ ds (full)
  Eigen::MatrixXd Zuu_bar;       // (nf x nf) ∫ρS Φᵀ Φ ds (block-diagonal)
  Eigen::MatrixXd Ypsi;          // (nf x nf) ∫ρ φ_ψ φ_ψᵀ ds
  Eigen::MatrixXd Zpsi_bar;      // (nf x nf) ∫ρ Δᵀ J_S Δ ds
  // Shapes at a point of the beam: Φ(s) (3 x nf) and Δ(s) (3 x nf).
  Eigen::MatrixXd Phi(double s) const;
  Eigen::MatrixXd Delta(double s) const;
};

// Solves for the first modes of each family and computes the modal integrals (Gauss–Legendre
// quadrature, exact to rounding for these smooth shapes). Throws std::invalid_argument for
// non-physical data (a zero length, density, stiffness...), naming the quantity.
SegmentModes computeSegmentModes(const BeamProperties& beam, const TipLoad& load,
                                 const ModeCounts& counts);

}  // namespace grapple::core

#include "core/model/flexible.hpp"

namespace grapple::core {

// Diagonal modal damping D_jj = 2 ξ_j ω_j m_j, the modal mass m_j = K_jj / ω_j².
Eigen::MatrixXd modalDamping(const Eigen::MatrixXd& K, const Eigen::VectorXd& omega, const Eigen::VectorXd& xi);

// The flexible-body data of a segment (model/flexible.hpp) from its modes: the beam starts at
// `root` and runs along +x of its link frame, which sits in the body frame with rotation
// R_body_link. damping_ratio: modal damping ξ of every mode.
// rotary_inertia: keep the sections' rotary inertia (H_rψ, Z̄_ψψ); the thesis drops it in its
// planar test, whose data would overestimate it.
FlexibleBody beamFlexibleBody(const SegmentModes& modes, const BeamProperties& beam,
                              const Vector3& root, const Matrix3& R_body_link,
                              double damping_ratio, bool rotary_inertia = true,
                              bool segment_modal_mass = false);

// A flexible appendage from its modal participation (App. D.2.1): L (nf x 6, columns v_x v_y v_z
// ω_x ω_y ω_z at the link origin, link components), natural frequencies ω (rad/s), damping ratios
// ξ, unit modal masses.
// modal_mass: (nf x nf) or empty (I); stiffness: (nf x nf) or empty (diag(ω² M_jj)).
FlexibleBody modalFlexibleBody(const Eigen::MatrixXd& L, const Eigen::VectorXd& omega,
                               const Eigen::VectorXd& damping_ratio, const Matrix3& R_body_link,
                               const Eigen::MatrixXd& modal_mass = {},
                               const Eigen::MatrixXd& stiffness = {});

}  // namespace grapple::core
