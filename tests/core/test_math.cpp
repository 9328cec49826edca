// core/math: every operator against its explicit matrix, every conversion against its inverse,
// and the DH conventions against the thesis' equivalence rule.
#include <QtTest>

#include <random>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include "core/math/dh.hpp"
#include "core/math/rotation.hpp"
#include "core/math/sincos.hpp"
#include "core/math/small_cholesky.hpp"
#include "core/math/spatial.hpp"
#include "tests/support/compare.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;

namespace {

std::mt19937 rng(1234);
double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
Vector3 randomVector3(double s = 1.0) { return {uniform(-s, s), uniform(-s, s), uniform(-s, s)}; }
Vector6 randomVector6() {
  Vector6 x;
  for (int k = 0; k < 6; ++k) x[k] = uniform(-1, 1);
  return x;
}
Transform randomTransform() { return {expSO3(randomVector3(3.0)), randomVector3(2.0)}; }

}  // namespace

class TestMath : public QObject {
  Q_OBJECT

 private slots:
  // The fast sin/cos of the joint recursions against the C library: within 2 ulp of 1.
  void SinCos_MatchesLibm() {
    double worst = 0;
    auto check = [&](double x) {
      double s, c;
      sinCos(x, s, c);
      worst = std::max({worst, std::abs(s - std::sin(x)), std::abs(c - std::cos(x))});
    };
    for (int k = 0; k < 200000; ++k) check(uniform(-50, 50));
    for (int k = -2000; k <= 2000; ++k) {  // near the multiples of π/4 where the quadrants change
      check(k * M_PI / 4);
      check(std::nextafter(k * M_PI / 4, 1e9));
      check(std::nextafter(k * M_PI / 4, -1e9));
    }
    for (double x : {0.0, -0.0, 1e-300, 3e4, -99999.9, 2e5, 1e300}) check(x);
    QVERIFY2(worst <= 4.5e-16, qPrintable(QString::number(worst)));
    double s, c;
    sinCos(std::nan(""), s, c);
    QVERIFY(std::isnan(s) && std::isnan(c));
  }

  void Quaternion_MatrixRoundTrip() {
    for (int k = 0; k < 200; ++k) {
      const Matrix3 R = expSO3(randomVector3(3.0));
      const Vector4 q = matrixToQuat(R);
      QVERIFY(q[0] >= 0);
      EXPECT_MATRIX_NEAR(quatToMatrix(q), R, 1e-14);
    }
    // 180° rotations, where the trace is -1.
    for (const Vector3 axis : {Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ()}) {
      const Matrix3 R = axisAngle(axis, M_PI);
      EXPECT_MATRIX_NEAR(quatToMatrix(matrixToQuat(R)), R, 1e-14);
    }
  }

  // Hamilton convention, scalar first: a 90° rotation about z maps x to y, and composition
  // matches matrix products.
  void Quaternion_HamiltonConvention() {
    const Vector4 qz(std::cos(M_PI / 4), 0, 0, std::sin(M_PI / 4));
    EXPECT_MATRIX_NEAR(Vector3(quatToMatrix(qz) * Vector3::UnitX()), Vector3(Vector3::UnitY()), 1e-15);
    for (int k = 0; k < 50; ++k) {
      const Vector4 a = quatExp(randomVector3(2)), b = quatExp(randomVector3(2));
      EXPECT_MATRIX_NEAR(quatToMatrix(quatMultiply(a, b)), Matrix3(quatToMatrix(a) * quatToMatrix(b)), 1e-14);
    }
  }

  void Quaternion_ExpLogAndRate() {
    for (int k = 0; k < 100; ++k) {
      const Vector3 phi = randomVector3(1.5);
      EXPECT_MATRIX_NEAR(quatLog(quatExp(phi)), phi, 1e-13);
      EXPECT_MATRIX_NEAR(quatToMatrix(quatExp(phi)), expSO3(phi), 1e-14);
      // dQ/dt = ½ Q ⊗ [0; ω] is the derivative of Q ⊗ exp(ω t).
      const Vector4 Q = quatExp(randomVector3(2));
      const Vector3 w = randomVector3();
      const double h = 1e-6;
      const Vector4 fd = (quatMultiply(Q, quatExp(w * h)) - quatMultiply(Q, quatExp(-w * h))) / (2 * h);
      EXPECT_MATRIX_NEAR(quatRateBody(Q, w), fd, 1e-9);
    }
    EXPECT_MATRIX_NEAR(quatLog(Vector4(1, 0, 0, 0)), Vector3::Zero(), 0.0);
  }

