// URDF as ROS reads it: the corpus of tests/data/urdf (one file per construct) loads, or is refused
// with file, line and reason; geometry and meshes are read and resolved as ROS tools do;
// non-physical inertias are repaired on request; every robot exported as URDF is accepted by
// urdfdom's check_urdf and loads back with the same mass matrix and forward dynamics.
#include <QProcess>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <Eigen/Eigenvalues>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/load_error.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/urdf.hpp"
#include "core/math/rotation.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/load_files.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;
const std::string kCorpus = kSource + "/tests/data/urdf/";
using grapple::test::Files;
using grapple::test::loadErrorOf;

bool contains(const std::vector<std::string>& lines, const std::string& what, int* count = nullptr) {
  int n = 0;
  for (const std::string& l : lines) n += l.find(what) != std::string::npos;
  if (count) *count = n;
  return n > 0;
}

// urdfdom's verdict on a file (check_urdf's exit code), from liburdfdom-tools.
bool urdfdomAccepts(const std::string& path) {
  QProcess p;
  p.start("check_urdf", {QString::fromStdString(path)});
  if (!p.waitForFinished(60000)) return false;
  return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// The mass matrix column by column from inverse dynamics (Newton–Euler with unit accelerations,
// no velocity, no gravity): independent of the composite-rigid-body algorithm of massMatrix.
MatrixXd massMatrixByColumns(Model m, const VectorXd& q) {
  m.gravity_W.setZero();
  Data d(m);
  MatrixXd H(m.nv, m.nv);
  const VectorXd v = VectorXd::Zero(m.nv);
  for (int k = 0; k < m.nv; ++k) H.col(k) = inverseDynamics(m, d, q, v, VectorXd::Unit(m.nv, k));
  return H;
}

}  // namespace

class TestUrdf : public QObject {
  Q_OBJECT

 private slots:
  // Gazebo and urdfdom extensions are skipped with one warning per kind (not per occurrence); the
  // zero axis of a fixed joint is ignored; the model is the arm it describes.
  void Extensions_LoadWithOneWarningPerKind() {
    const std::string p = kCorpus + "extensions.urdf";
    const UrdfResult r = loadUrdf(p);
    int n = 0;
    QVERIFY(contains(r.warnings, "extensions.urdf:9: warning: unknown element <contact> in <link> is ignored", &n));
    QCOMPARE(n, 1);  // two <contact> elements, one warning
    QVERIFY(contains(r.warnings, "unknown element <self_collision_checking> in <link>"));
    QVERIFY(contains(r.warnings, "unknown element <collision_checking> in <link>"));
    QVERIFY(contains(r.warnings, "unknown attribute 'D' on <dynamics>", &n));
    QCOMPARE(n, 1);
    QVERIFY(contains(r.warnings, "damping and friction are not modelled"));
    // ROS (2) control and Gazebo blocks are data for other programs: no warning.
    for (const char* silent : {"ros2_control", "transmission", "gazebo", "hardware"}) {
      QVERIFY2(!contains(r.warnings, silent), silent);
    }
    QCOMPARE(r.model.nv, 2);
    QCOMPARE(r.model.nbodies, 3);  // tool merged into 'lower' by its fixed joint
    const int tool = r.model.frameId("tool");
    QVERIFY(tool >= 0);
    Data d(r.model);
    forwardKinematics(r.model, d, VectorXd::Zero(2));
    EXPECT_MATRIX_NEAR(framePose(r.model, d, tool).p, Vector3(0.55, 0, 0.2), 1e-15);
    QVERIFY(urdfdomAccepts(p));
  }

