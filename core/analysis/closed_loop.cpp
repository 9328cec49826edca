#include "core/analysis/closed_loop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/analysis/modal.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

void addPdLoops(ClosedLoopGains& g, const Eigen::MatrixXd& D, const std::vector<int>& channels,
                const Eigen::VectorXd& kp, const Eigen::VectorXd& kd, bool centralized, double omega, double xi) {
  Eigen::MatrixXd P = kp.asDiagonal(), V = kd.asDiagonal();
  if (centralized) {
    const Eigen::MatrixXd Dc = D(channels, channels);
    P = Dc * P;
    V = Dc * V;
  }
  g.Kp(channels, channels) = P;
  g.Kd(channels, channels) = V;
  for (int j : channels) {
    g.actuated.push_back(j);
    g.template_omega.push_back(omega);
    g.template_xi.push_back(xi);
  }
}

ClosedLoopGains thesisGains(const Model& m, const Eigen::VectorXd& q0, double omega_b, double xi_b,
                            const std::vector<double>& joint_kp, const std::vector<double>& joint_kd, bool centralized,
                            double omega_m, double xi_m) {
  if (q0.size() != m.nq) throw std::invalid_argument("closed loop: q0 has the wrong size");
  Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D = massMatrix(m, d, q0);
  ClosedLoopGains g;
  g.Kp = Eigen::MatrixXd::Zero(m.nv, m.nv);
  g.Kd = Eigen::MatrixXd::Zero(m.nv, m.nv);
  const int nb = m.base_mode == BaseMode::kFixed ? 0 : 6;
  if (nb) {
    addPdLoops(g, D, {0, 1, 2, 3, 4, 5}, Vector6::Constant(omega_b * omega_b), Vector6::Constant(2 * xi_b * omega_b),
               true, omega_b, xi_b);
  }
  std::vector<int> joints;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) joints.push_back(m.joint[b].idx_v);
  }
  std::sort(joints.begin(), joints.end());
  if (joint_kp.size() != joints.size() || joint_kd.size() != joints.size()) {
    throw std::invalid_argument("closed loop: one kp and one kd per joint expected (" + std::to_string(joints.size()) + ")");
  }
  addPdLoops(g, D, joints, Eigen::Map<const Eigen::VectorXd>(joint_kp.data(), static_cast<Eigen::Index>(joint_kp.size())),
             Eigen::Map<const Eigen::VectorXd>(joint_kd.data(), static_cast<Eigen::Index>(joint_kd.size())), centralized,
             omega_m, xi_m);
  return g;
}

Eigen::MatrixXcd dynamicStiffness(const Eigen::MatrixXd& D, const Eigen::MatrixXd& K, const Eigen::MatrixXd& C,
                                  const ClosedLoopGains& g, std::complex<double> s) {
  Eigen::MatrixXcd Z = (D * (s * s) + C * s + K).cast<std::complex<double>>();
  for (Eigen::Index i = 0; i < D.rows(); ++i) {
    const std::complex<double> f = g.rolloffFactor(static_cast<int>(i), s);
    Z.row(i) += f * (g.Kp.row(i).cast<std::complex<double>>() + s * g.Kd.row(i).cast<std::complex<double>>());
  }
  return Z;
}

