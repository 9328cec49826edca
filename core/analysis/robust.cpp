#include "core/analysis/robust.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include <nlopt.hpp>

#include "core/analysis/synthesis.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kPerformanceHalvings = 12;  // robust performance: the smallest box tried is 2^-12 of 1/μ_u
constexpr int kMixedSteps = 7;  // bisection steps of the D-G bound: within μ_C/128

// The largest singular value of B and its vectors (B v = σ u), from the Hermitian B* B.
struct Top {
  double sigma = 0;
  Eigen::VectorXcd u, v;
};
Top topSingular(const Eigen::MatrixXcd& B) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> es(B.adjoint() * B);
  const Eigen::Index n = B.cols();
  Top t;
  t.sigma = std::sqrt(std::max(0.0, es.eigenvalues()[n - 1]));
  t.v = es.eigenvectors().col(n - 1);
  t.u = t.sigma > 0 ? Eigen::VectorXcd(B * t.v / t.sigma) : Eigen::VectorXcd::Zero(B.rows());
  return t;
}

// The scaled matrices of the bounds for the scalings x (real channels; the complex block's 0).
Eigen::MatrixXcd scaled(const Eigen::MatrixXcd& M, const Eigen::VectorXd& x, Eigen::Index nr) {
  Eigen::VectorXd e = Eigen::VectorXd::Zero(M.rows());
  e.head(nr) = x;
  const Eigen::VectorXd p = e.array().exp(), m = (-e).array().exp();
  return p.asDiagonal() * M * m.asDiagonal();
}

// φ = σ̄((I+G²)^(-1/4) (D M D⁻¹/β - jG) (I+G²)^(-1/4)) at z = (x, g, β), and its gradient in (x, g).
double phi(const Eigen::MatrixXcd& M, Eigen::Index nr, const double* z, double* grad) {
  const Eigen::Index n = M.rows();
  const Eigen::Map<const Eigen::VectorXd> x(z, nr), g(z + nr, nr);
  const double beta = z[2 * nr];
  Eigen::VectorXd q = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < nr; ++i) q[i] = std::pow(1 + g[i] * g[i], -0.25);
  Eigen::MatrixXcd B = scaled(M, Eigen::VectorXd(x), nr) / beta;
  for (Eigen::Index i = 0; i < nr; ++i) B(i, i) -= Complex(0, g[i]);
  B = q.asDiagonal() * B * q.asDiagonal();
  const Top t = topSingular(B);
  if (grad) {
    const double s = t.sigma;
    for (Eigen::Index i = 0; i < nr; ++i) {
      const double uu = std::norm(t.u[i]), vv = std::norm(t.v[i]);
      grad[i] = s * (uu - vv);
      const double c = -g[i] / (2 * (1 + g[i] * g[i]));
      grad[nr + i] = c * s * (uu + vv) + q[i] * q[i] * std::imag(std::conj(t.u[i]) * t.v[i]);
    }
  }
  return t.sigma;
}

struct BoundProblem {
  const Eigen::MatrixXcd* M = nullptr;
  Eigen::Index nr = 0;
  double best_sigma = kInf;
  Eigen::VectorXd best_x;
  // Mixed: the β tried, set to best_beta with the point once φ ≤ 1 there.
  double beta = 0;
  double best_beta = kInf;
  Eigen::VectorXd best_z;
};

double complexObjective(unsigned n, const double* x, double* grad, void* data) {
  auto* p = static_cast<BoundProblem*>(data);
  const Eigen::MatrixXcd B = scaled(*p->M, Eigen::Map<const Eigen::VectorXd>(x, n), p->nr);
  const Top t = topSingular(B);
  if (grad) {
    for (unsigned i = 0; i < n; ++i) grad[i] = t.sigma * (std::norm(t.u[i]) - std::norm(t.v[i]));
  }
  if (t.sigma < p->best_sigma) {
    p->best_sigma = t.sigma;
    p->best_x = Eigen::Map<const Eigen::VectorXd>(x, n);
  }
  return t.sigma;
}

