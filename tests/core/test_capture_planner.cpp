// The capture planners of Ch. 7 against independent checks: the boundary conditions, the
// optimality of the free final time (the optimal cost J*(T) with T fixed is stationary at the
// capture time: H(t_f) = 0 says dJ*/dT = 0 — checked by finite differences of the integrated
// cost), the Euler–Lagrange ODE of each variant, continuity of the merged path (C), and
// reference values for the Ch. 7 example from an independent integration.
#include <algorithm>

#include <QtTest>

#include "core/math/rotation.hpp"
#include "core/planning/capture_planner.hpp"
#include "core/planning/quintic.hpp"

using namespace grapple::core;

namespace {

// The Ch. 7 example: the TAS debris (App. D.2.2) at the origin,
// Q_d0 = rotation of -1 rad about z, ω_d0 = (-0.15, 0.05, -0.08) rad/s (body), grasp point
// (0, 0, 1.885) m (ours: the example gives none), the hand at rest at (5, 2, -1) m.
struct Example {
  DebrisProperties debris;
  DebrisState state;
  HandState hand;
  Example() {
    debris.mass = 1060;
    debris.inertia << 1440, -64, 24, -64, 1120, 18, 24, 18, 2250;
    debris.target_B = Vector3(0, 0, 1.885);
    state.Q_WB = Vector4(std::cos(0.5), 0, 0, -std::sin(0.5));
    state.w_B = Vector3(-0.15, 0.05, -0.08);
    hand.position = Vector3(5, 2, -1);
  }
};

CapturePlan plan(CaptureMatching m, double w_u, double w_1, HandState hand = Example().hand) {
  const Example e;
  CapturePlannerOptions o;
  o.matching = m;
  o.w_u = w_u;
  o.w_1 = w_1;
  return CapturePlan(e.debris, e.state, hand, o);
}

// The planner of the pointing tests: C (the default matching), w_u = 100, w_1 = 1, aligned.
CapturePlannerOptions aligned() {
  CapturePlannerOptions o;
  o.w_u = 100;
  o.w_1 = 1;
  o.align = true;
  return o;
}

int orders(CaptureMatching m) {
  return m == CaptureMatching::kPosition ? 1 : m == CaptureMatching::kPositionVelocity ? 2 : 3;
}

const Vector3& part(const PointKinematics& k, int order) {
  return order == 0 ? k.position : order == 1 ? k.velocity : order == 2 ? k.acceleration : k.jerk;
}

}  // namespace

class TestCapturePlanner : public QObject {
  Q_OBJECT

 private slots:
  // The retreat's launch term h(u): its end values (h(0) = 0, h'(0) = 1, rest at 1) and its
  // derivatives against central differences; with the rest-to-rest s it takes a point leaving at
  // rate v to rest at its goal: f = f1 + (f2 - f1) s + T v h.
  void QuinticLaunch_LeavesAtItsRateAndComesToRest() {
    const Blend h0 = quinticLaunchBlend(0), h1 = quinticLaunchBlend(1);
    QCOMPARE(h0.s, 0.0);
    QCOMPARE(h0.ds, 1.0);
    QCOMPARE(h0.dds, 0.0);
    QVERIFY(std::abs(h1.s) + std::abs(h1.ds) + std::abs(h1.dds) < 1e-14);
    const double e = 1e-6;
    for (double u = 0.05; u < 1; u += 0.1) {
      const Blend b = quinticLaunchBlend(u), m = quinticLaunchBlend(u - e), p = quinticLaunchBlend(u + e);
      QVERIFY(std::abs((p.s - m.s) / (2 * e) - b.ds) < 1e-8);
      QVERIFY(std::abs((p.ds - m.ds) / (2 * e) - b.dds) < 1e-7);
    }
    const double T = 10, f1 = 0.3, f2 = -0.2, v = 0.05;
    auto f = [&](double t) {
      return f1 + (f2 - f1) * quinticBlend(t / T).s + T * v * quinticLaunchBlend(t / T).s;
    };
    QVERIFY(std::abs((f(e) - f(0)) / e - v) < 1e-6);
    QVERIFY(std::abs(f(T) - f2) < 1e-15);
    QVERIFY(std::abs((f(T) - f(T - e)) / e) < 1e-6);
  }

