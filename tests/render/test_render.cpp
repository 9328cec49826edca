// The 3D scene by scene-graph introspection (no display, no OpenGL): every body and the debris
// are there with the project's meshes; bodies are posed by the kinematics of the state (with the
// modal coordinates times the display exaggeration); a flexible segment's tube ends where the
// kinematics put the body hanging from its deformed tip; a solar array is flat at rest, bends
// with its modes and stays clamped at its root.
#include <QtTest>

#include <map>

#include <osg/Geometry>
#include <osg/MatrixTransform>
#include <osg/NodeVisitor>
#include <osg/Switch>

#include "core/analysis/manipulability.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/urdf.hpp"
#include "render/scene.hpp"

using namespace grapple;
using core::Vector3;

namespace {

const std::string kScenarios = GRAPPLE_SOURCE_DIR "/scenarios/";

// The named transforms ("body:i", "debris") and the geometries under each.
struct Collector : osg::NodeVisitor {
  std::map<std::string, osg::MatrixTransform*> named;
  std::map<std::string, std::vector<osg::Geometry*>> geometries;
  std::string current;
  Collector() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
  void apply(osg::MatrixTransform& t) override {
    const std::string saved = current;
    if (!t.getName().empty()) {
      named[t.getName()] = &t;
      current = t.getName();
    }
    traverse(t);
    current = saved;
  }
  void apply(osg::Geometry& g) override {
    if (!current.empty()) geometries[current].push_back(&g);
  }
};

Vector3 toEigen(const osg::Vec3& v) { return Vector3(v.x(), v.y(), v.z()); }

// World position of a point given in a body's transform.
Vector3 world(const osg::MatrixTransform* t, const osg::Vec3& p) { return toEigen(p * t->getMatrix()); }

osg::Geometry* withVertices(const std::vector<osg::Geometry*>& gs, unsigned n) {
  for (osg::Geometry* g : gs) {
    if (g->getVertexArray() && g->getVertexArray()->getNumElements() == n && g->getNumPrimitiveSets() > 0 &&
        g->getPrimitiveSet(0)->getMode() == GL_TRIANGLES) {
      return g;
    }
  }
  return nullptr;
}

}  // namespace

class TestRender : public QObject {
  Q_OBJECT
  core::LoadedScenario loaded_ = core::loadScenario(kScenarios + "capture_flexible.yaml");

  // A state with the joints turned and every modal coordinate non-zero.
  render::Snapshot deformedState() const {
    const core::Model& m = loaded_.model;
    render::Snapshot s;
    s.q = Eigen::VectorXd::Zero(m.nq);
    s.q[3] = 1;  // base quaternion w (q = [position, quaternion, joints...])
    for (int i = 1; i < m.nbodies; ++i) {
      if (m.joint[i].nv == 1) s.q[m.joint[i].idx_q] = 0.3 * i;
      for (int k = 0; k < m.flex[i].nf; ++k) s.q[m.flex[i].idx_q + k] = 0.01 * (k + 1);
    }
    s.v = Eigen::VectorXd::Zero(m.nv);
    s.has_debris = true;
    s.debris = loaded_.scenario.debris.initial;
    return s;
  }

 private slots:
  void sceneHasEveryBodyAndTheDebris() {
    render::CaptureScene scene(loaded_.model, loaded_.scenario);
    QVERIFY2(scene.warnings().empty(), scene.warnings().empty() ? "" : scene.warnings()[0].c_str());
    Collector c;
    scene.root()->accept(c);
    for (int i = 0; i < loaded_.model.nbodies; ++i) QVERIFY(c.named.count("body:" + std::to_string(i)));
    QVERIFY(c.named.count("debris"));
    QVERIFY(c.geometries["body:0"].size() >= 6);  // the bus mesh: one geometry per material
  }