// φ at the problem's β, as a function of (x, g); records the point when φ ≤ 1.
double phiObjective(unsigned n, const double* xg, double* grad, void* data) {
  auto* p = static_cast<BoundProblem*>(data);
  Eigen::VectorXd z(n + 1);
  z.head(n) = Eigen::Map<const Eigen::VectorXd>(xg, n);
  z[n] = p->beta;
  std::vector<double> full(n + 1);
  const double f = phi(*p->M, p->nr, z.data(), grad ? full.data() : nullptr);
  if (grad) std::copy(full.begin(), full.begin() + n, grad);
  if (f <= 1) {
    p->best_beta = p->beta;
    p->best_z = z;
  }
  return f;
}

}  // namespace

MuUpperBound muUpperBound(const Eigen::MatrixXcd& M, Eigen::Index nr, Eigen::Index nc, const Eigen::VectorXd& warm,
                          bool mixed) {
  if (M.rows() != M.cols() || nr < 0 || nc < 0 || nr + nc != M.rows()) throw std::invalid_argument("mu: the structure does not match the matrix");
  if (!M.allFinite()) throw std::invalid_argument("mu: the matrix is not finite");
  MuUpperBound out;
  out.d = Eigen::VectorXd::Zero(nr);
  out.g = Eigen::VectorXd::Zero(nr);
  if (M.norm() == 0 || M.rows() == 0) return out;
  BoundProblem p;
  p.M = &M;
  p.nr = nr;
  // D: Osborne's balancing of |M| (the real channels' rows against their columns), or the warm start.
  Eigen::VectorXd x = Eigen::VectorXd::Zero(nr);
  if (warm.size() == nr) {
    x = warm;
  } else {
    const Eigen::MatrixXd A = M.cwiseAbs2();
    for (int sweep = 0; sweep < 30; ++sweep) {
      for (Eigen::Index i = 0; i < nr; ++i) {
        double r = 0, c = 0;
        for (Eigen::Index j = 0; j < M.rows(); ++j) {
          if (j == i) continue;
          const double xj = j < nr ? x[j] : 0;
          r += A(i, j) * std::exp(2 * (x[i] - xj));
          c += A(j, i) * std::exp(2 * (xj - x[i]));
        }
        if (r > 0 && c > 0) x[i] += 0.25 * std::log(c / r);
      }
    }
    x = x.cwiseMax(-30).cwiseMin(30);
  }
  complexObjective(static_cast<unsigned>(nr), x.data(), nullptr, &p);
  if (nr > 0) {
    nlopt::opt o(nlopt::LD_LBFGS, static_cast<unsigned>(nr));
    o.set_min_objective(complexObjective, &p);
    o.set_lower_bounds(-40);
    o.set_upper_bounds(40);
    o.set_maxeval(120);
    o.set_xtol_rel(1e-6);
    std::vector<double> z(x.data(), x.data() + nr);
    double f = 0;
    try {
      o.optimize(z, f);
    } catch (const std::exception&) {
      // NLopt's roundoff-limited or failed stops: the best point seen is kept below.
    }
  }
  out.complex_bound = p.best_sigma;
  out.mixed_bound = p.best_sigma;
  out.d = p.best_x.size() == nr ? p.best_x : x;
  if (!mixed || nr == 0 || out.complex_bound == 0) return out;
  // G: bisection on β in ]0, μ_C]; β passes when L-BFGS finds (x, g) with φ(x, g, β) ≤ 1 (every
  // pass verified at its scalings), each search started from the last passing scalings.
  const unsigned n = static_cast<unsigned>(2 * nr);
  Eigen::VectorXd zbest = Eigen::VectorXd::Zero(2 * nr + 1);
  zbest.head(nr) = out.d;
  double hi = out.complex_bound, lo = 0;
  for (int step = 0; step < kMixedSteps; ++step) {
    const double beta = 0.5 * (lo + hi);
    p.beta = beta;
    p.best_beta = kInf;
    std::vector<double> z(zbest.data(), zbest.data() + n);
    nlopt::opt o(nlopt::LD_LBFGS, n);
    o.set_min_objective(phiObjective, &p);
    std::vector<double> lb(n, -40), ub(n, 40);
    for (Eigen::Index i = 0; i < nr; ++i) {
      lb[static_cast<std::size_t>(nr + i)] = -1e4;
      ub[static_cast<std::size_t>(nr + i)] = 1e4;
    }
    o.set_lower_bounds(lb);
    o.set_upper_bounds(ub);
    o.set_stopval(0.999);
    o.set_maxeval(60);
    double f = 0;
    try {
      o.optimize(z, f);
    } catch (const std::exception&) {
      // NLopt's roundoff-limited stops: the passing point, if any, was recorded.
    }
    if (p.best_beta == beta) {
      hi = beta;
      zbest = p.best_z;
    } else {
      lo = beta;
    }
  }
  if (hi < out.complex_bound) {
    out.mixed_bound = hi;
    out.d = zbest.head(nr);
    out.g = zbest.segment(nr, nr);
  }
  return out;
}