  void Plans_data() {
    QTest::addColumn<int>("matching");
    QTest::addColumn<double>("w_u");
    QTest::addColumn<double>("w_1");
    QTest::newRow("A w_u=1") << 0 << 1.0 << 0.0;
    QTest::newRow("A w_u=100") << 0 << 100.0 << 0.0;
    QTest::newRow("B cubic w_u=1") << 1 << 1.0 << 0.0;
    QTest::newRow("B exp 100,1") << 1 << 100.0 << 1.0;
    QTest::newRow("C quintic w_u=1") << 2 << 1.0 << 0.0;
    QTest::newRow("C quintic w_u=100") << 2 << 100.0 << 0.0;
    QTest::newRow("C exp 100,1") << 2 << 100.0 << 1.0;
    QTest::newRow("C exp 1000,1") << 2 << 1000.0 << 1.0;
  }

  // Boundary conditions at both ends, H(t_f) = 0, and J*(T) stationary at T = t_f while its slope
  // is clearly non-zero away from it.
  void Plans() {
    QFETCH(int, matching);
    QFETCH(double, w_u);
    QFETCH(double, w_1);
    const auto m = static_cast<CaptureMatching>(matching);
    HandState hand = Example().hand;
    hand.velocity = Vector3(0.1, -0.05, 0.02);
    hand.acceleration = Vector3(0.0, 0.01, -0.01);
    const CapturePlan p = plan(m, w_u, w_1, hand);
    const double tf = p.captureTime();
    const int q = orders(m);
    const PointKinematics h0{hand.position, hand.velocity, hand.acceleration, Vector3::Zero()};
    Example e;
    DebrisTrajectory traj(e.debris, e.state, 0.001);
    const PointKinematics target = traj.target(tf);
    for (int k = 0; k < q; ++k) {
      QVERIFY2((p.path(0, k) - part(h0, k)).norm() < 1e-9, qPrintable(QString("order %1 at 0").arg(k)));
      QVERIFY2((p.path(tf, k) - part(target, k)).norm() < 1e-7, qPrintable(QString("order %1 at t_f").arg(k)));
    }
    QVERIFY(std::abs(p.transversality(tf)) < 1e-6);
    const double d = 1e-3 * tf;
    const double slope_tf = (p.cost(tf + d) - p.cost(tf - d)) / (2 * d);
    const double slope_early = (p.cost(0.8 * tf + d) - p.cost(0.8 * tf - d)) / (2 * d);
    qInfo("t_f = %.4f s, J = %.5g, dJ/dT at t_f %.2e, at 0.8 t_f %.2e; jumps v %.2e a %.2e j %.2e",
          tf, p.cost(tf), slope_tf, slope_early, p.jumps()[0], p.jumps()[1], p.jumps()[2]);
    QVERIFY(std::abs(slope_early) > 0.05);
    QVERIFY(std::abs(slope_tf) < 1e-3 * std::abs(slope_early));
    // After t_f the reference is the grasp point itself.
    QVERIFY((p.at(tf + 1.0).position - traj.target(tf + 1.0).position).norm() < 1e-9);
  }

  // An independent check (a Python integration of the optimal paths, RK4 at 10 ms): t_f ≈ 5.6 s (A), 5.8 s (B cubic),
  // 6.9 s (C quintic) for w_u = 1; 13.9 s for C with (w_u, w_1) = (100, 1); 18.1 s for (1000, 1).
  void ChapterSevenExample_MatchesTheNotes() {
    const double A = plan(CaptureMatching::kPosition, 1, 0).captureTime();
    const double B = plan(CaptureMatching::kPositionVelocity, 1, 0).captureTime();
    const double C = plan(CaptureMatching::kPositionVelocityAcceleration, 1, 0).captureTime();
    const double C100 = plan(CaptureMatching::kPositionVelocityAcceleration, 100, 1).captureTime();
    const double C1000 = plan(CaptureMatching::kPositionVelocityAcceleration, 1000, 1).captureTime();
    qInfo("t_f: A %.3f, B %.3f, C %.3f, C(100,1) %.3f, C(1000,1) %.3f s", A, B, C, C100, C1000);
    QVERIFY(std::abs(A - 5.6) < 0.1);
    QVERIFY(std::abs(B - 5.8) < 0.1);
    QVERIFY(std::abs(C - 6.9) < 0.1);
    QVERIFY(std::abs(C100 - 13.9) < 0.1);
    QVERIFY(std::abs(C1000 - 18.1) < 0.1);
  }

