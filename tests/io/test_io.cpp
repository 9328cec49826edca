// Model files: the URDF reader and the YAML model format, against models built in code and against
// the thesis' data; every kind of bad input gives "file:line: message", never a crash.
#include <QtTest>

#include <fstream>
#include <random>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/json.hpp"
#include "core/io/load_error.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/urdf.hpp"
#include "core/io/yaml_util.hpp"
#include "core/math/rotation.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/load_files.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
std::string robot(const std::string& file) { return kSource + "/scenarios/robots/" + file; }
using grapple::test::Files;


}  // namespace

class TestIo : public QObject {
  Q_OBJECT

 private slots:
  // Planar arm of Table D.1: the mass matrix follows from the thesis' loads. At q2 = 0 the
  // inertia about joint 2 is the segment-1 tip load of App. D.1.1, J_L = 0.1 + 0.0083 + 0.0005 +
  // 0.1·0.5² = 0.1338 kg m² (hub 2, segment 2 about its joint, payload).
  void Planar_MatchesThesisLoads() {
    const Model m = loadModelYaml(robot("planar_2dof.yaml"));
    QCOMPARE(m.nv, 2);
    QCOMPARE(m.nbodies, 3);
    QCOMPARE_LE(std::abs(m.totalMass() - 2.3), 1e-12);
    Data d(m);
    const MatrixXd H = massMatrix(m, d, VectorXd::Zero(2));
    const double J2 = 0.1 + 0.1 * 0.5 * 0.5 / 3 + 0.0005 + 0.1 * 0.25;
    QCOMPARE_LE(std::abs(H(1, 1) - J2), 1e-9);
    QCOMPARE_LE(std::abs(J2 - 0.13383), 1e-5);
    // About joint 1: hub 1, segment 1, then hub 2 at 0.5 m, segment 2 and the payload.
    const double J1 = 0.1 + 0.1 * 0.25 / 3 + (1.0 * 0.25 + 0.1) + (0.1 * 0.75 * 0.75 + 0.1 * 0.25 / 12) +
                      (0.1 * 1.0 + 0.0005);
    QCOMPARE_LE(std::abs(H(0, 0) - J1), 1e-9);
  }

  // Canadarm stretched (q = 0): every a of the adapted DH table lies along one x axis, so the
  // tool sits at Σ l = 17 m.
  void Canadarm_StretchedReach() {
    const Model m = loadModelYaml(robot("canadarm.yaml"));
    QCOMPARE(m.nv, 6);
    QCOMPARE(m.base_mode, BaseMode::kFixed);
    QCOMPARE(m.effort_limit[3], 1500.0);
    Data d(m);
    forwardKinematics(m, d, VectorXd::Zero(6));
    EXPECT_MATRIX_NEAR(framePose(m, d, m.frameId("tool")).p, Vector3(17, 0, 0), 1e-12);
    QCOMPARE_LE(std::abs(m.totalMass() - 415.0), 1e-9);
  }

  void MdaOnDeos_HasTwelveDofAndThesisMasses() {
    const Model m = loadModelYaml(robot("mda_deos.yaml"));
    QCOMPARE(m.nv, 12);
    QCOMPARE(m.nq, 13);
    QCOMPARE(m.base_mode, BaseMode::kFloating);
    QCOMPARE(m.nbodies, 7);  // hubs and payload merged into their segments
    const double arm = 0.36 * 3 + 9.2 * 2 + 1.78 + 6 * 5.4 + 15.8;
    QCOMPARE_LE(std::abs(m.totalMass() - (786 + arm)), 1e-9);
    QCOMPARE_LE(std::abs(m.armature[6] - 11.158), 1e-12);
    QCOMPARE(m.effort_limit[11], 200.0);
    // Stretched arm: segments 2 and 3 (2.61 m each) reach about 5.8 m beyond the anchorage.
    Data d(m);
    const VectorXd q = neutralConfiguration(m);
    forwardKinematics(m, d, q);
    const Vector3 anchor = framePose(m, d, m.frameId("segment1")).p;
    const Vector3 tool = framePose(m, d, m.frameId("tool")).p;
    QVERIFY((tool - anchor).norm() > 5.3 && (tool - anchor).norm() < 6.2);
    EXPECT_MATRIX_NEAR(anchor, Vector3(1.3, 0, 0), 1e-12);
  }

