// Flexible bodies in the recursions: the general path against the fast rigid path, and flexible
// models against independent checks (mass matrix from inverse-dynamics columns, forward ∘ inverse
// dynamics, Jacobians and accelerations by finite differences, conservation of energy and momentum,
// hybrid dynamics against the block solution through H).
#include <QtTest>

#include <algorithm>
#include <iostream>
#include <random>

#include <Eigen/Cholesky>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/energy.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/hybrid_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"
#include "core/math/rotation.hpp"
#include "core/model/model_builder.hpp"
#include "core/sim/integrator.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using grapple::test::randomVector;

namespace {

// A floating base carrying: a two-segment flexible arm (segments bending in both planes, with
// traction and torsion), a payload fixed at the second segment's tip, and a flexible appendage
// (modal participation) on a fixed joint. Segment 2 hangs from the deformed tip of segment 1.
Model flexibleArm(FlexModel model, BaseMode base = BaseMode::kFloating, int modes = 1,
                  Vector3 axis2 = Vector3::UnitZ(), const FlexSpec* seg1_override = nullptr,
                  bool flexible_segments = true) {
  ModelBuilder b("flexible arm");
  b.setBaseMode(base);
  b.setFlexModel(model);
  b.addLink({"bus", Inertia::FromCom(300, Vector3(0.05, 0, 0), Vector3(60, 80, 70).asDiagonal().toDenseMatrix()), {}});
  BeamProperties beam;
  beam.length = 2.0;
  beam.density = 2700;
  beam.area = 2e-3;
  beam.young = 7e8;   // a soft beam: its traction and torsion modes stay below 600 rad/s,
  beam.shear = 2.6e8;  // which RK4 at 1 ms resolves
  beam.Iy = 3e-6;
  beam.Iz = 4e-6;
  auto segment = [&](const char* name, const char* parent, const char* joint, Transform origin,
                     Vector3 axis, int n) {
    // The rigid inertia of the segment holds its beam (ρ S l = 10.8 kg, a rod) and a 3 kg hub.
    LinkSpec l{name, Inertia::FromCom(10.8, Vector3(1.0, 0, 0.05), Vector3(0.05, 3.6, 3.6).asDiagonal().toDenseMatrix()) +
                         Inertia::FromCom(3.0, Vector3::Zero(), Matrix3::Identity() * 0.01), {}};
    FlexSpec fs;
    BeamSpec bs;
    bs.properties = beam;
    bs.root = Vector3(0, 0, 0.05);
    bs.modes = ModeCounts{n >= 1 ? 1 : 0, n, n, n >= 1 ? 1 : 0};
    bs.damping_ratio = 0.0;
    fs.beam = bs;
    if (flexible_segments) l.flexible = fs;
    if (seg1_override && std::string(name) == "seg1") l.flexible = *seg1_override;
    b.addLink(l);
    JointSpec j;
    j.name = joint;
    j.type = JointType::kRevolute;
    j.parent = parent;
    j.child = name;
    j.origin = origin;
    j.axis = axis;
    b.addJoint(j);
  };
  segment("seg1", "bus", "j1", Transform{rotY(0.3), Vector3(0.8, 0, 0)}, Vector3::UnitZ(), modes);
  segment("seg2", "seg1", "j2", Transform{rotX(0.4), Vector3(2.0, 0, 0.05)}, axis2, modes);
  b.addLink({"payload", Inertia::FromCom(8.0, Vector3(0.1, 0, 0), Matrix3::Identity() * 0.05), {}});
  JointSpec fix;
  fix.name = "tool";
  fix.type = JointType::kFixed;
  fix.parent = "seg2";
  fix.child = "payload";
  fix.origin = Transform{rotZ(0.2), Vector3(2.0, 0, 0.05)};
  b.addJoint(fix);
  // Solar array (App. D.2.1 form, scaled): fixed on the bus, 3 modes.
  LinkSpec arr{"array", Inertia::FromCom(50, Vector3(2, 0, 0), Vector3(5, 60, 55).asDiagonal().toDenseMatrix()), {}};
  FlexSpec fa;
  ModalSpec ms;
  ms.participation = MatrixXd::Zero(3, 6);
  ms.participation << 0, 2.5, 0, 0, 0, 2.5, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1, 0, 0;
  ms.frequency = Eigen::Vector3d(8, 15, 20);
  ms.damping_ratio = Eigen::Vector3d::Zero();
  fa.modal = ms;
  arr.flexible = fa;
  b.addLink(arr);
  JointSpec ja;
  ja.name = "array_mount";
  ja.type = JointType::kFixed;
  ja.parent = "bus";
  ja.child = "array";
  ja.origin = Transform{rotZ(M_PI / 2), Vector3(0, 0.85, 0)};
  b.addJoint(ja);
  return b.build();
}

struct State {
  VectorXd q, v, a, tau;
};

State randomState(const Model& m, std::mt19937& rng) {
  State s;
  s.q = randomConfiguration(m, rng);
  s.v = randomVector(rng, m.nv, 0.3);
  s.a = randomVector(rng, m.nv, 1.0);
  s.tau = randomVector(rng, m.nv, 5.0);
  for (const FlexibleBody& f : m.flex) {  // no forces on the modes
    s.tau.segment(f.idx_v, f.nf).setZero();
  }
  if (m.base_mode == BaseMode::kFloating) s.tau.head<6>().setZero();
  return s;
}

const FlexModel kModels[] = {FlexModel::kFull, FlexModel::kConstantMass,
                             FlexModel::kConstantMassPrinted, FlexModel::kNominalA,
                             FlexModel::kNominalR};

}  // namespace

