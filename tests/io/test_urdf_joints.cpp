// Mimic and planar joints read from URDF, against references that share nothing with the code
// under test: the same robot without its <mimic> elements (a coordinate for every joint) with the
// mimic relations imposed by Lagrange multipliers; the same gripper written with one joint moving
// both fingers; closed-form equations; a planar joint written as two prismatic joints and a
// revolute one; energy and momentum along simulated motions.
#include <QtTest>

#include <fstream>
#include <iomanip>
#include <random>
#include <regex>
#include <sstream>

#include <Eigen/Dense>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/urdf.hpp"
#include "core/math/rotation.hpp"
#include "core/model/model_builder.hpp"
#include "core/sim/integrator.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/load_files.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using grapple::test::randomVector;

namespace {

const std::string kCorpus = std::string(GRAPPLE_SOURCE_DIR) + "/tests/data/urdf/";
using grapple::test::Files;
using grapple::test::loadErrorOf;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The robot of a URDF file with its <mimic> elements removed: every joint has a coordinate.
Model withoutMimics(const std::string& path) {
  const std::string xml = std::regex_replace(readText(path), std::regex("<mimic[^>]*/>"), "");
  return loadUrdfString(xml, path).model;
}

// A mimic relation in the robot without mimics: q_follower = multiplier q_leader + offset.
struct Relation {
  std::string follower, leader;
  double multiplier, offset;
};

int vIndex(const Model& m, const std::string& joint) { return m.joint[m.bodyOfJoint(joint)].idx_v; }
int qIndex(const Model& m, const std::string& joint) { return m.joint[m.bodyOfJoint(joint)].idx_q; }

// Accelerations of the unconstrained robot under the relations, by Lagrange multipliers:
// [H Aᵀ; A 0] [a; -λ] = [τ - h; 0] with A a = 0 the differentiated relations (A = e_f - m e_l).
VectorXd lagrangeAccelerations(const Model& free, const VectorXd& q, const VectorXd& v,
                               const VectorXd& tau, const std::vector<Relation>& relations) {
  Data d(free);
  const MatrixXd H = massMatrix(free, d, q);
  const VectorXd h = nonlinearEffects(free, d, q, v);
  const int n = free.nv, c = static_cast<int>(relations.size());
  MatrixXd K = MatrixXd::Zero(n + c, n + c);
  K.topLeftCorner(n, n) = H.selfadjointView<Eigen::Upper>();
  for (int r = 0; r < c; ++r) {
    K(n + r, vIndex(free, relations[r].follower)) += 1.0;
    K(n + r, vIndex(free, relations[r].leader)) -= relations[r].multiplier;
  }
  K.topRightCorner(n, c) = K.bottomLeftCorner(c, n).transpose();
  VectorXd rhs = VectorXd::Zero(n + c);
  rhs.head(n) = tau - h;
  return K.fullPivLu().solve(rhs).head(n);
}

// The configuration, velocity (and acceleration) of the unconstrained robot for the reduced ones:
// same-named joints copied, then the relations applied in order (a leader before its followers).
VectorXd lift(const Model& reduced, const Model& free, const VectorXd& x, bool positions,
              const std::vector<Relation>& relations) {
  VectorXd out = positions ? neutralConfiguration(free) : VectorXd::Zero(free.nv);
  for (int i = 0; i < reduced.nbodies; ++i) {
    const Joint& j = reduced.joint[i];
    const Joint& jf = free.joint[i == 0 ? 0 : free.bodyOfJoint(j.name)];
    const int n = positions ? j.nq : j.nv;
    for (int k = 0; k < n; ++k) {
      out[(positions ? jf.idx_q : jf.idx_v) + k] = x[(positions ? j.idx_q : j.idx_v) + k];
    }
  }
  for (const Relation& r : relations) {
    if (positions) {
      out[qIndex(free, r.follower)] = r.multiplier * out[qIndex(free, r.leader)] + r.offset;
    } else {
      out[vIndex(free, r.follower)] = r.multiplier * out[vIndex(free, r.leader)];
    }
  }
  return out;
}

// The reduced velocity for a velocity of the unconstrained robot that satisfies the relations.
VectorXd reduce(const Model& reduced, const Model& free, const VectorXd& v_free) {
  VectorXd v(reduced.nv);
  for (int i = 0; i < reduced.nbodies; ++i) {
    const Joint& j = reduced.joint[i];
    const Joint& jf = free.joint[i == 0 ? 0 : free.bodyOfJoint(j.name)];
    for (int k = 0; k < j.nv; ++k) v[j.idx_v + k] = v_free[jf.idx_v + k];
  }
  return v;
}

const std::vector<Relation> kChain = {{"middle_joint", "knuckle", 1.2, 0.05},
                                      {"distal_joint", "middle_joint", 0.7, -0.1},
                                      {"thumb_joint", "knuckle", 1.0, 0.0}};

}  // namespace