  // The URDF tree against the same model written with the builder.
  void Urdf_TwoArmTreeMatchesBuilder() {
    const UrdfResult r = loadUrdf(kSource + "/tests/data/two_arm.urdf", {BaseMode::kFloating});
    const Model& m = r.model;
    QCOMPARE(m.nbodies, 6);  // bus, a1..a3, b1 (+camera merged), b2
    QCOMPARE(m.nv, 6 + 5);
    QCOMPARE(m.parent[m.bodyOfJoint("b_base")], 0);
    QCOMPARE(m.parent[m.bodyOfJoint("a_shoulder")], 0);
    QCOMPARE(m.parent[m.bodyOfJoint("b_slide")], m.bodyOfJoint("b_base"));
    QCOMPARE(r.warnings.size(), std::size_t(1));  // the damping of a_elbow
    QVERIFY(r.warnings[0].find("two_arm.urdf:69: warning") != std::string::npos);
    QCOMPARE(m.upper_position_limit[m.joint[m.bodyOfJoint("b_slide")].idx_q], 0.5);
    QCOMPARE(m.effort_limit[m.joint[m.bodyOfJoint("a_elbow")].idx_v], 80.0);
    QVERIFY(std::isinf(m.upper_position_limit[m.joint[m.bodyOfJoint("a_wrist")].idx_q]));

    ModelBuilder b("code");
    b.setBaseMode(BaseMode::kFloating);
    auto inertial = [](double mass, Vector3 xyz, Vector3 rpy, Matrix3 I) {
      const Matrix3 R = rpyToMatrix(rpy);
      return Inertia::FromCom(mass, xyz, R * I * R.transpose());
    };
    Matrix3 Ib;
    Ib << 120, 1.5, -2, 1.5, 150, 0.5, -2, 0.5, 110;
    b.addLink({"bus", inertial(500, {0.01, -0.02, 0.03}, {0, 0, 0}, Ib)});
    b.addLink({"a1", inertial(4, {0.15, 0, 0}, {0.1, 0.2, 0.3}, Vector3(0.01, 0.03, 0.03).asDiagonal())});
    Matrix3 Ia2;
    Ia2 << 0.02, 0.001, 0, 0.001, 0.3, 0, 0, 0, 0.3;
    b.addLink({"a2", inertial(6, {0.4, 0, 0}, {0, 0, 0.5}, Ia2)});
    b.addLink({"a3", inertial(5, {0.35, 0, 0}, {0, 0, 0}, Vector3(0.02, 0.2, 0.2).asDiagonal())});
    b.addLink({"b1", inertial(3, {0, 0, 0.2}, {0, 0, 0}, Vector3(0.04, 0.04, 0.005).asDiagonal())});
    b.addLink({"camera", inertial(0.5, {0.02, 0, 0}, {0, 0, 0}, Matrix3::Identity() * 0.001)});
    b.addLink({"b2", inertial(2, {0, 0, 0.1}, {0, 0, 0}, Vector3(0.01, 0.01, 0.002).asDiagonal())});
    auto joint = [&](const char* name, JointType t, const char* p, const char* c, Vector3 xyz,
                     Vector3 rpy, Vector3 axis) {
      JointSpec j;
      j.name = name; j.type = t; j.parent = p; j.child = c;
      j.origin = {rpyToMatrix(rpy), xyz};
      j.axis = axis;
      b.addJoint(j);
    };
    joint("a_shoulder", JointType::kRevolute, "bus", "a1", {0.6, 0.3, 0}, {0, 0, 0}, {0, 0, 1});
    joint("a_elbow", JointType::kRevolute, "a1", "a2", {0.3, 0, 0}, {M_PI / 2, 0, 0}, {0, 1, 0});
    joint("a_wrist", JointType::kRevolute, "a2", "a3", {0.8, 0, 0}, {0, 0, 0}, {0.6, 0.8, 0});
    joint("b_base", JointType::kRevolute, "bus", "b1", {-0.6, -0.3, 0}, {0, 0.4, 0}, {1, 0, 0});
    joint("b_camera_bracket", JointType::kFixed, "b1", "camera", {0, 0.05, 0.3}, {0, 0, 1}, {0, 0, 1});
    joint("b_slide", JointType::kPrismatic, "b1", "b2", {0, 0, 0.4}, {0, 0, 0}, {0, 0, 1});
    const Model mc = b.build();
    std::mt19937 rng(9);
    const VectorXd q = randomConfiguration(m, rng);
    Data d(m), dc(mc);
    EXPECT_MATRIX_NEAR(massMatrix(m, d, q), massMatrix(mc, dc, q), 1e-13);
    QCOMPARE_LE(std::abs(m.totalMass() - 520.5), 1e-12);
  }

