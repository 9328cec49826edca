// Quasi-static modes (sim/quasi_static): the model with modes locked is the full model restricted
// to them (mass matrix, bias forces, forward dynamics), and the static deflection of a cantilever
// under gravity, its own weight and a tip mass, against the Euler–Bernoulli closed form.
#include <QtTest>

#include <random>

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/model_yaml.hpp"
#include "core/sim/quasi_static.hpp"
#include "tests/support/random_model.hpp"

using namespace grapple::core;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using grapple::test::randomVector;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

// A horizontal cantilever along x, clamped to a fixed wall: a uniform aluminium beam (E = 70 GPa,
// ρ S = 2.7 kg/m, l = 2 m, E I = 700 N m²) carrying a 5 kg point mass at its tip; `modes`
// Z-bending modes (clamped-loaded by the tip mass).
Model cantilever(int modes) {
  const std::string text =
      "format: 1\n"
      "model:\n"
      "  name: cantilever\n"
      "  base: {name: wall, mode: fixed}\n"
      "  links:\n"
      "    - name: beam\n"
      "      mass: 5.4\n"
      "      com: [1.0, 0, 0]\n"
      "      inertia: {xx: 1.0e-4, yy: 1.8, zz: 1.8}\n"
      "      flexible:\n"
      "        beam: {length: 2.0, density: 2700, area: 1.0e-3, young: 7.0e10, shear: 2.6e10, Iy: 1.0e-8, Iz: 1.0e-8,\n"
      "               modes: {bending_z: " + std::to_string(modes) + "}, rotary_inertia: false}\n"
      "      joint: {name: clamp, type: fixed, parent: wall}\n"
      "    - name: weight\n"
      "      mass: 5.0\n"
      "      inertia: {xx: 1.0e-3, yy: 1.0e-3, zz: 1.0e-3}\n"
      "      joint: {name: weight_mount, type: fixed, parent: beam, origin: {xyz: [2.0, 0, 0]}}\n";
  return loadModelYamlString(text, "cantilever.yaml");
}

}  // namespace

class TestQuasiStatic : public QObject {
  Q_OBJECT

 private slots:
  // The complete flexible chaser with its modes above 100 rad/s locked: the reduced model's mass
  // matrix, bias forces (Coriolis, centrifugal, elastic, gravity) and forward dynamics are the
  // full model's rows and columns of the kept coordinates at the same state with the locked
  // modes at rest and undeformed, at random states.
  void LockedModes_AreTheFullModelRestricted() {
    Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    m.gravity_W = Vector3(0.3, -0.2, -1.0);  // so that the bias forces have a gravity part too
    QuasiStaticModes qs(m, 100);
    const Model& r = qs.reduced();
    QVERIFY(qs.condensed() > 0);
    QCOMPARE(r.nv + qs.condensed(), m.nv);
    QCOMPARE(r.nq + qs.condensed(), m.nq);
    const std::vector<int>& iv = qs.vMap();
    Data d(m, true), dr(r, true);
    std::mt19937 rng(7);
    for (int trial = 0; trial < 5; ++trial) {
      VectorXd q = neutralConfiguration(m);
      q += randomVector(rng, m.nq, 0.3);
      q.segment<4>(3).normalize();
      for (const FlexibleBody& fb : m.flex) q.segment(fb.idx_q, fb.nf) *= 0.01;  // small deflections
      VectorXd v = randomVector(rng, m.nv, 0.5), tau = randomVector(rng, m.nv, 5.0);
      qs.lockQ(q);
      qs.lockV(v);
      VectorXd q_r, v_r, tau_r;
      qs.gatherQ(q, q_r);
      qs.gatherV(v, v_r);
      qs.gatherV(tau, tau_r);
      const MatrixXd H = massMatrix(m, d, q);
      const MatrixXd H_r = massMatrix(r, dr, q_r);
      QVERIFY((H_r - H(iv, iv)).norm() <= 1e-12 * H.norm());
      const VectorXd h = nonlinearEffects(m, d, q, v, nullptr);
      const VectorXd h_r = nonlinearEffects(r, dr, q_r, v_r, nullptr);
      QVERIFY((h_r - VectorXd(h(iv))).norm() <= 1e-12 * (1 + h.norm()));
      // The locked system: H_rr a = τ_r - h_r.
      const VectorXd a = H(iv, iv).llt().solve(tau_r - VectorXd(h(iv)));
      const VectorXd& a_r = forwardDynamics(r, dr, q_r, v_r, tau_r);
      QVERIFY((a_r - a).norm() <= 1e-9 * (1 + a.norm()));
      VectorXd a_full = VectorXd::Constant(m.nv, 1.0);
      qs.scatterV(a_r, a_full);
      QCOMPARE(VectorXd(a_full(iv)), a_r);
      for (int k = 0; k < m.nv; ++k) {
        if (std::find(iv.begin(), iv.end(), k) == iv.end()) QCOMPARE(a_full[k], 0.0);
      }
    }
  }

