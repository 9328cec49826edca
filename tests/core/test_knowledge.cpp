// Truth and knowledge (sim/knowledge, the scenario's `knowledge`): zero errors given change nothing
// (bit for bit); the controllers' model has the masses, centres of mass and inertias the errors
// say (checked against the robot file's numbers); the controllers really use it (a joint servo
// with wrong link masses tracks worse, a capture with a wrong debris inertia still runs, a
// knowledge equal to the truth through another file moves as the truth to the integrator's
// tolerance, which checks the true forward dynamics replacing the controllers' accelerations);
// `flexible: rigid` is the model with every mode locked, `modes_below` with those above it locked
// (mass matrix against the full model's restricted to the coordinates kept) with the forces padded
// with zeros; bad input names file and line.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/knowledge.hpp"
#include "core/sim/mission.hpp"
#include "core/sim/simulation.hpp"
#include "tests/support/load_files.hpp"
#include "tests/support/random_model.hpp"
#include "tests/support/simulate.hpp"

using namespace grapple::core;
using grapple::test::column;
using grapple::test::Overrides;
using grapple::test::simulate;
using grapple::test::Files;
using Eigen::VectorXd;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

LoadedScenario load(const std::string& file, const Overrides& set = {}) {
  return loadScenario(kSource + "/scenarios/" + file, set);
}

double maxAbs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

int bodyNamed(const Model& m, const std::string& name) {
  for (int i = 0; i < m.nbodies; ++i) {
    if (m.body_name[i] == name) return i;
  }
  return -1;
}

// The rotation from a body's axes to its defining link's.
Matrix3 R_BL(const Model& m, int body) { return m.frames[m.frameId(m.body_name[body])].X_body_frame.R; }

// The controllers' model with the modes `kept` says (body, mode index) and no others: its
// coordinates are the truth's joints and kept modes (Knowledge::index: -1 for a mode left out, q
// and v gathered through it), its mass matrix the truth's at those coordinates with the left-out
// modes at zero, restricted to them; the forces come back on those coordinates, zero elsewhere.
void checkModesLeftOut(const LoadedScenario& l, const std::function<bool(int, int)>& kept) {
  const Model& truth = l.model;
  Knowledge k(truth, l.scenario);
  const Model& m = k.model();
  std::vector<int> of(static_cast<std::size_t>(m.nv), -1);  // the truth's coordinate of each of the model's
  int n = 0;
  for (int i = 0; i < truth.nbodies; ++i) {
    for (int d = 0; d < truth.joint[i].nv; ++d, ++n) {
      const int c = k.index(truth.joint[i].idx_v + d);
      QVERIFY(c >= 0);
      of[static_cast<std::size_t>(c)] = truth.joint[i].idx_v + d;
    }
    for (int f = 0; f < truth.flex[i].nf; ++f) {
      const int c = k.index(truth.flex[i].idx_v + f);
      QCOMPARE(c >= 0, kept(i, f));
      if (c >= 0) {
        of[static_cast<std::size_t>(c)] = truth.flex[i].idx_v + f;
        ++n;
      }
    }
  }
  QCOMPARE(m.nv, n);
  QVERIFY(std::find(of.begin(), of.end(), -1) == of.end());
  QCOMPARE(truth.nq, truth.nv);  // (a fixed base: q and v share their indices)
  std::mt19937 rng(7);
  VectorXd q = grapple::test::randomVector(rng, truth.nq), v = grapple::test::randomVector(rng, truth.nv);
  const VectorXd qk = k.q(q), vk = k.v(v);
  for (int c = 0; c < m.nv; ++c) {
    QCOMPARE(qk[c], q[of[static_cast<std::size_t>(c)]]);
    QCOMPARE(vk[c], v[of[static_cast<std::size_t>(c)]]);
  }
  VectorXd q0 = q;
  for (int i = 0; i < truth.nbodies; ++i) {
    for (int f = 0; f < truth.flex[i].nf; ++f) {
      if (!kept(i, f)) q0[truth.flex[i].idx_q + f] = 0;
    }
  }
  Data dt(truth, true);
  const Eigen::MatrixXd H = massMatrix(truth, dt, q0);
  const Eigen::MatrixXd H_known = massMatrix(m, k.data(), qk);
  QVERIFY((H_known - H(of, of)).norm() < 1e-12 * H.norm());
  VectorXd& tau_k = k.forces();
  tau_k = grapple::test::randomVector(rng, m.nv);
  const VectorXd given = tau_k;
  VectorXd tau = VectorXd::Constant(truth.nv, 7);
  k.applyForces(tau);
  QVERIFY(VectorXd(tau(of)) == given);
  QCOMPARE(tau.cwiseAbs().sum(), given.cwiseAbs().sum());
}

}  // namespace