  void Urdf_WorldIdiomSetsBaseMode() {
    Files f;
    const std::string body =
        "<link name='arm'><inertial><mass value='2'/><inertia ixx='1' iyy='1' izz='1'/></inertial></link>"
        "<link name='tip'><inertial><origin xyz='0.5 0 0'/><mass value='1'/><inertia ixx='0.1' iyy='0.1' izz='0.1'/></inertial></link>"
        "<joint name='j' type='revolute'><parent link='arm'/><child link='tip'/><axis xyz='0 0 1'/></joint>";
    const std::string fixed = f.write("fixed.urdf",
        "<robot name='r'><link name='world'/>" + body +
        "<joint name='w' type='fixed'><parent link='world'/><child link='arm'/><origin xyz='0 0 2'/></joint></robot>");
    const Model mf = loadUrdf(fixed).model;
    QCOMPARE(mf.base_mode, BaseMode::kFixed);
    EXPECT_MATRIX_NEAR(mf.X_parent_joint[0].p, Vector3(0, 0, 2), 0.0);
    const std::string floating = f.write("floating.urdf",
        "<robot name='r'><link name='world'/>" + body +
        "<joint name='w' type='floating'><parent link='world'/><child link='arm'/></joint></robot>");
    const Model mfl = loadUrdf(floating).model;
    QCOMPARE(mfl.base_mode, BaseMode::kFloating);
    QCOMPARE(mfl.nv, 7);
    QCOMPARE(loadUrdf(floating, {BaseMode::kFlying}).model.base_mode, BaseMode::kFlying);
  }

