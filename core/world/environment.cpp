#include "core/world/environment.hpp"

#include <cmath>
#include <stdexcept>

#include "core/math/rotation.hpp"

namespace grapple::core {

void checkEnvironment(const EnvironmentSettings& s) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("environment: ") + what);
  };
  require(std::isfinite(s.altitude) && s.altitude > 0, "altitude must be > 0 m");
  require(s.mu > 0 && s.earth_radius > 0, "mu and earth_radius must be > 0");
  require(s.drag.density >= 0 && s.drag.drag_coefficient >= 0 && s.drag.area >= 0,
          "drag density, coefficient and area must be >= 0");
  require(s.drag.center_of_pressure.allFinite(), "drag center_of_pressure must be finite");
  const auto& p = s.solar_pressure;
  require(p.pressure >= 0 && p.area >= 0, "solar pressure and area must be >= 0");
  require(p.normal.norm() > 0 && p.sun_direction.norm() > 0, "solar normal and sun direction must not be zero");
  require(p.absorbed >= 0 && p.diffuse >= 0 && p.specular >= 0 &&
              std::abs(p.absorbed + p.diffuse + p.specular - 1) < 1e-9,
          "solar absorbed + diffuse + specular must be 1, each >= 0");
  require(s.magnetic.dipole.allFinite() && s.magnetic.field.allFinite(), "magnetic values must be finite");
}

Environment::Environment(EnvironmentSettings settings) : settings_(std::move(settings)) {
  checkEnvironment(settings_);
  radius_ = settings_.earth_radius + settings_.altitude;
  n_ = std::sqrt(settings_.mu / (radius_ * radius_ * radius_));
}

Vector3 Environment::radialDirection(double t) const {
  return {std::cos(n_ * t), std::sin(n_ * t), 0.0};
}

Vector3 Environment::velocityDirection(double t) const {
  return {-std::sin(n_ * t), std::cos(n_ * t), 0.0};
}

Vector3 Environment::magneticField() const {
  if (settings_.magnetic.field.norm() > 0) return settings_.magnetic.field;
  // The Earth's dipole, B0 = 3.12e-5 T at the equatorial surface, falling as 1/r³; in the orbit
  // plane of an equatorial orbit it points along -z (the dipole is anti-aligned with the spin axis).
  const double ratio = settings_.earth_radius / radius_;
  return {0.0, 0.0, -3.12e-5 * ratio * ratio * ratio};
}

Vector3 Environment::tidalAcceleration(double t, const Vector3& rho) const {
  const Vector3 r = radialDirection(t);
  return -n_ * n_ * (rho - 3.0 * r.dot(rho) * r);
}

Vector3 Environment::gravityGradientTorque(double t, const Matrix3& I_W) const {
  const Vector3 r = radialDirection(t);
  return 3.0 * n_ * n_ * r.cross(I_W * r);
}

void Environment::addBodyWrenches(const Model& m, const Data& d, double t,
                                  BodyWrenches& fext) const {
  const EnvironmentSettings& s = settings_;
  // Tidal forces and gravity-gradient torques, body by body.
  if (s.relative_motion || s.gravity_gradient) {
    for (int i = 0; i < m.nbodies; ++i) {
      const Inertia& I = m.inertia[i];
      if (I.m <= 0) continue;
      const Transform& X = d.X_world[i];
      const Vector3 com_B = I.com();
      Vector3 f_W = Vector3::Zero(), n_W = Vector3::Zero();
      if (s.relative_motion) f_W = I.m * tidalAcceleration(t, X.act(com_B));
      if (s.gravity_gradient) {
        n_W = gravityGradientTorque(t, X.R * I.inertiaAboutCom() * X.R.transpose());
      }
      const Vector3 f_B = X.R.transpose() * f_W;
      fext[i].head<3>() += f_B;
      fext[i].tail<3>() += X.R.transpose() * n_W + com_B.cross(f_B);
    }
  }
  // Drag, solar pressure and magnetic torque on the base.
  const Matrix3& R = d.X_world[0].R;
  if (s.drag.enabled) {
    const double v = orbitalSpeed();
    const Vector3 F_W = -0.5 * s.drag.density * s.drag.drag_coefficient * s.drag.area * v * v *
                        velocityDirection(t);
    const Vector3 f_B = R.transpose() * F_W;
    fext[0].head<3>() += f_B;
    fext[0].tail<3>() += s.drag.center_of_pressure.cross(f_B);
  }
  if (s.solar_pressure.enabled) {
    // Flat plate (thesis §6.1.3 after Hughes 1986 p. 263, with the area S the print omits and the
    // standard specular term): f = -P S cosθ [(σa + σrd) i + (2 σrs cosθ + ⅔ σrd) n], n the lit face's normal.
    const auto& sp = s.solar_pressure;
    const Vector3 i_B = R.transpose() * sp.sun_direction.normalized();
    Vector3 n_B = sp.normal.normalized();
    double c = n_B.dot(i_B);
    if (c < 0) {
      n_B = -n_B;
      c = -c;
    }
    const Vector3 f_B = -sp.pressure * sp.area * c *
                        ((sp.absorbed + sp.diffuse) * i_B + (2 * sp.specular * c + 2.0 / 3 * sp.diffuse) * n_B);
    fext[0].head<3>() += f_B;
    fext[0].tail<3>() += sp.center_of_pressure.cross(f_B);
  }
  if (s.magnetic.enabled) {
    fext[0].tail<3>() += s.magnetic.dipole.cross(R.transpose() * magneticField());
  }
}

void Environment::debrisLoads(const DebrisProperties& p, const DebrisState& ds, double t,
                              Vector3& accel_W, Vector3& torque_B) const {
  accel_W.setZero();
  torque_B.setZero();
  if (settings_.relative_motion) accel_W = tidalAcceleration(t, ds.r_W);
  if (settings_.gravity_gradient) {
    const Matrix3 R = quatToMatrix(ds.Q_WB);
    torque_B = R.transpose() * gravityGradientTorque(t, R * p.inertia * R.transpose());
  }
}

}  // namespace grapple::core
