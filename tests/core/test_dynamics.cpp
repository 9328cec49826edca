// The rigid dynamics core, each algorithm against something independent: a second algorithm,
// finite differences, closed forms, on random trees of 1 to 30 links with every joint type and
// every base mode.
#include <QtTest>

#include <random>
#include <set>

#include <Eigen/Cholesky>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"
#include "core/model/model_builder.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;
using grapple::test::RandomTreeOptions;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using grapple::test::randomVector;

namespace {

struct Case {
  std::string name;
  Model model;
  VectorXd q, v, a, tau;
};

// Random trees of 1..30 links, all joint types, each base mode; a few revolute-only chains too.
std::vector<Case> makeCases() {
  std::vector<Case> cases;
  std::mt19937 rng(20261123);
  for (BaseMode mode : {BaseMode::kFixed, BaseMode::kFloating, BaseMode::kFlying}) {
    for (int links : {1, 2, 3, 5, 8, 13, 21, 30}) {
      for (bool all : {true, false}) {
        RandomTreeOptions o;
        o.links = links;
        o.base = mode;
        o.all_joint_types = all;
        Case c{std::string(baseModeName(mode)) + "/" + std::to_string(links) +
                   (all ? "/all-joints" : "/revolute"),
               grapple::test::randomTree(rng, o), {}, {}, {}, {}};
        cases.push_back(std::move(c));
      }
    }
    // Mimic joints (chains of them too): every check below holds for the projected dynamics.
    for (int links : {2, 5, 13, 30}) {
      RandomTreeOptions o;
      o.links = links;
      o.base = mode;
      o.mimic_fraction = 0.4;
      cases.push_back({std::string(baseModeName(mode)) + "/" + std::to_string(links) + "/mimic",
                       grapple::test::randomTree(rng, o), {}, {}, {}, {}});
    }
  }
  for (Case& c : cases) {
    c.q = randomConfiguration(c.model, rng);
    c.v = randomVector(rng, c.model.nv);
    c.a = randomVector(rng, c.model.nv);
    c.tau = randomVector(rng, c.model.nv, 10.0);
    if (c.model.base_mode == BaseMode::kFloating) c.tau.head<6>().setZero();
  }
  return cases;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = makeCases();
  return all;
}

// Position of the point p_F of frame f and its orientation, at configuration q.
Transform pose(const Model& m, Data& d, const VectorXd& q, int f) {
  forwardKinematics(m, d, q);
  return framePose(m, d, f);
}

}  // namespace

class TestDynamics : public QObject {
  Q_OBJECT

 private slots:
  // The cases hold every joint type and mimic joints.
  void Cases_CoverEveryJointTypeAndMimics() {
    std::set<JointType> types;
    int mimics = 0;
    for (const Case& c : cases()) {
      for (const Joint& j : c.model.joint) {
        types.insert(j.type);
        mimics += isMimic(j);
      }
    }
    QCOMPARE(int(types.size()), 8);
    QVERIFY(mimics >= 10);
  }

  void MassMatrix_IsSymmetricPositiveDefinite() {
    for (const Case& c : cases()) {
      Data d(c.model);
      const MatrixXd& H = massMatrix(c.model, d, c.q);
      EXPECT_MATRIX_NEAR(H, MatrixXd(H.transpose()), 1e-12);
      Eigen::SelfAdjointEigenSolver<MatrixXd> eig(H);
      QVERIFY2(eig.eigenvalues().minCoeff() > 0, c.name.c_str());
    }
  }

  void MassMatrix_ColumnsEqualInverseDynamicsOfUnitAccelerations() {
    for (const Case& c : cases()) {
      Model m = c.model;
      m.gravity_W.setZero();
      Data d(m);
      const MatrixXd H = massMatrix(m, d, c.q);
      const VectorXd zero = VectorXd::Zero(m.nv);
      for (int k = 0; k < m.nv; ++k) {
        const VectorXd e = VectorXd::Unit(m.nv, k);
        const VectorXd col = inverseDynamics(m, d, c.q, zero, e);
        EXPECT_MATRIX_NEAR(col, H.col(k), 1e-12);
      }
    }
  }

