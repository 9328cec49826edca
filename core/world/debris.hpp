// The tumbling debris: a torque-free rigid body (thesis §7.1.1, eq. 7.2–7.3 with the sign
// corrected: ω̇ = -I⁻¹(ω × I ω)), and the kinematics of its grasp
// point up to the jerk (eq. 7.6–7.8, §2.2), which the capture planners need.
#pragma once

#include "core/math/spatial.hpp"

namespace grapple::core {

struct DebrisProperties {
  double mass = 0;                      // [kg]
  Matrix3 inertia = Matrix3::Zero();    // [kg m^2] about the centre of mass, body axes (full tensor)
  Vector3 target_B = Vector3::Zero();   // [m] grasp point relative to the centre of mass, body axes
};

// Throws std::invalid_argument if the properties are not those of a body (mass <= 0, inertia not
// symmetric positive definite or violating the triangle inequality, non-finite values).
void checkDebrisProperties(const DebrisProperties& p);

struct DebrisState {
  Vector3 r_W = Vector3::Zero();        // [m] centre of mass, inertial components
  Vector3 v_W = Vector3::Zero();        // [m/s]
  Vector4 Q_WB = Vector4(1, 0, 0, 0);   // attitude [w x y z], body -> inertial
  Vector3 w_B = Vector3::Zero();        // [rad/s] angular velocity, body components
};

// d/dt of the state: ṙ = v, v̇ = 0, Q̇ = ½ Q ⊗ [0; ω], ω̇ = -I⁻¹ (ω × I ω).
struct DebrisRates {
  Vector3 r = Vector3::Zero(), v = Vector3::Zero();
  Vector4 Q = Vector4::Zero();
  Vector3 w = Vector3::Zero();
};
// With external loads (the environment's): an acceleration of the centre of mass (inertial
// components) and a torque about it (body axes): v̇ = a, ω̇ = I⁻¹ (τ - ω × I ω).
DebrisRates debrisRates(const DebrisProperties& p, const DebrisState& s,
                        const Vector3& accel_W = Vector3::Zero(),
                        const Vector3& torque_B = Vector3::Zero());

// One classical RK4 step of the torque-free motion (the quaternion is integrated with the state,
// as in the rest of Grapple).
DebrisState stepDebris(const DebrisProperties& p, const DebrisState& s, double dt);

// The grasp point in inertial components: position, velocity, acceleration and jerk.
struct PointKinematics {
  Vector3 position, velocity, acceleration, jerk;
};
PointKinematics targetKinematics(const DebrisProperties& p, const DebrisState& s);
// The grasp point's outward axis in the debris frame (unit): from the centre of mass through the
// grasp point (+z when the grasp point is the centre of mass). The hand meets the grasp face along
// its opposite.
Vector3 graspAxis(const DebrisProperties& p);

// A direction turning in space: the unit axis and the angular velocity and acceleration that turn
// it (their components perpendicular to the axis; the spin about it is not part of a direction),
// inertial components.
struct AxisKinematics {
  Vector3 axis = Vector3::UnitZ(), rate = Vector3::Zero(), acceleration = Vector3::Zero();
};

// Rotational kinetic energy ½ ωᵀ I ω [J] and angular momentum about the centre of mass in inertial
// components, R I ω [kg m^2/s]: both constant for a torque-free body.
double debrisRotationalEnergy(const DebrisProperties& p, const DebrisState& s);
Vector3 debrisAngularMomentum(const DebrisProperties& p, const DebrisState& s);

}  // namespace grapple::core
