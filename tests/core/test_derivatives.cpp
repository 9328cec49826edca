// The analytical derivatives of the rigid dynamics (core/dynamics/derivatives.hpp) against central
// finite differences of Grapple's own inverse and forward dynamics (q moved through integrate(),
// the tangent space the derivatives are defined in), on the shipped rigid chaser (floating and
// fixed base), the Canadarm, and random trees with every joint type, mimic joints, gravity and
// external wrenches; and exact identities: ∂τ/∂a = H from the composite-body algorithm,
// (∂τ/∂v) v = 2 C v, ∂τ/∂v = 2 C in generalized coordinates, ∂τ/∂v = 0 at rest.
#include <QtTest>

#include <random>
#include <set>

#include <Eigen/Cholesky>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/coriolis.hpp"
#include "core/dynamics/derivatives.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
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
  BodyWrenches fext;  // empty: none
  const BodyWrenches* wrenches() const { return fext.empty() ? nullptr : &fext; }
};

Model robot(const std::string& file, std::optional<BaseMode> base = std::nullopt) {
  const std::string path = std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/robots/" + file;
  ModelBuilder b = readModelYaml(yaml::Reader(path), yaml::loadFile(path)["model"]);
  if (base) b.setBaseMode(*base);
  return b.build();
}

std::vector<Case> makeCases() {
  std::vector<Case> cases;
  std::mt19937 rng(20261127);
  cases.push_back({"mda_deos/floating", robot("mda_deos.yaml"), {}, {}, {}, {}, {}});
  cases.push_back({"mda_deos/fixed", robot("mda_deos.yaml", BaseMode::kFixed), {}, {}, {}, {}, {}});
  cases.push_back({"canadarm/fixed", robot("canadarm.yaml"), {}, {}, {}, {}, {}});
  int k = 0;
  for (BaseMode mode : {BaseMode::kFixed, BaseMode::kFloating, BaseMode::kFlying}) {
    for (int links : {1, 2, 4, 8, 15}) {
      for (double mimic : {0.0, 0.4}) {
        RandomTreeOptions o;
        o.links = links;
        o.base = mode;
        o.mimic_fraction = mimic;
        cases.push_back({std::string(baseModeName(mode)) + "/" + std::to_string(links) + (mimic > 0 ? "/mimic" : ""),
                         grapple::test::randomTree(rng, o), {}, {}, {}, {}, {}});
        // Every other tree under gravity, every third with external wrenches.
        if (++k % 2 == 0) cases.back().model.gravity_W = Vector3(0.3, -1.2, -9.81);
        if (k % 3 == 0) cases.back().name += "/fext";
      }
    }
  }
  for (Case& c : cases) {
    const int n = c.model.nv;
    c.q = randomConfiguration(c.model, rng);
    c.v = randomVector(rng, n);
    c.a = randomVector(rng, n);
    c.tau = randomVector(rng, n, 10.0);
    if (c.name.find("/fext") != std::string::npos) {
      for (int i = 0; i < c.model.nbodies; ++i) c.fext.push_back(Vector6(randomVector(rng, 6, 5.0)));
    }
  }
  return cases;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = makeCases();
  return all;
}

constexpr double kStep = 1e-6;  // central differences: error ~ step² (truncation) + ε/step (rounding)

// Central differences of f along each velocity coordinate: q moved through integrate().
template <typename F>
MatrixXd diffQ(const Model& m, const VectorXd& q, F f) {
  MatrixXd D(m.nv, m.nv);
  for (int k = 0; k < m.nv; ++k) {
    const VectorXd e = VectorXd::Unit(m.nv, k);
    D.col(k) = (f(integrate(m, q, e, kStep)) - f(integrate(m, q, e, -kStep))) / (2 * kStep);
  }
  return D;
}

template <typename F>
MatrixXd diffV(const VectorXd& x, F f) {
  MatrixXd D(x.size(), x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    VectorXd xp = x, xm = x;
    xp[k] += kStep;
    xm[k] -= kStep;
    D.col(k) = (f(xp) - f(xm)) / (2 * kStep);
  }
  return D;
}

// Whether q̇ = v for every coordinate (no spherical or free joint): then the coordinates are
// generalized coordinates and the Christoffel-consistent C is the classical one.
bool generalizedCoordinates(const Model& m) {
  for (const Joint& j : m.joint) {
    if (j.type == JointType::kSpherical || j.type == JointType::kFree) return false;
  }
  return true;
}

}  // namespace

class TestDerivatives : public QObject {
  Q_OBJECT

 private slots:
  void Cases_CoverEveryJointTypeMimicsGravityAndWrenches() {
    std::set<JointType> types;
    int mimics = 0, gravity = 0, wrenches = 0;
    for (const Case& c : cases()) {
      for (const Joint& j : c.model.joint) {
        types.insert(j.type);
        mimics += isMimic(j);
      }
      gravity += !c.model.gravity_W.isZero();
      wrenches += !c.fext.empty();
    }
    QCOMPARE(int(types.size()), 8);
    QVERIFY(mimics >= 5);
    QVERIFY(gravity >= 10);
    QVERIFY(wrenches >= 5);
  }