  void Rpy_IsThreeTwoOneAndRoundTrips() {
    for (int k = 0; k < 100; ++k) {
      const Vector3 rpy(uniform(-3, 3), uniform(-1.5, 1.5), uniform(-3, 3));
      const Matrix3 R = rpyToMatrix(rpy);
      EXPECT_MATRIX_NEAR(R, Matrix3(rotZ(rpy.z()) * rotY(rpy.y()) * rotX(rpy.x())), 1e-15);
      EXPECT_MATRIX_NEAR(matrixToRpy(R), rpy, 1e-12);
    }
    // Thesis eq. 4.2, entry (3,1) = -sin(pitch), (1,1) = cos(pitch) cos(yaw).
    const Matrix3 R = rpyToMatrix(Vector3(0.1, 0.2, 0.3));
    QCOMPARE_LE(std::abs(R(2, 0) + std::sin(0.2)), 1e-15);
    QCOMPARE_LE(std::abs(R(0, 0) - std::cos(0.2) * std::cos(0.3)), 1e-15);
  }

  void Se3_ExpLogRoundTrip() {
    for (int k = 0; k < 100; ++k) {
      const Vector6 xi = randomVector6() * 2.0;
      const Transform X = expSE3(xi);
      EXPECT_MATRIX_NEAR(logSE3(X), xi, 1e-12);
      // A constant body twist: d/dt X(t) at t = 0 is the twist.
      const double h = 1e-6;
      const Transform Xp = expSE3(xi * h), Xm = expSE3(-xi * h);
      EXPECT_MATRIX_NEAR(Vector3((Xp.p - Xm.p) / (2 * h)), Vector3(xi.head<3>()), 1e-9);
    }
  }

  // The twist-propagation operators against the explicit 6x6 matrix A of thesis eq. 4.29-4.31.
  void Spatial_OperatorsMatchExplicitMatrices() {
    for (int k = 0; k < 100; ++k) {
      const Transform X = randomTransform();
      const Matrix6 A = motionToChildMatrix(X);
      const Vector6 t = randomVector6(), w = randomVector6();
      EXPECT_MATRIX_NEAR(motionToChild(X, t), Vector6(A * t), 1e-14);
      EXPECT_MATRIX_NEAR(motionToParent(X, t), Vector6(A.inverse() * t), 1e-13);
      EXPECT_MATRIX_NEAR(forceToParent(X, w), Vector6(A.transpose() * w), 1e-14);
      EXPECT_MATRIX_NEAR(forceToChild(X, w), Vector6(A.transpose().inverse() * w), 1e-13);
      // Power is frame-invariant: t_P · w_P = t_C · w_C.
      QCOMPARE_LE(std::abs(t.dot(forceToParent(X, w)) - motionToChild(X, t).dot(w)), 1e-13);
      Matrix6 M = Matrix6::Random();
      EXPECT_MATRIX_NEAR(congruenceToParent(X, M), Matrix6(A.transpose() * M * A), 1e-13);
      M = M + M.transpose().eval();
      EXPECT_MATRIX_NEAR(congruenceToParentSymmetric(X, M), Matrix6(A.transpose() * M * A), 1e-13);
      // The accumulation adds to what is there, every entry (the AVX2 path stores whole columns).
      Matrix6 acc = Matrix6::Random();
      const Matrix6 before = acc;
      addCongruenceToParentSymmetric(X, M, acc);
      EXPECT_MATRIX_NEAR(acc, Matrix6(before + A.transpose() * M * A), 1e-13);
    }
  }

