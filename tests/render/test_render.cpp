// The 3D scene by scene-graph introspection (no display, no OpenGL): every body and the debris
// are there with the project's meshes; bodies are posed by the kinematics of the state (with the
// modal coordinates times the display exaggeration); a flexible segment's tube ends where the
// kinematics put the body hanging from its deformed tip; a solar array is flat at rest, bends
// with its modes and stays clamped at its root. The capture plan (capture_rigid flown to its
// grasp): its path's points are the plan's hand positions recorded in the plan.x channels, each
// coloured by the feasibility margin predicted there, which bounds the bus torque the run then
// asked (base.torque_demand); the capture window and stand-off markers on the plan's ends; the
// bus' axes and the trail of their tips on the kinematics' bus poses.
#include <QtTest>

#include <algorithm>

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
#include "core/planning/capture_planner.hpp"
#include "core/sim/simulation.hpp"
#include "render/recording.hpp"
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

// Every named drawable and switch.
struct Named : osg::NodeVisitor {
  std::map<std::string, osg::Geometry*> geometry;
  std::map<std::string, osg::Switch*> switches;
  Named() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) { setNodeMaskOverride(~0u); }  // hidden ones too
  void apply(osg::Switch& s) override {
    if (!s.getName().empty()) switches[s.getName()] = &s;
    traverse(s);
  }
  void apply(osg::Geometry& g) override {
    if (!g.getName().empty()) geometry[g.getName()] = &g;
  }
};

Vector3 translation(const osg::MatrixTransform* t) { return toEigen(t->getMatrix().getTrans()); }