  // ∂τ/∂q, ∂τ/∂v against central differences of inverseDynamics; ∂τ/∂a against the mass matrix
  // of the composite-body algorithm (exact).
  void InverseDynamics_MatchesFiniteDifferences() {
    int nontrivial = 0;  // cases where τ depends on q at all (not so for one prismatic joint in space)
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      DynamicsDerivatives der(m);
      inverseDynamicsDerivatives(m, d, der, c.q, c.v, c.a, c.wrenches());
      const MatrixXd dq = der.dtau_dq, dv = der.dtau_dv, M = der.M;
      const MatrixXd fq = diffQ(m, c.q, [&](const VectorXd& q) {
        return VectorXd(inverseDynamics(m, d, q, c.v, c.a, c.wrenches()));
      });
      const MatrixXd fv = diffV(c.v, [&](const VectorXd& v) {
        return VectorXd(inverseDynamics(m, d, c.q, v, c.a, c.wrenches()));
      });
      nontrivial += fq.cwiseAbs().maxCoeff() > 1e-3;
      const std::string name = c.name;
      const std::string eq = grapple::test::compareMatrices(dq, fq, 1e-7);
      QVERIFY2(eq.empty(), (name + " dτ/dq: " + eq).c_str());
      const std::string ev = grapple::test::compareMatrices(dv, fv, 1e-7);
      QVERIFY2(ev.empty(), (name + " dτ/dv: " + ev).c_str());
      const std::string em = grapple::test::compareMatrices(M, massMatrix(m, d, c.q), 1e-12);
      QVERIFY2(em.empty(), (name + " dτ/da: " + em).c_str());
    }
    QVERIFY(nontrivial >= int(cases().size()) - 3);
  }

  // ∂q̈/∂q, ∂q̈/∂v, ∂q̈/∂τ against central differences of forwardDynamics.
  void ForwardDynamics_MatchesFiniteDifferences() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      DynamicsDerivatives der(m);
      forwardDynamicsDerivatives(m, d, der, c.q, c.v, c.tau, c.wrenches());
      const VectorXd ddq = d.ddq;
      EXPECT_MATRIX_NEAR(MatrixXd(der.Minv * der.M), MatrixXd::Identity(m.nv, m.nv), 1e-10);
      QVERIFY2(ddq.isApprox(forwardDynamics(m, d, c.q, c.v, c.tau, c.wrenches()), 1e-12), c.name.c_str());
      const MatrixXd fq = diffQ(m, c.q, [&](const VectorXd& q) {
        return VectorXd(forwardDynamics(m, d, q, c.v, c.tau, c.wrenches()));
      });
      const MatrixXd fv = diffV(c.v, [&](const VectorXd& v) {
        return VectorXd(forwardDynamics(m, d, c.q, v, c.tau, c.wrenches()));
      });
      const MatrixXd ft = diffV(c.tau, [&](const VectorXd& tau) {
        return VectorXd(forwardDynamics(m, d, c.q, c.v, tau, c.wrenches()));
      });
      const std::string name = c.name;
      const std::string eq = grapple::test::compareMatrices(der.ddq_dq, fq, 1e-7);
      QVERIFY2(eq.empty(), (name + " dq̈/dq: " + eq).c_str());
      const std::string ev = grapple::test::compareMatrices(der.ddq_dv, fv, 1e-7);
      QVERIFY2(ev.empty(), (name + " dq̈/dv: " + ev).c_str());
      const std::string et = grapple::test::compareMatrices(der.Minv, ft, 1e-7);
      QVERIFY2(et.empty(), (name + " dq̈/dτ: " + et).c_str());
    }
  }

  // h(q, v) - g(q) = C(q, v) v is homogeneous of degree 2 in v, so (∂τ/∂v) v = 2 C v (Euler),
  // whatever the coordinates. In generalized coordinates (q̇ = v) with the Christoffel C,
  // h_i = Σ_jk Γ_ijk v_j v_k with Γ_ijk = Γ_ikj, so ∂τ/∂v = 2C exactly.
  void VelocityDerivative_IsTwiceTheChristoffelCoriolisMatrix() {
    int generalized = 0;
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      DynamicsDerivatives der(m);
      inverseDynamicsDerivatives(m, d, der, c.q, c.v, c.a, c.wrenches());
      const MatrixXd C = coriolisMatrix(m, d, c.q, c.v);
      EXPECT_MATRIX_NEAR(VectorXd(der.dtau_dv * c.v), VectorXd(2 * C * c.v), 1e-11);
      if (generalizedCoordinates(m)) {
        ++generalized;
        const std::string e = grapple::test::compareMatrices(der.dtau_dv, MatrixXd(2 * C), 1e-11);
        QVERIFY2(e.empty(), (c.name + ": " + e).c_str());
      }
    }
    QVERIFY(generalized >= 5);
  }

  // At rest without damping nothing depends on v to first order: ∂τ/∂v = 0 exactly, and ∂τ/∂q
  // is the gravity's and the accelerations' alone (still matched by finite differences above).
  void VelocityDerivative_IsZeroAtRest() {
    for (const Case& c : cases()) {
      const Model& m = c.model;
      Data d(m);
      DynamicsDerivatives der(m);
      inverseDynamicsDerivatives(m, d, der, c.q, VectorXd::Zero(m.nv), c.a, c.wrenches());
      QVERIFY2(der.dtau_dv.isZero(0), c.name.c_str());
    }
  }

  void Refuses_FlexibleBodiesAndWrongSizes() {
    const Model flex = robot("chaser.yaml");
    QVERIFY(flex.hasFlexibleBodies());
    Data d(flex);
    DynamicsDerivatives der(flex);
    const VectorXd q = neutralConfiguration(flex), v = VectorXd::Zero(flex.nv);
    try {
      inverseDynamicsDerivatives(flex, d, der, q, v, v);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("flexible bodies") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, forwardDynamicsDerivatives(flex, d, der, q, v, v));
    const Case& c = cases().front();
    Data dc(c.model);
    DynamicsDerivatives dr(c.model);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             inverseDynamicsDerivatives(c.model, dc, dr, c.q, c.v, VectorXd::Zero(3)));
  }
};

QTEST_APPLESS_MAIN(TestDerivatives)
#include "test_derivatives.moc"