Eigen::MatrixXd loopMatrix(const Eigen::MatrixXd& M, const Eigen::MatrixXd& K, const Eigen::MatrixXd& C,
                           const ClosedLoopGains& g, const std::vector<int>& rows) {
  const auto r = static_cast<Eigen::Index>(rows.size());
  const Eigen::MatrixXd P = g.Kp(rows, rows), V = g.Kd(rows, rows);
  // The unfiltered rows' gains act at once; the filtered rows' through their torque states z.
  Eigen::MatrixXd Ku = K(rows, rows), Cu = C(rows, rows);
  std::vector<Eigen::Index> z;
  for (Eigen::Index k = 0; k < r; ++k) {
    if (g.filtered(rows[static_cast<std::size_t>(k)])) {
      z.push_back(k);
    } else {
      Ku.row(k) += P.row(k);
      Cu.row(k) += V.row(k);
    }
  }
  const auto nz = static_cast<Eigen::Index>(z.size());
  const Eigen::MatrixXd Minv = M.inverse();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * r + nz, 2 * r + nz);
  A.block(0, r, r, r).setIdentity();
  A.block(r, 0, r, r) = -Minv * Ku;
  A.block(r, r, r, r) = -Minv * Cu;
  for (Eigen::Index a = 0; a < nz; ++a) {
    const Eigen::Index k = z[static_cast<std::size_t>(a)];
    const double w = g.rolloff[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])];
    A.block(r, 2 * r + a, r, 1) = Minv.col(k);
    A.block(2 * r + a, 0, 1, r) = -w * P.row(k);
    A.block(2 * r + a, r, 1, r) = -w * V.row(k);
    A(2 * r + a, 2 * r + a) = -w;
  }
  return A;
}

StateSpace weightedSensitivity(const Eigen::MatrixXd& D, const Eigen::MatrixXd& K0, const Eigen::MatrixXd& C0,
                               const ClosedLoopGains& g) {
  const auto n = D.rows();
  if (D.cols() != n || K0.rows() != n || K0.cols() != n || C0.rows() != n || C0.cols() != n || g.Kp.rows() != n ||
      g.Kp.cols() != n || g.Kd.rows() != n || g.Kd.cols() != n || g.template_omega.size() != g.actuated.size() ||
      g.template_xi.size() != g.actuated.size()) {
    throw std::invalid_argument("weighted sensitivity: gains and templates do not match the model");
  }
  const Eigen::MatrixXd K = K0 + g.Kp, C = C0 + g.Kd;
  std::vector<int> free, kept, where(static_cast<std::size_t>(n), -1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool f = K.row(i).isZero(0) && K.col(i).isZero(0) && C.row(i).isZero(0) && C.col(i).isZero(0);
    if (f) {
      free.push_back(static_cast<int>(i));
    } else {
      where[static_cast<std::size_t>(i)] = static_cast<int>(kept.size());
      kept.push_back(static_cast<int>(i));
    }
  }
  Eigen::MatrixXd M = D(kept, kept);
  if (!free.empty()) M -= D(kept, free) * Eigen::PartialPivLU<Eigen::MatrixXd>(D(free, free)).solve(D(free, kept));
  const auto r = static_cast<Eigen::Index>(kept.size());
  const auto nc = static_cast<Eigen::Index>(g.actuated.size());
  StateSpace s;
  s.A = loopMatrix(M, K0, C0, g, kept);
  const auto nx = s.A.rows();
  s.B = Eigen::MatrixXd::Zero(nx, nc);
  s.C = Eigen::MatrixXd::Zero(nc, nx);
  s.D = Eigen::MatrixXd::Identity(nc, nc);
  for (Eigen::Index k = 0; k < nc; ++k) {
    const int i = where[static_cast<std::size_t>(g.actuated[static_cast<std::size_t>(k)])];
    if (i < 0) throw std::invalid_argument("weighted sensitivity: an actuated channel has no gain");
    const double w = g.template_omega[static_cast<std::size_t>(k)], xi = g.template_xi[static_cast<std::size_t>(k)];
    s.B(r + i, k) = 1;
    s.C.row(k) = s.A.row(r + i);  // δq̈_i (w_k enters through D = I)
    s.C(k, i) += w * w;
    s.C(k, r + i) += 2 * xi * w;
  }
  return s;
}