  // Long serial chains, fixed and floating: every entry off the diagonal blocks comes from one run
  // of the ancestors' coordinates (up to 127 long, the vectorized loop and its remainder), and
  // a deep body's entries from its wrench moved once, not down the whole chain.
  void MassMatrix_LongChainColumnsEqualInverseDynamics() {
    for (BaseMode mode : {BaseMode::kFixed, BaseMode::kFloating}) {
      Model m = grapple::test::serialChain(128, mode);
      m.gravity_W.setZero();
      Data d(m);
      std::mt19937 rng(7);
      const VectorXd q = randomConfiguration(m, rng);
      const MatrixXd H = massMatrix(m, d, q);
      const VectorXd zero = VectorXd::Zero(m.nv);
      for (int k = 0; k < m.nv; ++k) {
        const VectorXd col = inverseDynamics(m, d, q, zero, VectorXd::Unit(m.nv, k));
        EXPECT_MATRIX_NEAR(col, H.col(k), 1e-10 * H.cwiseAbs().maxCoeff());
      }
    }
  }

  // H = Σ_k J_kᵀ M_k J_k with the body Jacobians J_k (the DeNOC N = N_l N_d, row by row), a
  // construction that shares nothing with the composite-body recursion.
  void MassMatrix_EqualsNtMN() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const MatrixXd H = massMatrix(m, d, c.q);
      forwardKinematics(m, d, c.q);
      MatrixXd NtMN = m.armature.asDiagonal();
      for (int k = 0; k < m.nbodies; ++k) {
        // The body's defining link shares its origin; its axes are R_BF in the body.
        const int f = m.frameId(m.body_name[k]);
        const Matrix3& R_BF = m.frames[f].X_body_frame.R;
        MatrixXd Jk = frameJacobian(m, d, f, Vector3::Zero(), ReferenceFrame::kLocal);
        Jk.topRows<3>() = R_BF * Jk.topRows<3>();
        Jk.bottomRows<3>() = R_BF * Jk.bottomRows<3>();
        NtMN += Jk.transpose() * m.inertia[k].matrix() * Jk;
      }
      EXPECT_MATRIX_NEAR(H, NtMN, 1e-11);
    }
  }

  void Coriolis_TimesVelocityEqualsInverseDynamicsAtZeroAcceleration() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const MatrixXd C = coriolisMatrix(m, d, c.q, c.v);
      const VectorXd zero = VectorXd::Zero(m.nv);
      const VectorXd h = nonlinearEffects(m, d, c.q, c.v);
      const VectorXd g = nonlinearEffects(m, d, c.q, zero);
      EXPECT_MATRIX_NEAR(VectorXd(C * c.v), VectorXd(h - g), 1e-11);
    }
  }

  // Ḣ - 2C skew-symmetric, with Ḣ by central differences along q(t) = q ⊕ v t.
  void Coriolis_HdotMinusTwoCIsSkew() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const double eps = 1e-6;
      const MatrixXd Hp = massMatrix(m, d, integrate(m, c.q, c.v, eps));
      const MatrixXd Hm = massMatrix(m, d, integrate(m, c.q, c.v, -eps));
      const MatrixXd Hdot = (Hp - Hm) / (2 * eps);
      const MatrixXd C = coriolisMatrix(m, d, c.q, c.v);
      const MatrixXd K = Hdot - 2 * C;
      const double scale = std::max(1.0, Hdot.cwiseAbs().maxCoeff() + C.cwiseAbs().maxCoeff());
      EXPECT_MATRIX_NEAR(MatrixXd(K + K.transpose()) / scale, MatrixXd::Zero(m.nv, m.nv), 1e-7);
      // And the matrix is not trivially skew: Ḣ itself is not small.
    }
  }

  void ForwardDynamics_InvertsInverseDynamics() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const VectorXd tau = inverseDynamics(m, d, c.q, c.v, c.a);
      const VectorXd a = forwardDynamics(m, d, c.q, c.v, tau);
      EXPECT_MATRIX_NEAR(a, c.a, 1e-10);
    }
  }

  void ForwardDynamics_MatchesDenseSolve() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const MatrixXd H = massMatrix(m, d, c.q);
      const VectorXd h = nonlinearEffects(m, d, c.q, c.v);
      const VectorXd dense = H.llt().solve(c.tau - h);
      EXPECT_MATRIX_NEAR(forwardDynamics(m, d, c.q, c.v, c.tau), dense, 1e-10);
      // The stored factors solve other right-hand sides too.
      EXPECT_MATRIX_NEAR(solveMassMatrix(m, d, c.a), VectorXd(H.llt().solve(c.a)), 1e-10);
      factorizeMassMatrix(m, d, c.q);
      EXPECT_MATRIX_NEAR(solveMassMatrix(m, d, h), VectorXd(H.llt().solve(h)), 1e-10);
    }
  }

  // After forwardDynamics, data.a holds the body accelerations: compare with kinematics.
  void ForwardDynamics_LeavesBodyAccelerations() {
    for (const Case& c : cases()) {
      Model m = c.model;
      m.gravity_W.setZero();
      Data d(m), dk(m);
      const VectorXd a = forwardDynamics(m, d, c.q, c.v, c.tau);
      forwardKinematics(m, dk, c.q, c.v, a);
      for (int i = 0; i < m.nbodies; ++i) EXPECT_MATRIX_NEAR(d.a[i], dk.a[i], 1e-10);
    }
  }

  void FloatingBaseInverseDynamics_ReproducedByForwardDynamics() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      if (!m.hasFreeBase()) continue;
      Data d(m);
      const VectorXd tau = inverseDynamicsFloatingBase(m, d, c.q, c.v, c.a);
      QVERIFY(tau.head<6>().isZero());
      const VectorXd ddq = d.ddq;
      EXPECT_MATRIX_NEAR(VectorXd(ddq.tail(m.nv - 6)), VectorXd(c.a.tail(m.nv - 6)), 0.0);
      // Forward dynamics with these torques and no base wrench gives back all accelerations.
      EXPECT_MATRIX_NEAR(forwardDynamics(m, d, c.q, c.v, tau), ddq, 1e-10);
      // And the base wrench of ordinary inverse dynamics at those accelerations is zero.
      const VectorXd full = inverseDynamics(m, d, c.q, c.v, ddq);
      EXPECT_MATRIX_NEAR(VectorXd(full.head<6>()), Vector6::Zero(), 1e-9);
      EXPECT_MATRIX_NEAR(VectorXd(full.tail(m.nv - 6)), VectorXd(tau.tail(m.nv - 6)), 1e-10);
    }
  }

  // Base reaction: for a flying base, the actuator wrench equals the base's own inertial wrench
  // minus the reaction of the arms (base Newton–Euler, thesis eq. 6.40).
  void BaseReactionWrench_BalancesBaseEquation() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      if (!m.hasFreeBase()) continue;
      Data d(m);
      const VectorXd tau = inverseDynamics(m, d, c.q, c.v, c.a);
      const Vector6 reaction = baseReactionWrench(m, d);
      const Inertia& Ib = m.inertia[0];
      const Vector6 own = Ib * d.a[0] + crossForce(d.t[0], Ib * d.t[0]);
      EXPECT_MATRIX_NEAR(Vector6(tau.head<6>()), Vector6(own - reaction), 1e-10);
    }
  }

  // J v equals the time derivative of the point position and the frame orientation.
  void Jacobian_MatchesFiniteDifferencesOfKinematics() {
    std::mt19937 rng(7);
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const int f = static_cast<int>(m.frames.size()) - 1;
      const Vector3 p_F(0.1, -0.2, 0.3);
      forwardKinematics(m, d, c.q, c.v);
      const MatrixXd J = frameJacobian(m, d, f, p_F);
      const double eps = 1e-6;
      const Transform Xp = pose(m, d, integrate(m, c.q, c.v, eps), f);
      const Transform Xm = pose(m, d, integrate(m, c.q, c.v, -eps), f);
      Vector6 fd;
      fd.head<3>() = (Xp.act(p_F) - Xm.act(p_F)) / (2 * eps);
      fd.tail<3>() = logSO3(Xp.R * Xm.R.transpose()) / (2 * eps);
      EXPECT_MATRIX_NEAR(VectorXd(J * c.v), VectorXd(fd), 1e-7);
      // The Jacobian agrees with the twist recursion.
      forwardKinematics(m, d, c.q, c.v);
      EXPECT_MATRIX_NEAR(VectorXd(J * c.v), VectorXd(pointVelocityWorld(m, d, f, p_F)), 1e-12);
      // Local components are the world ones rotated.
      const Transform X = framePose(m, d, f);
      const MatrixXd Jl = frameJacobian(m, d, f, p_F, ReferenceFrame::kLocal);
      EXPECT_MATRIX_NEAR(MatrixXd(X.R * Jl.topRows<3>()), MatrixXd(J.topRows<3>()), 1e-12);
    }
  }

  // Classical point acceleration from the recursion against finite differences of velocities.
  void Kinematics_AccelerationMatchesFiniteDifferences() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const int f = static_cast<int>(m.frames.size()) - 1;
      const Vector3 p_F(0.2, 0.1, -0.1);
      const double eps = 1e-6;
      auto vel = [&](double s) {
        forwardKinematics(m, d, integrate(m, c.q, c.v, s), c.v + s * c.a);
        return pointVelocityWorld(m, d, f, p_F);
      };
      const Vector6 fd = (vel(eps) - vel(-eps)) / (2 * eps);
      forwardKinematics(m, d, c.q, c.v, c.a);
      EXPECT_MATRIX_NEAR(VectorXd(pointAccelerationWorld(m, d, f, p_F)), VectorXd(fd), 1e-7);
    }
  }

  void Energy_KineticEnergyIsHalfVtHv() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const MatrixXd H = massMatrix(m, d, c.q);
      const double T = kineticEnergy(m, d, c.q, c.v);
      QVERIFY2(std::abs(T - 0.5 * c.v.dot(H * c.v)) <= 1e-11 * std::max(1.0, T), c.name.c_str());
    }
  }

  // The first six rows of H v are the total momentum at the base origin in base components.
  void Momentum_EqualsBaseRowsOfHv() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      if (!m.hasFreeBase()) continue;
      Data d(m);
      const MatrixXd H = massMatrix(m, d, c.q);
      const Vector6 hb = H.topRows<6>() * c.v;
      const Vector6 h = momentum(m, d, c.q, c.v);
      EXPECT_MATRIX_NEAR(VectorXd(forceToParent(d.X_world[0], hb)), VectorXd(h), 1e-11);
    }
  }

  // Zero momentum: the base moves with u0 = -H0⁻¹ H0m q̇m and the end point with J* q̇m.
  void GeneralizedJacobian_MapsJointRatesAtZeroMomentum() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      if (!m.hasFreeBase() || m.nv == 6) continue;
      Data d(m);
      const int f = static_cast<int>(m.frames.size()) - 1;
      const MatrixXd Jstar = generalizedJacobian(m, d, c.q, f);
      const MatrixXd H = d.H;
      const int nm = m.nv - 6;
      VectorXd v(m.nv);
      v.tail(nm) = c.v.tail(nm);
      v.head<6>() = -H.topLeftCorner<6, 6>().llt().solve(H.topRightCorner(6, nm) * v.tail(nm));
      QVERIFY(momentum(m, d, c.q, v).norm() < 1e-10 * std::max(1.0, c.v.norm()));
      forwardKinematics(m, d, c.q);
      const MatrixXd J = frameJacobian(m, d, f);
      EXPECT_MATRIX_NEAR(VectorXd(J * v), VectorXd(Jstar * v.tail(nm)), 1e-11);
    }
  }

  // An external wrench on a point equals the generalized force Jᵀ F.
  void ExternalWrench_EqualsJacobianTransposeForce() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      const int f = static_cast<int>(m.frames.size()) - 1;
      const Vector3 p_F(0.3, 0.0, -0.2), F_W(3.0, -1.0, 2.0), n_W(0.5, 0.2, -0.4);
      forwardKinematics(m, d, c.q);
      const MatrixXd J = frameJacobian(m, d, f, p_F);
      const Transform X = framePose(m, d, f);
      const int b = m.frames[f].body;
      const Matrix3& R = d.X_world[b].R;
      BodyWrenches fext(m.nbodies, Vector6::Zero());
      const Vector3 p_B = m.frames[f].X_body_frame.act(p_F);
      fext[b].head<3>() = R.transpose() * F_W;
      fext[b].tail<3>() = p_B.cross(fext[b].head<3>()) + R.transpose() * n_W;
      Vector6 w_W;
      w_W << F_W, n_W;
      const VectorXd with_wrench = forwardDynamics(m, d, c.q, c.v, c.tau, &fext);
      const VectorXd with_torque = forwardDynamics(m, d, c.q, c.v, c.tau + J.transpose() * w_W);
      EXPECT_MATRIX_NEAR(with_wrench, with_torque, 1e-10);
      (void)X;
    }
  }

  // Closed form of the planar 2R arm (Spong, Robot Modeling and Control, §7.3): H and C.
  void TwoLinkArm_MatchesClosedForm() {
    const double m1 = 1.3, m2 = 0.8, l1 = 0.9, lc1 = 0.4, lc2 = 0.35, I1 = 0.07, I2 = 0.05;
    ModelBuilder b("2R");
    b.addLink({"base", Inertia::FromCom(1.0, Vector3::Zero(), Matrix3::Identity())});
    b.addLink({"l1", Inertia::FromCom(m1, Vector3(lc1, 0, 0), Vector3(0.01, I1, I1).asDiagonal().toDenseMatrix())});
    b.addLink({"l2", Inertia::FromCom(m2, Vector3(lc2, 0, 0), Vector3(0.01, I2, I2).asDiagonal().toDenseMatrix())});
    JointSpec j1;
    j1.name = "j1"; j1.type = JointType::kRevolute; j1.parent = "base"; j1.child = "l1";
    JointSpec j2 = j1;
    j2.name = "j2"; j2.parent = "l1"; j2.child = "l2"; j2.origin.p = Vector3(l1, 0, 0);
    b.addJoint(j1);
    b.addJoint(j2);
    const Model m = b.build();
    Data d(m);
    const VectorXd q = Eigen::Vector2d(0.4, -1.1), v = Eigen::Vector2d(0.7, 1.9);
    const double c2 = std::cos(q[1]), s2 = std::sin(q[1]);
    Eigen::Matrix2d H;
    H(0, 0) = m1 * lc1 * lc1 + I1 + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * c2) + I2;
    H(0, 1) = H(1, 0) = m2 * (lc2 * lc2 + l1 * lc2 * c2) + I2;
    H(1, 1) = m2 * lc2 * lc2 + I2;
    const double hh = -m2 * l1 * lc2 * s2;
    Eigen::Matrix2d C;
    C << hh * v[1], hh * (v[0] + v[1]), -hh * v[0], 0.0;
    EXPECT_MATRIX_NEAR(massMatrix(m, d, q), MatrixXd(H), 1e-14);
    EXPECT_MATRIX_NEAR(coriolisMatrix(m, d, q, v), MatrixXd(C), 1e-14);
  }

  // One free rigid body: Newton–Euler in body components, v̇ = f/m - ω × v, I ω̇ = n - ω × I ω.
  void FreeRigidBody_MatchesEulerEquations() {
    ModelBuilder b("body");
    b.setBaseMode(BaseMode::kFlying);
    const Matrix3 I = Vector3(2.0, 3.0, 4.5).asDiagonal();
    b.addLink({"body", Inertia::FromCom(7.0, Vector3::Zero(), I)});
    const Model m = b.build();
    Data d(m);
    std::mt19937 rng(3);
    const VectorXd q = randomConfiguration(m, rng);
    VectorXd v(6), tau(6);
    v << 0.3, -0.2, 0.5, 0.4, -0.7, 0.9;
    tau << 1.0, 2.0, -3.0, 0.2, 0.1, -0.4;
    const VectorXd a = forwardDynamics(m, d, q, v, tau);
    const Vector3 vv = v.head<3>(), w = v.tail<3>();
    const Vector3 vdot = tau.head<3>() / 7.0 - w.cross(vv);
    const Vector3 wdot = I.inverse() * (Vector3(tau.tail<3>()) - w.cross(I * w));
    EXPECT_MATRIX_NEAR(Vector3(a.head<3>()), vdot, 1e-14);
    EXPECT_MATRIX_NEAR(Vector3(a.tail<3>()), wdot, 1e-14);
  }

  // Gravity: a horizontal pendulum needs τ = m g l_c cos q to hold still.
  void Gravity_PendulumStaticTorque() {
    ModelBuilder b("pendulum");
    b.setGravity(Vector3(0, -9.81, 0));
    b.addLink({"base", Inertia::FromCom(1.0, Vector3::Zero(), Matrix3::Identity())});
    b.addLink({"rod", Inertia::FromCom(2.0, Vector3(0.5, 0, 0), Matrix3::Identity() * 0.1)});
    JointSpec j;
    j.name = "hinge"; j.type = JointType::kRevolute; j.parent = "base"; j.child = "rod";
    b.addJoint(j);
    const Model m = b.build();
    Data d(m);
    const VectorXd q = VectorXd::Constant(1, 0.3), zero = VectorXd::Zero(1);
    const double tau = inverseDynamics(m, d, q, zero, zero)[0];
    QCOMPARE_LE(std::abs(tau - 2.0 * 9.81 * 0.5 * std::cos(0.3)), 1e-12);
    // Released, it accelerates as -τ/H.
    const double H = massMatrix(m, d, q)(0, 0);
    QCOMPARE_LE(std::abs(forwardDynamics(m, d, q, zero, zero)[0] + tau / H), 1e-12);
  }

  // Fixed joints are merged: a chain with a fixed joint in the middle has the same dynamics as
  // the same chain with the two links welded into one body by hand.
  void FixedJoints_AreMergedExactly() {
    auto make = [](bool split) {
      ModelBuilder b("merge");
      b.setBaseMode(BaseMode::kFloating);
      b.addLink({"base", Inertia::FromCom(50.0, Vector3::Zero(), Matrix3::Identity() * 5)});
      const Inertia a = Inertia::FromCom(2.0, Vector3(0.2, 0, 0), Matrix3::Identity() * 0.02);
      const Inertia c = Inertia::FromCom(1.0, Vector3(0.1, 0.05, 0), Matrix3::Identity() * 0.01);
      const Transform X_ac{rotZ(0.3), Vector3(0.4, 0, 0.1)};
      JointSpec j;
      j.name = "j1"; j.type = JointType::kRevolute; j.parent = "base"; j.child = "a";
      j.axis = Vector3(0, 1, 0); j.origin.p = Vector3(1, 0, 0);
      b.addJoint(j);
      if (split) {
        b.addLink({"a", a});
        b.addLink({"c", c});
        JointSpec w;
        w.name = "weld"; w.type = JointType::kFixed; w.parent = "a"; w.child = "c"; w.origin = X_ac;
        b.addJoint(w);
      } else {
        b.addLink({"a", a + c.toParent(X_ac)});
      }
      return b.build();
    };
    const Model ms = make(true), mw = make(false);
    QCOMPARE(ms.nbodies, 2);
    QCOMPARE(ms.nv, mw.nv);
    std::mt19937 rng(5);
    Data ds(ms), dw(mw);
    const VectorXd q = randomConfiguration(ms, rng), v = randomVector(rng, ms.nv);
    EXPECT_MATRIX_NEAR(massMatrix(ms, ds, q), massMatrix(mw, dw, q), 1e-14);
    EXPECT_MATRIX_NEAR(nonlinearEffects(ms, ds, q, v), nonlinearEffects(mw, dw, q, v), 1e-13);
    // The merged link is still a frame, at its place.
    forwardKinematics(ms, ds, q);
    const Transform Xc = framePose(ms, ds, ms.frameId("c"));
    const Transform Xa = framePose(ms, ds, ms.frameId("a"));
    EXPECT_MATRIX_NEAR(Xc.p, Vector3(Xa.act(Vector3(0.4, 0, 0.1))), 1e-14);
  }

  // Integrate and difference are inverse maps (the configuration space is a manifold).
  void Configuration_IntegrateAndDifferenceAreInverse() {
    std::mt19937 rng(11);
    for (const Case& c : cases()) {
      const Model& m = c.model;
      const VectorXd q1 = integrate(m, c.q, c.v, 0.3);
      EXPECT_MATRIX_NEAR(difference(m, c.q, q1), VectorXd(0.3 * c.v), 1e-10);
      // configurationRate is the derivative of integrate at dt = 0.
      const double eps = 1e-6;
      const VectorXd fd =
          (integrate(m, c.q, c.v, eps) - integrate(m, c.q, c.v, -eps)) / (2 * eps);
      EXPECT_MATRIX_NEAR(configurationRate(m, c.q, c.v), fd, 1e-8);
    }
  }
};

QTEST_APPLESS_MAIN(TestDynamics)
#include "test_dynamics.moc"
