#include "core/world/debris.hpp"

#include <cmath>
#include <stdexcept>

#include <Eigen/LU>

#include "core/math/rotation.hpp"
#include "core/model/model_builder.hpp"

namespace grapple::core {

void checkDebrisProperties(const DebrisProperties& p) {
  if (!(p.mass > 0) || !std::isfinite(p.mass)) {
    throw std::invalid_argument("debris: mass must be > 0 kg");
  }
  const std::string why = checkPhysicalInertia(p.mass, p.inertia);
  if (!why.empty()) throw std::invalid_argument("debris: " + why);
  if (!(p.inertia.determinant() > 0)) {
    throw std::invalid_argument("debris: the inertia must be positive definite");
  }
  if (!p.target_B.allFinite()) throw std::invalid_argument("debris: target point must be finite");
}

namespace {
// φ(ω) = -I⁻¹ (ω × I ω) and its body-frame derivative φ̇ = -I⁻¹ (φ × I ω + ω × I φ).
Vector3 phi(const Matrix3& I, const Matrix3& I_inv, const Vector3& w) { return -I_inv * w.cross(I * w); }

DebrisRates rates(const Matrix3& I, const Matrix3& I_inv, const DebrisState& s, const Vector3& accel_W,
                  const Vector3& torque_B) {
  DebrisRates d;
  d.r = s.v_W;
  d.v = accel_W;
  d.Q = quatRateBody(s.Q_WB, s.w_B);
  d.w = phi(I, I_inv, s.w_B) + I_inv * torque_B;
  return d;
}
}  // namespace

DebrisRates debrisRates(const DebrisProperties& p, const DebrisState& s, const Vector3& accel_W,
                        const Vector3& torque_B) {
  return rates(p.inertia, p.inertia.inverse(), s, accel_W, torque_B);
}

DebrisState stepDebris(const DebrisProperties& p, const DebrisState& s, double dt) {
  auto add = [](const DebrisState& x, const DebrisRates& k, double h) {
    DebrisState y = x;
    y.r_W += h * k.r;
    y.v_W += h * k.v;
    y.Q_WB += h * k.Q;
    y.w_B += h * k.w;
    return y;
  };
  const Matrix3& I = p.inertia;
  const Matrix3 I_inv = I.inverse();  // (once a step, not once a stage)
  const Vector3 zero = Vector3::Zero();
  const DebrisRates k1 = rates(I, I_inv, s, zero, zero);
  const DebrisRates k2 = rates(I, I_inv, add(s, k1, dt / 2), zero, zero);
  const DebrisRates k3 = rates(I, I_inv, add(s, k2, dt / 2), zero, zero);
  const DebrisRates k4 = rates(I, I_inv, add(s, k3, dt), zero, zero);
  DebrisState out = s;
  out.r_W += dt / 6 * (k1.r + 2 * k2.r + 2 * k3.r + k4.r);
  out.v_W += dt / 6 * (k1.v + 2 * k2.v + 2 * k3.v + k4.v);
  out.Q_WB += dt / 6 * (k1.Q + 2 * k2.Q + 2 * k3.Q + k4.Q);
  out.w_B += dt / 6 * (k1.w + 2 * k2.w + 2 * k3.w + k4.w);
  return out;
}

Vector3 graspAxis(const DebrisProperties& p) {
  return p.target_B.norm() > 0 ? Vector3(p.target_B.normalized()) : Vector3::UnitZ();
}

PointKinematics targetKinematics(const DebrisProperties& p, const DebrisState& s) {
  const Matrix3 R = quatToMatrix(s.Q_WB);
  const Matrix3& I = p.inertia;
  const Matrix3 I_inv = I.inverse();
  const Vector3 wB = s.w_B, phB = phi(I, I_inv, wB);
  const Vector3 dphB = -I_inv * (phB.cross(I * wB) + wB.cross(I * phB));
  // Inertial components: ω, α = ω̇, α̇ = R (φ̇_B + ω_B × φ_B) (eq. 7.8), p = R p_B.
  const Vector3 w = R * wB, a = R * phB, da = R * (dphB + wB.cross(phB)), pt = R * p.target_B;
  PointKinematics k;
  k.position = s.r_W + pt;                                     // (7.6a)
  k.velocity = s.v_W + w.cross(pt);                            // (7.6b)
  k.acceleration = a.cross(pt) + w.cross(w.cross(pt));         // (7.6c)
  k.jerk = da.cross(pt) + 2 * a.cross(w.cross(pt)) + w.cross(a.cross(pt)) -
           w.squaredNorm() * w.cross(pt);                      // (7.6d)
  return k;
}

double debrisRotationalEnergy(const DebrisProperties& p, const DebrisState& s) {
  return 0.5 * s.w_B.dot(p.inertia * s.w_B);
}

Vector3 debrisAngularMomentum(const DebrisProperties& p, const DebrisState& s) {
  return quatToMatrix(s.Q_WB) * (p.inertia * s.w_B);
}

}  // namespace grapple::core