class TestFlexible : public QObject {
  Q_OBJECT

 private slots:
  // On rigid trees the general recursions reproduce the fast ones.
  void GeneralPath_EqualsRigidPathOnRigidTrees() {
    std::mt19937 rng(5);
    for (BaseMode mode : {BaseMode::kFixed, BaseMode::kFloating}) {
      for (int links : {1, 4, 12}) {
        grapple::test::RandomTreeOptions o;
        o.links = links;
        o.base = mode;
        const Model m = grapple::test::randomTree(rng, o);
        Data fast(m), gen(m, true);
        const State s = randomState(m, rng);
        EXPECT_MATRIX_NEAR(general::inverseDynamics(m, gen, s.q, s.v, s.a, nullptr),
                           inverseDynamics(m, fast, s.q, s.v, s.a), 1e-12);
        EXPECT_MATRIX_NEAR(general::forwardDynamics(m, gen, s.q, s.v, s.tau, nullptr),
                           forwardDynamics(m, fast, s.q, s.v, s.tau), 1e-11);
        EXPECT_MATRIX_NEAR(general::massMatrix(m, gen, s.q), massMatrix(m, fast, s.q), 1e-12);
        QVERIFY(std::abs(general::kineticEnergy(m, gen, s.q, s.v) - kineticEnergy(m, fast, s.q, s.v)) < 1e-10);
      }
    }
  }