  void bodiesArePosedByTheKinematicsWithExaggeratedModes() {
    const core::Model& m = loaded_.model;
    render::CaptureScene scene(m, loaded_.scenario);
    Collector c;
    scene.root()->accept(c);
    const render::Snapshot s = deformedState();
    for (double factor : {1.0, 40.0}) {
      scene.setExaggeration(factor);
      scene.update(s);
      Eigen::VectorXd q = s.q;
      for (const auto& fb : m.flex) {
        if (fb.nf > 0) q.segment(fb.idx_q, fb.nf) *= factor;
      }
      core::Data data(m, true);
      core::forwardKinematics(m, data, q);
      for (int i = 0; i < m.nbodies; ++i) {
        const osg::MatrixTransform* t = c.named["body:" + std::to_string(i)];
        QVERIFY((world(t, osg::Vec3()) - data.X_world[i].p).norm() < 1e-5);
        QVERIFY((world(t, osg::Vec3(1, 0, 0)) - data.X_world[i].act(Vector3::UnitX())).norm() < 1e-5);
      }
      const int ee = m.frameId("tool");
      QVERIFY((scene.endEffectorPosition() - core::framePose(m, data, ee).p).norm() < 1e-9);
    }
  }

  // The hand's error vector runs from the drawn hand to the grasp point, where the debris' drawn
  // transform carries the grasp point (its body coordinates).
  void handErrorVectorEndsOnTheGraspPoint() {
    render::CaptureScene scene(loaded_.model, loaded_.scenario);
    Collector c;
    scene.root()->accept(c);
    const render::Snapshot s = deformedState();
    scene.update(s);
    const auto [from, to] = scene.handErrorVector();
    QVERIFY((from - scene.endEffectorPosition()).norm() < 1e-12);
    const Vector3& g = loaded_.scenario.debris.properties.target_B;
    const Vector3 grasp = world(c.named["debris"], osg::Vec3(g.x(), g.y(), g.z()));
    QVERIFY((to - grasp).norm() < 1e-5);
    QVERIFY((to - from).norm() > 0.1);  // the debris' initial state is far from the hand
  }

  // The manipulability ellipsoid: drawn at the hand (the displayed one), its semi-axes the
  // singular directions times the singular values of the rigid-equivalent arm's J* (position).
  void ellipsoidIsTheArmsManipulability() {
    const core::Model& m = loaded_.model;
    render::CaptureScene scene(m, loaded_.scenario);
    render::Snapshot s = deformedState();
    scene.update(s);
    QVERIFY(scene.ellipsoidAxes().isZero());  // off by default
    render::SceneOptions o = scene.options();
    o.ellipsoid = true;
    scene.setOptions(o);
    scene.update(s);
    const Eigen::Matrix3d A = scene.ellipsoidAxes();
    Eigen::VectorXd q = s.q;
    for (const auto& fb : m.flex) {
      if (fb.nf > 0) q.segment(fb.idx_q, fb.nf).setZero();
    }
    core::ManipulabilityOptions mo;
    mo.frame = m.frameId("tool");
    mo.jacobian = core::ManipulabilityJacobian::kGeneralized;
    const Eigen::MatrixXd J = core::manipulabilityJacobian(m, q, mo);
    // A Aᵀ = J Jᵀ: the same ellipsoid whatever the signs of the axes.
    const double err = (A * A.transpose() - J * J.transpose()).norm() / (J * J.transpose()).norm();
    qInfo("ellipsoid: |A Aᵀ - J Jᵀ| / |J Jᵀ| = %.1e, radii %.3f %.3f %.3f m/s per rad/s", err, A.col(0).norm(),
          A.col(1).norm(), A.col(2).norm());
    QVERIFY(err < 1e-12);
    QVERIFY(A.col(0).norm() >= A.col(1).norm() && A.col(1).norm() >= A.col(2).norm());
  }

