// Distances between collision shapes (core/geometry/collision) against answers computed without
// the GJK code: closed forms (a point or sphere to a box, perpendicular and parallel segments),
// brute-force sampling of one shape's surface with the exact distance of each sample to a box,
// a mesh's convex hull against the box it is the hull of, and the clearance of an arm whose links
// carry collision shapes against the same numbers by hand.
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <random>

#include <Eigen/Geometry>

#include "core/dynamics/kinematics.hpp"
#include "core/geometry/collision.hpp"
#include "core/io/model_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/planning/feasibility.hpp"

using namespace grapple::core;

namespace {

const std::string kMeshes = std::string(GRAPPLE_SOURCE_DIR) + "/tests/data/urdf/grapple_test_meshes/meshes/";

Matrix3 randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n;
  Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized().toRotationMatrix();
}

// Exact distance from a world point to a box shape (0 inside).
double pointToBox(const Vector3& p, const ConvexShape& box) {
  const Vector3 local = box.pose.R.transpose() * (p - box.pose.p);
  return (local.cwiseAbs() - box.half).cwiseMax(0.0).norm();
}

// The surface of a box shape sampled on a grid of spacing ≤ h on each face.
std::vector<Vector3> boxSurface(const ConvexShape& b, double h) {
  std::vector<Vector3> out;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    const int nu = std::max(1, int(std::ceil(2 * b.half[u] / h))), nv = std::max(1, int(std::ceil(2 * b.half[v] / h)));
    for (double side : {-1.0, 1.0}) {
      for (int i = 0; i <= nu; ++i) {
        for (int j = 0; j <= nv; ++j) {
          Vector3 x;
          x[axis] = side * b.half[axis];
          x[u] = -b.half[u] + 2 * b.half[u] * i / nu;
          x[v] = -b.half[v] + 2 * b.half[v] * j / nv;
          out.push_back(b.pose.act(x));
        }
      }
    }
  }
  return out;
}

// The surface of a cylinder shape (radius r, half length l): its side and both caps, spacing ≤ h.
std::vector<Vector3> cylinderSurface(const ConvexShape& c, double h) {
  std::vector<Vector3> out;
  const double r = c.half.x(), l = c.half.y();
  const int na = std::max(8, int(std::ceil(2 * M_PI * r / h))), nz = std::max(1, int(std::ceil(2 * l / h)));
  const int nr = std::max(1, int(std::ceil(r / h)));
  for (int i = 0; i < na; ++i) {
    const double a = 2 * M_PI * i / na;
    for (int k = 0; k <= nz; ++k) out.push_back(c.pose.act(Vector3(r * std::cos(a), r * std::sin(a), -l + 2 * l * k / nz)));
    for (int k = 0; k <= nr; ++k) {
      for (double z : {-l, l}) out.push_back(c.pose.act(Vector3(r * k / nr * std::cos(a), r * k / nr * std::sin(a), z)));
    }
  }
  return out;
}

// A cylinder's sampling leaves every surface point within this of a sample.
double cylinderGap(const ConvexShape& c, double h) {
  const double r = c.half.x();
  const int na = std::max(8, int(std::ceil(2 * M_PI * r / h)));
  return 2 * r * std::sin(M_PI / na) + h;
}

// The triangles of an ASCII STL file.
std::vector<std::array<Vector3, 3>> stlTriangles(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::array<Vector3, 3>> out;
  std::vector<Vector3> v;
  std::string w;
  while (in >> w) {
    if (w != "vertex") continue;
    Vector3 x;
    in >> x.x() >> x.y() >> x.z();
    v.push_back(x);
    if (v.size() == 3) {
      out.push_back({v[0], v[1], v[2]});
      v.clear();
    }
  }
  return out;
}

}  // namespace

class TestCollision : public QObject {
  Q_OBJECT