  // Coriolis matrix: C v = h(q, v) - h(q, 0) for every model, Ḣ - 2C skew for the Lagrangian
  // ones (flex, flex-M), with Ḣ by central differences; on rigid trees, the fast path's C.
  void Coriolis_FlexibleModels() {
    std::mt19937 rng(21);
    for (FlexModel fm : kModels) {
      const Model m = flexibleArm(fm, BaseMode::kFloating, 1, Vector3(0, 1, 0));
      Data d(m);
      const State s = randomState(m, rng);
      const MatrixXd C = coriolisMatrix(m, d, s.q, s.v);
      const VectorXd h0 = nonlinearEffects(m, d, s.q, VectorXd::Zero(m.nv));
      const VectorXd h = nonlinearEffects(m, d, s.q, s.v);
      EXPECT_MATRIX_NEAR(VectorXd(C * s.v), VectorXd(h - h0), 1e-9);
      if (fm != FlexModel::kFull && fm != FlexModel::kConstantMass) continue;
      const double eps = 1e-6;
      const MatrixXd Hp = massMatrix(m, d, integrate(m, s.q, s.v, eps));
      const MatrixXd Hm = massMatrix(m, d, integrate(m, s.q, s.v, -eps));
      const MatrixXd K = (Hp - Hm) / (2 * eps) - 2 * C;
      const double scale = std::max(1.0, C.cwiseAbs().maxCoeff());
      EXPECT_MATRIX_NEAR(MatrixXd((K + K.transpose()) / scale), MatrixXd::Zero(m.nv, m.nv), 1e-6);
    }
    grapple::test::RandomTreeOptions o;
    o.links = 8;
    const Model rigid = grapple::test::randomTree(rng, o);
    Data fast(rigid), gen(rigid, true);
    const State s = randomState(rigid, rng);
    EXPECT_MATRIX_NEAR(general::coriolisMatrix(rigid, gen, s.q, s.v), coriolisMatrix(rigid, fast, s.q, s.v), 1e-11);
  }

  // Modal tables: a segment given by the tables of its own modes (participation in link
  // components, modal masses, stiffness, tip shapes) is the same body as the beam, in flex-M.
  void ModalTables_EqualTheBeamTheyComeFrom() {
    const Model A = flexibleArm(FlexModel::kConstantMass, BaseMode::kFloating, 1);
    const int b1 = A.bodyOfJoint("j1");
    const FlexibleBody& f = A.flex[b1];
    const Matrix3 R = f.X_body_link.R;  // link -> body
    ModalSpec ms;
    ms.participation.resize(f.nf, 6);
    ms.participation.leftCols<3>() = (R.transpose() * f.M_td.topRows<3>()).transpose();
    ms.participation.rightCols<3>() = (R.transpose() * f.M_td.bottomRows<3>()).transpose();
    ms.frequency = f.frequency;
    ms.damping_ratio = VectorXd::Zero(f.nf);
    ms.modal_mass = f.M_dd;
    ms.stiffness = f.K;
    ms.tip = ModalSpec::Tip{f.p_tip, f.Phi_e, f.Delta_e};
    FlexSpec tables;
    tables.modal = ms;
    const Model B = flexibleArm(FlexModel::kConstantMass, BaseMode::kFloating, 1, Vector3::UnitZ(), &tables);
    QVERIFY(!B.flex[b1].beam && B.flex[b1].has_tip);
    std::mt19937 rng(31);
    Data da(A), db(B);
    for (int k = 0; k < 5; ++k) {
      const State s = randomState(A, rng);
      EXPECT_MATRIX_NEAR(forwardDynamics(B, db, s.q, s.v, s.tau), forwardDynamics(A, da, s.q, s.v, s.tau), 1e-9);
    }
  }

  // Zero modes: a flexible segment with no modes is the rigid segment.
  void ZeroModes_GiveTheRigidModel() {
    {
      // Segments with zero modes and the same segments declared rigid: the same dynamics.
      const Model zero = flexibleArm(FlexModel::kFull, BaseMode::kFloating, 0);
      const Model rigid = flexibleArm(FlexModel::kFull, BaseMode::kFloating, 0, Vector3::UnitZ(), nullptr, false);
      QCOMPARE(zero.nv, rigid.nv);
      std::mt19937 r(8);
      const State s = randomState(zero, r);
      Data dz(zero), dr(rigid);
      EXPECT_MATRIX_NEAR(massMatrix(zero, dz, s.q), massMatrix(rigid, dr, s.q), 1e-13);
      EXPECT_MATRIX_NEAR(forwardDynamics(zero, dz, s.q, s.v, s.tau), forwardDynamics(rigid, dr, s.q, s.v, s.tau), 1e-12);
    }
    const Model flex0 = flexibleArm(FlexModel::kFull, BaseMode::kFloating, 0);
    QCOMPARE(flex0.nflex, 3);  // only the array keeps its modes
    std::mt19937 rng(2);
    const State s = randomState(flex0, rng);
    Data d(flex0);
    // The two segments are rigid bodies: their rows behave as in a rigid model with the array's
    // modes; H is still consistent with inverse dynamics.
    const MatrixXd H = massMatrix(flex0, d, s.q);
    for (int k = 0; k < flex0.nv; ++k) {
      Model mz = flex0;
      mz.gravity_W.setZero();
      const VectorXd zero = VectorXd::Zero(flex0.nv);
      const VectorXd h0 = inverseDynamics(mz, d, s.q, zero, zero);
      const VectorXd col = inverseDynamics(mz, d, s.q, zero, VectorXd::Unit(flex0.nv, k)) - h0;
      EXPECT_MATRIX_NEAR(col, VectorXd(H.col(k)), 1e-10);
    }
  }

