// The space environment: the tidal field against the Clohessy–Wiltshire closed form and against
// two-body orbits, the gravity-gradient torque against point masses, a multibody's centre of mass
// in the tidal field, and the surface forces.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/model_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/ode.hpp"
#include "core/world/environment.hpp"
#include "tests/support/compare.hpp"

using namespace grapple::core;
using Eigen::VectorXd;

namespace {

EnvironmentSettings orbit500() {
  EnvironmentSettings s;
  s.altitude = 500e3;
  s.relative_motion = true;
  s.gravity_gradient = true;
  return s;
}

// Clohessy–Wiltshire closed form in the rotating orbital frame (x radial, y along-track, z normal).
void clohessyWiltshire(double n, const Vector3& r0, const Vector3& v0, double t, Vector3& r,
                       Vector3& v) {
  const double s = std::sin(n * t), c = std::cos(n * t);
  r.x() = (4 - 3 * c) * r0.x() + s / n * v0.x() + 2 / n * (1 - c) * v0.y();
  r.y() = 6 * (s - n * t) * r0.x() + r0.y() - 2 / n * (1 - c) * v0.x() + (4 * s - 3 * n * t) / n * v0.y();
  r.z() = r0.z() * c + v0.z() / n * s;
  v.x() = 3 * n * s * r0.x() + c * v0.x() + 2 * s * v0.y();
  v.y() = 6 * n * (c - 1) * r0.x() - 2 * s * v0.x() + (4 * c - 3) * v0.y();
  v.z() = -r0.z() * n * s + v0.z() * c;
}

// W (non-rotating) -> rotating orbital frame at t.
void toOrbital(double n, double t, const Vector3& rW, const Vector3& vW, Vector3& r, Vector3& v) {
  const Matrix3 Rt = rotZ(n * t).transpose();
  r = Rt * rW;
  v = Rt * vW - Vector3(0, 0, n).cross(r);
}

}  // namespace

class TestEnvironment : public QObject {
  Q_OBJECT

 private slots:
  // A point in the tidal field, written in W, is the CW motion seen from a non-rotating frame.
  void Tidal_MatchesClohessyWiltshire() {
    const Environment env(orbit500());
    const double n = env.meanMotion();
    const Vector3 r0(20, -15, 8), v0W(0.01, -0.02, 0.005);
    const OdeFunction f = [&](double t, const VectorXd& x, VectorXd& dx) {
      dx.resize(6);
      dx.head<3>() = x.tail<3>();
      dx.tail<3>() = env.tidalAcceleration(t, x.head<3>());
    };
    AdaptiveOptions o;
    o.rtol = 1e-12;
    o.atol = 1e-12;
    o.h_max = 10;
    AdaptiveRk dp(o);
    VectorXd x(6);
    x << r0, v0W;
    const double T = 2 * M_PI / n;  // one orbit
    dp.advance(f, 0, T, x);
    Vector3 rO0, vO0, r, v, rCW, vCW;
    toOrbital(n, 0, r0, v0W, rO0, vO0);
    toOrbital(n, T, x.head<3>(), x.tail<3>(), r, v);
    clohessyWiltshire(n, rO0, vO0, T, rCW, vCW);
    qInfo("after one orbit (%.0f s): CW %s m, Grapple differs by %.2e m", T,
          qPrintable(QString("[%1 %2 %3]").arg(rCW.x()).arg(rCW.y()).arg(rCW.z())), (r - rCW).norm());
    EXPECT_MATRIX_NEAR(r, rCW, 1e-8);
    EXPECT_MATRIX_NEAR(v, vCW, 1e-8);
  }

  // Against two exact Keplerian motions (the point and the reference): the linear tidal field is
  // right to first order in distance.
  void Tidal_MatchesTwoBodyOrbitsToFirstOrder() {
    const Environment env(orbit500());
    const double mu = env.settings().mu, R = env.orbitRadius(), n = env.meanMotion();
    const Vector3 rho0(30, 10, -5), vrel0(0.02, 0.01, -0.01);
    const OdeFunction kepler = [&](double, const VectorXd& x, VectorXd& dx) {
      dx.resize(6);
      const Vector3 r = x.head<3>();
      dx.head<3>() = x.tail<3>();
      dx.tail<3>() = -mu * r / std::pow(r.norm(), 3);
    };
    const OdeFunction tidal = [&](double t, const VectorXd& x, VectorXd& dx) {
      dx.resize(6);
      dx.head<3>() = x.tail<3>();
      dx.tail<3>() = env.tidalAcceleration(t, x.head<3>());
    };
    AdaptiveOptions o;
    o.rtol = 1e-13;
    o.atol = 1e-9;
    o.h_max = 5;
    const double T = 3000;
    VectorXd abs(6), lin(6);
    abs << Vector3(R, 0, 0) + rho0, Vector3(0, R * n, 0) + vrel0;
    lin << rho0, vrel0;
    AdaptiveRk(o).advance(kepler, 0, T, abs);
    AdaptiveRk(o).advance(tidal, 0, T, lin);
    const Vector3 ref(R * std::cos(n * T), R * std::sin(n * T), 0);
    const Vector3 exact = abs.head<3>() - ref;
    const double err = (exact - lin.head<3>()).norm(), moved = (exact - rho0).norm();
    qInfo("3000 s: relative motion %.2f m, linearization error %.2e m", moved, err);
    // The neglected terms are second order: |ρ|² / R.
    QVERIFY(err < std::pow(std::max(rho0.norm(), moved), 2) / R);
  }