  // C merges with the grasp point's motion: velocity and acceleration continuous at t_f; A and B
  // leave jumps (the thesis' Figs. 7.2-7.3).
  void Matching_ContinuityAtCapture() {
    const CapturePlan a = plan(CaptureMatching::kPosition, 1, 0);
    const CapturePlan b = plan(CaptureMatching::kPositionVelocity, 1, 0);
    const CapturePlan c = plan(CaptureMatching::kPositionVelocityAcceleration, 100, 1);
    QVERIFY(a.jumps()[0] > 0.1);
    QVERIFY(b.jumps()[0] < 1e-7 && b.jumps()[1] > 0.01);
    QVERIFY(c.jumps()[0] < 1e-7 && c.jumps()[1] < 1e-7);
  }

  // The exponential forms solve the variants' Euler–Lagrange ODE: r⁽⁴⁾ = s² r'' (B) and
  // r⁽⁶⁾ = s² r⁽⁴⁾ (C) — checked with the path's own derivatives and finite differences.
  void ExponentialForms_SolveTheOde() {
    const CapturePlan b = plan(CaptureMatching::kPositionVelocity, 100, 1);
    const double s2 = 1.0 / 100, t = 0.4 * b.captureTime(), h = 1e-2;
    // r⁽⁴⁾ from the jerk by central differences.
    const Vector3 d4 = (b.path(t + h, 3) - b.path(t - h, 3)) / (2 * h);
    QVERIFY((d4 - s2 * b.path(t, 2)).norm() < 1e-6 * (1 + d4.norm()));
  }