JointRange parameterRange(JointRange r, RotationParameter form) {
  const double cap = form == RotationParameter::kTan2 ? 175.0 * kPi / 180 : kPi;
  r.lower = std::max(r.lower, -cap);
  r.upper = std::min(r.upper, cap);
  return r;
}

std::vector<JointRange> shrinkRanges(const std::vector<JointRange>& ranges, double mu, RotationParameter form) {
  std::vector<JointRange> out = ranges;
  if (!(mu > 1)) return out;
  for (JointRange& r : out) {
    const double a = rotationParameter(form, r.lower), b = rotationParameter(form, r.upper);
    const double c = 0.5 * (a + b), h = 0.5 * (b - a) / mu;
    r.lower = rotationAngle(form, c - h);
    r.upper = rotationAngle(form, c + h);
  }
  return out;
}

RobustLoop::RobustLoop(const Model& m, const Eigen::VectorXd& q, const ClosedLoopGains& g,
                       const std::vector<JointRange>& ranges, const RobustOptions& opt)
    : actuated_(g.actuated), w_(g.template_omega), xi_(g.template_xi), gamma_(opt.performance_level),
      performance_(opt.goal == RobustGoal::kPerformance), q_(q), form_(opt.form) {
  if (m.hasFlexibleBodies()) throw std::invalid_argument("robust analysis: rigid models only (as the thesis, §8.3)");
  if (q.size() != m.nq || !q.allFinite()) throw std::invalid_argument("robust analysis: q has the wrong size or is not finite");
  if (g.Kp.rows() != m.nv || g.Kp.cols() != m.nv || g.Kd.rows() != m.nv || g.Kd.cols() != m.nv ||
      g.template_omega.size() != g.actuated.size() || g.template_xi.size() != g.actuated.size()) {
    throw std::invalid_argument("robust analysis: gains and templates do not match the model");
  }
  if (g.anyRolloff()) throw std::invalid_argument("robust analysis: the plain PD loops only (no roll-off)");
  if (performance_ && !(gamma_ > 0)) throw std::invalid_argument("robust analysis: the performance level must be positive");
  const double cap = form_ == RotationParameter::kTan2 ? kPi : 2 * kPi;
  const auto nk = static_cast<Eigen::Index>(ranges.size());
  center_.resize(nk);
  radius_.resize(nk);
  std::vector<int> bodies;
  for (Eigen::Index k = 0; k < nk; ++k) {
    const JointRange& r = ranges[static_cast<std::size_t>(k)];
    if (!(r.lower <= r.upper) || !(r.lower > -cap) || !(r.upper < cap)) {
      throw std::invalid_argument("robust analysis: the range of joint body " + std::to_string(r.body) +
                                  " is empty or outside the parameterization's (σ2: ]-180°, 180°[, σ4: ]-360°, 360°[)");
    }
    const double a = rotationParameter(form_, r.lower), b = rotationParameter(form_, r.upper);
    center_[k] = 0.5 * (a + b);
    radius_[k] = 0.5 * (b - a);
    bodies.push_back(r.body);
    if (r.body <= 0 || r.body >= m.nbodies) throw std::invalid_argument("robust analysis: no body " + std::to_string(r.body));
    qidx_.push_back(m.joint[static_cast<std::size_t>(r.body)].idx_q);
  }
  dinv_ = massMatrixLft(m, q, bodies, form_).normalized(center_, radius_).inverse();
  K_ = g.Kp;
  C_ = g.Kd;
}