  // The workspace cloud: drawn under the base (it moves with it), one point per sample, each a
  // hand position the arm can reach — within the chain's length from the shoulder (the triangle
  // inequality over the joint origins, an independent bound), and filling it out to near there.
  void workspaceCloudIsCarriedByTheBase() {
    const core::Model& m = loaded_.model;
    render::CaptureScene scene(m, loaded_.scenario);
    QVERIFY(scene.workspacePoints().empty());  // not computed until shown
    render::SceneOptions o = scene.options();
    o.workspace = true;
    scene.setOptions(o);
    render::Snapshot s = deformedState();
    s.q.head<3>() = Vector3(1.0, -2.0, 0.5);
    s.q.segment<4>(3) = Eigen::Vector4d(std::cos(0.3), 0, 0, std::sin(0.3));  // turned 0.6 rad about z
    scene.update(s);
    const auto& pts = scene.workspacePoints();
    QCOMPARE(int(pts.size()), render::CaptureScene::kWorkspaceSamples);
    Collector c;
    scene.root()->accept(c);
    osg::Geometry* cloud = nullptr;
    for (osg::Geometry* g : c.geometries["body:0"]) {
      if (g->getName() == "workspace") cloud = g;
    }
    QVERIFY(cloud != nullptr);
    const auto* v = static_cast<const osg::Vec3Array*>(cloud->getVertexArray());
    QCOMPARE(int(v->size()), int(pts.size()));
    core::Data data(m, true);
    core::forwardKinematics(m, data, s.q);
    const osg::MatrixTransform* base = c.named["body:0"];
    double worst = 0;
    for (int k = 0; k < int(pts.size()); k += 97) {
      worst = std::max(worst, (world(base, (*v)[k]) - data.X_world[0].act(pts[k])).norm());
    }
    QVERIFY(worst < 1e-5);
    // The chain from joint 1 to the tool, at rest: the sum of the distances between successive
    // joint origins (and to the tool) bounds the reach from the shoulder.
    const int tool = m.frameId("tool");
    core::Data rest(m, true);
    core::forwardKinematics(m, rest, core::neutralConfiguration(m));
    std::vector<int> chain;
    for (int b = m.frames[tool].body; b > 0; b = m.parent[b]) chain.push_back(b);
    double bound = (core::framePose(m, rest, tool).p - rest.X_world[chain.front()].p).norm();
    for (std::size_t k = 0; k + 1 < chain.size(); ++k) bound += (rest.X_world[chain[k]].p - rest.X_world[chain[k + 1]].p).norm();
    const Vector3 shoulder = rest.X_world[chain.back()].p;  // base at rest: base frame = inertial
    double far = 0;
    for (const Vector3& p : pts) far = std::max(far, (p - shoulder).norm());
    qInfo("workspace cloud: %d points, farthest %.3f m from the shoulder (chain length %.3f m)", int(pts.size()), far, bound);
    QVERIFY(far <= bound + 1e-9);
    QVERIFY(far > 0.9 * bound);
    o.workspace = false;
    scene.setOptions(o);
    QVERIFY(!static_cast<osg::Switch*>(cloud->getParent(0))->getValue(0));
  }

  void segmentTubeEndsAtTheBodyOnItsDeformedTip() {
    const core::Model& m = loaded_.model;
    render::CaptureScene scene(m, loaded_.scenario);
    scene.setExaggeration(30);
    scene.update(deformedState());
    Collector c;
    scene.root()->accept(c);
    int checked = 0;
    for (int i = 1; i < m.nbodies; ++i) {
      if (!m.flex[i].beam) continue;
      osg::Geometry* tube = withVertices(c.geometries["body:" + std::to_string(i)], 24 * 14);
      QVERIFY(tube);
      const auto* v = static_cast<const osg::Vec3Array*>(tube->getVertexArray());
      osg::Vec3 tip;
      for (unsigned k = 23 * 14; k < 24 * 14; ++k) tip += (*v)[k];
      tip /= 14;
      const Vector3 tip_W = world(c.named["body:" + std::to_string(i)], tip);
      for (int child : m.children[i]) {
        if (!m.at_tip[child]) continue;
        const Vector3 child_W = world(c.named["body:" + std::to_string(child)], osg::Vec3());
        qInfo("body %s: tube tip %.4f m from %s", m.body_name[i].c_str(), (tip_W - child_W).norm(),
              m.body_name[child].c_str());
        QVERIFY((tip_W - child_W).norm() < 2e-3);
        ++checked;
      }
    }
    QCOMPARE(checked, 2);  // segments 2 and 3
  }