  // The torque formula equals the tidal forces summed over point masses (the field is linear).
  void GravityGradient_EqualsPointMassSum() {
    const Environment env(orbit500());
    std::mt19937 rng(4);
    std::normal_distribution<double> g(0, 1.0);
    std::vector<Vector3> pts;
    std::vector<double> mass;
    Vector3 com = Vector3::Zero();
    double M = 0;
    for (int k = 0; k < 20; ++k) {
      pts.emplace_back(g(rng), 2 * g(rng), 0.5 * g(rng));
      mass.push_back(1 + std::abs(g(rng)));
      com += mass.back() * pts.back();
      M += mass.back();
    }
    com /= M;
    Matrix3 I = Matrix3::Zero();
    Vector3 torque = Vector3::Zero();
    const double t = 1234.5;
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const Vector3 r = pts[k] - com;
      I += mass[k] * (r.squaredNorm() * Matrix3::Identity() - r * r.transpose());
      torque += r.cross(mass[k] * env.tidalAcceleration(t, pts[k]));
    }
    EXPECT_MATRIX_NEAR(env.gravityGradientTorque(t, I), torque, 1e-12);
    // Along a principal axis there is no torque.
    EXPECT_MATRIX_NEAR(env.gravityGradientTorque(0, Vector3(3, 4, 5).asDiagonal().toDenseMatrix()),
                       Vector3::Zero(), 1e-20);
  }

  // A free-floating multibody in the tidal field: its centre of mass follows the CW motion of a
  // point, whatever its bodies do (the field is linear).
  void Multibody_CenterOfMassFollowsClohessyWiltshire() {
    const Model m = loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml");
    const Environment env(orbit500());
    Data d(m);
    const OdeFunction f = [&](double t, const VectorXd& x, VectorXd& dx) {
      const VectorXd q = x.head(m.nq), v = x.tail(m.nv);
      forwardKinematics(m, d, q);
      BodyWrenches fext(m.nbodies, Vector6::Zero());
      env.addBodyWrenches(m, d, t, fext);
      dx.resize(m.nq + m.nv);
      dx.head(m.nq) = configurationRate(m, q, v);
      dx.tail(m.nv) = forwardDynamics(m, d, q, v, VectorXd::Zero(m.nv), &fext);
    };
    VectorXd x(m.nq + m.nv);
    std::mt19937 rng(6);
    VectorXd q = neutralConfiguration(m);
    q.head<3>() << 5, -3, 2;
    VectorXd v = VectorXd::Zero(m.nv);
    v.head<6>() << 0.01, 0.005, -0.004, 0.002, -0.003, 0.001;
    for (int k = 6; k < m.nv; ++k) v[k] = 0.02;
    x << q, v;
    const Vector3 c0 = centerOfMass(m, d, q);
    const Vector3 vc0 = momentum(m, d, q, v).head<3>() / m.totalMass();
    AdaptiveOptions o;
    o.rtol = 1e-11;
    o.atol = 1e-12;
    AdaptiveRk dp(o);
    const double T = 600;
    dp.advance(f, 0, T, x);
    const double n = env.meanMotion();
    Vector3 rO0, vO0, rCW, vCW, r, vv;
    toOrbital(n, 0, c0, vc0, rO0, vO0);
    clohessyWiltshire(n, rO0, vO0, T, rCW, vCW);
    const Vector3 c = centerOfMass(m, d, x.head(m.nq));
    const Vector3 vc = momentum(m, d, x.head(m.nq), x.tail(m.nv)).head<3>() / m.totalMass();
    toOrbital(n, T, c, vc, r, vv);
    qInfo("600 s: centre of mass differs from CW by %.2e m", (r - rCW).norm());
    EXPECT_MATRIX_NEAR(r, rCW, 1e-7);
  }

  void SurfaceForces_DirectionsAndMagnitudes() {
    EnvironmentSettings s;
    s.drag.enabled = true;
    s.drag.center_of_pressure = Vector3(0, 0, 1);
    s.solar_pressure.enabled = true;
    s.solar_pressure.absorbed = 1;
    s.solar_pressure.diffuse = 0;
    s.solar_pressure.specular = 0;
    s.solar_pressure.normal = Vector3::UnitX();
    s.solar_pressure.sun_direction = Vector3::UnitX();
    const Environment env(s);
    const Model m = loadModelYaml(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/mda_deos.yaml");
    Data d(m);
    forwardKinematics(m, d, neutralConfiguration(m));
    BodyWrenches fext(m.nbodies, Vector6::Zero());
    env.addBodyWrenches(m, d, 0, fext);
    const double v = env.orbitalSpeed();
    const double drag = 0.5 * s.drag.density * s.drag.drag_coefficient * s.drag.area * v * v;
    const double srp = s.solar_pressure.pressure * s.solar_pressure.area;
    // At t = 0 the velocity is +y: drag along -y; the Sun along +x pushes along -x.
    EXPECT_MATRIX_NEAR(Vector3(fext[0].head<3>()), Vector3(-srp, -drag, 0), 1e-18);
    EXPECT_MATRIX_NEAR(Vector3(fext[0].tail<3>()), Vector3(0, 0, 1).cross(Vector3(0, -drag, 0)), 1e-18);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, [] {
      EnvironmentSettings bad;
      bad.altitude = -5;
      Environment e(bad);
    }());
  }
};

QTEST_APPLESS_MAIN(TestEnvironment)
#include "test_environment.moc"