  // The free base's 6x6 solve by its 3x3 blocks against Eigen's LDLT, on spatial inertias
  // (rigid bodies' and articulated ones', their blocks in mixed units) and on random positive
  // definite matrices; NaN for a matrix that is not positive definite.
  void BlockSolve6_MatchesLdlt() {
    for (int k = 0; k < 200; ++k) {
      Matrix6 M;
      if (k % 2 == 0) {
        // A body's inertia plus what a child on a revolute joint (axis k) adds to it,
        // I_c - I_c e_k e_kᵀ I_c / (I_c,kk + armature), carried across the joint's placement.
        auto body = [] {
          const double mass = 0.01 + 100 * std::abs(Eigen::Vector3d::Random()[0]);
          Eigen::Matrix3d J = Eigen::Matrix3d::Random();
          J = J * J.transpose() * mass + 1e-4 * Eigen::Matrix3d::Identity();
          return Matrix6(Inertia::FromCom(mass, 3 * Eigen::Vector3d::Random(), J).matrix());
        };
        const Matrix6 child = body();
        const int axis = 3 + k % 3;
        const Vector6 u = child.col(axis);
        const Matrix6 articulated = child - u * u.transpose() / (u[axis] + 0.1);
        M = body() + congruenceToParentSymmetric(randomTransform(), articulated);
      } else {
        Matrix6 A = Matrix6::Random();
        M = A * A.transpose() + 1e-2 * Matrix6::Identity();
      }
      BlockSolve6 s;
      s.compute(M);
      const Vector6 b = randomVector6();
      const Vector6 x = M.ldlt().solve(b);
      QVERIFY2((s.solve(b) - x).norm() <= 1e-11 * x.norm(), std::to_string(k).c_str());
    }
    Matrix6 indefinite = Matrix6::Identity();
    indefinite(4, 4) = -1;
    BlockSolve6 s;
    s.compute(indefinite);
    QVERIFY(s.solve(Vector6::Ones()).hasNaN());
    indefinite = Matrix6::Identity();
    indefinite(1, 1) = indefinite(2, 2) = -1;  // det(A) > 0, A not positive definite
    s.compute(indefinite);
    QVERIFY(s.solve(Vector6::Ones()).hasNaN());
  }

  void Spatial_CrossProducts() {
    for (int k = 0; k < 50; ++k) {
      const Vector6 t = randomVector6(), m = randomVector6(), f = randomVector6();
      EXPECT_MATRIX_NEAR(crossMotion(t, m), Vector6(crossMotionMatrix(t) * m), 1e-15);
      EXPECT_MATRIX_NEAR(crossForce(t, f), Vector6(crossForceMatrix(t) * f), 1e-15);
      EXPECT_MATRIX_NEAR(crossForceMatrix(t), Matrix6(-crossMotionMatrix(t).transpose()), 0.0);
      // Each component of t x t is a difference a*b - b*a of equal products: zero exactly when
      // both are rounded, but a compiler that fuses them (FMA contraction, clang's default)
      // leaves the rounding error of one, at most half an ulp of |a*b| <= |t|^2.
      EXPECT_MATRIX_NEAR(crossMotion(t, t), Vector6::Zero(), 2 * std::numeric_limits<double>::epsilon() * t.squaredNorm());
    }
  }

  // M t = [momentum; angular momentum about O] of a rigid body, and A^T M A moves it.
  void Inertia_MatrixMomentumAndShift() {
    for (int k = 0; k < 50; ++k) {
      const double m = uniform(0.5, 10);
      const Vector3 c = randomVector3();
      const Inertia I = Inertia::FromCom(m, c, grapple::test::randomInertiaAboutCom(rng, m));
      const Vector6 t = randomVector6();
      EXPECT_MATRIX_NEAR(Vector6(I * t), Vector6(I.matrix() * t), 1e-13);
      const Vector3 v_G = t.head<3>() + t.tail<3>().cross(c);
      EXPECT_MATRIX_NEAR(Vector3((I * t).head<3>()), Vector3(m * v_G), 1e-13);
      EXPECT_MATRIX_NEAR(I.com(), c, 1e-14);
      const Transform X = randomTransform();
      const Matrix6 A = motionToChildMatrix(X);
      EXPECT_MATRIX_NEAR(I.toParent(X).matrix(), Matrix6(A.transpose() * I.matrix() * A), 1e-12);
    }
  }