ClosedLoopAnalysis analyzeClosedLoop(const Model& m, const Eigen::VectorXd& q0, const ClosedLoopGains& g,
                                     double omega_min, double omega_max, int points) {
  const int n = m.nv;
  if (q0.size() != m.nq || g.Kp.rows() != n || g.Kp.cols() != n || g.Kd.rows() != n || g.Kd.cols() != n ||
      g.template_omega.size() != g.actuated.size() || g.template_xi.size() != g.actuated.size()) {
    throw std::invalid_argument("closed loop: gains and templates do not match the model");
  }
  if (!(omega_min > 0) || !(omega_max > omega_min) || points < 2) throw std::invalid_argument("closed loop: bad frequency grid");
  Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D = massMatrix(m, d, q0);
  const Eigen::MatrixXd K0 = stiffnessMatrix(m), C0 = dampingMatrix(m);
  const Eigen::MatrixXd K = K0 + g.Kp, C = C0 + g.Kd;
  ClosedLoopAnalysis out;
  // Poles: eigenvalues of [[0, I], [-D⁻¹ K, -D⁻¹ C]] (with the roll-off states, loopMatrix).
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const Eigen::EigenSolver<Eigen::MatrixXd> es(loopMatrix(D, K0, C0, g, all), false);
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) out.poles.push_back(es.eigenvalues()[k]);
  std::sort(out.poles.begin(), out.poles.end(), [](auto a, auto b) { return std::abs(a) < std::abs(b); });
  out.stable = true;
  for (const auto& p : out.poles) {
    const double r = std::abs(p);
    out.frequency.push_back(r);
    out.damping.push_back(r > 0 ? -p.real() / r : 1.0);
    // (a zero pole: a free, unactuated direction — marginal, not unstable)
    if (p.real() > 1e-9 * std::max(1.0, r)) out.stable = false;
  }
  // T(jω) = -ω² Z(jω)⁻¹ D on the actuated channels (dynamicStiffness), and W(jω) per channel.
  const auto nc = static_cast<Eigen::Index>(g.actuated.size());
  out.sensitivity.resize(nc, points);
  out.bound.resize(nc, points);
  using Complex = std::complex<double>;
  const Eigen::MatrixXcd Dc = D.cast<Complex>();
  for (int k = 0; k < points; ++k) {
    const double w = omega_min * std::pow(omega_max / omega_min, static_cast<double>(k) / (points - 1));
    out.omega.push_back(w);
    const Complex s(0, w);
    const Eigen::MatrixXcd Z = dynamicStiffness(D, K0, C0, g, s);
    const Eigen::MatrixXcd T = (s * s) * Z.partialPivLu().solve(Dc);
    Eigen::MatrixXcd WT(nc, nc);
    for (Eigen::Index i = 0; i < nc; ++i) {
      const double wi = g.template_omega[static_cast<std::size_t>(i)], xi = g.template_xi[static_cast<std::size_t>(i)];
      const Complex W = (s * s + 2 * xi * wi * s + wi * wi) / (s * s);
      for (Eigen::Index j = 0; j < nc; ++j) WT(i, j) = W * T(g.actuated[static_cast<std::size_t>(i)], g.actuated[static_cast<std::size_t>(j)]);
      out.sensitivity(i, k) = std::abs(T(g.actuated[static_cast<std::size_t>(i)], g.actuated[static_cast<std::size_t>(i)]));
      out.bound(i, k) = 1 / std::abs(W);
    }
    const double sigma = Eigen::JacobiSVD<Eigen::MatrixXcd>(WT).singularValues()[0];
    out.weighted.push_back(sigma);
    out.gamma_grid = std::max(out.gamma_grid, sigma);
  }
  // An actuated channel without gain is free: its W T grows as 1/s² at low frequency.
  bool gainless = false;
  for (int j : g.actuated) gainless = gainless || (K.row(j).isZero(0) && C.row(j).isZero(0));
  if (gainless) {
    out.gamma_hard = out.omega_peak = std::numeric_limits<double>::infinity();
  } else {
    const HinfNorm h = hinfNorm(weightedSensitivity(D, stiffnessMatrix(m), dampingMatrix(m), g), 1e-6);
    out.gamma_hard = h.upper;
    out.omega_peak = h.omega_peak;
  }
  return out;
}

}  // namespace grapple::core
