// Linear fractional transformations (core/analysis/lft, thesis §8.3): the minimal rotation LFTs in
// σ2 and σ4 against R_z(θ) itself, every operation of the algebra against the same operation on
// the evaluated matrices, the star product against nested lower LFTs, and the mass matrix's LFT
// against the model's composite-body mass matrix at sampled configurations.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/analysis/lft.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "tests/support/thesis_configurations.hpp"

using namespace grapple::core;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

Eigen::Matrix3d rz(double t) {
  Eigen::Matrix3d R;
  R << std::cos(t), -std::sin(t), 0, std::sin(t), std::cos(t), 0, 0, 0, 1;
  return R;
}

// A random LFT of size p x m in parameters 0..np-1, with nd channels of Δ (small M11: well posed
// for parameters below 1).
Lft randomLft(std::mt19937& rng, int p, int m, int nd, int np) {
  std::normal_distribution<double> g;
  auto rnd = [&](int r, int c, double s) {
    Eigen::MatrixXd x(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) x(i, j) = s * g(rng);
    return x;
  };
  Lft l;
  l.M11 = rnd(nd, nd, 0.2);
  l.M12 = rnd(nd, m, 1);
  l.M21 = rnd(p, nd, 1);
  l.M22 = rnd(p, m, 1);
  for (int i = 0; i < nd; ++i) l.param.push_back(static_cast<int>(rng() % static_cast<unsigned>(np)));
  return l;
}

double relErr(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / std::max(1.0, b.norm()); }

std::vector<int> revoluteBodies(const Model& m) {
  std::vector<int> b;
  for (int i = 1; i < m.nbodies; ++i) {
    if (m.joint[i].type == JointType::kRevolute) b.push_back(i);
  }
  return b;
}

}  // namespace

class TestLft : public QObject {
  Q_OBJECT

 private slots:
  // The upper LFT of eqs. 8.20 and 8.23 is R_z(θ) at θ = σ's angle (the thesis' claim of exactness).
  void Rotation_ReproducesRz() {
    for (RotationParameter f : {RotationParameter::kTan2, RotationParameter::kTan4}) {
      const Lft r = rotationZ(f, 0);
      QCOMPARE(r.deltaSize(), f == RotationParameter::kTan2 ? 2 : 4);
      for (double t : {0.3, 1.2, 2.5, -2.9, 3.1, 0.0, -1e-3}) {
        const Eigen::VectorXd s = Eigen::VectorXd::Constant(1, rotationParameter(f, t));
        QVERIFY2((r.evaluate(s) - rz(t)).cwiseAbs().maxCoeff() < 1e-15, qPrintable(QString::number(t)));
        QVERIFY(std::abs(rotationAngle(f, s[0]) - t) < 1e-15);
        // R_z(θ)ᵀ = R_z(-θ) through the transposed LFT.
        QVERIFY((r.transpose().evaluate(s) - rz(-t)).cwiseAbs().maxCoeff() < 1e-15);
      }
    }
  }