// capture_rigid flown to just after its grasp (71.7 s; the plan is made at 59 s), recorded.
struct CaptureRun {
  std::unique_ptr<core::Simulation> sim;
  std::unique_ptr<render::Recording> recording;
  CaptureRun() {
    core::LoadedScenario l = core::loadScenario(kScenarios + "capture_rigid.yaml");
    l.scenario.run.duration = 72;
    sim = std::make_unique<core::Simulation>(l.scenario, l.model);
    recording = std::make_unique<render::Recording>(*sim);
    recording->append(*sim);
    while (sim->step()) recording->append(*sim);
  }
};

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

  // The plan's path: its points at the recording instants are the plan.x channels of those rows
  // (recorded while the hand flew it), from the hand at the plan's start to the grasp point at the
  // meeting; each point coloured by the margin there. The margin is the feasibility check's, so
  // where the bus torque limits the plan it is at most 1 - (the bus torque asked) / (its share
  // of the limit) — checked against the torque the run asked as it flew the plan.
  void planPathIsThePlanColouredByItsMargin() {
    CaptureRun run;
    const core::Recorder& r = run.sim->recorder();
    const render::Recording& rec = *run.recording;
    const int last = rec.rows() - 1;
    const render::PlanOverlay* plan = rec.planAt(last);
    QVERIFY(plan != nullptr);
    QCOMPARE(plan->number, 1);
    QVERIFY(rec.planAt(rec.rowAt(plan->start - 1)) == nullptr);  // none before it was made
    QCOMPARE(rec.planAt(rec.rowAt(plan->start)), plan);
    qInfo("plan %d from %.3f s, meeting at %.3f s: %zu points, smallest margin %.3f (%s)", plan->number, plan->start,
          plan->meeting, plan->path.size(), plan->margin, plan->limiting.c_str());

    render::CaptureScene scene(run.sim->model(), run.sim->scenario());
    scene.update(rec.snapshot(last));
    scene.setPlan(plan);
    Named n;
    scene.root()->accept(n);
    osg::Geometry* g = n.geometry["plan_path"];
    QVERIFY(g != nullptr);
    const auto* v = static_cast<const osg::Vec3Array*>(g->getVertexArray());
    const auto* c = static_cast<const osg::Vec4Array*>(g->getColorArray());
    QCOMPARE(int(v->size()), int(plan->path.size()));
    QCOMPARE(int(c->size()), int(plan->path.size()));
    QCOMPARE(g->getColorBinding(), osg::Geometry::BIND_PER_VERTEX);

    // Points against the recorded plan channels, row by row.
    const int px = r.find("plan.x");
    QVERIFY(px >= 0);
    std::map<long, int> vertex_at;  // the recording instant (in rows of 1/rate) -> vertex
    const double rate = run.sim->scenario().run.record_rate;
    for (std::size_t k = 0; k < plan->times.size(); ++k) vertex_at[std::lround(plan->times[k] * rate)] = int(k);
    int compared = 0;
    double worst = 0;
    for (int row = 0; row < r.rows(); ++row) {
      const double t = r.at(row, 0);
      if (std::isnan(r.at(row, px)) || t < plan->start - 1e-9 || t > plan->meeting + 1e-9) continue;
      const auto it = vertex_at.find(std::lround(t * rate));
      QVERIFY2(it != vertex_at.end(), qPrintable(QString("no point of the plan at t = %1 s").arg(t)));
      QVERIFY(std::abs(plan->times[it->second] - t) < 1e-9);
      const Vector3 recorded(r.at(row, px), r.at(row, px + 1), r.at(row, px + 2));
      worst = std::max(worst, (toEigen((*v)[it->second]) - recorded).norm());
      ++compared;
    }
    qInfo("%d points compared with the recorded plan channels: largest difference %.2e m", compared, worst);
    QVERIFY(compared > 600);   // the plan from 50 s to its meeting at 75 s at 50 Hz
    QVERIFY(worst < 2e-5);     // float vertices of positions of a few metres
    // The ends: the hand when the plan was made, the grasp point at the planned meeting.
    const int ex = r.find("ee.x");
    const int r0 = rec.rowAt(plan->start);
    QVERIFY((toEigen(v->front()) - Vector3(r.at(r0, ex), r.at(r0, ex + 1), r.at(r0, ex + 2))).norm() < 1e-4);
    const core::DebrisState d = core::DebrisTrajectory(run.sim->scenario().debris.properties,
                                                       rec.snapshot(r0).debris).state(plan->meeting - plan->start);
    const Vector3 grasp = core::targetKinematics(run.sim->scenario().debris.properties, d).position;
    qInfo("last point %.2e m from the grasp point propagated to the meeting", (toEigen(v->back()) - grasp).norm());
    QVERIFY((toEigen(v->back()) - grasp).norm() < 1e-3);

    // Margins: bounded by the bus torque the run asked (the plan is limited by the bus torque).
    QCOMPARE(QString::fromStdString(plan->limiting), QString("bus_torque"));
    const int bt = r.find("base.torque_demand");
    const double share = 0.9 * run.sim->scenario().chaser.attitude_control->torque_limit;
    double lowest = INFINITY, slack = -INFINITY, last_flown = -INFINITY;
    int checked = 0;
    for (int row = r0; row < r.rows(); ++row) {
      const auto it = vertex_at.find(std::lround(r.at(row, 0) * rate));
      if (it == vertex_at.end() || std::isnan(r.at(row, px))) continue;
      const double m = plan->margins[it->second];
      lowest = std::min(lowest, m);
      last_flown = r.at(row, 0);
      const double bus_margin = 1 - r.at(row, bt) / share;
      slack = std::max(slack, m - bus_margin);
      ++checked;
    }
    qInfo("%d margins: lowest %.3f (the check's %.3f); at most %.3f above the recorded bus torque's", checked, lowest,
          plan->margin, slack);
    QVERIFY(lowest >= plan->margin - 1e-9);
    // The worst instant is within the flown part, or beyond it: the check runs to the planned meeting
    // and the hold after it, and the gripper may close before the meeting (within its tolerance
    // for the hold during the slow end of the approach), leaving that part unflown.
    const auto worst_at = std::min_element(plan->margins.begin(), plan->margins.end()) - plan->margins.begin();
    QVERIFY(lowest < plan->margin + 0.05 || plan->times[static_cast<std::size_t>(worst_at)] > last_flown);
    QVERIFY(slack < 0.05);                    // prediction (exact tracking) vs the flown run
    // Colours follow the margin: each is marginColor of its point's, the reddest where it is lowest.
    int reddest = 0, lowest_at = 0;
    for (std::size_t k = 0; k < v->size(); ++k) {
      const std::array<float, 3> e = render::marginColor(plan->margins[k]);
      for (int j = 0; j < 3; ++j) QCOMPARE((*c)[k][j], e[j]);
      QCOMPARE((*c)[k][3], 1.0f);
      if ((*c)[k].r() - (*c)[k].g() > (*c)[reddest].r() - (*c)[reddest].g()) reddest = int(k);
      if (plan->margins[k] < plan->margins[lowest_at]) lowest_at = int(k);
    }
    QCOMPARE(plan->margins[reddest], plan->margins[lowest_at]);

    // The capture window on the grasp point at the meeting, the stand-off on the plan's start;
    // one stage: no approach point.
    QVERIFY(n.switches.count("plan") && n.switches.count("capture_markers"));
    Collector markers;
    markers.setNodeMaskOverride(~0u);  // the hidden markers too
    scene.root()->accept(markers);
    QVERIFY((translation(markers.named["capture_window"]) - plan->grasp).norm() < 1e-5);
    QVERIFY((translation(markers.named["standoff"]) - toEigen(v->front())).norm() < 1e-5);
    QCOMPARE(markers.named["approach"]->getNodeMask(), 0u);
    QVERIFY(markers.named["capture_window"]->getNodeMask() != 0u);
    const std::string said = scene.describePick({markers.named["capture_window"]});
    QVERIFY2(said.find("capture window") != std::string::npos && said.find("bus_torque") != std::string::npos, said.c_str());

    // Toggles: the plan, the window and the trail each have their switch; while the coloured
    // plan is shown the uncoloured planned path is not drawn.
    std::vector<Vector3> actual, planned;
    rec.pathsAt(last, actual, planned);
    scene.setPaths(actual, planned);
    osg::Geometry* dashed = n.geometry["planned_path"];
    QVERIFY(dashed != nullptr && !planned.empty());
    QCOMPARE(dashed->getNodeMask(), 0u);
    render::SceneOptions o = scene.options();
    QVERIFY(o.plan && o.window && o.trail);
    QVERIFY(n.switches["plan"]->getValue(0) && n.switches["capture_markers"]->getValue(0) && n.switches["bus_trail"]->getValue(0));
    o.plan = o.window = o.trail = false;
    scene.setOptions(o);
    QVERIFY(!n.switches["plan"]->getValue(0) && !n.switches["capture_markers"]->getValue(0) && !n.switches["bus_trail"]->getValue(0));
    QVERIFY(dashed->getNodeMask() != 0u);
    // Scrubbed back before the plan: nothing drawn.
    scene.setPlan(rec.planAt(rec.rowAt(plan->start - 1)));
    QCOMPARE(int(v->size()), 0);
    QCOMPARE(markers.named["capture_window"]->getNodeMask(), 0u);
  }

  // A two-stage plan's approach point has its marker; the colour scale's ends and order.
  void approachMarkerAndMarginColours() {
    render::CaptureScene scene(loaded_.model, loaded_.scenario);
    render::PlanOverlay p;
    p.number = 1;
    p.start = 1;
    p.rendezvous = 2;
    p.meeting = 3;
    p.times = {1, 2, 3};
    p.path = {Vector3(0, 0, 0), Vector3(1, 0, 0), Vector3(1, 1, 0)};
    p.margins = {0.8, -0.2, NAN};
    p.standoff = p.path[0];
    p.approach = p.path[1];
    p.grasp = p.path[2];
    scene.setPlan(&p);
    Collector c;
    c.setNodeMaskOverride(~0u);
    scene.root()->accept(c);
    QVERIFY(c.named["approach"]->getNodeMask() != 0u);
    QVERIFY((translation(c.named["approach"]) - p.approach).norm() < 1e-6);
    const auto red = render::marginColor(-0.2), zero = render::marginColor(0), green = render::marginColor(0.8),
               grey = render::marginColor(NAN);
    QVERIFY(red == zero && red[0] > 0.9f && red[1] < 0.2f);
    QVERIFY(green == render::marginColor(render::kMarginGood) && green[1] > 0.8f && green[0] < 0.2f);
    QVERIFY(grey[0] == grey[1] && grey[1] == grey[2]);
    float previous = 2;
    for (double m = 0; m <= render::kMarginGood + 1e-9; m += 0.05) {  // red - green falls as the margin grows
      const auto k = render::marginColor(m);
      QVERIFY(k[0] - k[1] < previous);
      previous = k[0] - k[1];
    }
  }

  // The bus' axes on the bus' pose (its drawn transform), the trail of their tips through its
  // poses over the last 30 s, oldest first.
  void busTrailFollowsTheBusPoses() {
    CaptureRun run;
    const render::Recording& rec = *run.recording;
    render::CaptureScene scene(run.sim->model(), run.sim->scenario());
    const int row = rec.rows() - 1, first = rec.rowAt(rec.time(row) - 30);
    std::vector<core::Transform> poses;
    rec.basePoses(row, 30, poses);
    QVERIFY(poses.size() > 100 && poses.size() <= std::size_t(render::Recording::kTrailPoints));
    scene.setBaseTrail(poses);
    Named n;
    scene.root()->accept(n);
    Collector c;
    scene.root()->accept(c);
    const double L = scene.trailAxisLength();
    auto tipsAt = [&](int r) {  // the bus' axes' tips as the scene poses the bus at row r
      scene.update(rec.snapshot(r));
      std::array<Vector3, 3> t;
      for (int a = 0; a < 3; ++a) {
        osg::Vec3 e(0, 0, 0);
        e[a] = float(L);
        t[a] = world(c.named["body:0"], e);
      }
      return t;
    };
    const auto now = tipsAt(row), then = tipsAt(first);
    const auto* axes = static_cast<const osg::Vec3Array*>(n.geometry["bus_axes"]->getVertexArray());
    QCOMPARE(int(axes->size()), 6);
    double worst = 0;
    for (int a = 0; a < 3; ++a) {
      worst = std::max(worst, (toEigen((*axes)[2 * a + 1]) - now[a]).norm());
      const auto* tips = static_cast<const osg::Vec3Array*>(n.geometry[std::string("bus_trail_") + "xyz"[a]]->getVertexArray());
      QCOMPARE(tips->size(), poses.size());
      worst = std::max(worst, (toEigen(tips->back()) - now[a]).norm());
      worst = std::max(worst, (toEigen(tips->front()) - then[a]).norm());
      const auto* col = static_cast<const osg::Vec4Array*>(n.geometry[std::string("bus_trail_") + "xyz"[a]]->getColorArray());
      QVERIFY(col->front().a() < col->back().a());  // the oldest faded
    }
    qInfo("bus trail: %zu poses over 30 s; tips within %.2e m of the bus' drawn axes; tips moved %.3f m", poses.size(),
          worst, (now[0] - then[0]).norm());
    QVERIFY(worst < 1e-5);
    QVERIFY((now[0] - then[0]).norm() > 0.01);  // the bus drifts: the trail is not a point
  }
};

QTEST_APPLESS_MAIN(TestRender)
#include "test_render.moc"