  void MassMatrix_IsSymmetricPositiveDefiniteAndEqualsInverseDynamicsColumns() {
    std::mt19937 rng(11);
    for (FlexModel fm : kModels) {
      const Model m = flexibleArm(fm);
      QCOMPARE(m.nflex, 2 * 4 + 3);
      Data d(m);
      const State s = randomState(m, rng);
      const MatrixXd H = massMatrix(m, d, s.q);
      EXPECT_MATRIX_NEAR(H, MatrixXd(H.transpose()), 1e-10);
      Eigen::SelfAdjointEigenSolver<MatrixXd> eig(H);
      QVERIFY2(eig.eigenvalues().minCoeff() > 0,
               qPrintable(QString("%1: min eigenvalue %2").arg(QString::fromStdString(std::string(flexModelName(fm)))).arg(eig.eigenvalues().minCoeff())));
      const VectorXd zero = VectorXd::Zero(m.nv);
      const VectorXd h0 = inverseDynamics(m, d, s.q, zero, zero);
      for (int k = 0; k < m.nv; ++k) {
        const VectorXd col = inverseDynamics(m, d, s.q, zero, VectorXd::Unit(m.nv, k)) - h0;
        EXPECT_MATRIX_NEAR(col, VectorXd(H.col(k)), 1e-9);
      }
    }
  }

  void ForwardDynamics_InvertsInverseDynamicsAndMatchesDenseSolve() {
    std::mt19937 rng(12);
    for (FlexModel fm : kModels) {
      for (BaseMode base : {BaseMode::kFixed, BaseMode::kFloating}) {
        const Model m = flexibleArm(fm, base, 2, Vector3(0, 1, 0));
        Data d(m);
        const State s = randomState(m, rng);
        const VectorXd tau = inverseDynamics(m, d, s.q, s.v, s.a);
        EXPECT_MATRIX_NEAR(forwardDynamics(m, d, s.q, s.v, tau), s.a, 1e-9);
        const MatrixXd H = massMatrix(m, d, s.q);
        const VectorXd h = nonlinearEffects(m, d, s.q, s.v);
        EXPECT_MATRIX_NEAR(forwardDynamics(m, d, s.q, s.v, s.tau), VectorXd(H.llt().solve(s.tau - h)), 1e-9);
      }
    }
  }