  // Each operation on LFTs evaluates to the same operation on the evaluated matrices.
  void Algebra_MatchesEvaluatedMatrices() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
      const Lft a = randomLft(rng, 3, 3, 4, 3), b = randomLft(rng, 3, 3, 3, 3), c = randomLft(rng, 3, 2, 2, 3);
      Eigen::VectorXd s(3);
      for (int k = 0; k < 3; ++k) s[k] = u(rng);
      const Eigen::MatrixXd A = a.evaluate(s), B = b.evaluate(s), C = c.evaluate(s);
      Eigen::MatrixXd K(4, 3);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) K(i, j) = u(rng);
      QVERIFY(relErr((a + b).evaluate(s), A + B) < 1e-12);
      QVERIFY(relErr((a - b).evaluate(s), A - B) < 1e-12);
      QVERIFY(relErr((a * b).evaluate(s), A * B) < 1e-12);
      QVERIFY(relErr((a * c).evaluate(s), A * C) < 1e-12);
      QVERIFY(relErr((K * a).evaluate(s), K * A) < 1e-12);
      QVERIFY(relErr((a * K.transpose()).evaluate(s), A * K.transpose()) < 1e-12);
      QVERIFY(relErr(a.transpose().evaluate(s), A.transpose()) < 1e-12);
      QVERIFY(relErr(a.inverse().evaluate(s), A.inverse()) < 1e-10);
      Eigen::MatrixXd H(3, 5), V(6, 3), Bd = Eigen::MatrixXd::Zero(6, 5);
      H << A, C;
      V << A, B;
      Bd.topLeftCorner(3, 3) = A;
      Bd.bottomRightCorner(3, 2) = C;
      QVERIFY(relErr(horizontalConcat(a, c).evaluate(s), H) < 1e-12);
      QVERIFY(relErr(verticalConcat(a, b).evaluate(s), V) < 1e-12);
      QVERIFY(relErr(blockDiagonal(a, c).evaluate(s), Bd) < 1e-12);
      QVERIFY(relErr(a.grouped().evaluate(s), A) < 1e-12);
      QVERIFY(relErr(a.block({2, 0}, {1}).evaluate(s), A(std::vector<int>{2, 0}, std::vector<int>{1})) < 1e-12);
      // Normalization: the same function of δ with σ = c + r δ.
      Eigen::VectorXd cen(3), rad(3), d(3);
      for (int k = 0; k < 3; ++k) {
        cen[k] = 0.5 * u(rng);
        rad[k] = 0.3 + 0.2 * u(rng);
        d[k] = u(rng);
      }
      const Eigen::VectorXd sig = cen + rad.cwiseProduct(d);
      QVERIFY(relErr(a.normalized(cen, rad).evaluate(d), a.evaluate(sig)) < 1e-11);
      // The upper LFT of complex matrices agrees with evaluate.
      Eigen::MatrixXd Mfull(7, 7);
      Mfull << a.M11, a.M12, a.M21, a.M22;
      Eigen::VectorXd dg(4);
      for (int i = 0; i < 4; ++i) dg[i] = s[a.param[i]];
      const Eigen::MatrixXcd Delta = dg.asDiagonal().toDenseMatrix().cast<std::complex<double>>();
      QVERIFY(relErr(upperLft(Mfull.cast<std::complex<double>>(), Delta).real(), A) < 1e-12);
    }
  }

  // F_l(P ⋆ Q, K) = F_l(P, F_l(Q, K)): the star product against nested lower LFTs.
  void StarProduct_IsNestedLowerLft() {
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    auto rnd = [&](int r, int c) {
      Eigen::MatrixXcd x(r, c);
      for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) x(i, j) = {0.5 * g(rng), 0.5 * g(rng)};
      return x;
    };
    for (int trial = 0; trial < 10; ++trial) {
      // P: [e(2); y(3)] <- [w(2); u(2)]; Q: [u(2); z(2)] <- [y(3); v(1)]; K: v(1) <- z(2).
      const Eigen::MatrixXcd P = rnd(5, 4), Q = rnd(4, 4), K = rnd(1, 2);
      const Eigen::MatrixXcd S = starProduct(P, Q, 3, 2);
      QCOMPARE(S.rows(), 4);
      QCOMPARE(S.cols(), 3);
      const Eigen::MatrixXcd nested = lowerLft(P, lowerLft(Q, K));
      QVERIFY((lowerLft(S, K) - nested).norm() < 1e-12 * std::max(1.0, nested.norm()));
    }
  }

  // D(q) as an LFT in the revolute joints' σ2 or σ4 equals the model's mass matrix (composite
  // bodies) at sampled configurations, to round-off; 8 (σ2) or 16 (σ4) channels per joint.
  void MassMatrix_MatchesModel() {
    for (const char* file : {"mda_deos.yaml", "planar_2dof.yaml", "valverde_three_joint.yaml"}) {
      const Model m = loadModelFile(kSource + "/scenarios/robots/" + file);
      Data d(m);
      const std::vector<int> joints = revoluteBodies(m);
      std::mt19937 rng(11);
      std::uniform_real_distribution<double> u(-3.1, 3.1);
      for (RotationParameter f : {RotationParameter::kTan2, RotationParameter::kTan4}) {
        const Lft D = massMatrixLft(m, grapple::test::armConfiguration(m, {}), joints, f);
        QCOMPARE(D.deltaSize(), static_cast<Eigen::Index>(joints.size()) * (f == RotationParameter::kTan2 ? 8 : 16));
        for (std::size_t i = 1; i < D.param.size(); ++i) QVERIFY(D.param[i - 1] <= D.param[i]);  // grouped
        double worst = 0;
        for (int sample = 0; sample < 20; ++sample) {
          std::vector<double> angles;
          Eigen::VectorXd s(static_cast<Eigen::Index>(joints.size()));
          for (std::size_t k = 0; k < joints.size(); ++k) {
            angles.push_back(u(rng));
            s[static_cast<Eigen::Index>(k)] = rotationParameter(f, angles.back());
          }
          const Eigen::MatrixXd H = massMatrix(m, d, grapple::test::armConfiguration(m, angles));
          worst = std::max(worst, relErr(D.evaluate(s), H) * std::max(1.0, H.norm()) / H.norm());
        }
        qInfo("%s %s: largest relative difference %.2e", file, f == RotationParameter::kTan2 ? "sigma2" : "sigma4", worst);
        QVERIFY(worst < 1e-12);
      }
    }
  }

  // Some joints uncertain, the others fixed at q: still the model's mass matrix.
  void MassMatrix_SomeJointsFixed() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    Data d(m);
    const std::vector<int> all = revoluteBodies(m);
    const std::vector<int> some{all[1], all[3]};
    Eigen::VectorXd q = grapple::test::armConfiguration(m, grapple::test::kThesisQ2);
    const Lft D = massMatrixLft(m, q, some, RotationParameter::kTan2);
    QCOMPARE(D.deltaSize(), 16);
    const double t1 = -0.7, t3 = 2.0;
    q[m.joint[some[0]].idx_q] = t1;
    q[m.joint[some[1]].idx_q] = t3;
    Eigen::VectorXd s(2);
    s << std::tan(t1 / 2), std::tan(t3 / 2);
    const Eigen::MatrixXd H = massMatrix(m, d, q);
    QVERIFY((D.evaluate(s) - H).norm() < 1e-12 * H.norm());
  }

  void BadInput() {
    const Model flex = loadModelFile(kSource + "/scenarios/robots/planar_2dof_flex.yaml");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, massMatrixLft(flex, Eigen::VectorXd::Zero(flex.nq), {1}, RotationParameter::kTan2));
    const Model m = loadModelFile(kSource + "/scenarios/robots/mda_deos.yaml");
    const Eigen::VectorXd q = grapple::test::armConfiguration(m, {});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, massMatrixLft(m, q, {0}, RotationParameter::kTan2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, massMatrixLft(m, q, {1, 1}, RotationParameter::kTan2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, massMatrixLft(m, Eigen::VectorXd::Zero(3), {1}, RotationParameter::kTan2));
    const Lft a = Lft::constant(Eigen::MatrixXd::Zero(2, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.inverse());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a + Lft::constant(Eigen::MatrixXd::Zero(3, 3)));
  }
};

QTEST_APPLESS_MAIN(TestLft)
#include "test_lft.moc"
