// The space environment around the chaser (thesis §6.1.2–6.1.3; where the print leaves out a
// term or a constant, the standard forms of Hughes 1986, as noted at each effect), as external
// wrenches on the bodies.
//
// Frame. The simulation's inertial frame W free-falls with a reference point on a circular orbit
// and does not rotate: its axes are the orbital frame at t = 0 (x radial, away from the Earth;
// y along the velocity; z along the orbit normal). Gravity then appears only as the tidal field
// a(ρ) = -n² (ρ - 3 (r̂·ρ) r̂), with r̂(t) = [cos nt, sin nt, 0] and n the mean motion:
//  - applied to the bodies' centres of mass it gives the relative orbital motion of chaser and
//    debris (the Clohessy–Wiltshire equations, written in W), which the thesis neglects (its
//    weightlessness hypothesis, §6.2.3): switch it on to see when that stops holding;
//  - applied across each body it gives the gravity-gradient torque 3 n² r̂ × (I r̂) (eq. 6.2b).
// Drag, solar radiation pressure and a residual magnetic dipole act on the base.
#pragma once

#include "core/dynamics/data.hpp"
#include "core/world/debris.hpp"

namespace grapple::core {

struct EnvironmentSettings {
  // Circular orbit (thesis §6.1.2; it gives no constants: μ and R_E are WGS-84's).
  double altitude = 500e3;                    // [m] above the equatorial radius
  double mu = 3.986004418e14;                 // [m^3/s^2]
  double earth_radius = 6378137.0;            // [m]
  bool gravity_gradient = false;              // torques about each body's centre of mass
  bool relative_motion = false;               // tidal forces on every body and on the debris

  struct Drag {
    bool enabled = false;
    double density = 5e-13;                   // [kg/m^3] (about 500 km, mean solar activity)
    double drag_coefficient = 2.2;
    double area = 4.0;                        // [m^2] reference area
    Vector3 center_of_pressure = Vector3::Zero();  // [m] base frame
  } drag;

  struct SolarPressure {
    bool enabled = false;
    double pressure = 4.56e-6;                // [N/m^2] at 1 AU
    double area = 4.0;                        // [m^2] flat plate, both faces
    Vector3 normal = Vector3::UnitX();        // base frame
    Vector3 center_of_pressure = Vector3::Zero();  // [m] base frame
    Vector3 sun_direction = Vector3::UnitX(); // towards the Sun, W (fixed over a capture)
    double absorbed = 0.2, diffuse = 0.3, specular = 0.5;  // σ_a + σ_rd + σ_rs = 1
  } solar_pressure;

  struct Magnetic {
    bool enabled = false;
    Vector3 dipole = Vector3::Zero();         // [A m^2] residual dipole, base frame
    Vector3 field = Vector3::Zero();          // [T] in W; zero: the Earth's dipole at the orbit
                                              // radius, along -z (equatorial orbit)
  } magnetic;
};

// Throws std::invalid_argument naming the first impossible value.
void checkEnvironment(const EnvironmentSettings& s);

class Environment {
 public:
  explicit Environment(EnvironmentSettings settings);

  const EnvironmentSettings& settings() const { return settings_; }
  double orbitRadius() const { return radius_; }          // [m]
  double meanMotion() const { return n_; }                // [rad/s]
  double orbitalSpeed() const { return radius_ * n_; }    // [m/s]
  Vector3 radialDirection(double t) const;                // r̂(t) in W
  Vector3 velocityDirection(double t) const;              // in W
  Vector3 magneticField() const;                          // [T] in W

  // Tidal acceleration at ρ (relative to W's origin) [m/s^2].
  Vector3 tidalAcceleration(double t, const Vector3& rho_W) const;
  // Gravity-gradient torque about the centre of mass of a body of inertia I_W (W axes).
  Vector3 gravityGradientTorque(double t, const Matrix3& I_com_W) const;

  // Adds the environment's wrenches to fext (body components, at body origins). Needs the world
  // poses of data (forwardKinematics(q)) and the base's attitude.
  void addBodyWrenches(const Model& model, const Data& data, double t, BodyWrenches& fext) const;
  // The debris' linear acceleration (inertial) and torque about its centre of mass (body axes).
  void debrisLoads(const DebrisProperties& p, const DebrisState& s, double t, Vector3& accel_W,
                   Vector3& torque_B) const;

 private:
  EnvironmentSettings settings_;
  double radius_, n_;
};

}  // namespace grapple::core
