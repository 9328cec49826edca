// Manipulability measures and maps (core/analysis/manipulability) against the closed forms of the
// planar 2-DoF arm, and the maps' consistency (threads, point-wise values, the generalized
// Jacobian's definition).
#include <QtTest>

#include <cmath>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "core/analysis/manipulability.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/io/model_yaml.hpp"

using namespace grapple::core;

namespace {
const std::string kSource = GRAPPLE_SOURCE_DIR;
constexpr double l1 = 0.5, l2 = 0.5;  // robots/planar_2dof.yaml

// The planar arm's position Jacobian by hand.
Eigen::Matrix2d planarJacobian(double t1, double t2) {
  Eigen::Matrix2d J;
  J << -l1 * std::sin(t1) - l2 * std::sin(t1 + t2), -l2 * std::sin(t1 + t2),
      l1 * std::cos(t1) + l2 * std::cos(t1 + t2), l2 * std::cos(t1 + t2);
  return J;
}
}  // namespace

class TestManipulability : public QObject {
  Q_OBJECT

 private slots:
  // w = l1 l2 |sin θ2| and the condition number from the hand-written Jacobian, over a grid.
  void PlanarArm_ClosedForm() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("payload");
    QVERIFY(o.frame >= 0);
    o.task = ManipulabilityTask::kPlanarXY;
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    const int j1 = m.joint[m.bodyOfJoint("joint1")].idx_v, j2 = m.joint[m.bodyOfJoint("joint2")].idx_v;
    const ManipulabilityMap map = jointManipulabilityMap(m, q, o, j1, -M_PI, M_PI, 41, j2, -M_PI, M_PI, 37, 2);
    QCOMPARE(map.yoshikawa.rows(), 41);
    QCOMPARE(map.yoshikawa.cols(), 37);
    double worst_w = 0, worst_c = 0;
    for (int i = 0; i < 41; ++i) {
      for (int j = 0; j < 37; ++j) {
        const double t1 = map.a_values[i], t2 = map.b_values[j];
        worst_w = std::max(worst_w, std::abs(map.yoshikawa(i, j) - l1 * l2 * std::abs(std::sin(t2))));
        const Eigen::Vector2d s = Eigen::JacobiSVD<Eigen::Matrix2d>(planarJacobian(t1, t2)).singularValues();
        if (std::abs(std::sin(t2)) > 1e-6) worst_c = std::max(worst_c, std::abs(map.condition(i, j) - s[0] / s[1]) / (s[0] / s[1]));
      }
    }
    qInfo("planar arm: |w - l1 l2 |sin θ2|| <= %.1e, condition number relative error <= %.1e", worst_w, worst_c);
    QVERIFY(worst_w < 1e-13);
    QVERIFY(worst_c < 1e-9);
    // Stretched out (θ2 = 0): singular.
    Eigen::VectorXd straight = q;
    QCOMPARE(manipulability(m, straight, o).yoshikawa, 0.0);
  }

  // The workspace plane of the planar arm: reachable inside the circle of radius l1 + l2, with
  // w = l1 l2 sin θ2, cos θ2 = (r² - l1² - l2²) / (2 l1 l2); NaN outside.
  void PlanarArm_PlaneMap() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("payload");
    o.task = ManipulabilityTask::kPlanarXY;
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[m.joint[m.bodyOfJoint("joint2")].idx_q] = 1.0;  // elbow on the positive side
    const int j1 = m.joint[m.bodyOfJoint("joint1")].idx_v, j2 = m.joint[m.bodyOfJoint("joint2")].idx_v;
    const ManipulabilityMap map = planeManipulabilityMap(m, q, o, j1, j2, Vector3::Zero(), Vector3::UnitX(),
                                                         Vector3::UnitY(), -1.2, 1.2, 49, -1.2, 1.2, 49, 2);
    int reached = 0, outside = 0;
    double worst = 0;
    for (int i = 0; i < 49; ++i) {
      for (int j = 0; j < 49; ++j) {
        const double r = std::hypot(map.a_values[i], map.b_values[j]);
        if (r > l1 + l2 + 1e-9) {
          QVERIFY(std::isnan(map.yoshikawa(i, j)));
          ++outside;
        } else if (r < l1 + l2 - 1e-3 && r > 1e-3 && !std::isnan(map.yoshikawa(i, j))) {
          const double c = (r * r - l1 * l1 - l2 * l2) / (2 * l1 * l2);
          worst = std::max(worst, std::abs(map.yoshikawa(i, j) - l1 * l2 * std::sqrt(1 - c * c)));
          ++reached;
        }
      }
    }
    qInfo("plane map: %d points reached, %d outside the workspace; |w - closed form| <= %.1e", reached, outside, worst);
    QVERIFY(reached > 1150);  // of the ~1256 grid points inside the circle
    QVERIFY(outside > 300);
    QVERIFY(worst < 1e-9);
  }

  // The generalized Jacobian's map: the same values one by one, on one thread or two, and the
  // measure of J* = J_m - J_0 H_0⁻¹ H_0m built here from the frame Jacobian and the mass matrix.
  // The arm plane of the planar arm: the x-y plane through joint 1 (the base's origin here), u
  // towards the hand, reach l1 + l2; and of the MDA arm: normal to joints 2 and 3's parallel
  // axes, and the plane map in it reaches the hand's own point with the arm's own manipulability.
  void ArmPlane_PlanarAndMda() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("payload");
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[m.joint[m.bodyOfJoint("joint1")].idx_q] = 0.4;
    q[m.joint[m.bodyOfJoint("joint2")].idx_q] = 1.0;
    const int j1 = m.joint[m.bodyOfJoint("joint1")].idx_v, j2 = m.joint[m.bodyOfJoint("joint2")].idx_v;
    const ArmPlane p = armPlane(m, q, o, j1, j2);
    const double phi = 0.4 + std::atan2(l2 * std::sin(1.0), l1 + l2 * std::cos(1.0));
    QVERIFY(p.origin.norm() < 1e-12);
    QVERIFY((p.u - Vector3(std::cos(phi), std::sin(phi), 0)).norm() < 1e-12);
    QVERIFY((p.v - Vector3(-std::sin(phi), std::cos(phi), 0)).norm() < 1e-12);
    QVERIFY(std::abs(p.reach - (l1 + l2)) < 1e-12);

    const Model mda = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    ManipulabilityOptions om;
    om.frame = mda.frameId("tool");
    Eigen::VectorXd x = Eigen::VectorXd::Zero(mda.nq);
    x[3] = 1;
    x[mda.joint[mda.bodyOfJoint("joint2")].idx_q] = 0.9;
    x[mda.joint[mda.bodyOfJoint("joint3")].idx_q] = -1.4;
    const int a = mda.joint[mda.bodyOfJoint("joint2")].idx_v, b = mda.joint[mda.bodyOfJoint("joint3")].idx_v;
    const ArmPlane mp = armPlane(mda, x, om, a, b);
    QVERIFY(std::abs(mp.u.dot(mp.v)) < 1e-12 && std::abs(mp.u.norm() - 1) < 1e-12 && std::abs(mp.v.norm() - 1) < 1e-12);
    // The map's cell at the hand's own (s, t) holds the manipulability of x itself.
    Data d(mda);
    forwardKinematics(mda, d, x);
    const Vector3 hand = framePose(mda, d, om.frame).p;
    const double s0 = (hand - mp.origin).dot(mp.u), t0 = (hand - mp.origin).dot(mp.v);
    const double off = std::abs((hand - mp.origin).dot(mp.u.cross(mp.v)));
    qInfo("MDA arm plane: hand at s = %.4f, t = %.1e m, %.1e m off the plane, reach %.3f m", s0, t0, off, mp.reach);
    QVERIFY(std::abs(t0) < 1e-12 && off < 1e-12);  // u points at the hand, in the plane
    QVERIFY(s0 > 0 && s0 < mp.reach);
    const ManipulabilityMap map = planeManipulabilityMap(mda, x, om, a, b, mp.origin, mp.u, mp.v, s0, s0, 1, t0, t0, 1, 1);
    QVERIFY(std::abs(map.yoshikawa(0, 0) - manipulability(mda, x, om).yoshikawa) < 1e-9 * manipulability(mda, x, om).yoshikawa);
  }

  // The arm plane carried by joint a's parent body (carryArmPlane, armPlaneAt): at the
  // configuration it was made at, the plane itself; after the base and joint 1 (before a) moved and
  // a and b turned, the plane armPlane computes afresh there (the same origin on a's axis and the
  // same normal; u, v turned within it), with the hand in it.
  void ArmPlane_CarriedByTheShoulder() {
    const Model mda = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    ManipulabilityOptions om;
    om.frame = mda.frameId("tool");
    auto at = [&](const char* joint) { return mda.joint[mda.bodyOfJoint(joint)].idx_q; };
    Eigen::VectorXd x = Eigen::VectorXd::Zero(mda.nq);
    x[3] = 1;
    x[at("joint2")] = 0.9;
    x[at("joint3")] = -1.4;
    x[at("joint5")] = 0.3;
    const int a = mda.joint[mda.bodyOfJoint("joint2")].idx_v, b = mda.joint[mda.bodyOfJoint("joint3")].idx_v;
    const ArmPlane plane = armPlane(mda, x, om, a, b);
    const CarriedArmPlane carried = carryArmPlane(mda, x, plane, a);
    QCOMPARE(carried.body, mda.parent[mda.bodyOfJoint("joint2")]);
    Vector3 hand;
    ArmPlane same = armPlaneAt(mda, x, carried, om.frame, &hand);
    Data d(mda);
    forwardKinematics(mda, d, x);
    QVERIFY((hand - framePose(mda, d, om.frame).p).norm() < 1e-12);
    QVERIFY((same.origin - plane.origin).norm() < 1e-12 && (same.u - plane.u).norm() < 1e-12 &&
            (same.v - plane.v).norm() < 1e-12 && same.reach == plane.reach);

    Eigen::VectorXd y = x;
    y.head<3>() << 0.4, -0.2, 1.1;
    y.segment<4>(3) = Eigen::Vector4d(0.9, 0.1, -0.3, 0.2).normalized();  // [w x y z]
    y[at("joint1")] = 0.7;
    y[at("joint2")] = 0.2;
    y[at("joint3")] = -0.5;
    const ArmPlane moved = armPlaneAt(mda, y, carried, om.frame, &hand);
    const ArmPlane fresh = armPlane(mda, y, om, a, b);
    const Vector3 n_moved = moved.u.cross(moved.v), n_fresh = fresh.u.cross(fresh.v);
    qInfo("carried plane vs fresh: origin %.1e m, normal %.1e; hand %.1e m off the carried plane",
          (moved.origin - fresh.origin).norm(), (n_moved - n_fresh).norm(), std::abs((hand - moved.origin).dot(n_moved)));
    QVERIFY((moved.origin - fresh.origin).norm() < 1e-9);
    QVERIFY((n_moved - n_fresh).norm() < 1e-9);
    QVERIFY(std::abs((hand - moved.origin).dot(n_moved)) < 1e-9);
    QVERIFY(std::abs(moved.u.dot(moved.v)) < 1e-12 && std::abs(moved.u.norm() - 1) < 1e-12);
    QVERIFY(std::abs(fresh.reach - moved.reach) < 1e-9);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, carryArmPlane(mda, x, plane, 0));  // the base, not a joint
  }

  void FreeFloating_GeneralizedMap() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("tool");
    o.jacobian = ManipulabilityJacobian::kGeneralized;
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[3] = 1;
    q[m.joint[m.bodyOfJoint("joint2")].idx_q] = 2.1;
    q[m.joint[m.bodyOfJoint("joint3")].idx_q] = -1.6;
    const int j2 = m.joint[m.bodyOfJoint("joint2")].idx_v, j3 = m.joint[m.bodyOfJoint("joint3")].idx_v;
    const ManipulabilityMap one = jointManipulabilityMap(m, q, o, j2, 0.5, 2.5, 9, j3, -2.5, -0.5, 7, 1);
    const ManipulabilityMap two = jointManipulabilityMap(m, q, o, j2, 0.5, 2.5, 9, j3, -2.5, -0.5, 7, 2);
    QVERIFY(one.yoshikawa == two.yoshikawa);
    QVERIFY(one.condition == two.condition);
    Eigen::VectorXd x = q;
    x[m.joint[m.bodyOfJoint("joint2")].idx_q] = one.a_values[4];
    x[m.joint[m.bodyOfJoint("joint3")].idx_q] = one.b_values[3];
    QCOMPARE(manipulability(m, x, o).yoshikawa, one.yoshikawa(4, 3));
    // J* by its definition.
    Data d(m);
    forwardKinematics(m, d, x);
    const Eigen::MatrixXd J = frameJacobian(m, d, o.frame);
    const Eigen::MatrixXd H = massMatrix(m, d, x);
    const Eigen::MatrixXd Js = J.rightCols(m.nv - 6) - J.leftCols(6) * H.topLeftCorner(6, 6).lu().solve(H.topRightCorner(6, m.nv - 6));
    const Eigen::MatrixXd P = Js.topRows(3);
    const double w = std::sqrt((P * P.transpose()).determinant());
    qInfo("free-floating MDA arm: w(J*) = %.6e, by definition %.6e; fixed base %.6e", one.yoshikawa(4, 3), w,
          manipulability(m, x, ManipulabilityOptions{o.frame, Vector3::Zero(), ManipulabilityJacobian::kFixedBase,
                                                     ManipulabilityTask::kPosition}).yoshikawa);
    QVERIFY(std::abs(one.yoshikawa(4, 3) - w) < 1e-12 * w);
    // The base's reaction takes part of the motion: the free-floating arm is less dexterous.
    QVERIFY(w < manipulability(m, x, ManipulabilityOptions{o.frame, Vector3::Zero(), ManipulabilityJacobian::kFixedBase,
                                                           ManipulabilityTask::kPosition}).yoshikawa);
  }

  // The ellipsoid's radii are the Jacobian's singular values (their product: Yoshikawa's w); the
  // planar arm's workspace cloud fills the disc of radius l1 + l2 and no more.
  void EllipsoidAndWorkspace() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("payload");
    o.task = ManipulabilityTask::kPlanarXY;
    Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    q[0] = 0.3;
    q[1] = 1.1;
    const ManipulabilityEllipsoid e = manipulabilityEllipsoid(m, q, o);
    QCOMPARE(e.radii.size(), 2);
    QVERIFY(std::abs(e.radii.prod() - l1 * l2 * std::sin(1.1)) < 1e-14);
    const Eigen::Matrix2d J = planarJacobian(0.3, 1.1);
    // J Jᵀ a = r² a along each axis.
    for (int k = 0; k < 2; ++k) {
      QVERIFY(((J * J.transpose()) * e.axes.col(k) - e.radii[k] * e.radii[k] * e.axes.col(k)).norm() < 1e-14);
    }
    const std::vector<Vector3> cloud = workspaceCloud(m, q, o.frame, 20000, 7);
    double rmax = 0, rmin = INFINITY;
    for (const Vector3& p : cloud) {
      rmax = std::max(rmax, p.head<2>().norm());
      rmin = std::min(rmin, p.head<2>().norm());
      QVERIFY(std::abs(p.z()) < 1e-12);
    }
    qInfo("workspace cloud of the planar arm: radius %.4f to %.4f (0 to %.1f)", rmin, rmax, l1 + l2);
    QVERIFY(rmax <= l1 + l2 + 1e-12 && rmax > 0.999 * (l1 + l2));
    QVERIFY(rmin < 0.02);
    QVERIFY(workspaceCloud(m, q, o.frame, 100, 7) == workspaceCloud(m, q, o.frame, 100, 7));
  }

  // The image of a joint box on the planar arm: every point is the closed-form hand position at
  // the angles of its place on the rectangle's edges (corners, then evenly along each edge).
  void JointBox_PlanarArmClosedForm() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    const int frame = m.frameId("payload");
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    const double lo_a = -0.2, hi_a = 0.4, lo_b = 0.5, hi_b = 1.3;
    constexpr int n = 7;
    const std::vector<Vector3> pts = frameAlongJointBox(m, q, frame, 0, lo_a, hi_a, 1, lo_b, hi_b, n);
    QCOMPARE(pts.size(), std::size_t(4 * n + 1));
    const double corner[5][2] = {{lo_a, lo_b}, {hi_a, lo_b}, {hi_a, hi_b}, {lo_a, hi_b}, {lo_a, lo_b}};
    for (int k = 0; k <= 4 * n; ++k) {
      const int e = std::min(k / n, 3);
      const double f = static_cast<double>(k - e * n) / n;
      const double a = corner[e][0] + f * (corner[e + 1][0] - corner[e][0]);
      const double b = corner[e][1] + f * (corner[e + 1][1] - corner[e][1]);
      const Vector3 expected(l1 * std::cos(a) + l2 * std::cos(a + b), l1 * std::sin(a) + l2 * std::sin(a + b), 0);
      QVERIFY2((pts[static_cast<std::size_t>(k)] - expected).norm() < 1e-14, qPrintable(QString("point %1").arg(k)));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, frameAlongJointBox(m, q, frame, 0, lo_a, hi_a, 7, lo_b, hi_b, n));
  }

  void BadInput() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/planar_2dof.yaml");
    ManipulabilityOptions o;
    o.frame = m.frameId("payload");
    o.jacobian = ManipulabilityJacobian::kGeneralized;  // a fixed base has none
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, manipulability(m, Eigen::VectorXd::Zero(m.nq), o));
    o.jacobian = ManipulabilityJacobian::kFixedBase;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, manipulability(m, Eigen::VectorXd::Zero(m.nq + 1), o));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             jointManipulabilityMap(m, Eigen::VectorXd::Zero(m.nq), o, 0, 0, 1, 0, 1, 0, 1, 3));
  }
};

QTEST_APPLESS_MAIN(TestManipulability)
#include "test_manipulability.moc"
