// The tumbling debris: conservation laws, Euler's closed form for an axisymmetric body, and the
// grasp point's derivatives against finite differences of its motion.
#include <QtTest>

#include <cmath>

#include "core/math/rotation.hpp"
#include "core/world/debris.hpp"
#include "tests/support/compare.hpp"

using namespace grapple::core;

namespace {

// The TAS debris of App. D.2.2 (products of inertia as tensor entries: the thesis does not state its sign convention), grasp point on
// the 3.77 m axis, tumbling at 4°/s about a non-principal axis.
DebrisProperties tasDebris() {
  DebrisProperties p;
  p.mass = 1060;
  p.inertia << 1440, -64, 24, -64, 1120, 18, 24, 18, 2250;
  p.target_B = Vector3(1.885, 0.3, -0.2);
  return p;
}

DebrisState tumbling() {
  DebrisState s;
  s.r_W = Vector3(5, 2, -1);
  s.v_W = Vector3(0.01, -0.02, 0.005);
  s.Q_WB = quatExp(Vector3(0.2, -0.4, 0.3));
  s.w_B = Vector3(1, 1, 1).normalized() * (4 * M_PI / 180);
  return s;
}

}  // namespace

class TestDebris : public QObject {
  Q_OBJECT

 private slots:
  void TorqueFree_ConservesEnergyAndAngularMomentum() {
    const DebrisProperties p = tasDebris();
    DebrisState s = tumbling();
    const double E0 = debrisRotationalEnergy(p, s);
    const Vector3 L0 = debrisAngularMomentum(p, s);
    double dE = 0, dL = 0;
    for (int k = 0; k < 4000; ++k) {  // 200 s
      s = stepDebris(p, s, 0.05);
      dE = std::max(dE, std::abs(debrisRotationalEnergy(p, s) - E0) / E0);
      dL = std::max(dL, (debrisAngularMomentum(p, s) - L0).norm() / L0.norm());
    }
    qInfo("200 s at 50 ms: energy drift %.2e, angular momentum drift %.2e", dE, dL);
    QVERIFY(dE < 1e-10);
    QVERIFY(dL < 1e-10);
    // The centre of mass drifts at constant velocity.
    EXPECT_MATRIX_NEAR(s.r_W, Vector3(tumbling().r_W + 200 * tumbling().v_W), 1e-10);
  }

  // Axisymmetric body (I1 = I2): ω3 is constant and (ω1, ω2) turns at λ = (I3 - I1) ω3 / I1 in the
  // body frame (Kane, Spacecraft Dynamics).
  void Axisymmetric_MatchesClosedForm() {
    DebrisProperties p;
    p.mass = 10;
    p.inertia = Vector3(2, 2, 3.5).asDiagonal();
    DebrisState s;
    s.w_B = Vector3(0.3, 0, 0.8);
    const double lambda = (3.5 - 2) * 0.8 / 2, T = 20, dt = 1e-3;
    for (int k = 0; k < static_cast<int>(T / dt); ++k) s = stepDebris(p, s, dt);
    EXPECT_MATRIX_NEAR(s.w_B, Vector3(0.3 * std::cos(lambda * T), 0.3 * std::sin(lambda * T), 0.8), 1e-11);
  }

  // Velocity, acceleration and jerk of the grasp point are the derivatives of its motion.
  void TargetKinematics_MatchFiniteDifferences() {
    const DebrisProperties p = tasDebris();
    const DebrisState s0 = tumbling();
    const double h = 1e-2;
    auto at = [&](double t) {  // the state at t, by many small steps
      DebrisState s = s0;
      const int n = 200;
      for (int k = 0; k < n; ++k) s = stepDebris(p, s, t / n);
      return targetKinematics(p, s);
    };
    const PointKinematics k0 = targetKinematics(p, s0), kp = at(h), km = at(-h);
    EXPECT_MATRIX_NEAR(Vector3((kp.position - km.position) / (2 * h)), k0.velocity, 1e-8);
    EXPECT_MATRIX_NEAR(Vector3((kp.velocity - km.velocity) / (2 * h)), k0.acceleration, 1e-8);
    EXPECT_MATRIX_NEAR(Vector3((kp.acceleration - km.acceleration) / (2 * h)), k0.jerk, 1e-9);
    QVERIFY(k0.jerk.norm() > 1e-7);  // not trivially zero
  }

  void Properties_RejectNonPhysicalBodies() {
    DebrisProperties p = tasDebris();
    p.mass = -1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkDebrisProperties(p));
    p = tasDebris();
    p.inertia(2, 2) = 4000;  // 1440 + 1120 < 4000
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkDebrisProperties(p));
    p = tasDebris();
    p.inertia(0, 1) = 5000;
    p.inertia(1, 0) = 5000;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkDebrisProperties(p));
    checkDebrisProperties(tasDebris());
  }
};

QTEST_APPLESS_MAIN(TestDebris)
#include "test_debris.moc"