  // Twists of points on bodies at flexible tips, against finite differences of their positions.
  void Jacobian_MatchesFiniteDifferencesThroughDeformedTips() {
    std::mt19937 rng(13);
    for (FlexModel fm : {FlexModel::kFull, FlexModel::kNominalA, FlexModel::kNominalR}) {
      const Model m = flexibleArm(fm, BaseMode::kFloating, 2);
      Data d(m);
      const State s = randomState(m, rng);
      const int f = m.frameId("payload");
      const Vector3 p(0.3, -0.1, 0.2);
      forwardKinematics(m, d, s.q);
      const MatrixXd J = frameJacobian(m, d, f, p);
      const double eps = 1e-6;
      auto pose = [&](double h) {
        forwardKinematics(m, d, integrate(m, s.q, s.v, h));
        return framePose(m, d, f);
      };
      const Transform Xp = pose(eps), Xm = pose(-eps);
      Vector6 fd;
      fd.head<3>() = (Xp.act(p) - Xm.act(p)) / (2 * eps);
      fd.tail<3>() = logSO3(Xp.R * Xm.R.transpose()) / (2 * eps);
      forwardKinematics(m, d, s.q, s.v);
      if (fm == FlexModel::kFull) {
        // The exact kinematics: positions and velocities agree.
        EXPECT_MATRIX_NEAR(VectorXd(J * s.v), VectorXd(fd), 1e-7);
      }
      // The recursion's twist and the Jacobian agree for every model.
      EXPECT_MATRIX_NEAR(VectorXd(J * s.v), VectorXd(pointVelocityWorld(m, d, f, p)), 1e-11);
    }
  }

  // Energy: without damping or input, kinetic + elastic energy is conserved by the Lagrangian
  // models (flex, flex-M), to the integrator's accuracy, and the error shrinks with the step.
  void FreeVibration_ConservesEnergy() {
    std::mt19937 rng(14);
    for (FlexModel fm : {FlexModel::kFull, FlexModel::kConstantMass, FlexModel::kNominalA}) {
      const Model m = flexibleArm(fm, BaseMode::kFloating, 1);
      VectorXd q0 = neutralConfiguration(m);
      q0[m.flex[m.bodyOfJoint("j2")].idx_q + 1] = 0.05;  // a bend of segment 2
      VectorXd v0 = randomVector(rng, m.nv, 0.05);
      auto run = [&](double dt) {
        Data d(m);
        Rk4 rk4(m);
        VectorXd q = q0, v = v0;
        const double E0 = kineticEnergy(m, d, q, v) + general::elasticEnergy(m, q);
        double worst = 0;
        for (int k = 0; k < static_cast<int>(1.0 / dt); ++k) {
          rk4.step(m, d, k * dt, dt, q, v);
          worst = std::max(worst, std::abs(kineticEnergy(m, d, q, v) + general::elasticEnergy(m, q) - E0) / E0);
        }
        return worst;
      };
      const double e1 = run(1e-3), e2 = run(5e-4);
      qInfo("%s: relative energy drift over 1 s: %.2e at 1 ms, %.2e at 0.5 ms",
            std::string(flexModelName(fm)).c_str(), e1, e2);
      if (fm == FlexModel::kNominalA) {
        // Not a Lagrangian system (its kinematics ignore the tip offset): its energy error is a
        // model error and does not vanish with the step (thesis Table 5.1).
        QVERIFY(e2 > e1 / 4);
        continue;
      }
      QVERIFY(e1 < 2e-4);
      QVERIFY(e2 < e1 / 12);  // the integrator's error: fourth order or better
    }
  }

  // Momentum of a free-floating flexible robot: conserved up to the integrator's error, which
  // shrinks as h^4 or faster.
  void Floating_ConservesMomentum() {
    std::mt19937 rng(15);
    const Model m = flexibleArm(FlexModel::kFull, BaseMode::kFloating, 1);
    const VectorXd q0 = randomConfiguration(m, rng), v0 = randomVector(rng, m.nv, 0.1);
    auto run = [&](double dt) {
      VectorXd q = q0, v = v0;
      Data d(m);
      Rk4 rk4(m);
      const Vector6 h0 = momentum(m, d, q, v);
      double worst = 0;
      for (int k = 0; k < static_cast<int>(1.0 / dt); ++k) {
        rk4.step(m, d, k * dt, dt, q, v);
        worst = std::max(worst, (momentum(m, d, q, v) - h0).norm() / h0.norm());
      }
      return worst;
    };
    const double e1 = run(1e-3), e2 = run(5e-4), e3 = run(2.5e-4);
    qInfo("momentum drift over 1 s: %.2e, %.2e, %.2e at 1, 0.5, 0.25 ms", e1, e2, e3);
    QVERIFY(e2 < e1 / 12 && e3 < e2 / 12);
    QVERIFY(e3 < 1e-7);
  }
};