class TestUrdfJoints : public QObject {
  Q_OBJECT

 private slots:
  // The parallel gripper: one coordinate; with the fingers sliding along x in opposite directions,
  // H = m_l + m_r and h = -g_x (m_l - m_r) exactly; and the accelerations of the robot without the
  // mimic under the relation by Lagrange multipliers.
  void Mimic_GripperMatchesClosedFormAndLagrangeMultipliers() {
    const std::string p = kCorpus + "mimic.urdf";
    Model m = loadUrdf(p).model;
    QCOMPARE(m.nv, 1);
    QCOMPARE(m.nq, 1);
    QCOMPARE(m.velocityNames(), std::vector<std::string>{"left_joint"});
    m.gravity_W = Vector3(3.0, -2.0, -9.81);
    Data d(m);
    std::mt19937 rng(3);
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomVector(rng, 1) * 0.02, v = randomVector(rng, 1), tau = randomVector(rng, 1);
      const MatrixXd H = massMatrix(m, d, q);
      QVERIFY(std::abs(H(0, 0) - 0.5) < 1e-15);
      const VectorXd h = nonlinearEffects(m, d, q, v);
      QVERIFY(std::abs(h[0] - (-3.0 * (0.3 - 0.2))) < 1e-14);
      const VectorXd a = forwardDynamics(m, d, q, v, tau);
      QVERIFY(std::abs(a[0] - (tau[0] - h[0]) / 0.5) < 1e-12);
      // The torque reported for the driving joint is the one that produces that acceleration.
      QVERIFY(std::abs(inverseDynamics(m, d, q, v, a)[0] - tau[0]) < 1e-12);

      Model free = withoutMimics(p);
      free.gravity_W = m.gravity_W;
      const std::vector<Relation> rel = {{"right_joint", "left_joint", -1.0, 0.0}};
      VectorXd tau_free = VectorXd::Zero(2);
      tau_free[vIndex(free, "left_joint")] = tau[0];
      const VectorXd a_free = lagrangeAccelerations(free, lift(m, free, q, true, rel),
                                                    lift(m, free, v, false, rel), tau_free, rel);
      EXPECT_MATRIX_NEAR(a_free, lift(m, free, a, false, rel), 1e-12);
    }
  }

  // Two fingers turning about the same axis line, the second mimicking the first with multiplier 1
  // and an offset, are one body on one joint: the gripper written that way (the second finger
  // fixed to the first, turned by the offset) has the same mass matrix, nonlinear effects,
  // accelerations and Jacobians, on a free palm under gravity.
  void Mimic_SameAxisEqualsOneJointMovingBothFingers() {
    const Vector3 axis = Vector3(0.3, 0.5, 0.8).normalized();
    const double offset = 0.4;
    std::ostringstream xml;
    const auto inertial = [](const char* com, double mass) {
      return std::string("<inertial><origin xyz=\"") + com + "\"/><mass value=\"" + std::to_string(mass) +
             "\"/><inertia ixx=\"0.002\" ixy=\"0.0001\" ixz=\"0\" iyy=\"0.003\" iyz=\"0\" izz=\"0.004\"/></inertial>";
    };
    xml << "<robot name=\"same_axis\"><link name=\"world\"/>"
        << "<link name=\"palm\">" << inertial("0 0 0.02", 1.5) << "</link>"
        << "<link name=\"a\">" << inertial("0.03 0.01 0.05", 0.3) << "</link>"
        << "<link name=\"b\">" << inertial("-0.02 0.02 0.04", 0.2) << "</link>"
        << "<joint name=\"free\" type=\"floating\"><parent link=\"world\"/><child link=\"palm\"/></joint>"
        << "<joint name=\"ja\" type=\"continuous\"><parent link=\"palm\"/><child link=\"a\"/>"
        << "<origin xyz=\"0.01 0.02 0.08\" rpy=\"0.1 0.2 0.3\"/><axis xyz=\"" << std::setprecision(17) << axis.transpose() << "\"/></joint>"
        << "<joint name=\"jb\" type=\"continuous\"><parent link=\"palm\"/><child link=\"b\"/>"
        << "<origin xyz=\"0.01 0.02 0.08\" rpy=\"0.1 0.2 0.3\"/><axis xyz=\"" << axis.transpose() << "\"/>"
        << "<mimic joint=\"ja\" multiplier=\"1\" offset=\"" << offset << "\"/></joint></robot>";
    Model m = loadUrdfString(xml.str(), "same_axis.urdf").model;
    std::string one = xml.str();
    one = std::regex_replace(one, std::regex("<joint name=\"jb\".*</joint></robot>"), "");
    const Vector3 rpy = matrixToRpy(axisAngle(axis, offset));
    std::ostringstream fixed;
    fixed << "<joint name=\"jb\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/>"
          << "<origin rpy=\"" << std::setprecision(17) << rpy.transpose() << "\"/></joint></robot>";
    Model ref = loadUrdfString(one + fixed.str(), "one_joint.urdf").model;
    QCOMPARE(m.nv, 7);
    QCOMPARE(ref.nv, 7);
    QCOMPARE(m.nbodies, 3);
    QCOMPARE(ref.nbodies, 2);
    m.gravity_W = ref.gravity_W = Vector3(0.5, -1.0, -9.81);
    Data d(m), dr(ref);
    std::mt19937 rng(5);
    const int fb = m.frameId("b");
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomConfiguration(m, rng), v = randomVector(rng, 7), tau = randomVector(rng, 7);
      EXPECT_MATRIX_NEAR(massMatrix(m, d, q), massMatrix(ref, dr, q), 1e-12);
      EXPECT_MATRIX_NEAR(nonlinearEffects(m, d, q, v), nonlinearEffects(ref, dr, q, v), 1e-12);
      EXPECT_MATRIX_NEAR(coriolisMatrix(m, d, q, v), coriolisMatrix(ref, dr, q, v), 1e-12);
      EXPECT_MATRIX_NEAR(forwardDynamics(m, d, q, v, tau), forwardDynamics(ref, dr, q, v, tau), 1e-12);
      EXPECT_MATRIX_NEAR(inverseDynamics(m, d, q, v, tau), inverseDynamics(ref, dr, q, v, tau), 1e-12);
      forwardKinematics(m, d, q, v);
      forwardKinematics(ref, dr, q, v);
      EXPECT_MATRIX_NEAR(framePose(m, d, fb).R, framePose(ref, dr, ref.frameId("b")).R, 1e-14);
      EXPECT_MATRIX_NEAR(framePose(m, d, fb).p, framePose(ref, dr, ref.frameId("b")).p, 1e-14);
      EXPECT_MATRIX_NEAR(frameJacobian(m, d, fb, Vector3(0.1, 0, 0)),
                         frameJacobian(ref, dr, ref.frameId("b"), Vector3(0.1, 0, 0)), 1e-12);
    }
  }

  // A mimic of a mimic and a mimic on another branch, on a free palm: the placements are those of
  // the robot without mimics at the related coordinates, and the accelerations those of that robot
  // under the three relations by Lagrange multipliers.
  void Mimic_ChainMatchesLagrangeMultipliers() {
    const std::string p = kCorpus + "mimic_chain.urdf";
    Model m = loadUrdf(p).model;
    Model free = withoutMimics(p);
    QCOMPARE(m.nv, 7);
    QCOMPARE(free.nv, 10);
    m.gravity_W = free.gravity_W = Vector3(0.3, 0.2, -9.81);
    Data d(m);
    std::mt19937 rng(11);
    for (int trial = 0; trial < 4; ++trial) {
      const VectorXd q = randomConfiguration(m, rng), v = randomVector(rng, 7), tau = randomVector(rng, 7);
      const VectorXd qf = lift(m, free, q, true, kChain), vf = lift(m, free, v, false, kChain);
      Data df(free);
      forwardKinematics(m, d, q);
      forwardKinematics(free, df, qf);
      for (const char* link : {"distal", "thumb", "middle"}) {
        EXPECT_MATRIX_NEAR(framePose(m, d, m.frameId(link)).R, framePose(free, df, free.frameId(link)).R, 1e-14);
        EXPECT_MATRIX_NEAR(framePose(m, d, m.frameId(link)).p, framePose(free, df, free.frameId(link)).p, 1e-14);
      }
      VectorXd tau_free = VectorXd::Zero(free.nv);
      tau_free.head<6>() = tau.head<6>();
      tau_free[vIndex(free, "knuckle")] = tau[6];
      const VectorXd a_free = lagrangeAccelerations(free, qf, vf, tau_free, kChain);
      const VectorXd a = forwardDynamics(m, d, q, v, tau);
      EXPECT_MATRIX_NEAR(lift(m, free, a, false, kChain), a_free, 1e-11);
      EXPECT_MATRIX_NEAR(reduce(m, free, a_free), a, 1e-11);
      EXPECT_MATRIX_NEAR(inverseDynamics(m, d, q, v, a), tau, 1e-11);
      // The kinetic energy is the unconstrained robot's at the related velocities.
      QVERIFY(std::abs(kineticEnergy(m, d, q, v) - kineticEnergy(free, df, qf, vf)) < 1e-13);
    }
  }

  // Free motion of the mimic finger on its free palm: energy and momentum are conserved (RK4,
  // errors of the step's order), which only holds if the projected dynamics is exact.
  void Mimic_FreeMotionConservesEnergyAndMomentum() {
    const Model m = loadUrdf(kCorpus + "mimic_chain.urdf").model;
    Data d(m);
    std::mt19937 rng(2);
    VectorXd q = randomConfiguration(m, rng), v = randomVector(rng, m.nv);
    const double E0 = kineticEnergy(m, d, q, v);
    const Vector6 h0 = momentum(m, d, q, v);
    Rk4 rk(m);
    double t = 0;
    for (int k = 0; k < 2000; ++k, t += 1e-3) rk.step(m, d, t, 1e-3, q, v);
    QVERIFY2(std::abs(kineticEnergy(m, d, q, v) - E0) < 1e-9 * E0,
             std::to_string(kineticEnergy(m, d, q, v) - E0).c_str());
    EXPECT_MATRIX_NEAR(momentum(m, d, q, v), h0, 1e-10);
    QVERIFY(v.cwiseAbs().maxCoeff() > 0.1);  // it moved
  }

  // What the controllers and the panels see: the coordinates left (the driving joint's), its
  // limits; a mimic joint is no controllable joint.
  void Mimic_ReducedCoordinatesAreWhatUsersSee() {
    const Model m = loadUrdf(kCorpus + "mimic_chain.urdf").model;
    const std::vector<std::string> names = m.velocityNames();
    QCOMPARE(names.size(), std::size_t(7));
    QCOMPARE(names.back(), std::string("knuckle"));
    QCOMPARE(m.bodyOfJoint("middle_joint"), -1);
    QVERIFY(m.bodyOfJoint("knuckle") > 0);
    QCOMPARE(m.effort_limit[6], 2.0);
    QCOMPARE(m.upper_position_limit[7], 1.2);
    // Chains are followed to the driving joint: distal = 0.7 (1.2 q + 0.05) - 0.1.
    for (const Joint& j : m.joint) {
      if (j.name == "distal_joint") {
        QVERIFY(isMimic(j));
        QCOMPARE(m.joint[j.mimic_body].name, std::string("knuckle"));
        QVERIFY(std::abs(j.mimic_multiplier - 0.84) < 1e-15);
        QVERIFY(std::abs(j.mimic_offset - (0.7 * 0.05 - 0.1)) < 1e-15);
      }
    }
  }

  // A mimic's armature (rotor inertia) is felt by the driving joint multiplied by the multiplier²,
  // as the kinetic energy ½ J (m q̇)² says.
  void Mimic_ArmatureReflectsOnTheDrivingJoint() {
    const auto build = [](double armature) {
      ModelBuilder b("geared");
      const Matrix3 I = Vector3(0.01, 0.02, 0.03).asDiagonal();
      b.addLink({"base", Inertia::FromCom(1.0, Vector3::Zero(), I)});
      b.addLink({"a", Inertia::FromCom(0.5, Vector3(0.1, 0, 0), I)});
      b.addLink({"b", Inertia::FromCom(0.4, Vector3(0, 0.1, 0), I)});
      JointSpec ja;
      ja.name = "ja";
      ja.type = JointType::kRevolute;
      ja.parent = "base";
      ja.child = "a";
      JointSpec jb = ja;
      jb.name = "jb";
      jb.parent = "a";
      jb.child = "b";
      jb.origin.p = Vector3(0.2, 0, 0);
      jb.mimic = "ja";
      jb.multiplier = -3.0;
      jb.armature = {armature};
      b.addJoint(ja);
      b.addJoint(jb);
      return b.build();
    };
    const Model with = build(0.05), without = build(0.0);
    Data dw(with), dn(without);
    const VectorXd q = VectorXd::Constant(1, 0.3);
    QVERIFY(std::abs(massMatrix(with, dw, q)(0, 0) - massMatrix(without, dn, q)(0, 0) - 9 * 0.05) < 1e-15);
    const VectorXd v = VectorXd::Constant(1, 0.7);
    QVERIFY(std::abs(kineticEnergy(with, dw, q, v) - kineticEnergy(without, dn, q, v) - 0.5 * 9 * 0.05 * 0.49) < 1e-15);
  }

  // Mimics that cannot be: a cycle, an unknown joint, a fixed joint; file, line and reason.
  void Mimic_RefusalsNameFileLineAndReason() {
    const std::string p = kCorpus + "mimic_cycle.urdf";
    QCOMPARE(QString::fromStdString(loadErrorOf([&] { loadUrdf(p); })),
             QString::fromStdString(p + ":9: joint 'ja': mimic joints form a cycle (ja -> jb -> ja)"));
    Files f;
    std::string xml = readText(kCorpus + "mimic.urdf");
    const std::string unknown = f.write("unknown.urdf", std::regex_replace(xml, std::regex("joint=\"left_joint\""), "joint=\"thumb\""));
    QCOMPARE(QString::fromStdString(loadErrorOf([&] { loadUrdf(unknown); })),
             QString::fromStdString(unknown + ":17: joint 'right_joint' mimics joint 'thumb', which does not exist"));
    const std::string fixed = f.write("fixed.urdf", std::regex_replace(xml, std::regex("\"left_joint\" type=\"prismatic\""), "\"left_joint\" type=\"fixed\""));
    QCOMPARE(QString::fromStdString(loadErrorOf([&] { loadUrdf(fixed); })),
             QString::fromStdString(fixed + ":17: joint 'right_joint' mimics joint 'left_joint', which is not revolute or prismatic"));
    const std::string on_fixed = f.write("on_fixed.urdf", std::regex_replace(xml, std::regex("\"right_joint\" type=\"prismatic\""), "\"right_joint\" type=\"fixed\""));
    QVERIFY(loadErrorOf([&] { loadUrdf(on_fixed); }).find(on_fixed + ":17: joint 'right_joint': only a revolute") == 0);
  }

  // The same gripper in the robot YAML format (`mimic: {joint, multiplier, offset}`) is the URDF
  // one: one coordinate, the same mass matrix, nonlinear effects and accelerations to rounding.
  void Mimic_YamlEqualsUrdf() {
    Files f;
    const std::string yaml = f.write("gripper.yaml", R"(format: 1
model:
  name: mimic_gripper
  base: {name: palm, mode: fixed, mass: 1, inertia: {xx: 0.01, yy: 0.01, zz: 0.01}}
  links:
    - name: left
      mass: 0.3
      com: [0, 0.01, 0.03]
      inertia: {xx: 0.0004, yy: 0.0003, zz: 0.0002}
      joint: {name: left_joint, type: prismatic, parent: palm, origin: {xyz: [-0.05, 0, 0.1]}, axis: [1, 0, 0],
              limits: {lower: 0, upper: 0.04, effort: 20, velocity: 0.1}}
    - name: right
      mass: 0.2
      com: [0, -0.01, 0.03]
      inertia: {xx: 0.0003, yy: 0.0002, zz: 0.0001}
      joint: {name: right_joint, type: prismatic, parent: palm, origin: {xyz: [0.05, 0, 0.1]}, axis: [1, 0, 0],
              limits: {lower: -0.04, upper: 0},
              mimic: {joint: left_joint, multiplier: -1, offset: 0}}
)");
    Model y = loadModelFile(yaml), u = loadUrdf(kCorpus + "mimic.urdf").model;
    QCOMPARE(y.nv, 1);
    QCOMPARE(y.velocityNames(), u.velocityNames());
    y.gravity_W = u.gravity_W = Vector3(3.0, -2.0, -9.81);
    Data dy(y), du(u);
    std::mt19937 rng(8);
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomVector(rng, 1) * 0.02, v = randomVector(rng, 1), tau = randomVector(rng, 1);
      EXPECT_MATRIX_NEAR(massMatrix(y, dy, q), massMatrix(u, du, q), 1e-15);
      EXPECT_MATRIX_NEAR(nonlinearEffects(y, dy, q, v), nonlinearEffects(u, du, q, v), 1e-14);
      EXPECT_MATRIX_NEAR(forwardDynamics(y, dy, q, v, tau), forwardDynamics(u, du, q, v, tau), 1e-12);
    }
    // Bad mimics in YAML: file, line and reason.
    std::string text = readText(yaml);
    const std::string unknown = f.write("unknown.yaml", std::regex_replace(text, std::regex("joint: left_joint,"), "joint: thumb,"));
    EXPECT_LOAD_ERROR(loadModelFile(unknown), unknown, 18, "joint 'right_joint' mimics joint 'thumb', which does not exist");
    const std::string typo = f.write("typo.yaml", std::regex_replace(text, std::regex("multiplier: -1"), "multiplier: -1, gain: 2"));
    EXPECT_LOAD_ERROR(loadModelFile(typo), typo, 18, "gain");
  }

  // A mimic's own limits against the range the joint it follows gives it: URDF files load with a
  // warning at the mimic's line (ROS tools do not enforce them either), YAML robots are refused
  // there; consistent limits, or none, say nothing. Chains compose: 0.7 (1.2 q + 0.05) - 0.1.
  void Mimic_OwnLimitsAgainstTheLeadersRange() {
    Files f;
    const std::string xml = readText(kCorpus + "mimic.urdf");
    QVERIFY(loadUrdf(kCorpus + "mimic.urdf").warnings.empty());  // [-0.04, 0] is exactly the image
    const std::string narrow = f.write("narrow.urdf", std::regex_replace(xml, std::regex("lower=\"-0.04\" upper=\"0\""), "lower=\"-0.03\" upper=\"0\""));
    const UrdfResult r = loadUrdf(narrow);
    QCOMPARE(r.warnings.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(r.warnings[0]),
             QString::fromStdString(narrow + ":17: warning: joint 'right_joint' mimics joint 'left_joint', whose range [0, 0.04] "
                                    "takes it over [-0.04, 0], beyond its own limits [-0.03, 0]; its own limits are not used"));
    QCOMPARE(r.model.nv, 1);
    // A continuous leader (no limits) cannot keep a limited mimic within its limits.
    const std::string unbounded = f.write("unbounded.urdf", std::regex_replace(xml, std::regex("<limit lower=\"0\" upper=\"0.04\" effort=\"20\" velocity=\"0.1\"/>"), ""));
    QCOMPARE(loadUrdf(unbounded).warnings.size(), std::size_t{1});
    QVERIFY(loadUrdf(unbounded).warnings[0].find("whose range [-inf, inf]") != std::string::npos);

    // A chain: jc follows jb, which follows ja, so jc = 0.7 (1.2 ja + 0.05) - 0.1 = 0.84 ja - 0.065.
    ModelBuilder b("chain");
    const Matrix3 I = Vector3(0.01, 0.02, 0.03).asDiagonal();
    for (const char* l : {"base", "a", "b", "c"}) b.addLink({l, Inertia::FromCom(0.5, Vector3(0.1, 0, 0), I)});
    JointSpec ja;
    ja.type = JointType::kRevolute;
    ja.name = "ja", ja.parent = "base", ja.child = "a", ja.lower = {-0.5}, ja.upper = {1.0};
    JointSpec jb = ja, jc = ja;
    jb.name = "jb", jb.parent = "a", jb.child = "b", jb.mimic = "ja", jb.multiplier = 1.2, jb.offset = 0.05;
    jb.lower = {-0.55}, jb.upper = {1.25};  // image [-0.55, 1.25]: fine
    jc.name = "jc", jc.parent = "b", jc.child = "c", jc.mimic = "jb", jc.multiplier = 0.7, jc.offset = -0.1;
    jc.lower = {-0.485}, jc.upper = {0.7};  // image 0.84 [-0.5, 1] - 0.065 = [-0.485, 0.775]: above 0.7
    jb.origin.p = jc.origin.p = Vector3(0.2, 0, 0);
    b.addJoint(ja);
    b.addJoint(jb);
    b.addJoint(jc);
    b.build();
    const std::vector<ModelError> conflicts = b.mimicLimitConflicts();
    QCOMPARE(conflicts.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(conflicts[0].message()),
             QString("joint 'jc' mimics joint 'ja', whose range [-0.5, 1] takes it over [-0.485, 0.775], beyond its own limits [-0.485, 0.7]"));

    // YAML: refused at the mimic's line.
    const std::string yaml = f.write("narrow.yaml", R"(format: 1
model:
  name: g
  base: {name: palm, mode: fixed, mass: 1, inertia: {xx: 0.01, yy: 0.01, zz: 0.01}}
  links:
    - name: left
      mass: 0.3
      inertia: {xx: 0.0004, yy: 0.0003, zz: 0.0002}
      joint: {name: left_joint, type: prismatic, parent: palm, axis: [1, 0, 0], limits: {lower: 0, upper: 0.04}}
    - name: right
      mass: 0.2
      inertia: {xx: 0.0003, yy: 0.0002, zz: 0.0001}
      joint: {name: right_joint, type: prismatic, parent: palm, axis: [1, 0, 0], limits: {lower: -0.03, upper: 0},
              mimic: {joint: left_joint, multiplier: -1}}
)");
    EXPECT_LOAD_ERROR(loadModelFile(yaml), yaml, 14, "beyond its own limits [-0.03, 0] (narrow the limits of the joint it follows");
  }

  // A scenario gives the independent joints only: a mimic's initial position or velocity, or a
  // controller target on it, is refused with the joint it follows.
  void Mimic_ScenarioGivesOnlyIndependentJoints() {
    Files f;
    const std::string robot = kCorpus + "mimic.urdf";
    auto scenario = [&](const std::string& joints) {
      return "format: 1\nname: gripper\nchaser:\n  robot: " + robot + "\n  initial:\n    joints:\n" + joints +
             "run:\n  duration: 0.1\n  step: 0.001\n  end_effector: left\n";
    };
    const std::string good = f.write("good.yaml", scenario("      left_joint: {position: 0.01, velocity: 0.02}\n"));
    const LoadedScenario ok = loadScenario(good);
    QCOMPARE(ok.model.nq, 1);
    const std::string bad = f.write("bad.yaml", scenario("      right_joint: {position: -0.01}\n"));
    EXPECT_LOAD_ERROR(loadScenario(bad), bad, 7,
                      "chaser.initial.joints: joint 'right_joint' mimics joint 'left_joint' (q = -1 * q_left_joint): a "
                      "scenario gives only the independent joints; give 'left_joint' instead");
  }

  // The planar joint is two prismatic joints along e1 and e2 then a revolute one about the axis,
  // with the same coordinates (e1, e2 = R x, R y for the rotation of smallest angle taking z to the
  // axis): same kinematics and dynamics to rounding, under gravity, with a pendulum on the puck.
  void Planar_EqualsTwoPrismaticJointsAndARevolute() {
    const std::string p = kCorpus + "planar.urdf";
    Model m = loadUrdf(p).model;
    QCOMPARE(m.nv, 4);
    QCOMPARE(m.velocityNames()[2], std::string("slide[2]"));
    const Vector3 a(0, 0.6, 0.8);
    const Matrix3 R = axisAngle(-Vector3::UnitX(), std::atan2(0.6, 0.8));  // z -> a about z × a
    QVERIFY((R * Vector3::UnitZ() - a).norm() < 1e-15);
    const auto v3 = [](const Vector3& x) {
      std::ostringstream os;
      os << std::setprecision(17) << x.transpose();
      return os.str();
    };
    std::string xml = readText(p);
    const std::string chain =
        "<link name=\"sx\"/><link name=\"sy\"/>"
        "<joint name=\"x\" type=\"prismatic\"><parent link=\"table\"/><child link=\"sx\"/>"
        "<origin xyz=\"0 0 0.05\" rpy=\"0.1 0 0.2\"/><axis xyz=\"" + v3(R.col(0)) + "\"/><limit lower=\"0\" upper=\"0\" effort=\"0\" velocity=\"0\"/></joint>"
        "<joint name=\"y\" type=\"prismatic\"><parent link=\"sx\"/><child link=\"sy\"/>"
        "<axis xyz=\"" + v3(R.col(1)) + "\"/><limit lower=\"0\" upper=\"0\" effort=\"0\" velocity=\"0\"/></joint>"
        "<joint name=\"turn\" type=\"continuous\"><parent link=\"sy\"/><child link=\"puck\"/><axis xyz=\"0 0.6 0.8\"/></joint>";
    xml = std::regex_replace(xml, std::regex("<joint name=\"slide\"[\\s\\S]*?</joint>"), chain);
    Model ref = loadUrdfString(xml, "chain.urdf").model;
    QCOMPARE(ref.nv, 4);
    m.gravity_W = ref.gravity_W = Vector3(1.0, -2.0, -9.81);
    Data d(m), dr(ref);
    std::mt19937 rng(8);
    for (int trial = 0; trial < 4; ++trial) {
      const VectorXd q = randomVector(rng, 4), v = randomVector(rng, 4), tau = randomVector(rng, 4);
      EXPECT_MATRIX_NEAR(massMatrix(m, d, q), massMatrix(ref, dr, q), 1e-12);
      EXPECT_MATRIX_NEAR(nonlinearEffects(m, d, q, v), nonlinearEffects(ref, dr, q, v), 1e-12);
      EXPECT_MATRIX_NEAR(coriolisMatrix(m, d, q, v), coriolisMatrix(ref, dr, q, v), 1e-12);
      EXPECT_MATRIX_NEAR(forwardDynamics(m, d, q, v, tau), forwardDynamics(ref, dr, q, v, tau), 1e-12);
      forwardKinematics(m, d, q, v);
      forwardKinematics(ref, dr, q, v);
      for (const char* link : {"puck", "pendulum"}) {
        EXPECT_MATRIX_NEAR(framePose(m, d, m.frameId(link)).p, framePose(ref, dr, ref.frameId(link)).p, 1e-14);
        EXPECT_MATRIX_NEAR(framePose(m, d, m.frameId(link)).R, framePose(ref, dr, ref.frameId(link)).R, 1e-14);
        EXPECT_MATRIX_NEAR(frameJacobian(m, d, m.frameId(link)), frameJacobian(ref, dr, ref.frameId(link)), 1e-12);
      }
    }
  }

  // The puck and pendulum under gravity conserve T + V (RK4 over 2 s).
  void Planar_ConservesEnergy() {
    Model m = loadUrdf(kCorpus + "planar.urdf").model;
    m.gravity_W = Vector3(0.5, -1.0, -9.81);
    Data d(m);
    std::mt19937 rng(4);
    VectorXd q = randomVector(rng, 4), v = randomVector(rng, 4);
    const auto energy = [&] { return kineticEnergy(m, d, q, v) + potentialEnergy(m, d, q); };
    const double E0 = energy();
    Rk4 rk(m);
    double t = 0;
    for (int k = 0; k < 2000; ++k, t += 1e-3) rk.step(m, d, t, 1e-3, q, v);
    QVERIFY2(std::abs(energy() - E0) < 1e-9 * std::max(1.0, std::abs(E0)), std::to_string(energy() - E0).c_str());
  }
};

QTEST_APPLESS_MAIN(TestUrdfJoints)
#include "test_urdf_joints.moc"
