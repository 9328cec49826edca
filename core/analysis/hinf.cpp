#include "core/analysis/hinf.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

using Complex = std::complex<double>;

void checkSystem(const StateSpace& s) {
  const auto n = s.A.rows();
  if (s.A.cols() != n || s.B.rows() != n || s.C.cols() != n || s.D.rows() != s.C.rows() || s.D.cols() != s.B.cols()) {
    throw std::invalid_argument("H-infinity norm: the matrices A, B, C, D have inconsistent sizes");
  }
  if (!s.A.allFinite() || !s.B.allFinite() || !s.C.allFinite() || !s.D.allFinite()) {
    throw std::invalid_argument("H-infinity norm: the system has non-finite entries");
  }
}

double largestSingularValue(const Eigen::MatrixXd& M) {
  if (M.size() == 0) return 0;
  return Eigen::JacobiSVD<Eigen::MatrixXd>(M).singularValues()[0];
}

}  // namespace

Eigen::MatrixXcd frequencyResponse(const StateSpace& s, double omega) {
  checkSystem(s);
  const auto n = s.A.rows();
  Eigen::MatrixXcd G = s.D.cast<Complex>();
  if (n == 0) return G;
  Eigen::MatrixXcd Z = -s.A.cast<Complex>();
  Z.diagonal().array() += Complex(0, omega);
  G += s.C.cast<Complex>() * Z.partialPivLu().solve(s.B.cast<Complex>());
  return G;
}

double sigmaMax(const StateSpace& s, double omega) {
  const Eigen::MatrixXcd G = frequencyResponse(s, omega);
  if (G.size() == 0) return 0;
  return Eigen::JacobiSVD<Eigen::MatrixXcd>(G).singularValues()[0];
}

HinfNorm hinfNorm(const StateSpace& s, double rtol) {
  checkSystem(s);
  if (!(rtol > 0 && rtol <= 0.1)) throw std::invalid_argument("H-infinity norm: the relative tolerance must be in ]0, 0.1]");
  const auto n = s.A.rows(), m = s.B.cols(), p = s.C.rows();
  HinfNorm out;
  const double inf = std::numeric_limits<double>::infinity();
  // Stability: every pole strictly in the left half-plane.
  std::vector<Complex> poles;
  if (n > 0) {
    const Eigen::EigenSolver<Eigen::MatrixXd> es(s.A, false);
    if (es.info() != Eigen::Success) throw std::runtime_error("H-infinity norm: the eigenvalues of A did not converge");
    for (Eigen::Index k = 0; k < n; ++k) poles.push_back(es.eigenvalues()[k]);
  }
  for (const Complex& l : poles) {
    if (!(l.real() < 0)) {
      out.lower = out.upper = inf;
      return out;
    }
  }
  out.stable = true;
  // Lower bound: the high-frequency gain, the static gain and the gain at every pole's frequency.
  out.lower = largestSingularValue(s.D);
  out.omega_peak = inf;
  auto probe = [&](double w) {
    const double g = sigmaMax(s, w);
    if (g > out.lower) {
      out.lower = g;
      out.omega_peak = w;
    }
  };
  probe(0);
  for (const Complex& l : poles) probe(std::abs(l));
  if (n == 0 || m == 0 || p == 0 || out.lower == 0) {
    out.upper = out.lower;
    return out;
  }
  const Eigen::MatrixXd I_m = Eigen::MatrixXd::Identity(m, m), I_p = Eigen::MatrixXd::Identity(p, p);
  const Eigen::MatrixXd DtC = s.D.transpose() * s.C;
  for (int it = 0; it < 60; ++it) {
    const double gamma = (1 + 2 * rtol) * out.lower;
    // H(γ) = [[A + B R⁻¹ Dᵀ C, γ B R⁻¹ Bᵀ], [-γ Cᵀ S⁻¹ C, -(A + B R⁻¹ Dᵀ C)ᵀ]], R = γ² I - DᵀD,
    // S = γ² I - D Dᵀ (both positive definite since γ > σ_max(D)).
    const Eigen::MatrixXd R = gamma * gamma * I_m - s.D.transpose() * s.D;
    const Eigen::MatrixXd S = gamma * gamma * I_p - s.D * s.D.transpose();
    const Eigen::PartialPivLU<Eigen::MatrixXd> Rl(R), Sl(S);
    const Eigen::MatrixXd F = s.A + s.B * Rl.solve(DtC);
    Eigen::MatrixXd H(2 * n, 2 * n);
    H.topLeftCorner(n, n) = F;
    H.topRightCorner(n, n) = gamma * s.B * Rl.solve(s.B.transpose());
    H.bottomLeftCorner(n, n) = -gamma * s.C.transpose() * Sl.solve(s.C);
    H.bottomRightCorner(n, n) = -F.transpose();
    const Eigen::EigenSolver<Eigen::MatrixXd> es(H, false);
    ++out.iterations;
    if (es.info() != Eigen::Success) throw std::runtime_error("H-infinity norm: the Hamiltonian eigenvalues did not converge");
    // The frequencies where some singular value equals γ: H's eigenvalues on the imaginary axis.
    // A loose test: a spurious candidate only costs an evaluation, a missed one ends too early.
    const double scale = H.cwiseAbs().maxCoeff();
    std::vector<double> crossings;
    for (Eigen::Index k = 0; k < 2 * n; ++k) {
      const Complex l = es.eigenvalues()[k];
      if (l.imag() >= 0 && std::abs(l.real()) <= 1e-7 * (std::abs(l) + 1e-3 * scale)) crossings.push_back(l.imag());
    }
    if (crossings.empty()) {
      out.upper = gamma;
      return out;
    }
    std::sort(crossings.begin(), crossings.end());
    const double before = out.lower;
    if (crossings.size() == 1) probe(crossings[0]);
    for (std::size_t k = 0; k + 1 < crossings.size(); ++k) probe(0.5 * (crossings[k] + crossings[k + 1]));
    if (!(out.lower > before)) {
      // Only spurious crossings (σ_max nowhere above γ): γ bounds the norm.
      out.upper = gamma;
      return out;
    }
  }
  throw std::runtime_error("H-infinity norm: no convergence in 60 Hamiltonian steps");
}

}  // namespace grapple::core