class TestKnowledge : public QObject {
  Q_OBJECT

 private slots:
  // Every error given as zero: the controllers' model is the truth, and every channel is the
  // same bit for bit as without the section.
  void ZeroErrors_ChannelsIdenticalToNoSection() {
    const Overrides base{{"run.duration", "3"}};
    Overrides zero = base;
    zero.push_back({"knowledge", "{bus: {mass: 0, com: [0, 0, 0], inertia: 0}, payload: {inertia: [0, 0, 0]}, "
                                 "links: {segment2: {mass: 0}}, debris: {mass: 0, grasp_point: [0, 0, 0]}, flexible: modes}"});
    const auto a = simulate("umetani_yoshida.yaml", base), b = simulate("umetani_yoshida.yaml", zero);
    QCOMPARE(b->recorder().rows(), a->recorder().rows());
    QVERIFY(a->recorder().rows() > 100);
    QCOMPARE(b->recorder().channels(), a->recorder().channels());
    for (int c = 0; c < a->recorder().channels(); ++c) {
      QVERIFY2(a->recorder().column(c) == b->recorder().column(c), a->recorder().info(c).name.c_str());
    }
  }

  // The errors as the format says, against the robot file's numbers (robots/umetani_yoshida.yaml):
  // bus 2000 kg, 4083.33 kg m² about each axis; segment2 40 kg, centre of mass (1.25, 0, 0) and
  // moments (0.40, 21.03, 21.03) kg m² in its link's axes (its body's axes are turned onto the
  // joint axis, so the errors are given, and checked, in the link's).
  void KnownChaser_MassPropertiesAsSpecified() {
    LoadedScenario l = load("umetani_yoshida.yaml", {{"knowledge", "{bus: {mass: 0.05, com: [0.01, 0, 0], inertia: -0.1}, "
                                                                   "links: {segment2: {mass: -0.2, com: [0, 0.02, 0], "
                                                                   "inertia: [0.1, 0.01, 0.005]}}}"}});
    const Model& truth = l.model;
    const Model known = knownChaser(truth, l.scenario);
    const Inertia& bus = known.inertia[0];
    QCOMPARE(bus.m, 2000 * 1.05);
    QVERIFY((R_BL(truth, 0).transpose() * (bus.com() - truth.inertia[0].com()) - Vector3(0.01, 0, 0)).norm() < 1e-12);
    QVERIFY((bus.inertiaAboutCom() - 0.9 * truth.inertia[0].inertiaAboutCom()).norm() < 1e-9);
    const int s2 = bodyNamed(truth, "segment2");
    QVERIFY(s2 > 0);
    const Matrix3 R = R_BL(truth, s2);
    const Inertia& seg = known.inertia[s2];
    QVERIFY(std::abs(seg.m - 32) < 1e-12);
    QVERIFY((R.transpose() * seg.com() - Vector3(1.25, 0.02, 0)).norm() < 1e-9);
    const Matrix3 I_L = R.transpose() * seg.inertiaAboutCom() * R;
    QVERIFY((I_L - Vector3(0.44, 21.03 * 1.01, 21.03 * 1.005).asDiagonal().toDenseMatrix()).norm() < 1e-9);
    // The other bodies untouched; the truth untouched.
    QVERIFY(known.inertia[bodyNamed(truth, "segment3")].matrix() == truth.inertia[bodyNamed(truth, "segment3")].matrix());
    QCOMPARE(truth.inertia[0].m, 2000.0);
    // A joint about x: the body's axes are turned (z onto the axis), the errors stay in the link's.
    Files f;
    const std::string file = f.write("x.yaml", "format: 1\nchaser:\n  model:\n    name: x\n"
                                               "    base: {name: bus, mode: floating, mass: 100, inertia: {xx: 10, yy: 10, zz: 10}}\n"
                                               "    links:\n      - {name: arm, mass: 2, com: [0.5, 0, 0], "
                                               "inertia: {xx: 1, yy: 2, zz: 2.5},\n"
                                               "         joint: {name: j1, type: revolute, parent: bus, axis: [1, 0, 0]}}\n"
                                               "knowledge:\n  links:\n    arm: {com: [0.1, 0, 0], inertia: [0.5, 0, 0]}\n");
    const LoadedScenario x = loadScenario(file);
    const int arm = bodyNamed(x.model, "arm");
    const Matrix3 Rx = R_BL(x.model, arm);
    QVERIFY(!Rx.isIdentity(1e-6));
    const Inertia ka = knownChaser(x.model, x.scenario).inertia[arm];
    QVERIFY((Rx.transpose() * ka.com() - Vector3(0.6, 0, 0)).norm() < 1e-12);
    QVERIFY((Rx.transpose() * ka.inertiaAboutCom() * Rx - Vector3(1.5, 2, 2.5).asDiagonal().toDenseMatrix()).norm() < 1e-12);
    // A tensor with products of inertia: S I S with S = diag(√(1 + e)) keeps it symmetric
    // positive definite, each moment scaled by 1 + e_k (and the products by √((1 + e_i)(1 + e_j))).
    Matrix3 I;
    I << 10, 1, -2, 1, 12, 0.5, -2, 0.5, 9;
    MassPropertiesError e;
    e.inertia = Vector3(0.2, -0.3, 0.1);
    const Matrix3 J = perturbedInertia(Inertia::FromCom(3, Vector3(0.1, 0.2, 0.3), I), e).inertiaAboutCom();
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) QVERIFY(std::abs(J(a, b) - I(a, b) * std::sqrt((1 + e.inertia[a]) * (1 + e.inertia[b]))) < 1e-12);
    }
  }

  // The debris known: mass (1 + e) m, inertia S I S in its axes, ratios_only scaled to a uniform
  // box of debris.size with the known mass, grasp point moved.
  void KnownDebris_AsSpecified() {
    const LoadedScenario l = load("umetani_yoshida.yaml");
    const DebrisProperties& P = l.scenario.debris.properties;  // 50 kg, (16.40625, 16.40625, 14.0625)
    KnowledgeSpec::Debris k;
    k.mass = -0.1;
    k.inertia = Vector3(0.2, 0.2, -0.2);
    k.grasp_point = Vector3(0.01, -0.02, 0.03);
    const DebrisProperties a = knownDebris(P, l.scenario.debris.size, k);
    QCOMPARE(a.mass, 45.0);
    QVERIFY((a.inertia.diagonal() - Vector3(16.40625 * 1.2, 16.40625 * 1.2, 14.0625 * 0.8)).norm() < 1e-12);
    QVERIFY((a.target_B - P.target_B - k.grasp_point).norm() < 1e-15);
    k.inertia.setZero();
    k.ratios_only = true;
    const DebrisProperties b = knownDebris(P, l.scenario.debris.size, k);
    // A 1.5 m cube of 45 kg: 45 x (3 x 1.5²) / 6 = 50.625 kg m² of trace; the ratios the truth's.
    QVERIFY(std::abs(b.inertia.trace() - 50.625) < 1e-12);
    QVERIFY((b.inertia / b.inertia.trace() - P.inertia / P.inertia.trace()).norm() < 1e-15);
    QVERIFY_THROWS_EXCEPTION(KnowledgeError, knownDebris(P, Vector3::Zero(), k));
  }

  // The joint servo (computed torque through the whole system's dynamics) tracks its path to the
  // integrator's accuracy with the truth's model; with links 20 % heavier in its model, its
  // feed-forward is wrong and the error grows by orders of magnitude (still bounded: the PD).
  void JointServo_WrongLinkMasses_TracksWorse() {
    const Overrides base{{"run.duration", "10"}, {"controllers[0].kp", "4"}, {"controllers[0].kd", "4"}};
    Overrides wrong = base;
    wrong.push_back({"knowledge", "{links: {segment2: {mass: 0.2}, segment3: {mass: 0.2}}}"});
    const auto a = simulate("umetani_yoshida.yaml", base), b = simulate("umetani_yoshida.yaml", wrong);
    QVERIFY(a->failure().empty() && b->failure().empty());
    const double e_truth = maxAbs(column(*a, "joint.joint2.error")), e_known = maxAbs(column(*b, "joint.joint2.error"));
    qInfo("joint2's largest tracking error: %.3g rad with the truth's model, %.3g rad with 20 %% heavier links",
          e_truth, e_known);
    QVERIFY(e_truth < 1e-6);
    QVERIFY(e_known > 100 * e_truth && e_known > 1e-5);
    QVERIFY(e_known < 0.05);
  }

  // The knowledge's robot file the chaser's own: the controllers get a model equal to the truth
  // but their own, so the simulation integrates the true forward dynamics of their torques instead
  // of taking their accelerations: the same motion to the integrator's tolerance, not bit for bit.
  void KnowledgeRobotEqualToTruth_SameMotion() {
    const Overrides base{{"run.duration", "10"}};
    Overrides same = base;
    same.push_back({"knowledge", "{robot: robots/umetani_yoshida.yaml}"});
    const auto a = simulate("umetani_yoshida.yaml", base), b = simulate("umetani_yoshida.yaml", same);
    double diff = 0;
    for (const char* c : {"joint.joint1.position", "joint.joint2.position", "joint.joint3.position", "base.x", "base.y"}) {
      const auto &x = column(*a, c), &y = column(*b, c);
      for (std::size_t k = 0; k < x.size(); ++k) diff = std::max(diff, std::abs(x[k] - y[k]));
    }
    qInfo("largest difference: %.3g", diff);
    QVERIFY(diff > 0);      // another path through the code
    QVERIFY(diff < 1e-8);   // the same dynamics
  }

  // A capture planned, flown and grasped with the debris' inertia 30 % off on one axis, its mass
  // 10 % off and the grasp point 5 mm off (the 3-DoF bench chaser; the motion of a torque-free
  // body depends on its inertia's ratios only, which these errors change).
  void Capture_WrongDebrisInertia_StillRuns() {
    const auto sim = simulate("umetani_yoshida_capture.yaml",
                              {{"knowledge", "{debris: {mass: -0.1, inertia: [0.3, 0, 0], grasp_point: [0.005, 0, 0]}}"}});
    QVERIFY2(sim->failure().empty(), sim->failure().c_str());
    QVERIFY(sim->plans() >= 1);
    const SimulationEvent* capture = nullptr;
    for (const SimulationEvent& e : sim->events()) {
      if (e.kind == "capture") capture = &e;
    }
    QVERIFY(capture != nullptr);
    QVERIFY2(capture->detail.find("grasp closed on the estimate") == 0, capture->detail.c_str());  // (its camera)
    const auto& d = column(*sim, "distance.ee_target");
    qInfo("hand to the true grasp point at the end: %.4f m", d.back());
    // Without the camera (the true debris state, its properties as known): the gripper closes on
    // the grasp point the controllers believe in, 2 cm from the true one.
    const auto blind = simulate("umetani_yoshida_capture.yaml",
                                {{"sensors", "{}"}, {"knowledge", "{debris: {inertia: 0.2, grasp_point: [0, 0.02, 0]}}"}});
    const SimulationEvent* closed = nullptr;
    for (const SimulationEvent& e : blind->events()) {
      if (e.kind == "capture") closed = &e;
    }
    QVERIFY(closed != nullptr);
    QVERIFY2(closed->detail.find("grasp closed on the debris known") == 0, closed->detail.c_str());
    const double at_grasp = column(*blind, "distance.ee_target")[static_cast<std::size_t>(std::lround(closed->time * 50))];
    QVERIFY2(std::abs(at_grasp - 0.02) < 0.01, std::to_string(at_grasp).c_str());
  }

  // flexible: rigid: the controllers' model is the chaser with every mode locked (LockedModes).
  void Rigid_MapsCoordinates() {
    const LoadedScenario l = load("planar_free_vibration.yaml", {{"knowledge", "{flexible: rigid}"}});
    QVERIFY(l.model.nflex == 4);
    checkModesLeftOut(l, [](int, int) { return false; });
    if (QTest::currentTestFailed()) return;
    QVERIFY(!Knowledge(l.model, l.scenario).model().hasFlexibleBodies());
    // A joint servo on the rigid model holding the joints while the segments vibrate: runs, and
    // the joints' references come through the index map.
    const auto sim = simulate("planar_free_vibration.yaml",
                              {{"knowledge", "{flexible: rigid}"}, {"run.duration", "1"},
                               {"controllers", "[{type: joint_trajectory, start: 0, duration: 1, kp: 25, kd: 10, "
                                               "target: {joint1: 0.1, joint2: 0}}]"}});
    QVERIFY2(sim->failure().empty(), sim->failure().c_str());
    QVERIFY(std::abs(column(*sim, "joint.joint1.reference").back() - 0.1) < 1e-12);
    QVERIFY(maxAbs(column(*sim, "mode.segment2.bend_y1")) > 0.01);  // the modes the controllers leave out move
  }

  // modes_below: each body's modes above the frequency left out of the controllers' model, the
  // others kept (a cutoff between the second and third of the four frequencies: two of each).
  void ModesBelow_KeepsTheSlowModes() {
    LoadedScenario l = load("planar_free_vibration.yaml");
    std::vector<double> all;
    for (const FlexibleBody& b : l.model.flex) all.insert(all.end(), b.frequency.data(), b.frequency.data() + b.nf);
    QCOMPARE(static_cast<int>(all.size()), 4);
    std::sort(all.begin(), all.end());
    QVERIFY(all[1] < all[2]);
    const double cutoff = 0.5 * (all[1] + all[2]);
    l = load("planar_free_vibration.yaml", {{"knowledge.modes_below", std::to_string(cutoff)}});
    const Model& truth = l.model;
    checkModesLeftOut(l, [&](int body, int mode) { return truth.flex[body].frequency[mode] <= cutoff; });
    QCOMPARE(Knowledge(truth, l.scenario).model().nflex, 2);
    // Above every frequency: the controllers' model is the truth's.
    l = load("planar_free_vibration.yaml", {{"knowledge.modes_below", std::to_string(2 * all[3])}});
    checkModesLeftOut(l, [](int, int) { return true; });
    // flexible: rigid leaves every mode out, whatever modes_below says.
    l = load("planar_free_vibration.yaml", {{"knowledge", "{flexible: rigid, modes_below: " + std::to_string(cutoff) + "}"}});
    checkModesLeftOut(l, [](int, int) { return false; });
  }

  // The flexible capture with the controllers on the rigid model: the capture law's gains, set on
  // the locked inertia, drive the true arm's much smaller modal inertia at 100 Hz and the loop
  // chatters at the Nyquist frequency; the abort names it (torques flipping their sign at every
  // period), where the truth's model captures (capture_flexible.yaml's own test).
  void FlexibleOnARigidModel_AbortNamesTheUnstableLoop() {
    const auto sim = simulate("capture_flexible.yaml", {{"knowledge", "{flexible: rigid}"}, {"run.duration", "56.2"}});
    const MissionMetrics m = missionMetrics(*sim);
    qInfo("%s", m.outcome_reason.c_str());
    QCOMPARE(m.outcome, Outcome::kAborted);
    QVERIFY(m.outcome_reason.find("flip their sign") != std::string::npos);
  }

  // The realistic flexible capture: the window is planned before the camera sees the grasp point;
  // when the images move it by centimetres, the replan would take the arm within the debris' box's
  // clearance:
  // checked as the window's plan is, it is not flown, and the hand retreats at that instant.
  void FlexibleRealistic_ReplanCheckedBeforeItIsFlown() {
    const auto sim = simulate("capture_flexible_realistic.yaml", {{"run.duration", "59.6"}});
    const SimulationEvent *replan = nullptr, *abort = nullptr;
    for (const SimulationEvent& e : sim->events()) {
      if (e.kind == "replan" && !replan) replan = &e;
      if (e.kind == "abort" && !abort) abort = &e;
    }
    QVERIFY(replan && abort);
    qInfo("t = %.2f s: %s", abort->time, abort->detail.c_str());
    QCOMPARE(abort->time, replan->time);
    QVERIFY(abort->detail.find("the new plan fails its check (debris_clearance") == 0);
    QCOMPARE(missionMetrics(*sim).outcome, Outcome::kAborted);
  }

  // Bad knowledge: refused at its file and line, saying what is wrong and what was expected.
  void Loader_NamesFileLineAndExpectation() {
    const std::string robot = kSource + "/scenarios/robots/planar_2dof_flex.yaml";
    const std::string head = "format: 1\nchaser:\n  robot: " + robot + "\nknowledge:\n";
    struct Case {
      std::string yaml;
      int line;
      const char* fragment;
    };
    const Case cases[] = {
        {"  links:\n    segment9: {mass: 0.1}\n", 6, "no body 'segment9' (its links that are bodies: segment1, segment2, payload)"},
        {"  links:\n    hub1: {mass: 0.1}\n", 6, "link 'hub1' is fixed to body 'segment1' and merged into it"},
        {"  links:\n    segment2: {mass: 0.1}\n", 6, "knowledge.links.segment2: body 'segment2' is flexible"},
        {"  payload: {mass: 0.1}\n  links:\n    payload: {mass: 0.1}\n", 7, "carries the end effector: given as knowledge.payload"},
        {"  flexible: rigid\n  links:\n    segment1: {inertia: [0, -0.99, 0]}\n", 7, "triangle inequality"},
        {"  bus: {mass: -1}\n", 5, "knowledge.bus.mass: must be > -1, got -1"},
        {"  bus: {inertia: [0.1, 0.2]}\n", 5, "one relative error, or three (x, y, z), expected"},
        {"  debris: {mass: 0.1}\n", 5, "knowledge.debris: the scenario has no debris"},
        {"  robot: robots/umetani_yoshida.yaml\n", 5, "knowledge.robot: no robot file"},
        {"  robot: " + kSource + "/scenarios/robots/umetani_yoshida.yaml\n", 5, "not the chaser's structure"},
        {"  robot: " + kSource + "/scenarios/robots/planar_2dof.yaml\n", 5, "3 bodies, the chaser 4"},
        {"  flexible: rigd\n", 5, "'rigd' is not one of: modes rigid"},
        {"  modes_below: -5\n", 5, "knowledge.modes_below: must be > 0, got -5"},
        {"  bus: {mas: 0.1}\n", 5, "did you mean 'mass'"},
    };
    for (const Case& c : cases) {
      Files f;
      const std::string bad = f.write("bad.yaml", head + c.yaml);
      EXPECT_LOAD_ERROR(loadScenario(bad), bad, c.line, c.fragment);
    }
    // Another file of the same robot, the modes left out, a heavier payload: accepted.
    Files f;
    const std::string ok = f.write("ok.yaml", head + "  robot: " + robot + "\n  flexible: rigid\n  payload: {mass: 0.1}\n");
    const LoadedScenario l = loadScenario(ok);
    QVERIFY(l.scenario.knowledge->robot_model != nullptr);
    QCOMPARE(Knowledge(l.model, l.scenario).model().nv, 2);
    // ratios_only needs the debris' box.
    const std::string path = kSource + "/scenarios/umetani_yoshida.yaml";
    EXPECT_LOAD_ERROR(loadScenario(path, {{"knowledge.debris.ratios_only", "true"}, {"debris.size", "[0, 0, 0]"}}), path, 0,
                      "give debris.size");
  }
};

QTEST_APPLESS_MAIN(TestKnowledge)
#include "test_knowledge.moc"
