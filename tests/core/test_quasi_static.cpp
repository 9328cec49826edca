// Quasi-static modes (sim/quasi_static): the model with modes locked is the full model restricted
// to them (mass matrix, bias forces, forward dynamics), and the static deflection of a cantilever
// under gravity, its own weight and a tip mass, against the Euler–Bernoulli closed form.
#include <QtTest>

#include <random>

#include <fstream>
#include <sstream>

#include "core/analysis/modal.hpp"
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

// The complete chaser with only `flexible_body`'s modes (the other bodies' flexible sections dropped
// from scenarios/robots/chaser.yaml): one flexible body, so that its coupled modes are the whole
// model's.
Model chaserFlexibleOnly(const std::string& flexible_body) {
  std::ifstream in(kSource + "/scenarios/robots/chaser.yaml");
  std::stringstream out;
  std::string line, body;
  bool dropping = false;
  while (std::getline(in, line)) {
    if (line.rfind("    - name: ", 0) == 0) body = line.substr(12);
    if (line == "      flexible:") dropping = body != flexible_body;
    else if (dropping && line.rfind("        ", 0) != 0) dropping = false;
    if (!dropping) out << line << '\n';
  }
  return loadModelYamlString(out.str(), "chaser_" + flexible_body + ".yaml");
}

// A configuration of the chaser's arm away from the neutral one (the folded start of the capture).
VectorXd armBent(const Model& m) {
  VectorXd q = neutralConfiguration(m);
  q[m.joint[m.bodyOfJoint("joint2")].idx_q] = 0.5;
  q[m.joint[m.bodyOfJoint("joint3")].idx_q] = -1.0;
  return q;
}