  // A xacro source is refused as urdfdom refuses it, at its first xacro construct (not where the
  // URDF reading then fails), saying to expand it, whether named .xacro or .urdf; a ${...} left in
  // an attribute of an otherwise plain file is pointed at the same way.
  void UnexpandedXacro_RefusedAtTheFirstMacro() {
    const std::string p = kCorpus + "unexpanded.urdf.xacro";
    QVERIFY(!urdfdomAccepts(p));
    EXPECT_LOAD_ERROR(loadModelFile(p), p, 5, "<xacro:property> is unexpanded xacro, expected URDF");
    EXPECT_LOAD_ERROR(loadModelFile(p), p, 5, "(xacro unexpanded.urdf.xacro > robot.urdf)");
    EXPECT_LOAD_ERROR(loadModelFile(p), p, 5, "fails: model 'unexpanded' has no links");
    Files f;
    std::ifstream in(p);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string as_urdf = f.write("unexpanded.urdf", text);
    EXPECT_LOAD_ERROR(loadUrdf(as_urdf), as_urdf, 5, "<xacro:property> is unexpanded xacro");
    // (XML attributes in single quotes here: moc misreads double quotes inside raw strings.)
    auto arm = [](const std::string& x) {
      return R"(<robot name='r' xmlns:xacro='http://www.ros.org/wiki/xacro'>
  <link name='a'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1'/></inertial></link>
  <link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1'/></inertial></link>
  <joint name='j' type='revolute'><parent link='a'/><child link='b'/>
    <origin xyz=')" + x + R"( 0 0'/><axis xyz='0 0 1'/></joint>
</robot>
)";
    };
    const std::string expr = f.write("expression.urdf", arm("${length}"));
    EXPECT_LOAD_ERROR(loadUrdf(expr), expr, 5, "xyz=\"${length} 0 0\" is unexpanded xacro, expected URDF");
    EXPECT_LOAD_ERROR(loadUrdf(expr), expr, 5, "fails at line 5: <origin xyz=");
    // With a number there it loads (the xacro namespace alone, which xacro leaves in its output,
    // is no reason to refuse).
    QCOMPARE(loadUrdf(f.write("plain.urdf", arm("0.5"))).model.nv, 1);
  }

  // A collision mesh that cannot be found is one warning naming every link that carries it; those
  // links keep their capsules.
  void MissingCollisionMesh_OneWarningPerMesh() {
    Files f;
    std::string robot = "<robot name='feet'>\n";
    for (const char* l : {"a", "b", "c"}) {
      const std::string mesh = std::string("package://nowhere/") + (*l == 'c' ? "other" : "foot") + ".stl";
      robot += std::string("<link name='") + l + "'><inertial><mass value='1'/>" +
               "<inertia ixx='1' iyy='1' izz='1'/></inertial><collision><geometry>" +
               "<mesh filename='" + mesh + "'/></geometry></collision></link>\n";
    }
    robot += "<joint name='ab' type='continuous'><parent link='a'/><child link='b'/></joint>\n"
             "<joint name='bc' type='continuous'><parent link='b'/><child link='c'/></joint>\n"
             "</robot>\n";
    const std::string p = f.write("feet.urdf", robot);
    std::vector<std::string> warnings;
    QCOMPARE(loadModelFile(p, std::nullopt, &warnings).nv, 2);
    QCOMPARE(warnings.size(), std::size_t(2));
    const std::string head = p + ": warning: collision mesh 'package://nowhere/";
    QCOMPARE(warnings[0], head + "foot.stl': not found; the clearance checks use the capsule of "
                                 "links 'a', 'b' instead");
    QCOMPARE(warnings[1], head + "other.stl': not found; the clearance checks use the capsule of "
                                 "link 'c' instead");
  }

  // Mimic and planar joints load (their dynamics: test_urdf_joints), as urdfdom reads them.
  void MimicAndPlanar_Load() {
    for (const char* file : {"mimic.urdf", "mimic_chain.urdf", "planar.urdf"}) {
      const std::string p = kCorpus + file;
      QVERIFY(urdfdomAccepts(p));
      const UrdfResult r = loadUrdf(p);
      QVERIFY2(r.warnings.empty(), file);
    }
    QCOMPARE(loadUrdf(kCorpus + "mimic.urdf").model.nv, 1);
    QCOMPARE(loadUrdf(kCorpus + "mimic_chain.urdf").model.nv, 7);
    QCOMPARE(loadUrdf(kCorpus + "planar.urdf").model.nv, 4);
  }

  // A floating joint inside the tree transmits no force: the payload it frees moves as the same
  // body alone in space (its spatial acceleration from the whole model's forward dynamics equals
  // a lone free body's), and the arm as the arm without the payload; the mass matrix against
  // Newton–Euler's columns.
  void FloatingJointInTree_MovesAsAFreeBody() {
    const std::string p = kCorpus + "floating_in_tree.urdf";
    QVERIFY(urdfdomAccepts(p));
    const Model m = loadUrdf(p).model;
    QCOMPARE(m.nv, 1 + 6);
    QCOMPARE(m.nq, 1 + 7);
    const int payload = m.bodyOfJoint("release");
    QCOMPARE(m.joint[payload].type, JointType::kFree);
    // The same payload alone (a free base) and the arm alone (the file without the payload).
    ModelBuilder lone("payload alone");
    lone.setBaseMode(BaseMode::kFloating);
    LinkSpec body;
    body.name = "payload";
    body.inertia = m.inertia[payload];
    lone.addLink(body);
    const Model ml = lone.build();
    std::string arm_only = p;
    Files f;
    {
      std::ifstream in(p);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      text.erase(text.find("  <link name=\"payload\">"), text.find("  <joint name=\"turn\"") - text.find("  <link name=\"payload\">"));
      text.erase(text.find("  <joint name=\"release\""), text.find("</robot>") - text.find("  <joint name=\"release\""));
      arm_only = f.write("arm_only.urdf", text);
    }
    const Model ma = loadUrdf(arm_only).model;
    QCOMPARE(ma.nv, 1);

    std::mt19937 rng(23);
    std::normal_distribution<double> n(0, 1);
    Data d(m), dl(ml), da(ma);
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomConfiguration(m, rng);
      VectorXd v(m.nv), tau = VectorXd::Zero(m.nv);
      for (int k = 0; k < m.nv; ++k) v[k] = n(rng);
      tau[0] = n(rng);  // the arm's motor; nothing acts on the free joint
      EXPECT_MATRIX_NEAR(massMatrix(m, d, q).selfadjointView<Eigen::Upper>().toDenseMatrix(),
                         massMatrixByColumns(m, q), 1e-12);
      const VectorXd a = forwardDynamics(m, d, q, v, tau);  // no gravity in URDF
      const Vector6 a_payload = d.a[payload];                // body components
      const Transform X = d.X_world[payload];
      const Vector6 t_payload = d.t[payload];
      // The lone body at the payload's pose and twist.
      VectorXd ql(7);
      ql << X.p, matrixToQuat(X.R);
      const VectorXd al = forwardDynamics(ml, dl, ql, t_payload, VectorXd::Zero(6));
      EXPECT_MATRIX_NEAR(a_payload, al.head<6>(), 1e-12);
      // The arm alone, at the same angle, rate and torque.
      const VectorXd aa = forwardDynamics(ma, da, q.head(1), v.head(1), tau.head(1));
      QCOMPARE_LE(std::abs(a[0] - aa[0]), 1e-12 * std::max(1.0, std::abs(aa[0])));
    }
  }

  // Refused by default with the way out in the message; with the repair each link is reported and
  // gets the physical tensor nearest to its own: no physical tensor with the same principal axes
  // is closer (checked against random candidates around it).
  void NonPhysicalInertia_RefusedThenRepaired() {
    const std::string p = kCorpus + "nonphysical.urdf";
    QVERIFY(urdfdomAccepts(p));
    const std::string refusal = loadErrorOf([&] { loadUrdf(p); });
    QVERIFY2(refusal.find(p + ":12: link 'placeholder'") == 0, refusal.c_str());
    QVERIFY(refusal.find("triangle inequality") != std::string::npos);
    QVERIFY(refusal.find("--inertia repair") != std::string::npos);
    UrdfOptions o;
    o.inertia = InertiaPolicy::kRepair;
    const UrdfResult r = loadUrdf(p, o);
    QVERIFY(contains(r.warnings, "nonphysical.urdf:12: warning: link 'placeholder': inertia repaired, principal moments"));
    QVERIFY(contains(r.warnings, "nonphysical.urdf:19: warning: link 'arm': inertia repaired"));
    QCOMPARE(r.model.nv, 2);

    std::mt19937 rng(3);
    std::normal_distribution<double> n(0, 1);
    Matrix3 bad;
    bad << 1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-6;  // the placeholder's
    Matrix3 bad2;
    bad2 << 0.01, 0.02, 0, 0.02, 0.01, 0, 0, 0, 0.03;  // the arm's: moments -0.01, 0.03, 0.03
    Matrix3 bad3 = Vector3(-0.01, 0.01, 0.05).asDiagonal();  // negative and breaking the inequality
    std::vector<Matrix3> cases = {bad, bad2, bad3};
    for (int k = 0; k < 5; ++k) {  // random symmetric tensors that are not physical
      Matrix3 A;
      for (int i = 0; i < 9; ++i) A(i / 3, i % 3) = n(rng);
      A = (A + A.transpose()).eval();  // (evaluated first: A + Aᵀ written into A in place would not be symmetric)
      if (!checkPhysicalInertia(1, A).empty()) cases.push_back(A);
    }
    QVERIFY(cases.size() >= 5);
    for (const Matrix3& I : cases) {
      QVERIFY(!checkPhysicalInertia(1, I).empty());
      const Matrix3 fixed = nearestPhysicalInertia(I);
      QVERIFY(checkPhysicalInertia(1, fixed).empty());
      Eigen::SelfAdjointEigenSolver<Matrix3> eig(I);
      const double dist = (fixed - I).norm();
      const double s = I.norm();
      int tried = 0;
      for (int k = 0; k < 40000; ++k) {
        const Vector3 dk = (eig.eigenvectors().transpose() * fixed * eig.eigenvectors()).diagonal() +
                           0.05 * s * Vector3(n(rng), n(rng), n(rng));
        const Matrix3 cand = eig.eigenvectors() * dk.asDiagonal() * eig.eigenvectors().transpose();
        if (!checkPhysicalInertia(1, cand).empty()) continue;
        ++tried;
        QVERIFY2((cand - I).norm() >= dist * (1 - 1e-12), "a physical tensor is nearer than the repair");
      }
      QVERIFY(tried > 200);  // candidates near a corner of the physical set are rarer
    }
    // The placeholder: moments (1e-9, 1e-9, 1e-6) move along (1, 1, -1) onto I1 + I2 = I3.
    const double e = (1e-6 - 2e-9) / 3;
    EXPECT_MATRIX_NEAR(nearestPhysicalInertia(bad), Vector3(1e-9 + e, 1e-9 + e, 1e-6 - e).asDiagonal().toDenseMatrix(), 1e-18);
  }

  // Visuals and collisions: primitives, materials (also one defined after its use), meshes found
  // through package:// (the package beside the file) and a relative path; each shape placed in its
  // body so that its world pose is its link's pose times its origin.
  void Geometry_ReadPlacedAndResolved() {
    const std::string p = kCorpus + "gripper_meshes.urdf";
    QVERIFY(urdfdomAccepts(p));
    const UrdfResult r = loadUrdf(p);
    const Model& m = r.model;
    QVERIFY2(r.warnings.empty(), r.warnings.empty() ? "" : r.warnings[0].c_str());
    QCOMPARE(m.visual.size(), std::size_t(5));
    QCOMPARE(m.collision.size(), std::size_t(3));
    const std::string mesh = fs::canonical(kCorpus + "grapple_test_meshes/meshes/finger.stl").string();
    int meshes = 0;
    for (const Geometry& g : m.visual) {
      if (g.type != ShapeType::kMesh) continue;
      ++meshes;
      QCOMPARE(fs::canonical(g.mesh_path).string(), mesh);
    }
    QCOMPARE(meshes, 2);
    const Geometry& palm = m.visual[0];
    QCOMPARE(palm.type, ShapeType::kBox);
    EXPECT_MATRIX_NEAR(palm.size, Vector3(0.12, 0.05, 0.04), 0);
    QVERIFY(palm.has_color);
    QCOMPARE(palm.rgba[0], 0.75f);  // "steel", defined at the end of the file
    QCOMPARE(m.visual[1].type, ShapeType::kCylinder);
    QCOMPARE(m.visual[1].rgba[2], 0.25f);
    QCOMPARE(m.visual[3].scale.z(), 1.2);
    QCOMPARE(m.visual[3].link, std::string("right_finger"));
    QCOMPARE(m.collision[2].type, ShapeType::kSphere);

    Data d(m);
    std::mt19937 rng(5);
    const VectorXd q = randomConfiguration(m, rng);
    forwardKinematics(m, d, q);
    const Transform shape_in_link[] = {Transform{Matrix3::Identity(), Vector3(0, 0, 0.02)},
                                       Transform{Matrix3::Identity(), Vector3(0, 0, -0.03)},
                                       Transform::Identity(),
                                       Transform{rpyToMatrix(Vector3(0, 0, 3.14159265358979)), Vector3::Zero()},
                                       Transform::Identity()};
    for (std::size_t k = 0; k < m.visual.size(); ++k) {
      const Geometry& g = m.visual[k];
      const Transform world = d.X_world[g.body] * g.origin;
      const Transform expected = framePose(m, d, m.frameId(g.link)) * shape_in_link[k];
      EXPECT_MATRIX_NEAR(world.R, expected.R, 1e-14);
      EXPECT_MATRIX_NEAR(world.p, expected.p, 1e-14);
    }
    QCOMPARE(m.visual[4].body, 0);  // the camera, merged into the palm
  }

  // Mesh URIs as ROS tools resolve them: ROS_PACKAGE_PATH (a package up to two folders down),
  // AMENT_PREFIX_PATH's share/, file://, relative paths; nothing found gives an empty path.
  void MeshUris_ResolvedLikeRos() {
    Files f;
    const fs::path root = fs::path(f.dir()) / "ws" / "src" / "robots";
    fs::create_directories(root / "my_description" / "meshes");
    std::ofstream(root / "my_description" / "package.xml") << "<package format='2'><name>my_pkg</name></package>";
    std::ofstream(root / "my_description" / "meshes" / "a.stl") << "solid a\nendsolid a\n";
    const std::string elsewhere = "/nonexistent/robot.urdf";
    const std::string expected = (root / "my_description" / "meshes" / "a.stl").string();
    QVERIFY(resolveMeshUri("package://my_pkg/meshes/a.stl", elsewhere).empty());
    setenv("ROS_PACKAGE_PATH", (fs::path(f.dir()) / "ws" / "src").c_str(), 1);
    QCOMPARE(resolveMeshUri("package://my_pkg/meshes/a.stl", elsewhere), expected);
    unsetenv("ROS_PACKAGE_PATH");
    const fs::path prefix = fs::path(f.dir()) / "install";
    fs::create_directories(prefix / "share" / "my_pkg" / "meshes");
    std::ofstream(prefix / "share" / "my_pkg" / "meshes" / "a.stl") << "solid a\nendsolid a\n";
    setenv("AMENT_PREFIX_PATH", ("/nonexistent:" + prefix.string()).c_str(), 1);
    QCOMPARE(resolveMeshUri("package://my_pkg/meshes/a.stl", elsewhere),
             (prefix / "share" / "my_pkg" / "meshes" / "a.stl").string());
    unsetenv("AMENT_PREFIX_PATH");
    // Near the file: the package that holds it.
    const std::string urdf = (root / "my_description" / "urdf" / "r.urdf").string();
    QCOMPARE(resolveMeshUri("package://my_pkg/meshes/a.stl", urdf), expected);
    QCOMPARE(resolveMeshUri("file://" + expected, elsewhere), expected);
    QCOMPARE(resolveMeshUri("../meshes/a.stl", urdf), expected);
    QVERIFY(resolveMeshUri("package://my_pkg/meshes/none.stl", urdf).empty());
  }

  // A 35-DOF humanoid-like tree: the composite-rigid-body mass matrix against Newton–Euler's
  // columns, and forward dynamics against H⁻¹ (τ - h), at random states.
  void Humanoid_MassMatrixAgainstNewtonEuler() {
    const std::string p = kCorpus + "humanoid.urdf";
    QVERIFY(urdfdomAccepts(p));
    UrdfOptions o;
    o.base_mode = BaseMode::kFloating;
    const Model m = loadUrdf(p, o).model;
    QCOMPARE(m.nv, 6 + 35);
    QCOMPARE(m.visual.size(), std::size_t(36));
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0, 1);
    Data d(m);
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomConfiguration(m, rng);
      VectorXd v(m.nv), tau(m.nv);
      for (int k = 0; k < m.nv; ++k) v[k] = n(rng), tau[k] = n(rng);
      const MatrixXd H = massMatrix(m, d, q);
      EXPECT_MATRIX_NEAR(H.selfadjointView<Eigen::Upper>().toDenseMatrix(), massMatrixByColumns(m, q), 1e-12);
      const VectorXd h = nonlinearEffects(m, d, q, v);
      const VectorXd a = H.selfadjointView<Eigen::Upper>().llt().solve(tau - h);
      EXPECT_MATRIX_NEAR(forwardDynamics(m, d, q, v, tau), a, 1e-10);
    }
  }

  // Export then load: the same mass matrix and forward dynamics (to 1e-12) for URDF and YAML robots
  // (DH placements, free and fixed bases, a free joint in the tree, cylindrical and universal
  // joints written as two joints each), and urdfdom accepts
  // every file written. A flexible robot becomes its rigid equivalent: the rigid block of its mass
  // matrix at zero deformation.
  void Export_RoundTripsThroughUrdfdom() {
    Files f;
    // Joints URDF has not: cylindrical and universal, written as two joints each.
    const std::string multi = f.write("multi_dof.yaml", R"(format: 1
model:
  name: multi_dof
  base: {mode: floating, mass: 50, inertia: {xx: 5, yy: 6, zz: 7}}
  links:
    - name: slider
      mass: 2
      com: [0.1, 0.02, 0.3]
      inertia: {xx: 0.02, yy: 0.03, zz: 0.025, xy: 0.001}
      joint: {name: c, type: cylindrical, parent: base, axis: [0, 0.6, 0.8], origin: {xyz: [0.5, 0, 0], rpy: [0.1, 0.2, 0.3]},
              limits: {lower: [-1, -0.2], upper: [1, 0.2]}}
    - name: wrist
      mass: 1
      com: [0.05, 0.1, 0]
      inertia: {xx: 0.01, yy: 0.008, zz: 0.006}
      joint: {name: u, type: universal, parent: slider, axis: [1, 0, 0], axis2: [0, 0, 1], origin: {xyz: [0, 0, 0.4]}}
)");
    const std::vector<std::string> robots = {multi,
        kCorpus + "humanoid.urdf", kCorpus + "gripper_meshes.urdf", kCorpus + "extensions.urdf",
        kCorpus + "floating_in_tree.urdf", kCorpus + "mimic.urdf", kCorpus + "mimic_chain.urdf",
        kCorpus + "planar.urdf",
        kSource + "/tests/data/two_arm.urdf", kSource + "/scenarios/robots/mda_deos.yaml",
        kSource + "/scenarios/robots/canadarm.yaml", kSource + "/scenarios/robots/chaser.yaml",
        kSource + "/scenarios/robots/planar_2dof_flex.yaml", kSource + "/scenarios/robots/saha_planar.yaml",
        kSource + "/scenarios/robots/aerial_manipulator.yaml"};
    std::mt19937 rng(17);
    std::normal_distribution<double> n(0, 1);
    for (const std::string& path : robots) {
      const Model m = loadModelFile(path);
      const std::string out = f.write(fs::path(path).stem().string() + ".urdf", writeUrdf(m));
      QVERIFY2(urdfdomAccepts(out), out.c_str());
      std::optional<BaseMode> base;
      if (m.base_mode == BaseMode::kFlying) base = BaseMode::kFlying;  // URDF only says "free"
      std::vector<std::string> warnings;
      const Model back = loadModelFile(out, base, &warnings);
      QVERIFY2(warnings.empty(), warnings.empty() ? "" : warnings[0].c_str());
      QCOMPARE(back.base_mode, m.base_mode);
      QCOMPARE(back.visual.size(), m.visual.size());
      QCOMPARE(back.collision.size(), m.collision.size());
      // The rigid coordinates of m, in order (all of them for a rigid robot).
      std::vector<int> rigid_v, rigid_q;
      for (const Joint& j : m.joint) {
        for (int k = 0; k < j.nv; ++k) rigid_v.push_back(j.idx_v + k);
        for (int k = 0; k < j.nq; ++k) rigid_q.push_back(j.idx_q + k);
      }
      QCOMPARE(back.nv, int(rigid_v.size()));
      Data dm(m, m.hasFlexibleBodies()), db(back);
      for (int trial = 0; trial < 2; ++trial) {
        const VectorXd qb = randomConfiguration(back, rng);
        VectorXd q = neutralConfiguration(m);
        for (std::size_t k = 0; k < rigid_q.size(); ++k) q[rigid_q[k]] = qb[k];
        const MatrixXd Hm = massMatrix(m, dm, q).selfadjointView<Eigen::Upper>();
        MatrixXd Hr(rigid_v.size(), rigid_v.size());
        for (std::size_t r = 0; r < rigid_v.size(); ++r) {
          for (std::size_t c = 0; c < rigid_v.size(); ++c) Hr(r, c) = Hm(rigid_v[r], rigid_v[c]);
          Hr(r, r) -= m.armature[rigid_v[r]];  // URDF has no armature (the file says so)
        }
        const MatrixXd Hb = massMatrix(back, db, qb).selfadjointView<Eigen::Upper>();
        QVERIFY2(grapple::test::compareMatrices(Hb, Hr, 1e-12).empty(),
                 (path + ": " + grapple::test::compareMatrices(Hb, Hr, 1e-12)).c_str());
        if (m.hasFlexibleBodies()) continue;  // its modes would move: only the mass matrix compares
        VectorXd v(m.nv), tau(m.nv);
        for (int k = 0; k < m.nv; ++k) v[k] = n(rng), tau[k] = n(rng);
        Model mz = m, bz = back;  // URDF has no gravity, no armature
        mz.gravity_W.setZero();
        mz.armature.setZero();
        bz.gravity_W.setZero();
        const VectorXd am = forwardDynamics(mz, dm, q, v, tau);
        const VectorXd ab = forwardDynamics(bz, db, qb, v, tau);
        QVERIFY2(grapple::test::compareMatrices(ab, am, 1e-12).empty(),
                 (path + ": " + grapple::test::compareMatrices(ab, am, 1e-12)).c_str());
      }
    }
  }

  // The robot YAML format takes the same shapes; bad entries name the file and line.
  void Yaml_VisualAndCollision() {
    Files f;
    const std::string yaml = R"(format: 1
model:
  name: stick
  base:
    mode: fixed
    mass: 1
    inertia: {xx: 0.1, yy: 0.1, zz: 0.1}
    visual:
      - {type: box, size: [0.2, 0.2, 0.1], color: [1, 0, 0, 1]}
  links:
    - name: arm
      mass: 1
      com: [0.5, 0, 0]
      inertia: {xx: 0.01, yy: 0.1, zz: 0.1}
      joint: {name: j, type: revolute, parent: base, axis: [0, 1, 0]}
      visual:
        - {type: mesh, file: package://grapple_test_meshes/meshes/finger.stl, scale: [1, 1, 2]}
        - {type: cylinder, radius: 0.02, length: 1, origin: {xyz: [0.5, 0, 0], rpy: [0, 1.5707963267948966, 0]}}
      collision:
        - {type: capsule, radius: 0.03, length: 1, origin: {xyz: [0.5, 0, 0], rpy: [0, 1.5707963267948966, 0]}}
)";
    const std::string p = f.write("stick.yaml", yaml);
    setenv("ROS_PACKAGE_PATH", kCorpus.c_str(), 1);
    const Model m = loadModelFile(p);
    unsetenv("ROS_PACKAGE_PATH");
    QCOMPARE(m.visual.size(), std::size_t(3));
    QCOMPARE(m.collision.size(), std::size_t(1));
    QCOMPARE(m.collision[0].type, ShapeType::kCapsule);
    QVERIFY(m.visual[0].has_color);
    QVERIFY(!m.visual[1].mesh_path.empty());
    QCOMPARE(m.visual[1].scale.z(), 2.0);
    std::string bad = yaml;
    bad.replace(bad.find("type: cylinder"), 14, "type: cone");
    const std::string pb = f.write("bad.yaml", bad);
    QVERIFY(loadErrorOf([&] { loadModelFile(pb); }).find(pb + ":18:") == 0);
    bad = yaml;
    bad.replace(bad.find("size: [0.2, 0.2, 0.1]"), 21, "radius: 0.2");
    const std::string pr = f.write("bad2.yaml", bad);
    QVERIFY(loadErrorOf([&] { loadModelFile(pr); }).find("radius: not used by a box") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestUrdf)
#include "test_urdf.moc"