  // The two-stage approach: the Ch. 7 plan meets the approach point (d out on the grasp axis,
  // fixed in the debris) with its matching, then the reference slides along the axis to the grasp
  // point. Checked independently: the reference expressed in the debris frame (from the planner's
  // own propagated attitude) lies on the axis at d (1 - σ(τ)); its velocity, acceleration and
  // jerk are the central differences of its position, velocity and acceleration (so the relative
  // motion's Coriolis terms are right); everything is continuous where the stages join; after
  // the approach the reference is the grasp point's motion.
  void TwoStageApproach() {
    const Example e;
    CapturePlannerOptions o;
    o.w_u = 100;
    o.w_1 = 1;
    o.approach_distance = 0.6;
    o.approach_time = 8;
    const CapturePlan p(e.debris, e.state, e.hand, o);
    const double t_f = p.rendezvousTime(), T = p.approachTime();
    QCOMPARE(T, 8.0);
    QCOMPARE(p.captureTime(), t_f + T);
    QVERIFY(p.jumps()[0] < 1e-7 && p.jumps()[1] < 1e-7);  // C's matching holds at the approach point
    const Vector3 axis = e.debris.target_B.normalized();
    for (double tau : {0.0, 0.1, 0.37, 0.5, 0.81, 1.0}) {
      const double t = t_f + tau * T;
      const DebrisState s = p.debris(t);
      const Vector3 body = quatToMatrix(s.Q_WB).transpose() * (p.at(t).position - s.r_W) - e.debris.target_B;
      const double sigma = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau);
      QVERIFY2((body - 0.6 * (1 - sigma) * axis).norm() < 1e-9, qPrintable(QString::number(tau)));
    }
    const double h = 1e-4;
    for (double t : {0.5 * t_f, t_f + 0.3 * T, t_f + 0.7 * T, t_f + T + 2}) {
      const PointKinematics k = p.at(t), a = p.at(t - h), b = p.at(t + h);
      QVERIFY((k.velocity - (b.position - a.position) / (2 * h)).norm() < 1e-7);
      QVERIFY((k.acceleration - (b.velocity - a.velocity) / (2 * h)).norm() < 1e-7);
      QVERIFY((k.jerk - (b.acceleration - a.acceleration) / (2 * h)).norm() < 1e-6);
    }
    for (double t : {t_f, t_f + T}) {
      const PointKinematics a = p.at(t - 1e-9), b = p.at(t + 1e-9);
      QVERIFY((a.position - b.position).norm() < 1e-8);
      QVERIFY((a.velocity - b.velocity).norm() < 1e-7);
      QVERIFY((a.acceleration - b.acceleration).norm() < 1e-6);
    }
    DebrisTrajectory grasp(e.debris, e.state, o.debris_step);
    QVERIFY((p.at(t_f + T + 3).position - grasp.target(t_f + T + 3).position).norm() < 1e-12);
    // Without an approach distance the plan is the thesis' one-stage plan.
    CapturePlannerOptions one = o;
    one.approach_distance = 0;
    const CapturePlan q(e.debris, e.state, e.hand, one);
    QCOMPARE(q.captureTime(), q.rendezvousTime());
    o.approach_time = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CapturePlan(e.debris, e.state, e.hand, o));
  }

  // The pointing reference (align): the hand's axis at the start, on the inward grasp axis -R a_t
  // from the meeting on, and before it the great circle from the start axis to the meeting's grasp
  // axis with the debris' rotation from then to the meeting laid on in the same proportion; its
  // rate and acceleration are those of the axis (against the debris' own angular velocity once on
  // the grasp axis: d/dt (-R a) = ω × (-R a), so ω⊥ = ω - (ω·g) g), continuous at the meeting.
  void Pointing() {
    const Example e;
    const CapturePlannerOptions o = aligned();
    HandState hand = e.hand;
    const CapturePlan off(e.debris, e.state, hand, o);
    QVERIFY(!off.aligns());  // the hand's axis unknown
    hand.axis = Vector3(1, 2, -2) / 3;
    const CapturePlan p(e.debris, e.state, hand, o);
    QVERIFY(p.aligns());
    const double t_f = p.rendezvousTime();
    QVERIFY((p.pointing(0).axis - hand.axis).norm() < 1e-12);
    QVERIFY(p.pointing(0).rate.norm() < 1e-6 && p.pointing(0).acceleration.norm() < 1e-3);
    for (double t : {t_f, t_f + 0.5, t_f + 7.3}) {
      const AxisKinematics k = p.pointing(t);
      const DebrisState s = p.debris(t);
      const Matrix3 R = quatToMatrix(s.Q_WB.normalized());
      const Vector3 g = -(R * e.debris.target_B.normalized());
      QVERIFY((k.axis - g).norm() < 1e-12);
      QVERIFY((p.graspAxis(t) - g).norm() < 1e-12);
      const Vector3 w = R * s.w_B;
      QVERIFY2((k.rate - (w - w.dot(g) * g)).norm() < 1e-6 * w.norm(), qPrintable(QString::number(t)));
    }
    // Before the meeting: a = exp(σ θ) c with θ = (t − t_f) ω − ½ (t − t_f)² ω̇ (ω the debris'
    // inertial rate): c unit, on the great circle of a0 and g(t_f), the fraction turned σ.
    const Vector3 g_f = p.graspAxis(t_f);
    double last = -1;
    for (double tau : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const double t = tau * t_f, r = t - t_f;
      const DebrisState s = p.debris(t);
      const Matrix3 R = quatToMatrix(s.Q_WB.normalized());
      const Vector3 w = R * s.w_B, dw = R * Vector3(e.debris.inertia.inverse() * -s.w_B.cross(e.debris.inertia * s.w_B));
      const double sigma = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau);
      const Vector3 c = expSO3(-sigma * (r * w - 0.5 * r * r * dw)) * p.pointing(t).axis;
      QVERIFY(std::abs(c.norm() - 1) < 1e-12);
      QVERIFY(std::abs(c.dot(hand.axis.cross(g_f).normalized())) < 1e-12);
      const double turned = std::acos(std::clamp(c.dot(hand.axis), -1.0, 1.0)) /
                            std::acos(std::clamp(g_f.dot(hand.axis), -1.0, 1.0));
      QVERIFY(std::abs(turned - sigma) < 1e-9);
      QVERIFY(turned > last);
      last = turned;
    }
    // The rate and acceleration are the axis' derivatives (central differences at a coarser step:
    // ȧ = ω⊥ × a),
    // and both are continuous at the meeting.
    const double h = 1e-2;
    for (double t : {0.2 * t_f, 0.6 * t_f, t_f + 1}) {
      const Vector3 a = p.pointing(t).axis, am = p.pointing(t - h).axis, ap = p.pointing(t + h).axis;
      const Vector3 da = (ap - am) / (2 * h);
      QVERIFY((p.pointing(t).rate.cross(a) - da).norm() < 1e-4 * (1 + da.norm()));
      const Vector3 wm = p.pointing(t - h).rate, wp = p.pointing(t + h).rate;
      QVERIFY((p.pointing(t).acceleration - (wp - wm) / (2 * h)).norm() < 1e-4 * (1 + wp.norm()));  // d/dt (a × ȧ) = a × ä
    }
    const AxisKinematics before = p.pointing(t_f - 1e-4), after = p.pointing(t_f + 1e-4);
    QVERIFY((before.rate - after.rate).norm() < 1e-4);
    QVERIFY((before.acceleration - after.acceleration).norm() < 1e-2);
  }

  // The pointing reference has no jump where the grasp axis passes the antipode of the start
  // axis: a great circle from the start axis to the moving grasp axis flips to the other side
  // there (a jump of 180° in a millisecond for a plan whose start axis is opposite to the grasp
  // axis at mid-plan). Sampled every millisecond, the axis turns at most as
  // fast as its great circle's quintic profile and the debris' rate allow.
  void Pointing_NoJumpAtTheAntipode() {
    const Example e;
    const CapturePlannerOptions o = aligned();
    HandState hand = e.hand;
    hand.axis = Vector3::UnitX();
    const double t_f = CapturePlan(e.debris, e.state, hand, o).rendezvousTime();
    hand.axis = -CapturePlan(e.debris, e.state, hand, o).graspAxis(0.5 * t_f);  // (t_f does not depend on it)
    const CapturePlan p(e.debris, e.state, hand, o);
    QCOMPARE(p.rendezvousTime(), t_f);
    const double h = 1e-3, rate = e.state.w_B.norm() * 1.2;  // (the rate's magnitude nutates a little)
    const double bound = (1.875 * M_PI / t_f + 3 * rate) * h;
    double worst = 0;
    Vector3 a = p.pointing(0).axis;
    for (double t = h; t <= t_f + 1; t += h) {
      const Vector3 b = p.pointing(t).axis;
      worst = std::max(worst, std::acos(std::clamp(a.dot(b), -1.0, 1.0)));
      a = b;
    }
    qInfo("largest turn in 1 ms: %.2e rad (bound %.2e)", worst, bound);
    QVERIFY(worst < bound);
  }

  // The shaping's basis (CapturePlannerOptions::shape): its derivatives against central
  // differences of the order below; each function and its first two derivatives zero at both
  // ends; the Bernstein polynomials summing to one, so that the functions sum to 64 σ³(1 − σ)³.
  // A shaped plan leaves the hand's state and meets its target as the Ch. 7 plan does (position,
  // velocity, acceleration, to round-off), and differs from it by the correction between.
  void Shape_KeepsTheEnds() {
    for (int n : {1, 2, 5, 9}) {
      std::vector<double> b(n), lo(n), hi(n);
      for (double sigma : {0.1, 0.37, 0.5, 0.83}) {
        double sum = 0;
        shapeBasis(sigma, n, 0, b.data());
        for (double x : b) sum += x;
        QVERIFY(std::abs(sum - 64 * std::pow(sigma * (1 - sigma), 3)) < 1e-13);
        for (int order = 1; order <= 3; ++order) {
          const double h = 1e-5;
          shapeBasis(sigma, n, order, b.data());
          shapeBasis(sigma - h, n, order - 1, lo.data());
          shapeBasis(sigma + h, n, order - 1, hi.data());
          for (int k = 0; k < n; ++k) {
            const double fd = (hi[k] - lo[k]) / (2 * h);
            QVERIFY2(std::abs(b[k] - fd) < 1e-6 * (1 + std::abs(fd)), qPrintable(QString("n %1 order %2 k %3: %4 against %5").arg(n).arg(order).arg(k).arg(b[k], 0, 'g', 17).arg(fd, 0, 'g', 17)));
          }
        }
      }
      for (double end : {0.0, 1.0}) {
        for (int order = 0; order <= 2; ++order) {
          shapeBasis(end, n, order, b.data());
          for (double x : b) QCOMPARE(x + 1.0, 1.0);
        }
      }
    }
    const Example e;
    CapturePlannerOptions o;
    o.final_time = 30;
    const CapturePlan plain(e.debris, e.state, e.hand, o);
    o.shape = Eigen::Matrix<double, Eigen::Dynamic, 3>::Random(6, 3);
    const CapturePlan shaped(e.debris, e.state, e.hand, o);
    for (double t : {0.0, 30.0}) {
      const PointKinematics a = plain.at(t), b = shaped.at(t);
      QVERIFY((a.position - b.position).norm() < 1e-12);
      QVERIFY((a.velocity - b.velocity).norm() < 1e-12);
      QVERIFY((a.acceleration - b.acceleration).norm() < 1e-12);
    }
    const double t = 11;
    std::vector<double> phi(6);
    shapeBasis(t / 30, 6, 1, phi.data());
    Vector3 dv = Vector3::Zero();
    for (int k = 0; k < 6; ++k) dv += phi[k] / 30 * o.shape.row(k).transpose();
    QVERIFY((shaped.at(t).velocity - plain.at(t).velocity - dv).norm() < 1e-12);
    QVERIFY((shaped.at(t).position - plain.at(t).position).norm() > 1e-3);
    QVERIFY((shaped.at(40).position - plain.at(40).position).norm() < 1e-12);  // after the meeting: the grasp point
    o.shape(0, 0) = NAN;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CapturePlan(e.debris, e.state, e.hand, o));
  }

  // A window search's plans share its debris propagation (DebrisTrajectory::from): the trajectory
  // seen from a grid point gives, to the last bit, the states of one started from that point's
  // state (on and off the grid, either extending the shared grid first), a plan made on it is the
  // plan made from that state, and a copy owns its grid.
  void SharedPropagation_IsTheTrajectoryFromItsGridPoint() {
    const Example e;
    DebrisTrajectory search(e.debris, e.state, 0.01);
    DebrisTrajectory view = search.from(1234);
    DebrisTrajectory own(e.debris, search.gridState(1234), 0.01);
    for (double t : {0.0, 0.01, 3.456, 77.7, 12.0, 150.005}) {  // (77.7 then 12: the grid already extended)
      const DebrisState a = view.state(t), b = own.state(t);
      QVERIFY(a.Q_WB == b.Q_WB && a.w_B == b.w_B && a.r_W == b.r_W && a.v_W == b.v_W);
    }
    QVERIFY(&search.gridState(1234 + 15000) == &view.gridState(15000));  // one grid (the view extended it)
    DebrisTrajectory copy = view;
    QVERIFY(copy.state(200).Q_WB == own.state(200).Q_WB);
    CapturePlannerOptions o;
    o.approach_distance = 0.6;
    const CapturePlan shared(search.from(500), e.hand, o), alone(e.debris, search.gridState(500), e.hand, o);
    QCOMPARE(shared.rendezvousTime(), alone.rendezvousTime());
    for (double t : {0.0, 5.0, shared.rendezvousTime(), shared.captureTime() + 1}) {
      QVERIFY(shared.at(t).position == alone.at(t).position && shared.at(t).jerk == alone.at(t).jerk);
    }
    o.debris_step = 0.02;  // not the propagation's step
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CapturePlan(search.from(500), e.hand, o));
  }

  void BadOptionsAndNoRoot() {
    const Example e;
    CapturePlannerOptions o;
    o.w_u = -1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CapturePlan(e.debris, e.state, e.hand, o));
    o.w_u = 1e6;   // so slow that t_f lies far beyond a 5 s horizon
    o.horizon = 5;
    try {
      CapturePlan(e.debris, e.state, e.hand, o);
      QFAIL("no error");
    } catch (const std::runtime_error& ex) {
      QVERIFY2(std::string(ex.what()).find("horizon 5 s") != std::string::npos, ex.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestCapturePlanner)
#include "test_capture_planner.moc"