Eigen::VectorXd RobustLoop::configuration(const Eigen::VectorXd& delta) const {
  Eigen::VectorXd q = q_;
  for (std::size_t k = 0; k < qidx_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    q[qidx_[k]] = rotationAngle(form_, center_[i] + radius_[i] * delta[i]);
  }
  return q;
}

Eigen::MatrixXcd RobustLoop::at(double omega) const {
  // δq̈ = a = w - D⁻¹ P a, P = (C s + K)/s²; D⁻¹ = F_u(N, Δ): z = N11 w_Δ + N12 P a,
  // a = S (w - N21 w_Δ), S = (I + N22 P)⁻¹.
  const Complex s(0, omega);
  const Eigen::Index nd = dinv_.deltaSize(), n = dinv_.rows();
  const Eigen::MatrixXcd P = (C_.cast<Complex>() * s + K_.cast<Complex>()) / (s * s);
  const Eigen::MatrixXcd N12P = dinv_.M12.cast<Complex>() * P;
  const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(Eigen::MatrixXcd::Identity(n, n) + dinv_.M22.cast<Complex>() * P);
  const Eigen::MatrixXcd SN21 = lu.solve(dinv_.M21.cast<Complex>());
  const Eigen::Index np = performanceSize();
  Eigen::MatrixXcd M(nd + np, nd + np);
  M.topLeftCorner(nd, nd) = dinv_.M11.cast<Complex>() - N12P * SN21;
  if (np == 0) return M;
  Eigen::MatrixXcd E = Eigen::MatrixXcd::Zero(n, np);
  Eigen::VectorXcd W(np);
  for (Eigen::Index k = 0; k < np; ++k) {
    E(actuated_[static_cast<std::size_t>(k)], k) = 1;
    const double wk = w_[static_cast<std::size_t>(k)], xk = xi_[static_cast<std::size_t>(k)];
    W[k] = (s * s + 2 * xk * wk * s + wk * wk) / (s * s) / gamma_;
  }
  const Eigen::MatrixXcd SE = lu.solve(E);
  M.topRightCorner(nd, np) = N12P * SE;
  M.bottomLeftCorner(np, nd) = -(W.asDiagonal() * (E.transpose() * SN21));
  M.bottomRightCorner(np, np) = W.asDiagonal() * (E.transpose() * SE);
  return M;
}

namespace {

// The rigid loop at q asymptotically stable (free coordinates condensed, as in weightedSensitivity).
bool stableAt(const Model& m, Data& d, const Eigen::VectorXd& q, const ClosedLoopGains& g) {
  const Eigen::MatrixXd D = massMatrix(m, d, q);
  const Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(m.nv, m.nv);
  const StateSpace s = weightedSensitivity(D, Z, Z, g);
  const Eigen::VectorXcd ev = Eigen::EigenSolver<Eigen::MatrixXd>(s.A, false).eigenvalues();
  for (Eigen::Index k = 0; k < ev.size(); ++k) {
    if (!(ev[k].real() < 0)) return false;
  }
  return true;
}

}  // namespace