namespace {

// Hybrid dynamics by blocks of H, written out here independently of the library:
// H_ff q̈_f = x_f - h_f - H_fp x_p, τ_p = H_p· q̈ + h_p.
void hybridByBlocks(const MatrixXd& H, const VectorXd& h, const VectorXd& x,
                    const std::vector<int>& prescribed, VectorXd& ddq, VectorXd& tau) {
  const int n = static_cast<int>(x.size());
  std::vector<int> free;
  for (int i = 0; i < n; ++i) {
    if (std::find(prescribed.begin(), prescribed.end(), i) == prescribed.end()) free.push_back(i);
  }
  ddq = VectorXd::Zero(n);
  tau = x;
  for (int i : prescribed) ddq[i] = x[i];
  MatrixXd Hff(free.size(), free.size());
  VectorXd rhs(free.size());
  for (std::size_t a = 0; a < free.size(); ++a) {
    rhs[a] = x[free[a]] - h[free[a]];
    for (int p : prescribed) rhs[a] -= H(free[a], p) * x[p];
    for (std::size_t b = 0; b < free.size(); ++b) Hff(a, b) = H(free[a], free[b]);
  }
  const VectorXd af = Hff.llt().solve(rhs);
  for (std::size_t a = 0; a < free.size(); ++a) ddq[free[a]] = af[a];
  for (int p : prescribed) tau[p] = H.row(p).dot(ddq) + h[p];
}

}  // namespace

class TestHybridDynamics : public QObject {
  Q_OBJECT

 private slots:
  // Driven joints on flexible models (the O(n) articulated form): the accelerations and forces
  // equal the block solution through H, and forward dynamics with the computed forces gives the
  // prescribed accelerations back. With and without external wrenches.
  void FlexibleModels_MatchBlockSolutionAndForwardDynamics() {
    std::mt19937 rng(21);
    for (FlexModel fm : kModels) {
      for (BaseMode base : {BaseMode::kFixed, BaseMode::kFloating}) {
        const Model m = flexibleArm(fm, base, 2, Vector3(0, 1, 0));
        Data d(m);
        const State s = randomState(m, rng);
        const int nb = m.baseDofs();
        // Drive j2 only, then j1 and j2 (whole joints); modal forces and base wrench given.
        for (const std::vector<int>& prescribed :
             {std::vector<int>{m.joint[m.bodyOfJoint("j2")].idx_v},
              std::vector<int>{m.joint[m.bodyOfJoint("j1")].idx_v, m.joint[m.bodyOfJoint("j2")].idx_v}}) {
          VectorXd x = randomVector(rng, m.nv, 2.0);
          if (nb) x.head(nb) = randomVector(rng, nb, 20.0);
          BodyWrenches fext(m.nbodies, Vector6::Zero());
          fext[m.nbodies - 1] = randomVector(rng, 6, 3.0);
          for (const BodyWrenches* f : {static_cast<const BodyWrenches*>(nullptr), static_cast<const BodyWrenches*>(&fext)}) {
            const VectorXd tau = hybridDynamics(m, d, s.q, s.v, x, prescribed, f);
            const VectorXd ddq = d.ddq;
            VectorXd ddq_ref, tau_ref;
            const MatrixXd H = massMatrix(m, d, s.q);
            const VectorXd h = nonlinearEffects(m, d, s.q, s.v, f);
            hybridByBlocks(H, h, x, prescribed, ddq_ref, tau_ref);
            EXPECT_MATRIX_NEAR(ddq, ddq_ref, 1e-9);
            EXPECT_MATRIX_NEAR(tau, tau_ref, 1e-9);
            EXPECT_MATRIX_NEAR(forwardDynamics(m, d, s.q, s.v, tau, f), ddq, 1e-9);
          }
        }
      }
    }
  }