  void Urdf_BadInputGivesFileAndLine() {
    Files f;
    const std::string inertial = "<inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1'/></inertial>";
    auto robotXml = [&](const std::string& extra) {
      return "<robot name='r'>\n<link name='a'>" + inertial + "</link>\n<link name='b'>" + inertial +
             "</link>\n" + extra + "\n</robot>\n";
    };
    const std::string ok_joint = "<joint name='j' type='revolute'><parent link='a'/><child link='b'/></joint>";
    std::string p;
    p = f.write("malformed.urdf", "<robot name='r'>\n<link name='a'>\n</robot>\n");
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 2, "malformed XML (mismatched element)");  // <link> unclosed
    p = f.write("unknown.urdf", robotXml(ok_joint + "\n<sensor name='s'/>"));
    QCOMPARE(loadUrdf(p).warnings.at(0), p + ":5: warning: unknown element <sensor> in <robot> is ignored");
    p = f.write("parent.urdf", robotXml("<joint name='j' type='revolute'><parent link='nope'/><child link='b'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "parent link 'nope' does not exist");
    p = f.write("numbers.urdf", robotXml("<joint name='j' type='revolute'><parent link='a'/><child link='b'/><origin xyz='1 2'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "expected 3 number(s), got 2");
    p = f.write("nan.urdf", robotXml("<joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis xyz='0 nan 1'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "expected finite numbers");
    p = f.write("mass.urdf", "<robot name='r'>\n<link name='a'>\n<inertial><mass value='-1'/><inertia ixx='1' iyy='1' izz='1'/></inertial></link>\n</robot>");
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 3, "mass must be >= 0");
    p = f.write("triangle.urdf", "<robot name='r'>\n<link name='a'>\n<inertial><mass value='1'/>\n<inertia ixx='1' iyy='1' izz='5'/></inertial></link>\n</robot>");
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "triangle inequality");
    p = f.write("gear.urdf", robotXml("<joint name='j' type='gear'><parent link='a'/><child link='b'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "unknown type 'gear'");
    p = f.write("mimic.urdf", robotXml("<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n<mimic joint='k'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 5, "joint 'j' mimics joint 'k', which does not exist");
    p = f.write("loop.urdf", robotXml(ok_joint + "\n<joint name='k' type='fixed'><parent link='b'/><child link='a'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "closes a loop of joints");
    p = f.write("roots.urdf", robotXml(""));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 3, "both have no parent joint");
    p = f.write("massless.urdf", "<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n<joint name='j' type='revolute'><parent link='a'/><child link='b'/></joint>\n</robot>");
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 4, "moves no mass");
    p = f.write("limits.urdf", robotXml("<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n<limit lower='1' upper='0'/></joint>"));
    EXPECT_LOAD_ERROR(loadUrdf(p), p, 5, "lower limit is above the upper limit");
    const std::string missing = kSource + "/no/such/robot.urdf";
    EXPECT_LOAD_ERROR(loadUrdf(missing), missing, 0, "cannot open");
  }

  void Yaml_BadInputGivesFileAndLine() {
    Files f;
    const std::string head = "format: 1\nmodel:\n  name: t\n  base: {mode: floating, mass: 10, inertia: {xx: 1, yy: 1, zz: 1}}\n";
    const std::string link = "  links:\n    - name: l1\n      mass: 1\n      inertia: {xx: 0.1, yy: 0.1, zz: 0.1}\n";
    std::string p;
    p = f.write("typo.yaml", head + link + "      joint: {name: j1, type: revolute, parnt: base}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "unknown key 'parnt' (did you mean 'parent'?)");
    p = f.write("missing.yaml", head + link + "      joint: {name: j1, type: revolute}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "missing key 'parent'");
    p = f.write("type.yaml", head + link + "      joint: {name: j1, type: revolut, parent: base}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "did you mean 'revolute'?");
    p = f.write("nan.yaml", head + "  links:\n    - name: l1\n      mass: .nan\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 7, "mass");
    p = f.write("expr.yaml", head + link + "      joint: {name: j1, type: revolute, parent: base, dh: {convention: adapted, alpha: pi//2}}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "alpha: expected a number or an expression");
    p = f.write("inertia.yaml", head + "  links:\n    - name: l1\n      mass: 1\n      inertia: {xx: 1, yy: 1, zz: 3}\n      joint: {name: j1, type: revolute, parent: base}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 8, "triangle inequality");
    p = f.write("limits.yaml", head + link + "      joint: {name: j1, type: revolute, parent: base, limits: {lower: 1, upper: -1}}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "lower limit is above the upper limit");
    p = f.write("dup.yaml", head + link + "      joint: {name: j1, type: revolute, parent: base}\n    - name: l1\n      mass: 1\n      inertia: {xx: 0.1, yy: 0.1, zz: 0.1}\n      joint: {name: j2, type: revolute, parent: base}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 10, "link 'l1' is defined twice");
    p = f.write("singular.yaml", head + "  links:\n    - name: l1\n      joint: {name: j1, type: revolute, parent: base}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 7, "moves no mass");
    p = f.write("format.yaml", "format: 2\nmodel: {}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 1, "reads format 1");
    p = f.write("syntax.yaml", head + "  links: [\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 6, "");
    p = f.write("prismatic.yaml", head + link + "      joint: {name: j1, type: prismatic, parent: base, dh: {convention: adapted, d: 1}}\n");
    EXPECT_LOAD_ERROR(loadModelYaml(p), p, 9, "cannot carry a prismatic joint");
    const std::string missing = kSource + "/no/such/file.yaml";
    EXPECT_LOAD_ERROR(loadModelYaml(missing), missing, 0, "cannot open");
  }

  // A flexible link from modal tables with tip shapes; a body at that tip hangs from it.
  void Yaml_ModalTablesWithTip() {
    Files f;
    const std::string head = "format: 1\nmodel:\n  base: {mode: fixed}\n  links:\n"
        "    - name: boom\n      mass: 10\n      com: [1, 0, 0]\n      inertia: {xx: 0.1, yy: 4, zz: 4}\n"
        "      joint: {name: hinge, type: revolute, parent: base}\n"
        "      flexible:\n        modal:\n          participation: [[0, 1, 0, 0, 0, 1.5]]\n"
        "          frequency: [5]\n";
    const std::string tail = "    - name: tipmass\n      mass: 2\n      inertia: {xx: 0.01, yy: 0.01, zz: 0.01}\n"
        "      joint: {name: mount, type: fixed, parent: boom, origin: {xyz: [2, 0, 0]}}\n";
    const std::string ok = f.write("tables.yaml", head +
        "          tip: {position: [2, 0, 0], translation: [[0, 1, 0]], rotation: [[0, 0, 0.75]]}\n" + tail);
    const Model m = loadModelYaml(ok);
    QCOMPARE(m.nflex, 1);
    const int b = m.bodyOfJoint("hinge");
    QVERIFY(m.flex[b].has_tip && !m.flex[b].beam);
    QCOMPARE(m.nbodies, 3);  // the tip mass is its own body, hanging from the deformed tip
    QCOMPARE(m.flex[b].K(0, 0), 25.0);
    const std::string bad = f.write("badtables.yaml", head +
        "          tip: {position: [2, 0, 0], translation: [[0, 1, 0], [0, 0, 1]]}\n" + tail);
    EXPECT_LOAD_ERROR(loadModelYaml(bad), bad, 14, "expected one [x, y, z] per mode");
  }

  void Yaml_ExpressionsAndBaseOverride() {
    QCOMPARE(yaml::evaluateExpression("-pi/2"), -M_PI / 2);
    QCOMPARE(yaml::evaluateExpression("90*deg"), M_PI / 2);
    QCOMPARE(yaml::evaluateExpression("2*(1 + 0.5)"), 3.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, yaml::evaluateExpression("2 pi"));
    // Nesting is bounded (each level recursed: a long text of parentheses or signs would exhaust
    // the stack); a hundred levels are fine.
    QCOMPARE(yaml::evaluateExpression(std::string(100, '(') + "1" + std::string(100, ')')), 1.0);
    QCOMPARE(yaml::evaluateExpression(std::string(99, '-') + "2"), -2.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, yaml::evaluateExpression(std::string(200000, '(') + "1"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, yaml::evaluateExpression(std::string(200000, '-') + "1"));
    const Model flying = loadModelFile(robot("mda_deos.yaml"), BaseMode::kFlying);
    QCOMPARE(flying.base_mode, BaseMode::kFlying);
    const Model fixed = loadModelFile(robot("mda_deos.yaml"), BaseMode::kFixed);
    QCOMPARE(fixed.nv, 6);
  }

  // The JSON the programs write (core/io/json: nlohmann) reads back through another parser
  // (yaml-cpp) to the same strings and the same doubles (shortest round-trip form); NaN as null;
  // invalid UTF-8 replaced, not thrown.
  void Json_WriterRoundTripsThroughYamlReader() {
    std::ostringstream os;
    Eigen::MatrixXd M(2, 2);
    M << 1.0 / 3, -2e-300, 4, 5;
    writeJson(os, Json{{"name", "a \"quoted\"\nline"},
                       {"M", jsonMatrix(M)},
                       {"v", jsonArray(Eigen::Vector3d(1, 2, 3))},
                       {"flag", true},
                       {"nan", std::nan("")},
                       {"tenth", 0.1},
                       {"bad", std::string("\xff")}});
    const YAML::Node n = yaml::loadString(os.str(), "json");
    QCOMPARE(QString::fromStdString(n["name"].as<std::string>()), QString("a \"quoted\"\nline"));
    QCOMPARE(n["M"][0][0].as<double>(), 1.0 / 3);
    QCOMPARE(n["M"][0][1].as<double>(), -2e-300);
    QCOMPARE(n["M"][1][0].as<double>(), 4.0);
    QCOMPARE(n["v"][2].as<double>(), 3.0);
    QVERIFY(n["flag"].as<bool>());
    QVERIFY(n["nan"].IsNull());
    QCOMPARE(n["tenth"].as<double>(), 0.1);
    QVERIFY(os.str().find("\"tenth\": 0.1,") != std::string::npos);  // the shortest form
    QVERIFY(os.str().find("\"name\"") < os.str().find("\"M\""));     // keys in the order written
    QVERIFY(n["bad"].IsScalar());
  }
};

QTEST_APPLESS_MAIN(TestIo)
#include "test_io.moc"