MuSweep muSweep(const Model& m, const Eigen::VectorXd& q, const ClosedLoopGains& g, const std::vector<JointRange>& ranges,
                const RobustOptions& opt) {
  if (!(opt.omega_min > 0) || !(opt.omega_max > opt.omega_min) || opt.grid_points < 2 || opt.samples < 0) {
    throw std::invalid_argument("robust analysis: bad frequency grid or number of samples");
  }
  const RobustLoop loop(m, q, g, ranges, opt);
  const auto nk = static_cast<Eigen::Index>(ranges.size());
  MuSweep out;
  Data d(m);
  const Eigen::VectorXd qc = loop.configuration(Eigen::VectorXd::Zero(nk));
  out.nominal_stable = stableAt(m, d, qc, g);
  if (!out.nominal_stable) {
    out.upper_peak = out.complex_peak = out.lower = kInf;
    return out;
  }
  // Frequencies: the log grid and the nominal loop's pole frequencies.
  std::vector<double> w;
  for (int k = 0; k < opt.grid_points; ++k) {
    w.push_back(opt.omega_min * std::pow(opt.omega_max / opt.omega_min, static_cast<double>(k) / (opt.grid_points - 1)));
  }
  {
    const Eigen::MatrixXd D = massMatrix(m, d, qc), Z = Eigen::MatrixXd::Zero(m.nv, m.nv);
    const Eigen::VectorXcd ev = Eigen::EigenSolver<Eigen::MatrixXd>(weightedSensitivity(D, Z, Z, g).A, false).eigenvalues();
    for (Eigen::Index k = 0; k < ev.size(); ++k) {
      const double a = std::abs(ev[k]);
      if (a > opt.omega_min && a < opt.omega_max) w.push_back(a);
    }
  }
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end(), [](double a, double b) { return std::abs(a - b) <= 1e-9 * b; }), w.end());
  const Eigen::Index nd = loop.deltaSize(), np = loop.performanceSize();
  const int refine = 12;
  const double total = static_cast<double>(w.size() + refine) + 0.2 * opt.samples;
  double done = 0;
  auto tick = [&](double amount) {
    done += amount;
    if (opt.progress && !opt.progress(std::min(1.0, done / total))) throw RobustCancelled();
  };
  // The complex bound at every frequency, then the D-G bound where it can change the peak: in
  // decreasing order of the complex bound (which bounds it from above), until that is below the peak.
  std::vector<Eigen::VectorXd> scalings;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const MuUpperBound b = muUpperBound(loop.at(w[k]), nd, np, k > 0 ? scalings.back() : Eigen::VectorXd(), false);
    out.omega.push_back(w[k]);
    out.upper.push_back(b.mixed_bound);
    out.complex_upper.push_back(b.complex_bound);
    scalings.push_back(b.d);
    tick(0.5);
  }
  std::vector<std::size_t> by(w.size());
  for (std::size_t k = 0; k < by.size(); ++k) by[k] = k;
  std::sort(by.begin(), by.end(), [&](std::size_t a, std::size_t b) { return out.complex_upper[a] > out.complex_upper[b]; });
  double best = 0;
  std::size_t peak = 0;
  for (std::size_t k : by) {
    if (out.complex_upper[k] <= best) break;
    out.upper[k] = muUpperBound(loop.at(w[k]), nd, np, scalings[k], true).mixed_bound;
    if (out.upper[k] > best) best = out.upper[k], peak = k;
    tick(0.5);
  }
  // Golden-section search (log ω) between the peak's neighbours.
  if (w.size() >= 3) {
    double a = std::log(w[peak > 0 ? peak - 1 : 0]), b = std::log(w[std::min(peak + 1, w.size() - 1)]);
    const double r = 0.5 * (std::sqrt(5.0) - 1);
    auto eval = [&](double lw) {
      const double om = std::exp(lw);
      const MuUpperBound mb = muUpperBound(loop.at(om), nd, np, scalings[peak], true);
      out.omega.push_back(om);
      out.upper.push_back(mb.mixed_bound);
      out.complex_upper.push_back(mb.complex_bound);
      tick(1);
      return mb.mixed_bound;
    };
    double x1 = b - r * (b - a), x2 = a + r * (b - a);
    double f1 = eval(x1), f2 = eval(x2);
    for (int k = 2; k < refine; ++k) {
      if (f1 > f2) {
        b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = eval(x1);
      } else {
        a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = eval(x2);
      }
    }
  }
  std::vector<std::size_t> order(out.omega.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out.omega[a] < out.omega[b]; });
  MuSweep sorted = out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    sorted.omega[k] = out.omega[order[k]];
    sorted.upper[k] = out.upper[order[k]];
    sorted.complex_upper[k] = out.complex_upper[order[k]];
  }
  out = sorted;
  for (std::size_t k = 0; k < out.omega.size(); ++k) {
    if (out.upper[k] >= out.upper_peak) {
      out.upper_peak = out.upper[k];
      out.omega_peak = out.omega[k];
    }
    out.complex_peak = std::max(out.complex_peak, out.complex_upper[k]);
  }
  // Lower bound: sampled configurations.
  std::mt19937 rng(opt.seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<Eigen::Index> pick(0, std::max<Eigen::Index>(0, nk - 1));
  const std::vector<double> scales{0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0};
  for (int sample = 0; sample < opt.samples && nk > 0; ++sample) {
    Eigen::VectorXd delta(nk);
    for (Eigen::Index k = 0; k < nk; ++k) delta[k] = u(rng);
    if (opt.goal == RobustGoal::kPerformance) {
      const double h = evaluateController(m, loop.configuration(delta), g).upper / opt.performance_level;
      const double lb = std::min(1 / delta.cwiseAbs().maxCoeff(), h);
      if (lb > out.lower) {
        out.lower = lb;
        out.worst_delta = delta;
      }
    }
    // Along the direction to the surface of the box: the first unstable scale.
    delta[pick(rng)] = u(rng) < 0 ? -1 : 1;
    double stable_at = 0;
    for (double a : scales) {
      if (1 / a <= out.lower) break;
      if (stableAt(m, d, loop.configuration(a * delta), g)) {
        stable_at = a;
        continue;
      }
      double bad = a;
      for (int k = 0; k < 10; ++k) {
        const double mid = 0.5 * (stable_at + bad);
        if (stableAt(m, d, loop.configuration(mid * delta), g)) {
          stable_at = mid;
        } else {
          bad = mid;
        }
      }
      if (1 / bad > out.lower) {
        out.lower = 1 / bad;
        out.worst_delta = bad * delta;
      }
      break;
    }
    if (sample % 5 == 4) tick(1);
  }
  return out;
}