std::string toString(const VectorXd& x) {
  std::string s;
  char b[32];
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    std::snprintf(b, sizeof b, "%s%.1f", k ? " " : "", x[k]);
    s += b;
  }
  return s;
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
  // The same with the coupled modes (the wall holds the beam: the coupled mass is the modal
  // mass, the modes the beam's own in another basis): the same deflection, K δ = f solved whole.
  void Cantilever_StaticDeflectionMatchesClosedForm_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("body") << static_cast<int>(CondensedModes::kBody);
    QTest::newRow("coupled") << static_cast<int>(CondensedModes::kCoupled);
  }
  void Cantilever_StaticDeflectionMatchesClosedForm() {
    QFETCH(int, which);
    const double g = 9.81, l = 2.0, EI = 7.0e10 * 1.0e-8, w = 2700 * 1.0e-3 * g, F = 5.0 * g;
    const double u_exact = F * l * l * l / (3 * EI) + w * l * l * l * l / (8 * EI);
    const double slope_exact = F * l * l / (2 * EI) + w * l * l * l / (6 * EI);
    double last_error = INFINITY;
    for (int modes : {1, 2, 4}) {
      Model m = cantilever(modes);
      m.gravity_W = Vector3(0, 0, -g);
      const VectorXd q0 = neutralConfiguration(m);
      QuasiStaticModes qs(m, 0.0, static_cast<CondensedModes>(which), &q0);
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

  // One flexible body (segment3 of the chaser, 6 modes) on the floating bus and the arm's joints
  // with their armatures: its coupled modes (the Schur complement of the mass matrix on its modal
  // rows) are the whole model's, which core/analysis/modal computes independently (the generalized
  // eigenproblem K x = ω² H x of the whole linearized model). Condensing those above the cutoff
  // leaves a model whose coupled frequencies are exactly the whole model's below it, and whose
  // condensed count is the number above it.
  void CoupledModes_OneBody_AreTheWholeModelsModes() {
    const Model m = chaserFlexibleOnly("segment3");
    QCOMPARE(m.nflex, 6);
    const VectorXd q0 = armBent(m);
    const ModalAnalysis whole = coupledModes(m, q0);
    const double cutoff = 100;
    QuasiStaticModes qs(m, cutoff, CondensedModes::kCoupled, &q0);
    int above = 0;
    for (int k = 0; k < whole.frequency.size(); ++k) above += whole.frequency[k] > cutoff;
    qInfo("segment3 alone, coupled: %s rad/s; %d condensed above %.0f", toString(whole.frequency).c_str(), above, cutoff);
    QVERIFY(above > 0 && above < 6);
    QCOMPARE(qs.condensed(), above);
    VectorXd q0_r;
    qs.gatherQ(q0, q0_r);
    const ModalAnalysis kept = coupledModes(qs.reduced(), q0_r);
    QCOMPARE(kept.frequency.size(), 6 - above);
    for (int k = 0; k < kept.frequency.size(); ++k) {
      QVERIFY2(std::abs(kept.frequency[k] - whole.frequency[k]) <= 1e-8 * whole.frequency[k], toString(kept.frequency).c_str());
      QVERIFY(std::abs(qs.reduced().flex[m.bodyOfJoint("joint3")].frequency[k] - kept.frequency[k]) <= 1e-8 * kept.frequency[k]);
    }
    // The clamped-loaded frequencies condense the traction mode only (405 rad/s): the joints let
    // the outboard bodies turn, which raises two bending modes above the cutoff.
    QuasiStaticModes clamped(m, cutoff);
    qInfo("condensed by clamped-loaded frequency: %d; by coupled frequency: %d", clamped.condensed(), qs.condensed());
    QCOMPARE(clamped.condensed(), 1);
    QCOMPARE(qs.condensed(), 3);
  }

  // The complete chaser (four flexible bodies), each body's modes coupled with the joints and the
  // bus at the folded start of the capture and condensed above 100 rad/s: the reduced model is
  // the full one restricted to the kept subspaces (mass matrix Tᵀ H T, bias forces Tᵀ h, forward
  // dynamics) at random states, and its coupled modes, the four bodies together, stay near the
  // cutoff where the kept clamped-loaded modes reach 857 rad/s.
  void CoupledModes_Chaser_RestrictedModelAndItsFrequencies() {
    Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
    m.gravity_W = Vector3(0.3, -0.2, -1.0);
    const VectorXd q0 = armBent(m);
    QuasiStaticModes qs(m, 100, CondensedModes::kCoupled, &q0), clamped(m, 100);
    const Model& r = qs.reduced();
    QCOMPARE(r.nv + qs.condensed(), m.nv);
    VectorXd q0_r, q0_c;
    qs.gatherQ(q0, q0_r);
    clamped.gatherQ(q0, q0_c);
    const ModalAnalysis kept = coupledModes(r, q0_r), kept_clamped = coupledModes(clamped.reduced(), q0_c);
    const double top = kept.frequency.maxCoeff(), top_clamped = kept_clamped.frequency.maxCoeff();
    qInfo("chaser, condensed above 100 rad/s: coupled %d modes, the rest up to %.1f rad/s; clamped-loaded %d "
          "modes, the rest up to %.1f rad/s", qs.condensed(), top, clamped.condensed(), top_clamped);
    QVERIFY(top < 1.6 * 100);
    QVERIFY(top_clamped > 2.5 * top);
    const MatrixXd T = qs.velocityBasis();
    Data d(m, true), dr(r, true);
    std::mt19937 rng(5);
    for (int trial = 0; trial < 3; ++trial) {
      VectorXd q = q0 + randomVector(rng, m.nq, 0.3);
      q.segment<4>(3).normalize();
      for (const FlexibleBody& fb : m.flex) q.segment(fb.idx_q, fb.nf) *= 0.01;
      VectorXd v = randomVector(rng, m.nv, 0.5), tau = randomVector(rng, m.nv, 5.0);
      qs.lockQ(q);
      qs.lockV(v);
      VectorXd q_r, v_r, tau_r, v_back = VectorXd::Zero(m.nv);
      qs.gatherQ(q, q_r);
      qs.gatherV(v, v_r);
      qs.gatherForce(tau, tau_r);
      qs.scatterV(v_r, v_back);
      QVERIFY((v_back - v).norm() <= 1e-12 * v.norm());
      const MatrixXd H = massMatrix(m, d, q), HT = T.transpose() * H * T;
      QVERIFY((massMatrix(r, dr, q_r) - HT).norm() <= 1e-10 * H.norm());
      const VectorXd h = nonlinearEffects(m, d, q, v, nullptr);
      QVERIFY((nonlinearEffects(r, dr, q_r, v_r, nullptr) - T.transpose() * h).norm() <= 1e-10 * (1 + h.norm()));
      const VectorXd a = HT.llt().solve(tau_r - T.transpose() * h);
      QVERIFY((forwardDynamics(r, dr, q_r, v_r, tau_r) - a).norm() <= 1e-8 * (1 + a.norm()));
    }
  }

  // The whole model's coupled modes (kWhole): each body's coupled modes leave the bodies' kept modes
  // coupling above the cutoff where they move together, most with a grasped payload (the capture's
  // composite: the TAS debris, 1060 kg, 2 m out from the hand). Condensing, on the body that carries
  // most of it, each mode of the kept model above the cutoff leaves a model whose coupled modes
  // (core/analysis/modal on the reduced model: independent of the condensation's own eigenproblems)
  // are all at or below it; the kept and condensed directions are a basis of each body's modal
  // coordinates, lockQ projects along the condensed ones (G C = 0, G P = I), and they are
  // K-orthogonal, as kCoupled's are.
  void WholeModes_KeptModelHasNoModeAboveTheCutoff() {
    for (const bool payload : {false, true}) {
      Model m = loadModelFile(kSource + "/scenarios/robots/chaser.yaml");
      const VectorXd q0 = armBent(m);
      if (payload) {
        const int hand = m.frames[static_cast<std::size_t>(m.frameId("tool"))].body;
        Matrix3 I;
        I << 1440, -64, 24, -64, 1120, 18, 24, 18, 2250;
        m.inertia[hand] += Inertia::FromCom(1060, Vector3(0, 0, 2.0), I);
        m.inertia_matrix[hand] = m.inertia[hand].matrix();
      }
      const double cutoff = 100;
      QuasiStaticModes coupled(m, cutoff, CondensedModes::kCoupled, &q0), whole(m, cutoff, CondensedModes::kWhole, &q0);
      VectorXd qc, qw;
      coupled.gatherQ(q0, qc);
      whole.gatherQ(q0, qw);
      const double top_coupled = coupledModes(coupled.reduced(), qc).frequency.maxCoeff();
      const double top_whole = coupledModes(whole.reduced(), qw).frequency.maxCoeff();
      qInfo("chaser%s, above %.0f rad/s: each body's coupled modes condense %d, the rest up to %.1f rad/s; the whole "
            "model's %d, the rest up to %.1f rad/s", payload ? " with the debris in its hand" : "", cutoff,
            coupled.condensed(), top_coupled, whole.condensed(), top_whole);
      QVERIFY(top_coupled > 1.2 * cutoff);
      QVERIFY(top_whole <= cutoff * (1 + 1e-9));
      QVERIFY(whole.condensed() > coupled.condensed());
      QVERIFY(whole.condensed() < m.nflex);
      const MatrixXd T = whole.velocityBasis();
      for (int i = 0; i < m.nbodies; ++i) {
        const FlexibleBody& fb = m.flex[i];
        if (fb.nf == 0) continue;
        const MatrixXd& C = whole.condensedBasis(i);
        const MatrixXd P = T.block(fb.idx_v, whole.reduced().flex[i].idx_v, fb.nf, whole.reduced().flex[i].nf);
        QCOMPARE(P.cols() + C.cols(), static_cast<Eigen::Index>(fb.nf));
        if (C.cols() > 0 && P.cols() > 0) {
          QVERIFY((C.transpose() * fb.K * P).norm() <= 1e-9 * fb.K.norm() * C.norm() * P.norm());
        }
        for (Eigen::Index k = 0; k < fb.nf; ++k) {  // lockQ on a direction: itself if kept, zero if condensed
          const bool kept = k < P.cols();
          VectorXd q = VectorXd::Zero(m.nq);
          q.segment(fb.idx_q, fb.nf) = kept ? VectorXd(P.col(k)) : VectorXd(C.col(k - P.cols()));
          const VectorXd expected = kept ? q : VectorXd::Zero(m.nq);
          whole.lockQ(q);
          QVERIFY((q - expected).norm() <= 1e-9 * (1 + P.norm() + C.norm()));
        }
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestQuasiStatic)
#include "test_quasi_static.moc"