  void arraysBendWithTheirModesFromAClampedRoot() {
    const core::Model& m = loaded_.model;
    render::CaptureScene scene(m, loaded_.scenario);
    Collector c;
    scene.root()->accept(c);
    render::Snapshot s = deformedState();
    const int body = [&] {
      for (int i = 0; i < m.nbodies; ++i) {
        if (m.body_name[i] == "array_left") return i;
      }
      return -1;
    }();
    QVERIFY(body > 0);
    osg::Geometry* plate = withVertices(c.geometries["body:" + std::to_string(body)], 17 * 7);
    QVERIFY(plate);
    auto vertices = [&] {
      const auto* v = static_cast<const osg::Vec3Array*>(plate->getVertexArray());
      return std::vector<osg::Vec3>(v->begin(), v->end());
    };
    s.q.segment(m.flex[body].idx_q, m.flex[body].nf).setZero();
    scene.update(s);
    const auto rest = vertices();
    float lo = 1e9f, hi = -1e9f;  // thickness: the plate is flat at rest (its y: the normal)
    for (const auto& p : rest) {
      lo = std::min(lo, p.y());
      hi = std::max(hi, p.y());
    }
    QVERIFY(hi - lo < 1e-6);
    s.q[m.flex[body].idx_q] = 0.5;  // first mode: out-of-plane bending (participation along y)
    scene.update(s);
    const auto bent = vertices();
    const double root_move = (bent[0] - rest[0]).length(), tip_move = (bent.back() - rest.back()).length();
    qInfo("array_left, delta_1 = 0.5: root moved %.2e m, tip %.3f m", root_move, tip_move);
    QVERIFY(root_move < 1e-6);
    QVERIFY(tip_move > 0.01);
    QVERIFY(std::abs(bent.back().y() - rest.back().y()) > 0.99 * tip_move);  // along the normal
  }

  // A robot with its own geometry is drawn with it: each body's visuals (the package:// mesh read
  // through Assimp: the finger's 14 triangles), posed with the body; the collision shapes instead
  // when asked; a mesh that cannot be found gives one warning and a box in its place.
  void urdfRobotDrawnWithItsOwnGeometry() {
    const std::string urdf = GRAPPLE_SOURCE_DIR "/tests/data/urdf/gripper_meshes.urdf";
    const core::Model m = core::loadUrdf(urdf).model;
    render::CaptureScene scene(m, loaded_.scenario);
    QVERIFY2(scene.warnings().empty(), scene.warnings().empty() ? "" : scene.warnings()[0].c_str());
    Collector c;
    scene.root()->accept(c);
    const int left = m.bodyOfJoint("left");
    bool finger_mesh = false;
    for (osg::Geometry* g : c.geometries["body:" + std::to_string(left)]) {
      auto* e = dynamic_cast<osg::DrawElementsUInt*>(g->getPrimitiveSet(0));
      finger_mesh = finger_mesh || (e != nullptr && e->size() == 3 * 14);
    }
    QVERIFY(finger_mesh);
    struct Switches : osg::NodeVisitor {
      std::vector<osg::Switch*> found;
      Switches() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
      void apply(osg::Switch& s) override {
        if (s.getName() == "geometry") found.push_back(&s);
        traverse(s);
      }
    } sw;
    scene.root()->accept(sw);
    QCOMPARE(int(sw.found.size()), m.nbodies);
    for (osg::Switch* s : sw.found) QVERIFY(s->getValue(0) && !s->getValue(1));
    render::SceneOptions o = scene.options();
    o.collision = true;
    scene.setOptions(o);
    for (osg::Switch* s : sw.found) QVERIFY(!s->getValue(0) && s->getValue(1));

    core::Model missing = m;
    missing.visual[2].mesh_path.clear();  // as if package:// could not be resolved
    missing.visual.push_back(missing.visual[2]);
    render::CaptureScene fallback(missing, loaded_.scenario);
    QCOMPARE(int(fallback.warnings().size()), 1);
    QVERIFY(fallback.warnings()[0].find("package://grapple_test_meshes/meshes/finger.stl") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestRender)
#include "test_render.moc"