std::vector<JointRange> jointLimitRanges(const Model& m) {
  std::vector<JointRange> limits;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].type != JointType::kRevolute) continue;
    const int iq = m.joint[b].idx_q;
    const double lo = std::isfinite(m.lower_position_limit[iq]) ? m.lower_position_limit[iq] : -M_PI;
    const double hi = std::isfinite(m.upper_position_limit[iq]) ? m.upper_position_limit[iq] : M_PI;
    limits.push_back({b, lo, hi});
  }
  return limits;
}

std::vector<int> massMatrixJoints(const Model& m, const Eigen::VectorXd& q) {
  if (q.size() != m.nq) throw std::invalid_argument("robust analysis: q has the wrong size");
  Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D0 = massMatrix(m, d, q);
  std::vector<int> out;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[static_cast<std::size_t>(b)].type != JointType::kRevolute) continue;
    double change = 0;
    for (double t : {0.7, 1.9, -2.4}) {
      Eigen::VectorXd qt = q;
      qt[m.joint[static_cast<std::size_t>(b)].idx_q] += t;
      change = std::max(change, (massMatrix(m, d, qt) - D0).norm());
    }
    if (change > 1e-12 * D0.norm()) out.push_back(b);
  }
  return out;
}

CertifiedBox certifyBox(const Model& m, const Eigen::VectorXd& q, const ClosedLoopGains& g, const std::vector<JointRange>& limits,
                        const RobustOptions& opt, const std::vector<int>& order) {
  CertifiedBox out;
  for (const JointRange& r : limits) out.limits.push_back(parameterRange(r, opt.form));
  out.box = out.limits;
  const std::vector<int> varying = massMatrixJoints(m, q);
  auto index = [&](int body) {
    for (std::size_t k = 0; k < out.limits.size(); ++k) {
      if (out.limits[k].body == body) return static_cast<int>(k);
    }
    return -1;
  };
  std::vector<int> steps;  // indices in limits, in the order they join the analysis
  for (int body : order) {
    const int k = index(body);
    if (k < 0) throw std::invalid_argument("robust analysis: the order names a joint without limits");
    if (std::find(varying.begin(), varying.end(), body) != varying.end()) steps.push_back(k);
  }
  std::vector<int> all;
  for (std::size_t k = 0; k < out.limits.size(); ++k) {
    if (std::find(varying.begin(), varying.end(), out.limits[k].body) != varying.end()) {
      all.push_back(static_cast<int>(k));
    } else {
      out.fixed.push_back(out.limits[k].body);
    }
  }
  if (order.empty()) steps = all;
  if (steps.size() != all.size()) throw std::invalid_argument("robust analysis: the order must name every joint that changes D");
  const bool iterative = !order.empty();
  const std::size_t nsteps = iterative ? steps.size() : 1;
  int sweeps = 0;
  auto sweep = [&](const std::vector<int>& set, const std::vector<JointRange>& box) {
    // The joints not in the set at the centre of their range (in σ).
    Eigen::VectorXd qs = q;
    std::vector<JointRange> ranges;
    for (int k : all) {
      const JointRange& r = box[static_cast<std::size_t>(k)];
      if (std::find(set.begin(), set.end(), k) != set.end()) {
        ranges.push_back(r);
      } else {
        const double c = 0.5 * (rotationParameter(opt.form, r.lower) + rotationParameter(opt.form, r.upper));
        qs[m.joint[static_cast<std::size_t>(r.body)].idx_q] = rotationAngle(opt.form, c);
      }
    }
    RobustOptions o = opt;
    if (opt.progress) {
      const int at = sweeps;
      o.progress = [&, at](double f) { return opt.progress(std::min(1.0, (at + f) / (nsteps + (opt.goal == RobustGoal::kPerformance ? 6.0 * nsteps : 0)))); };
    }
    ++sweeps;
    return muSweep(m, qs, g, ranges, o);
  };
  auto apply = [&](const std::vector<int>& set, std::vector<JointRange>& box, const std::vector<JointRange>& shrunk) {
    for (std::size_t i = 0; i < set.size(); ++i) box[static_cast<std::size_t>(set[i])] = shrunk[i];
  };
  auto pickRanges = [&](const std::vector<int>& set, const std::vector<JointRange>& box) {
    std::vector<JointRange> r;
    for (int k : set) r.push_back(box[static_cast<std::size_t>(k)]);
    return r;
  };
  std::vector<int> set;
  for (std::size_t step = 0; step < nsteps; ++step) {
    if (iterative) {
      set.push_back(steps[step]);
    } else {
      set = all;
    }
    std::sort(set.begin(), set.end());
    MuSweep s = sweep(set, out.box);
    if (!s.nominal_stable) {
      out.final_sweep = s;
      out.step_mu.push_back(kInf);
      for (int k : all) {
        JointRange& r = out.box[static_cast<std::size_t>(k)];
        const double c = 0.5 * (rotationParameter(opt.form, r.lower) + rotationParameter(opt.form, r.upper));
        r.lower = r.upper = rotationAngle(opt.form, c);
      }
      out.sweeps = sweeps;
      return out;
    }
    out.nominal_stable = true;
    out.certified = true;
    out.step_mu.push_back(s.upper_peak);
    const std::vector<JointRange> current = pickRanges(set, out.box);
    if (opt.goal == RobustGoal::kStability) {
      // μ scales with the box: the shrunk box has the bound 1 at the same scalings.
      apply(set, out.box, shrinkRanges(current, s.upper_peak * (1 + 1e-9), opt.form));
      out.final_sweep = s;
    } else if (s.upper_peak >= 1) {
      // The performance block does not scale: the box's scale halved from 1/μ_u until the bound
      // passes, then bisection.
      auto trial = [&](double a, MuSweep& t) {
        std::vector<JointRange> box = out.box;
        apply(set, box, shrinkRanges(current, 1 / a, opt.form));
        t = sweep(set, box);
        return t.upper_peak < 1;
      };
      double ok = 0, bad = 1, a = std::min(1.0, 0.95 / s.upper_peak);
      MuSweep best, t;
      for (int k = 0; k < kPerformanceHalvings && ok == 0; ++k, a *= 0.5) {
        if (trial(a, t)) {
          ok = a;
          best = t;
        } else {
          bad = a;
        }
      }
      for (int k = 0; ok > 0 && k < 3; ++k) {
        const double mid = 0.5 * (ok + bad);
        if (trial(mid, t)) {
          ok = mid;
          best = t;
        } else {
          bad = mid;
        }
      }
      if (ok > 0) {
        apply(set, out.box, shrinkRanges(current, 1 / ok, opt.form));
        out.final_sweep = best;
      } else {
        // Not even a small box: the analysed ranges collapse to their centres.
        for (int k : all) out.box[static_cast<std::size_t>(k)] = shrinkRanges({out.box[static_cast<std::size_t>(k)]}, kInf, opt.form)[0];
        out.final_sweep = s;
        out.certified = false;
        out.sweeps = sweeps;
        return out;
      }
    } else {
      out.final_sweep = s;
    }
  }
  out.sweeps = sweeps;
  return out;
}

}  // namespace grapple::core