  // H⁻¹ b on the factors of the forward dynamics of a flexible model (what makes the quasi-static
  // integration's derivative under new sampled forces without a new evaluation) against the dense
  // solve of the mass matrix, on the complete chaser; spoiled factors are refused.
  void SolveMassMatrix_Flexible_MatchesDenseSolve() {
    const Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    Data d(m, true), dense(m, true);
    std::mt19937 rng(11);
    VectorXd q = neutralConfiguration(m) + randomVector(rng, m.nq, 0.2);
    q.segment<4>(3).normalize();
    const VectorXd v = randomVector(rng, m.nv, 0.3), tau = randomVector(rng, m.nv, 2.0);
    const Eigen::LLT<MatrixXd> llt(massMatrix(m, dense, q));
    forwardDynamics(m, d, q, v, tau);
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd b = randomVector(rng, m.nv, 1.0);
      const VectorXd x = llt.solve(b);
      QVERIFY((solveMassMatrix(m, d, b) - x).norm() <= 1e-10 * x.norm());
    }
    factorizeMassMatrix(m, d, q);
    const VectorXd b = randomVector(rng, m.nv, 1.0), x = llt.solve(b);
    QVERIFY((solveMassMatrix(m, d, b) - x).norm() <= 1e-10 * x.norm());
    massMatrix(m, d, q);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, solveMassMatrix(m, d, b));
  }

  // The cantilever under gravity (g = 9.81 m/s² along -z), every mode quasi-static: the tip's
  // deflection and slope against Euler–Bernoulli's closed form for a uniform load w = ρ S g and a
  // tip force F = M g,
  //   u(l) = F l³/(3 E I) + w l⁴/(8 E I),   u'(l) = F l²/(2 E I) + w l³/(6 E I),
  // converging with the number of assumed modes.
  void Cantilever_StaticDeflectionMatchesClosedForm() {
    const double g = 9.81, l = 2.0, EI = 7.0e10 * 1.0e-8, w = 2700 * 1.0e-3 * g, F = 5.0 * g;
    const double u_exact = F * l * l * l / (3 * EI) + w * l * l * l * l / (8 * EI);
    const double slope_exact = F * l * l / (2 * EI) + w * l * l * l / (6 * EI);
    double last_error = INFINITY;
    for (int modes : {1, 2, 4}) {
      Model m = cantilever(modes);
      m.gravity_W = Vector3(0, 0, -g);
      QuasiStaticModes qs(m, 0.0);
      QCOMPARE(qs.condensed(), modes);
      QCOMPARE(qs.reduced().nv, 0);
      Data d(m, true);
      VectorXd q = neutralConfiguration(m);
      const VectorXd v = VectorXd::Zero(m.nv), a = VectorXd::Zero(m.nv);
      qs.deflect(m, d, q, v, a, nullptr);
      const FlexibleBody& fb = m.flex[1];
      QCOMPARE(fb.nf, modes);
      const Vector3 u = fb.Phi_e * q.segment(fb.idx_q, fb.nf);     // tip displacement, link axes
      const Vector3 psi = fb.Delta_e * q.segment(fb.idx_q, fb.nf); // tip rotation (small angles)
      const double e_u = std::abs(-u.z() - u_exact) / u_exact, e_slope = std::abs(psi.y() - slope_exact) / slope_exact;
      qInfo("%d Z-bending modes: tip deflection %.6f m (closed form %.6f m, error %.2e), slope %.6f rad "
            "(%.6f, error %.2e)", modes, -u.z(), u_exact, e_u, psi.y(), slope_exact, e_slope);
      QVERIFY(std::abs(u.x()) < 1e-12 && std::abs(u.y()) < 1e-12);
      QVERIFY(e_u <= last_error);
      last_error = e_u;
      if (modes == 4) {
        QVERIFY(e_u < 1e-3);
        QVERIFY(e_slope < 5e-3);
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestQuasiStatic)
#include "test_quasi_static.moc"