  // Thesis App. A.1: [d_{i+1} a_{i+1} α_{i+1} θ_{i+1}]_Adapted = [d_i a_i α_i θ_{i+1}]_Classic,
  // so a chain of adapted transforms equals the classic chain with shifted indices:
  //   Rz(θ1) · Π_{i=2..n} A(d_i, a_i, α_i, θ_i) · Tz(d_{n+1}) Tx(a_{n+1}) Rx(α_{n+1})
  //   = Π_{i=1..n} C(d_{i+1}, a_{i+1}, α_{i+1}, θ_i)
  void Dh_AdaptedEqualsClassicWithShiftedIndices() {
    for (int trial = 0; trial < 20; ++trial) {
      const int n = 5;
      std::vector<double> d(n + 2), a(n + 2), alpha(n + 2), theta(n + 2);
      for (int i = 0; i < n + 2; ++i) {
        d[i] = uniform(-1, 1);
        a[i] = uniform(0, 2);
        alpha[i] = uniform(-3, 3);
        theta[i] = uniform(-3, 3);
      }
      Transform adapted = dhAdapted(0, 0, 0, theta[1]);
      for (int i = 2; i <= n; ++i) adapted = adapted * dhAdapted(d[i], a[i], alpha[i], theta[i]);
      adapted = adapted * dhAdapted(d[n + 1], a[n + 1], alpha[n + 1], 0.0);
      Transform classic;
      for (int i = 1; i <= n; ++i) classic = classic * dhClassic(d[i + 1], a[i + 1], alpha[i + 1], theta[i]);
      EXPECT_MATRIX_NEAR(adapted.R, classic.R, 1e-13);
      EXPECT_MATRIX_NEAR(adapted.p, classic.p, 1e-13);
    }
    // Thesis eq. 4.23: the offset expressed in R_i.
    const double d = 0.3, a = 0.7, al = 0.4, th = 1.1;
    const Transform T = dhAdapted(d, a, al, th);
    const Vector3 p_i(a * std::cos(th) + d * std::sin(th) * std::sin(al),
                      -a * std::sin(th) + d * std::cos(th) * std::sin(al), d * std::cos(al));
    EXPECT_MATRIX_NEAR(Vector3(T.R.transpose() * T.p), p_i, 1e-15);
    // Modified DH: Rot(α,X) Trans(a,X) Rot(θ,Z) Trans(d,Z).
    const Transform Mod = dhModified(d, a, al, th);
    const Transform expect = Transform{rotX(al), Vector3::Zero()} * Transform{Matrix3::Identity(), Vector3(a, 0, 0)} *
                             Transform{rotZ(th), Vector3::Zero()} * Transform{Matrix3::Identity(), Vector3(0, 0, d)};
    EXPECT_MATRIX_NEAR(Mod.p, expect.p, 1e-15);
    EXPECT_MATRIX_NEAR(Mod.R, expect.R, 1e-15);
  }

  // The small Cholesky solve against the residual of the system and Eigen's LLT, for sizes and
  // numbers of right-hand sides around its four-wide kernel; a matrix with a negative eigenvalue
  // is reported, and a refactorization in the same storage allocates nothing new (same answers).
  void SmallCholesky_SolvesAndReportsIndefinite() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int n : {1, 3, 6, 21, 30}) {
      for (int k : {1, 3, 4, 5, 7, 9}) {
        const Eigen::MatrixXd G = Eigen::MatrixXd::NullaryExpr(n, n, [&] { return u(rng); });
        const Eigen::MatrixXd A = G * G.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n);
        const Eigen::MatrixXd B = Eigen::MatrixXd::NullaryExpr(n, k, [&] { return u(rng); });
        SmallCholesky chol;
        chol.compute(A);
        QVERIFY(chol.positiveDefinite());
        Eigen::MatrixXd X = B;
        chol.solveInPlace(X);
        const Eigen::MatrixXd reference = A.llt().solve(B);
        QVERIFY2((A * X - B).norm() <= 1e-10 * A.norm() * X.norm(), qPrintable(QString("n %1, k %2").arg(n).arg(k)));
        EXPECT_MATRIX_NEAR(X, reference, 1e-9 * reference.norm());
        Eigen::MatrixXd scratch = A;  // factored in its storage: the same factor
        chol.compute(std::move(scratch));
        Eigen::MatrixXd Y = B;
        chol.solveInPlace(Y);
        QVERIFY(Y == X);
      }
    }
    Eigen::Matrix3d indefinite = Eigen::Vector3d(2, -1, 3).asDiagonal();
    SmallCholesky chol;
    chol.compute(Eigen::MatrixXd(indefinite));
    QVERIFY(!chol.positiveDefinite());
  }
};

QTEST_APPLESS_MAIN(TestMath)
#include "test_math.moc"