 private slots:
  // A sphere against a turned box: the box's distance to the centre minus the radius; the closest
  // points lie on both surfaces, the distance apart.
  void SphereBox_ClosedForm() {
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-1.5, 1.5), side(0.1, 1.0), rad(0.01, 0.3);
    int checked = 0;
    for (int trial = 0; trial < 300; ++trial) {
      const ConvexShape box = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)), {randomRotation(rng), Vector3(u(rng), u(rng), u(rng))});
      const Vector3 c(u(rng), u(rng), u(rng));
      const double r = rad(rng);
      const double expected = pointToBox(c, box) - r;
      if (pointToBox(c, box) == 0) continue;  // inside: depth not measured
      const ShapeDistance d = shapeDistance(ConvexShape::sphere(r, {Matrix3::Identity(), c}), box);
      QVERIFY2(std::abs(d.distance - expected) < 1e-9, qPrintable(QString("%1 vs %2").arg(d.distance).arg(expected)));
      QVERIFY(std::abs((d.on_a - c).norm() - r) < 1e-9);
      QVERIFY(pointToBox(d.on_b, box) < 1e-9);
      QVERIFY(std::abs((d.on_a - d.on_b).norm() - std::abs(d.distance)) < 1e-9);
      ++checked;
    }
    QVERIFY(checked > 100);
  }

  // Two turned boxes apart: the smallest exact distance from samples of one box's surface to the
  // other box bounds the distance from above, and from below once the sample spacing is taken off.
  void BoxBox_AgainstSampledSurface() {
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> u(-1, 1), side(0.1, 0.5);
    const double h = 0.004;
    for (int trial = 0; trial < 20; ++trial) {
      const ConvexShape a = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)), {randomRotation(rng), Vector3(u(rng), u(rng), u(rng))});
      const ConvexShape b = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)), {randomRotation(rng), Vector3(2 + u(rng), u(rng), u(rng))});
      double sampled = INFINITY;
      for (const Vector3& x : boxSurface(a, h)) sampled = std::min(sampled, pointToBox(x, b));
      const double d = shapeDistance(a, b).distance;
      QVERIFY2(d <= sampled + 1e-9 && d >= sampled - h, qPrintable(QString("%1 vs sampled %2").arg(d).arg(sampled)));
      QCOMPARE(shapeDistance(b, a).distance, d);
    }
  }

  // A turned cylinder against a box, likewise from samples of the cylinder's side and caps.
  void CylinderBox_AgainstSampledSurface() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1), side(0.1, 0.5);
    const double h = 0.004;
    for (int trial = 0; trial < 20; ++trial) {
      ConvexShape c;
      c.core = ConvexShape::Core::kCylinder;
      c.half = Vector3(side(rng), side(rng), 0);
      c.pose = {randomRotation(rng), Vector3(u(rng), u(rng), u(rng))};
      const ConvexShape b = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)), {randomRotation(rng), Vector3(u(rng), 2 + u(rng), u(rng))});
      double sampled = INFINITY;
      for (const Vector3& x : cylinderSurface(c, h)) sampled = std::min(sampled, pointToBox(x, b));
      const double d = shapeDistance(c, b).distance;
      QVERIFY2(d <= sampled + 1e-9 && d >= sampled - cylinderGap(c, h),
               qPrintable(QString("%1 vs sampled %2").arg(d).arg(sampled)));
    }
  }

  // Capsules (segments swollen by a radius): skew perpendicular segments whose projections cross
  // are their height apart; parallel ones side by side their offset; end to end, their gap.
  void Capsules_ClosedForm() {
    Geometry g;
    g.type = ShapeType::kCapsule;
    g.size = Vector3(0.05, 1.0, 0);
    ConvexShape a = *convexShape(g), b = a;
    a.pose = {rpyToMatrix(Vector3(0, M_PI / 2, 0)), Vector3(0.1, 0, 0)};  // along x
    b.pose = {rpyToMatrix(Vector3(M_PI / 2, 0, 0)), Vector3(0, 0.2, 0.7)};  // along y, 0.7 above
    QVERIFY(std::abs(shapeDistance(a, b).distance - (0.7 - 0.1)) < 1e-9);
    b.pose = {a.pose.R, Vector3(0.3, 0.4, 0)};  // parallel, 0.4 aside
    QVERIFY(std::abs(shapeDistance(a, b).distance - (0.4 - 0.1)) < 1e-9);
    b.pose = {a.pose.R, Vector3(1.1 + 0.25, 0, 0)};  // end to end along x
    QVERIFY(std::abs(shapeDistance(a, b).distance - (0.25 - 0.1)) < 1e-9);
    b.pose = {a.pose.R, Vector3(0.5, 0.05, 0)};  // cores 0.05 apart: the swellings overlap
    QVERIFY(std::abs(shapeDistance(a, b).distance - (0.05 - 0.1)) < 1e-9);
    b.pose = {rpyToMatrix(Vector3(M_PI / 2, 0, 0)), Vector3(0.2, 0, 0)};  // crossing cores: minus the radii
    QCOMPARE(shapeDistance(a, b).distance, -0.1);
  }

  // A mesh counts as its convex hull: the finger (a convex box with a pyramid on top) against a
  // turned box, against samples of the mesh's own triangles; a cube written as OBJ and as binary
  // STL against the box primitive of the same size.
  void Mesh_HullAgainstTrianglesAndBox() {
    Geometry g;
    g.type = ShapeType::kMesh;
    g.mesh_path = kMeshes + "finger.stl";
    g.scale = Vector3(1, 1, 1.5);
    g.origin = {rpyToMatrix(Vector3(0.3, -0.2, 0.5)), Vector3(0.01, 0.02, 0.03)};
    const ConvexShape finger = *convexShape(g);
    QCOMPARE(finger.points->size(), std::size_t{9});  // 42 vertices in the file, 9 distinct
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(-0.05, 0.05), side(0.01, 0.05);
    const int n = 60;
    for (int trial = 0; trial < 20; ++trial) {
      const ConvexShape b = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)), {randomRotation(rng), Vector3(0.15 + u(rng), u(rng), 0.05 + u(rng))});
      double sampled = INFINITY, longest = 0;
      for (const auto& t : stlTriangles(g.mesh_path)) {
        std::array<Vector3, 3> w;
        for (int k = 0; k < 3; ++k) w[k] = g.origin.act(g.scale.cwiseProduct(t[k]));
        longest = std::max({longest, (w[1] - w[0]).norm(), (w[2] - w[0]).norm(), (w[2] - w[1]).norm()});
        for (int i = 0; i <= n; ++i) {
          for (int j = 0; i + j <= n; ++j) sampled = std::min(sampled, pointToBox(w[0] + (w[1] - w[0]) * i / n + (w[2] - w[0]) * j / n, b));
        }
      }
      const double d = shapeDistance(finger, b).distance;
      QVERIFY2(d <= sampled + 1e-9 && d >= sampled - longest / n, qPrintable(QString("%1 vs sampled %2").arg(d).arg(sampled)));
    }

    // A 0.2 x 0.4 x 0.6 cuboid, as OBJ (with a comment, normals and faces) and as binary STL.
    const Vector3 half(0.1, 0.2, 0.3);
    const QString dir = QDir::tempPath() + "/grapple_test_collision";
    QDir().mkpath(dir);
    const std::string obj = (dir + "/cube.obj").toStdString(), stl = (dir + "/cube.stl").toStdString();
    {
      std::ofstream o(obj);
      o << "# cube\n";
      for (int k = 0; k < 8; ++k) o << "v " << (k & 1 ? 1 : -1) * half.x() << " " << (k & 2 ? 1 : -1) * half.y() << " " << (k & 4 ? 1 : -1) * half.z() << "\n";
      o << "vn 0 0 1\nf 1 2 3\n";
      std::ofstream s(stl, std::ios::binary);
      char header[80] = {};
      s.write(header, 80);
      const std::uint32_t count = 4;
      s.write(reinterpret_cast<const char*>(&count), 4);
      for (int t = 0; t < 4; ++t) {  // two opposite corners per pair of triangles: all 8 appear
        float data[12] = {0, 0, 0};
        for (int v = 0; v < 3; ++v) {
          const int k = (2 * t + v) % 8;
          data[3 + 3 * v] = float((k & 1 ? 1 : -1) * half.x());
          data[4 + 3 * v] = float((k & 2 ? 1 : -1) * half.y());
          data[5 + 3 * v] = float((k & 4 ? 1 : -1) * half.z());
        }
        s.write(reinterpret_cast<const char*>(data), 48);
        s.write(header, 2);
      }
    }
    const Transform pose{rpyToMatrix(Vector3(0.1, 0.2, 0.3)), Vector3(0.5, -0.2, 0.1)};
    const ConvexShape cube = ConvexShape::box(half, pose);
    for (const std::string& path : {obj, stl}) {
      Geometry m;
      m.type = ShapeType::kMesh;
      m.mesh_path = path;
      m.origin = pose;
      const ConvexShape hull = *convexShape(m);
      QCOMPARE(hull.points->size(), std::size_t{8});
      for (int trial = 0; trial < 50; ++trial) {
        const ConvexShape other = ConvexShape::box(Vector3(side(rng), side(rng), side(rng)) * 4, {randomRotation(rng), Vector3(10 * u(rng), 10 * u(rng), 10 * u(rng)) * 3});
        QVERIFY(std::abs(shapeDistance(hull, other).distance - shapeDistance(cube, other).distance) < 1e-6);  // float vertices
      }
    }
  }

  // Unreadable meshes: the reason, and no shape.
  void Mesh_Unreadable() {
    Geometry g;
    g.type = ShapeType::kMesh;
    g.mesh_uri = "package://nowhere/a.stl";
    std::string why;
    QVERIFY(!convexShape(g, &why));
    QVERIFY(why.find("not found") != std::string::npos);
    g.mesh_path = kMeshes + "../package.xml";
    QVERIFY(!convexShape(g, &why));
    QVERIFY(why.find("only STL and OBJ") != std::string::npos);
  }

  // A two-link arm whose second link carries a box and whose hand carries a sphere, the first
  // link none: its clearance from a box obstacle is the smallest of the box-to-box and
  // sphere-to-box distances (by hand: axis-aligned boxes) and of the first link's capsule.
  void Chain_UsesCollisionShapes() {
    const std::string yaml = R"(format: 1
model:
  name: arm
  base: {name: bus, mode: fixed}
  links:
    - name: upper
      mass: 1
      inertia: {xx: 0.01, yy: 0.01, zz: 0.01}
      joint: {name: j1, type: revolute, parent: bus, axis: [0, 0, 1]}
    - name: fore
      mass: 1
      inertia: {xx: 0.01, yy: 0.01, zz: 0.01}
      joint: {name: j2, type: revolute, parent: upper, origin: {xyz: [1, 0, 0]}, axis: [0, 0, 1]}
      collision:
        - {type: box, size: [1, 0.2, 0.2], origin: {xyz: [0.5, 0, 0]}}
    - name: hand
      mass: 0.5
      inertia: {xx: 0.01, yy: 0.01, zz: 0.01}
      joint: {name: wrist, type: fixed, parent: fore, origin: {xyz: [1, 0, 0]}}
      collision:
        - {type: sphere, radius: 0.1}
)";
    const Model m = loadModelYamlString(yaml, "arm.yaml");
    Data d(m);
    forwardKinematics(m, d, Eigen::VectorXd::Zero(m.nq));
    const int fore = m.frames[m.frameId("fore")].body, upper = m.frames[m.frameId("upper")].body;
    const double radius = 0.12;
    const ChainCollision arm(m, {upper, fore}, radius);
    const Vector3 hand = d.X_world[fore].act(Vector3(1, 0, 0));
    // A 0.4-wide box centred at (1.5, 0.6, 0): 0.3 from the forearm's box (its side y = 0.1).
    const ConvexShape obstacle = ConvexShape::box(Vector3(0.2, 0.2, 0.2), {Matrix3::Identity(), Vector3(1.5, 0.6, 0)});
    QVERIFY(std::abs(arm.clearance(d, hand, {obstacle}, 0) - 0.3) < 1e-9);
    // Moved over the hand (2, 0, 0) and beyond the forearm's end (x = 2): from the sphere
    // hypot(0.05, 0.3) - 0.1, from the forearm's box hypot(0.05, 0.2), a little more.
    const ConvexShape over_hand = ConvexShape::box(Vector3(0.2, 0.2, 0.2), {Matrix3::Identity(), Vector3(2.25, 0, 0.5)});
    QVERIFY(std::abs(arm.clearance(d, hand, {over_hand}, 0) - (std::hypot(0.05, 0.3) - 0.1)) < 1e-9);
    // Exempting the sphere's point nearest the box leaves the forearm's box.
    auto on_sphere = [&](const Vector3& p) { return (p - Vector3(2, 0, 0)).norm() < 0.1 + 1e-9; };
    QVERIFY(std::abs(arm.clearance(d, hand, {over_hand}, 0, on_sphere) - std::hypot(0.05, 0.2)) < 1e-9);
    // Over the first link (no shapes): its capsule from the joint (0, 0, 0) to the elbow (1, 0, 0).
    const ConvexShape over_upper = ConvexShape::box(Vector3(0.2, 0.2, 0.2), {Matrix3::Identity(), Vector3(0.5, 0, 0.6)});
    QVERIFY(std::abs(arm.clearance(d, hand, {over_upper}, 0) - (0.4 - radius)) < 1e-9);
    // From the second link on: the forearm box's corner edge (1, y, 0.1) to the obstacle's (0.7, y, 0.4).
    QVERIFY(std::abs(arm.clearance(d, hand, {over_upper}, 1) - std::sqrt(0.18)) < 1e-9);
    QVERIFY(arm.baseShapes(d).empty());

    // The capture's check of the arm against the debris' box (the same box over the hand): the
    // shapes count outside the approach corridor, and the corridor (grasp point under the box,
    // axis -z) forgives the hand and the forearm's end, leaving the first link's capsule.
    FeasibilityOptions o;
    o.link_radius = radius;
    o.debris_size = Vector3(0.4, 0.4, 0.4);
    DebrisProperties debris;
    debris.target_B = Vector3(0.2, 0, 0);
    DebrisState state;
    state.r_W = Vector3(2.25, 0, 0.5);
    const Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
    const int ee = m.frameId("hand");
    QVERIFY(std::abs(debrisClearance(m, d, o, q, ee, debris, state) - (std::hypot(0.05, 0.3) - 0.1)) < 1e-9);
    debris.target_B = Vector3(0, 0, -0.2);
    QVERIFY(std::abs(debrisClearance(m, d, o, q, ee, debris, state) - (std::hypot(1.05, 0.3) - radius)) < 1e-9);
  }
};

QTEST_APPLESS_MAIN(TestCollision)
#include "test_collision.moc"