  // A modal coordinate prescribed (not a whole joint) takes the path through H; rigid random
  // trees with a random subset of driven coordinates, on every base mode, too.
  void PartialAndRigidCases_InvertForwardDynamics() {
    std::mt19937 rng(22);
    const Model flex = flexibleArm(FlexModel::kFull, BaseMode::kFloating, 1);
    std::vector<Model> models{flex};
    for (BaseMode base : {BaseMode::kFixed, BaseMode::kFloating, BaseMode::kFlying}) {
      grapple::test::RandomTreeOptions o;
      o.links = 8;
      o.base = base;
      models.push_back(grapple::test::randomTree(rng, o));
    }
    for (const Model& m : models) {
      for (bool general : {false, true}) {
        Data d(m, general);
        const State s = randomState(m, rng);
        std::vector<int> prescribed;
        for (int i = 0; i < m.nv; ++i) {
          if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.5) prescribed.push_back(i);
        }
        if (&m == &models.front()) prescribed.push_back(m.flex[m.bodyOfJoint("j1")].idx_v);
        std::sort(prescribed.begin(), prescribed.end());
        prescribed.erase(std::unique(prescribed.begin(), prescribed.end()), prescribed.end());
        const VectorXd x = randomVector(rng, m.nv, 1.0);
        const VectorXd tau = hybridDynamics(m, d, s.q, s.v, x, prescribed);
        const VectorXd ddq = d.ddq;
        for (int i : prescribed) QCOMPARE(ddq[i], x[i]);
        EXPECT_MATRIX_NEAR(forwardDynamics(m, d, s.q, s.v, tau), ddq, 1e-8);
      }
    }
  }

  // Every joint of a rigid model driven (the inverse-dynamics fast paths): the same as the blocks.
  void AllJointsDriven_EqualsInverseDynamics() {
    std::mt19937 rng(23);
    for (BaseMode base : {BaseMode::kFixed, BaseMode::kFloating}) {
      grapple::test::RandomTreeOptions o;
      o.links = 10;
      o.base = base;
      const Model m = grapple::test::randomTree(rng, o);
      Data d(m);
      const State s = randomState(m, rng);
      const int nb = m.baseDofs();
      std::vector<int> prescribed;
      for (int i = nb; i < m.nv; ++i) prescribed.push_back(i);
      VectorXd x = randomVector(rng, m.nv, 1.0);
      x.head(nb).setZero();
      const VectorXd tau = hybridDynamics(m, d, s.q, s.v, x, prescribed);
      const VectorXd ddq = d.ddq;
      VectorXd ddq_ref, tau_ref;
      hybridByBlocks(massMatrix(m, d, s.q), nonlinearEffects(m, d, s.q, s.v), x, prescribed, ddq_ref, tau_ref);
      EXPECT_MATRIX_NEAR(ddq, ddq_ref, 1e-9);
      EXPECT_MATRIX_NEAR(tau, tau_ref, 1e-9);
    }
  }

  void BadArguments_Throw() {
    const Model m = flexibleArm(FlexModel::kFull);
    Data d(m);
    const VectorXd q = neutralConfiguration(m), v = VectorXd::Zero(m.nv);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hybridDynamics(m, d, q, v, VectorXd::Zero(3), {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hybridDynamics(m, d, q, v, VectorXd::Zero(m.nv), {7, 6}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hybridDynamics(m, d, q, v, VectorXd::Zero(m.nv), {m.nv}));
  }
};

int main(int argc, char** argv) {
  int status = 0;
  {
    TestFlexible t;
    status |= QTest::qExec(&t, argc, argv);
  }
  {
    TestHybridDynamics t;
    status |= QTest::qExec(&t, argc, argv);
  }
  return status;
}
#include "test_flexible.moc"
