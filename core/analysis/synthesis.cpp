#include "core/analysis/synthesis.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>

#include <nlopt.hpp>

#include "core/analysis/modal.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

using Complex = std::complex<double>;

// Where a plant's peak at ω = 0 is evaluated: the static response (W T(0) = ω_b² Kp⁻¹ D) lies below
// the log-spaced grid, which starts at 0.1 ω_b; a decade lower σ is within 1e-4 of its value at 0
// (it is even in ω), and the uncontrolled coordinates keep the dynamic stiffness regular there.
double staticResponsePoint(const std::vector<double>& grid) { return 0.1 * grid.front(); }

// One tuned number x: the gain matrices move by x times a fixed pattern (entries i, j, c) in Kp or
// in Kd, so a nominal x = 1 is the inertia-based bound.
struct Parameter {
  bool damping = false;  // in Kd, else Kp
  struct Entry {
    int i, j;
    double c;
  };
  std::vector<Entry> entries;
  double start = 1, lower = -1e3, upper = 1e3;
  // A roll-off bandwidth instead (no entries): x = ln(ω_r / ω_m) of this velocity row.
  int rolloff_row = -1;
};

struct Plant {
  Eigen::MatrixXd D, K, C;       // at the configuration (flexible coordinates at zero), no gains
  std::vector<double> omega;     // the frequencies of the hard constraints
  // The coordinates the loop keeps (the free ones condensed, as in weightedSensitivity), their
  // index there (-1: free), and the condensed mass matrix's inverse.
  std::vector<int> kept, where;
  Eigen::MatrixXd M, Minv;
  std::vector<int> state;  // per kept coordinate, the index of its roll-off state in the loop (-1: none)
};

// The rightmost poles constrained (a pair counts twice), and how far left of the axis they must be.
constexpr int kStabilityRows = 4;
constexpr double kStabilityMargin = 1e-4;  // [1/s]
// The tuned roll-off bandwidths: from ω_m to this many times ω_m.
constexpr double kRolloffSpan = 1000;

Eigen::VectorXd flexAtZero(const Model& m, const Eigen::VectorXd& q) {
  Eigen::VectorXd out;
  rigidEquivalent(m, q, out);
  return out;
}

std::vector<int> jointChannels(const Model& m) {
  std::vector<int> j;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) j.push_back(m.joint[b].idx_v);
  }
  std::sort(j.begin(), j.end());
  return j;
}

class Problem {
 public:
  Problem(const Model& m, const std::vector<Eigen::VectorXd>& configurations, const SynthesisStructure& st,
          const SynthesisOptions& opt)
      : model_(m), st_(st), opt_(opt) {
    if (configurations.empty()) throw std::invalid_argument("synthesis: no configuration given");
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(m.nq);
    for (const Eigen::VectorXd& q : configurations) {
      if (q.size() != m.nq) throw std::invalid_argument("synthesis: a configuration has the wrong size");
      if (!q.allFinite()) throw std::invalid_argument("synthesis: a configuration is not finite");
      mean += q / static_cast<double>(configurations.size());
    }
    Data d(m, m.hasFlexibleBodies());
    // The centralized structure's D(q0) and the bounds: at the mean configuration (the first
    // one's base pose and quaternion, a mean of quaternions not being one).
    Eigen::VectorXd q0 = configurations.front();
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1) q0[m.joint[b].idx_q] = mean[m.joint[b].idx_q];
    }
    D0_ = massMatrix(m, d, flexAtZero(m, q0));
    const Eigen::MatrixXd K = stiffnessMatrix(m), C = dampingMatrix(m);
    for (const Eigen::VectorXd& q : configurations) {
      Plant p;
      p.D = massMatrix(m, d, flexAtZero(m, q));
      p.K = K;
      p.C = C;
      const double lo = 0.1 * std::min(st.omega_b, st.omega_m), hi = 100 * std::max(st.omega_b, st.omega_m);
      for (int k = 0; k < opt.grid_points; ++k) p.omega.push_back(lo * std::pow(hi / lo, k / (opt.grid_points - 1.0)));
      plants_.push_back(std::move(p));
    }
    patternK_ = K;
    patternC_ = C;
    gains_.Kp = Eigen::MatrixXd::Zero(m.nv, m.nv);
    gains_.Kd = gains_.Kp;
    const bool free_base = m.base_mode != BaseMode::kFixed;
    if (free_base && st.base == SynthesisStructure::Base::kAttitudeScalar) {
      for (int damping = 0; damping < 2; ++damping) {
        Parameter p;
        p.damping = damping;
        const double scale = damping ? 2 * st.xi_b * st.omega_b : st.omega_b * st.omega_b;
        for (int i = 3; i < 6; ++i)
          for (int j = 3; j < 6; ++j) p.entries.push_back({i, j, scale * D0_(i, j)});
        p.lower = 1e-4;
        params_.push_back(p);
      }
      channels(3, 6, st.omega_b, st.xi_b);
    } else if (free_base && st.base != SynthesisStructure::Base::kNone) {
      const int first = st.base == SynthesisStructure::Base::kPoseBlocks ? 0 : 3;
      for (int block = first; block < 6; block += 3) {
        for (int damping = 0; damping < 2; ++damping) {
          const double scale = damping ? 2 * st.xi_b * st.omega_b : st.omega_b * st.omega_b;
          for (int i = block; i < block + 3; ++i) {
            for (int j = block; j < block + 3; ++j) {
              Parameter p;
              p.damping = damping;
              const double dd = std::sqrt(D0_(i, i) * D0_(j, j));
              p.entries.push_back({i, j, scale * dd});
              p.start = i == j ? dominance(i) : D0_(i, j) / dd;
              if (i == j) p.lower = 1e-4;
              params_.push_back(p);
            }
          }
        }
        channels(block, block + 3, st.omega_b, st.xi_b);
      }
    }
    joints_ = jointChannels(m);
    for (int damping = 0; damping < 2; ++damping) {
      const double scale = damping ? 2 * st.xi_m * st.omega_m : st.omega_m * st.omega_m;
      for (int j : joints_) {
        Parameter p;
        p.damping = damping;
        if (st.centralized) {
          for (int r : joints_) p.entries.push_back({r, j, scale * D0_(r, j)});
        } else {
          p.entries.push_back({j, j, scale * D0_(j, j)});
          p.start = dominance(j);
        }
        p.lower = 1e-4;
        params_.push_back(p);
      }
    }
    for (int j : joints_) {
      gains_.actuated.push_back(j);
      gains_.template_omega.push_back(st.omega_m);
      gains_.template_xi.push_back(st.xi_m);
    }
    if (gains_.actuated.empty()) throw std::invalid_argument("synthesis: the structure has no loop on this model");
    // The joints' roll-off (fixed: in the gains once; tuned: one parameter per joint).
    if (st.rolloff != SynthesisStructure::Rolloff::kNone) {
      const std::vector<double>& w = st.rolloff_omega;
      for (double v : w) {
        if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("synthesis: a roll-off bandwidth is not positive and finite");
      }
      if (st.rolloff == SynthesisStructure::Rolloff::kFixed && w.size() != 1 && w.size() != joints_.size()) {
        throw std::invalid_argument("synthesis: one roll-off bandwidth, or one per joint (" + std::to_string(joints_.size()) +
                                    "), expected");
      }
      gains_.rolloff.assign(static_cast<std::size_t>(m.nv), 0.0);
      for (std::size_t k = 0; k < joints_.size(); ++k) {
        // A tuned roll-off starts at the top of its range (the plain PD's loop, nearly) unless a
        // start is given: the synthesis lowers a bandwidth where that pays.
        const double wk = !w.empty() ? w[w.size() == 1 ? 0 : k] : kRolloffSpan * st.omega_m;
        gains_.rolloff[static_cast<std::size_t>(joints_[k])] = wk;
        if (st.rolloff != SynthesisStructure::Rolloff::kTuned) continue;
        Parameter p;
        p.rolloff_row = joints_[k];
        p.lower = 0;
        p.upper = std::log(kRolloffSpan);
        p.start = std::clamp(std::log(wk / st.omega_m), p.lower, p.upper);
        params_.push_back(p);
      }
    }
    for (std::size_t k = 0; k < params_.size(); ++k) {
      if (params_[k].rolloff_row < 0) soft_.push_back(static_cast<int>(k));
    }
    // The free coordinates: no stiffness, no damping and no tuned gain in their row or column.
    for (const Parameter& p : params_) {
      for (const auto& e : p.entries) (p.damping ? patternC_ : patternK_)(e.i, e.j) = 1;
    }
    for (Plant& p : plants_) {
      std::vector<int> free;
      p.where.assign(static_cast<std::size_t>(m.nv), -1);
      for (int i = 0; i < m.nv; ++i) {
        if (patternK_.row(i).isZero(0) && patternK_.col(i).isZero(0) && patternC_.row(i).isZero(0) &&
            patternC_.col(i).isZero(0)) {
          free.push_back(i);
        } else {
          p.where[static_cast<std::size_t>(i)] = static_cast<int>(p.kept.size());
          p.kept.push_back(i);
        }
      }
      p.M = p.D(p.kept, p.kept);
      if (!free.empty()) p.M -= p.D(p.kept, free) * Eigen::PartialPivLU<Eigen::MatrixXd>(p.D(free, free)).solve(p.D(free, p.kept));
      p.Minv = p.M.inverse();
      // loopMatrix's order of the roll-off states: the filtered kept coordinates in order.
      int next = 2 * static_cast<int>(p.kept.size());
      for (int i : p.kept) p.state.push_back(gains_.filtered(i) ? next++ : -1);
    }
  }

  // The real parts of the kStabilityRows rightmost poles of plant p's loop, and their gradients
  // (dλ = yᴴ dA x / yᴴ x, x and y the right and left eigenvectors).
  // `resonances`: the frequencies |λ| of the kStabilityRows least damped oscillating poles (the
  // peaks a fixed grid may miss; padded with the last).
  void poles(const Plant& p, const ClosedLoopGains& g, double* result, double* grad, unsigned stride,
             std::vector<double>& resonances) const {
    const auto r = static_cast<Eigen::Index>(p.kept.size());
    const Eigen::MatrixXd A = loopMatrix(p.M, p.K, p.C, g, p.kept);
    const Eigen::Index nx = A.rows();
    const Eigen::EigenSolver<Eigen::MatrixXd> es(A, true);
    const Eigen::VectorXcd lambda = es.eigenvalues();
    const Eigen::MatrixXcd X = es.eigenvectors();
    const Eigen::MatrixXcd Yh = X.inverse();  // rows: left eigenvectors yᴴ with yᴴ x = 1
    std::vector<Eigen::Index> order(static_cast<std::size_t>(nx));
    for (Eigen::Index k = 0; k < nx; ++k) order[static_cast<std::size_t>(k)] = k;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return lambda[a].real() > lambda[b].real(); });
    std::vector<Eigen::Index> osc;
    for (Eigen::Index k = 0; k < nx; ++k) {
      if (lambda[k].imag() > 0) osc.push_back(k);
    }
    std::sort(osc.begin(), osc.end(), [&](auto a, auto b) {
      return -lambda[a].real() / std::abs(lambda[a]) < -lambda[b].real() / std::abs(lambda[b]);
    });
    resonances.clear();
    for (int row = 0; row < kStabilityRows; ++row) {
      resonances.push_back(osc.empty() ? st_.omega_m : std::abs(lambda[osc[std::min<std::size_t>(row, osc.size() - 1)]]));
    }
    const Eigen::MatrixXcd MinvC = p.Minv.cast<Complex>();
    for (int row = 0; row < kStabilityRows; ++row) {
      const Eigen::Index k = order[static_cast<std::size_t>(std::min<Eigen::Index>(row, nx - 1))];
      result[row] = lambda[k].real() + kStabilityMargin;
      if (!grad) continue;
      // An unfiltered row i: dA = [[0, 0], [-M⁻¹ dK, -M⁻¹ dC], [0, 0]], so yᴴ dA x = ỹᴴ (dK x_top +
      // dC x_middle), ỹᴴ = -y_middleᴴ M⁻¹. A filtered row i (state z): dA_z = -ω_r (dK, dC) rows.
      // A bandwidth (x = ln ω_r/ω_m): dA_z / dx = A_z, its whole row.
      const Eigen::RowVectorXcd yt = -Yh.row(k).segment(r, r) * MinvC;
      double* gr = grad + static_cast<std::size_t>(row) * stride;
      for (std::size_t q = 0; q < params_.size(); ++q) {
        const Parameter& pq = params_[q];
        Complex acc = 0;
        if (pq.rolloff_row >= 0) {
          const int z = p.state[static_cast<std::size_t>(p.where[static_cast<std::size_t>(pq.rolloff_row)])];
          acc = Yh(k, z) * (A.row(z).cast<Complex>() * X.col(k)).value();
        }
        for (const auto& e : pq.entries) {
          const int i = p.where[static_cast<std::size_t>(e.i)], j = p.where[static_cast<std::size_t>(e.j)];
          const int z = p.state[static_cast<std::size_t>(i)];
          const Complex xj = X(pq.damping ? r + j : j, k);
          acc += z < 0 ? e.c * yt[i] * xj : -g.rolloff[static_cast<std::size_t>(e.i)] * e.c * Yh(k, z) * xj;
        }
        gr[q] = acc.real();
      }
    }
  }

  int size() const { return static_cast<int>(params_.size()); }
  const std::vector<Parameter>& parameters() const { return params_; }
  std::vector<Plant>& plants() { return plants_; }
  const Eigen::MatrixXd& D0() const { return D0_; }
  const std::vector<int>& joints() const { return joints_; }

  ClosedLoopGains gains(const double* x) const {
    ClosedLoopGains g = gains_;
    for (std::size_t k = 0; k < params_.size(); ++k) {
      if (params_[k].rolloff_row >= 0) g.rolloff[static_cast<std::size_t>(params_[k].rolloff_row)] = st_.omega_m * std::exp(x[k]);
      Eigen::MatrixXd& M = params_[k].damping ? g.Kd : g.Kp;
      for (const auto& e : params_[k].entries) M(e.i, e.j) += x[k] * e.c;
    }
    return g;
  }

  // The parameters in the soft goal (the gains, not the bandwidths), and γ_soft.
  const std::vector<int>& soft() const { return soft_; }
  double softIndex(const std::vector<double>& x) const {
    double s = 0;
    for (int k : soft_) s = std::max(s, std::abs(x[static_cast<std::size_t>(k)]));
    return s;
  }

  // σ_max(W T(jω)) of plant p and, if grad, its derivative with respect to each parameter (ω > 0:
  // the uncontrolled coordinates make the dynamic stiffness singular at 0). W's double pole at 0
  // meets T's double zero: the product s² W is formed, not W.
  double sigma(const Plant& p, const ClosedLoopGains& g, double w, double* grad) const {
    const auto nc = static_cast<Eigen::Index>(g.actuated.size());
    const Complex s(0, w);
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(dynamicStiffness(p.D, p.K, p.C, g, s));
    Eigen::MatrixXcd DA(p.D.rows(), nc);
    Eigen::VectorXcd W(nc);  // s² W_k(s) = s² + 2 ξ_k ω_k s + ω_k²
    for (Eigen::Index k = 0; k < nc; ++k) {
      DA.col(k) = p.D.col(g.actuated[static_cast<std::size_t>(k)]).cast<Complex>();
      const double wi = g.template_omega[static_cast<std::size_t>(k)], xi = g.template_xi[static_cast<std::size_t>(k)];
      W[k] = s * s + 2 * xi * wi * s + wi * wi;
    }
    const Eigen::MatrixXcd X = lu.solve(DA);
    Eigen::MatrixXcd G(nc, nc);
    for (Eigen::Index k = 0; k < nc; ++k) G.row(k) = W[k] * X.row(g.actuated[static_cast<std::size_t>(k)]);
    // σ_max and its singular vectors from the Hermitian GᴴG (cheaper than an SVD of G).
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> eig(G.adjoint() * G, grad ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
    const double sig = std::sqrt(std::max(0.0, eig.eigenvalues()[nc - 1]));
    if (grad) {
      const Eigen::VectorXcd v = eig.eigenvectors().col(nc - 1);
      const Eigen::VectorXcd u = G * v / sig;
      const Eigen::VectorXcd right = X * v;
      Eigen::VectorXcd b = Eigen::VectorXcd::Zero(p.D.rows());
      for (Eigen::Index k = 0; k < nc; ++k) b[g.actuated[static_cast<std::size_t>(k)]] = std::conj(W[k]) * u[k];
      const Eigen::VectorXcd left = lu.adjoint().solve(b);
      // dZ: a gain entry (i, j) c f_i (times s in Kd), f_i the row's roll-off factor; a bandwidth
      // of row i (x = ln ω_r/ω_m): df_i/dx (Kp_i + s Kd_i), df/dx = ω_r s / (s + ω_r)².
      for (std::size_t k = 0; k < params_.size(); ++k) {
        const Parameter& pk = params_[k];
        Complex acc = 0;
        if (pk.rolloff_row >= 0) {
          const int i = pk.rolloff_row;
          const double wr = g.rolloff[static_cast<std::size_t>(i)];
          const Complex dfdx = wr * s / ((s + wr) * (s + wr));
          const Complex row = ((g.Kp.row(i).cast<Complex>() + s * g.Kd.row(i).cast<Complex>()) * right).value();
          acc = std::conj(left[i]) * dfdx * row;
        }
        for (const auto& e : pk.entries) acc += e.c * g.rolloffFactor(e.i, s) * std::conj(left[e.i]) * right[e.j];
        if (pk.damping) acc *= s;
        grad[k] = -acc.real();  // dG = -diag(s² W) [Z⁻¹ dZ X]: the minus sign is this one
      }
    }
    return sig;
  }

  const Model& model_;
  const SynthesisStructure& st_;
  const SynthesisOptions& opt_;

 private:
  // The start of a diagonal gain: Σ_j |D_ij| / D_ii, the factor by which a decoupled loop's gain
  // must grow for the row-sum bound of the coupled static response ω² K⁻¹ D to stay below 1.
  double dominance(int i) const { return D0_.row(i).cwiseAbs().sum() / D0_(i, i); }

  void channels(int from, int to, double w, double xi) {
    for (int i = from; i < to; ++i) {
      gains_.actuated.push_back(i);
      gains_.template_omega.push_back(w);
      gains_.template_xi.push_back(xi);
    }
  }

  std::vector<Plant> plants_;
  std::vector<Parameter> params_;
  std::vector<int> soft_;
  ClosedLoopGains gains_;  // the channels, zero gains (and the roll-off, fixed or at its start)
  Eigen::MatrixXd D0_, patternK_, patternC_;
  std::vector<int> joints_;
};

// The epigraph solve: variables [x; t], minimize t. Soft mode: |x_k| ≤ t, σ ≤ 1; hard mode
// (when the templates cannot be met): σ ≤ t.
struct Epigraph {
  Problem* problem = nullptr;
  bool hard_mode = false;
  int evaluations = 0;
  std::function<bool()> keep_going;
  nlopt::opt* solver = nullptr;
  bool cancelled = false;
  bool moving = true;  // false (gradient check): the resonance rows at fixed frequencies instead
};

double objective(unsigned n, const double* z, double* grad, void*) {
  if (grad) {
    std::fill(grad, grad + n, 0.0);
    grad[n - 1] = 1;
  }
  return z[n - 1];
}

void constraints(unsigned m, double* result, unsigned n, const double* z, double* grad, void* data) {
  auto* e = static_cast<Epigraph*>(data);
  Problem& pr = *e->problem;
  const unsigned P = n - 1;
  if (grad) std::fill(grad, grad + static_cast<std::size_t>(m) * n, 0.0);
  unsigned row = 0;
  if (!e->hard_mode) {
    for (int soft : pr.soft()) {
      const auto k = static_cast<unsigned>(soft);
      result[row] = z[k] - z[P];
      if (grad) grad[row * n + k] = 1, grad[row * n + P] = -1;
      ++row;
      result[row] = -z[k] - z[P];
      if (grad) grad[row * n + k] = -1, grad[row * n + P] = -1;
      ++row;
    }
  }
  const ClosedLoopGains g = pr.gains(z);
  for (const Plant& p : pr.plants()) {
    std::vector<double> resonances;
    pr.poles(p, g, result + row, grad ? grad + static_cast<std::size_t>(row) * n : nullptr, n, resonances);
    row += kStabilityRows;
    // σ at the least damped poles' frequencies, which move with the gains (their motion's share
    // of the gradient, ∂σ/∂ω dω/dx, is left out: ∂σ/∂ω vanishes at a peak).
    if (!e->moving) std::fill(resonances.begin(), resonances.end(), p.omega.front());
    std::vector<double> points = resonances;
    points.insert(points.end(), p.omega.begin(), p.omega.end());
    for (double w : points) {
      result[row] = pr.sigma(p, g, w, grad ? grad + row * n : nullptr) - (e->hard_mode ? z[P] : pr.opt_.hard_level);
      if (grad && e->hard_mode) grad[row * n + P] = -1;
      ++row;
    }
  }
  ++e->evaluations;
  if (e->keep_going && !e->keep_going()) {
    e->cancelled = true;
    e->solver->force_stop();
  }
}

struct Outcome {
  std::vector<double> x;
  double gamma_soft = 0, gamma_hard = 0;
  std::vector<double> each, peaks;
  std::string message;
};

// Exact ‖W T‖∞ of each configuration's loop.
void exactNorms(Problem& pr, const std::vector<double>& x, Outcome& o) {
  const ClosedLoopGains g = pr.gains(x.data());
  o.each.clear();
  o.peaks.clear();
  o.gamma_hard = 0;
  for (const Plant& p : pr.plants()) {
    const HinfNorm h = hinfNorm(weightedSensitivity(p.D, p.K, p.C, g), 1e-6);
    o.each.push_back(h.upper);
    o.peaks.push_back(h.omega_peak);
    o.gamma_hard = std::max(o.gamma_hard, h.upper);
  }
  o.gamma_soft = pr.softIndex(x);
}

std::string resultName(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS: return "success";
    case nlopt::STOPVAL_REACHED: return "stop value reached";
    case nlopt::FTOL_REACHED: return "objective tolerance reached";
    case nlopt::XTOL_REACHED: return "parameter tolerance reached";
    case nlopt::MAXEVAL_REACHED: return "evaluation limit reached";
    case nlopt::MAXTIME_REACHED: return "time limit reached";
    case nlopt::FORCED_STOP: return "cancelled";
    case nlopt::ROUNDOFF_LIMITED: return "round-off limited";
    default: return "failed";
  }
}

// One start: SLSQP rounds with frequencies added at the exact peaks.
Outcome solveFrom(Problem& pr, std::vector<double> x, bool hard_mode, Epigraph& e) {
  const int P = pr.size();
  Outcome best;
  double previous = std::numeric_limits<double>::infinity();
  for (int round = 0; round < pr.opt_.rounds; ++round) {
    std::size_t m = hard_mode ? 0 : 2 * pr.soft().size();
    for (const Plant& p : pr.plants()) m += p.omega.size() + 2 * kStabilityRows;
    nlopt::opt solver(nlopt::LD_SLSQP, static_cast<unsigned>(P + 1));
    std::vector<double> lo(static_cast<std::size_t>(P + 1)), hi(static_cast<std::size_t>(P + 1));
    for (int k = 0; k < P; ++k) {
      lo[static_cast<std::size_t>(k)] = pr.parameters()[static_cast<std::size_t>(k)].lower;
      hi[static_cast<std::size_t>(k)] = pr.parameters()[static_cast<std::size_t>(k)].upper;
    }
    lo[static_cast<std::size_t>(P)] = 0;
    hi[static_cast<std::size_t>(P)] = 1e6;
    solver.set_lower_bounds(lo);
    solver.set_upper_bounds(hi);
    e.hard_mode = hard_mode;
    e.solver = &solver;
    solver.set_min_objective(objective, nullptr);
    solver.add_inequality_mconstraint(constraints, &e, std::vector<double>(m, 1e-9));
    solver.set_xtol_rel(1e-5);
    solver.set_ftol_rel(1e-7);
    solver.set_maxeval(pr.opt_.max_evaluations);
    // Minimizing γ_hard: enough once the templates are met (the soft solve goes on from there).
    if (hard_mode) solver.set_stopval(pr.opt_.hard_level * (1 + 0.5 * pr.opt_.hard_tolerance));
    std::vector<double> z = x;
    for (int k = 0; k < P; ++k) z[static_cast<std::size_t>(k)] = std::clamp(z[static_cast<std::size_t>(k)], lo[static_cast<std::size_t>(k)], hi[static_cast<std::size_t>(k)]);
    if (hard_mode) {
      const ClosedLoopGains g = pr.gains(z.data());
      double worst = 0;
      for (const Plant& p : pr.plants())
        for (double w : p.omega) worst = std::max(worst, pr.sigma(p, g, w, nullptr));
      z.push_back(worst);
    } else {
      z.push_back(pr.softIndex(z));
    }
    double f = 0;
    nlopt::result r = nlopt::FAILURE;
    try {
      r = solver.optimize(z, f);
    } catch (const nlopt::forced_stop&) {
      r = nlopt::FORCED_STOP;
    } catch (const nlopt::roundoff_limited&) {
      r = nlopt::ROUNDOFF_LIMITED;
    } catch (const std::runtime_error&) {
      r = nlopt::FAILURE;  // SLSQP gave up (e.g. an inconsistent linearization): keep its point
    }
    z.pop_back();
    Outcome o;
    o.x = z;
    o.message = resultName(r);
    exactNorms(pr, z, o);
    best = o;
    x = z;
    if (e.cancelled) break;
    // The convergence test: the exact norms within tolerance of the constraint.
    bool added = false;
    const double target = hard_mode ? std::max(pr.opt_.hard_level, f) : pr.opt_.hard_level;
    for (std::size_t c = 0; c < pr.plants().size(); ++c) {
      if (o.each[c] > target * (1 + pr.opt_.hard_tolerance) && std::isfinite(o.peaks[c]) && o.peaks[c] >= 0) {
        auto& om = pr.plants()[c].omega;
        if (o.peaks[c] > 0) {
          for (double f2 : {0.999, 1.0, 1.001}) om.push_back(o.peaks[c] * f2);
          added = true;
        } else if (const double low = staticResponsePoint(om); std::find(om.begin(), om.end(), low) == om.end()) {
          om.push_back(low);
          added = true;
        }
      }
    }
    // SLSQP restarted from its end point (a fresh quasi-Newton model) while it still gains 1 %.
    const double now = hard_mode ? o.gamma_hard : o.gamma_soft;
    if (!added && !(now < 0.99 * previous)) break;
    previous = now;
  }
  return best;
}

}  // namespace

SynthesisResult synthesize(const Model& model, const std::vector<Eigen::VectorXd>& configurations,
                           const SynthesisStructure& st, const SynthesisOptions& opt) {
  if (opt.grid_points < 2 || opt.rounds < 1 || opt.restarts < 0 || !(opt.hard_tolerance >= 0) ||
      !(opt.hard_level > 0) || !std::isfinite(opt.hard_level)) {
    throw std::invalid_argument("synthesis: bad options");
  }
  if (!(st.omega_b > 0 && st.omega_m > 0 && st.xi_b > 0 && st.xi_m > 0)) {
    throw std::invalid_argument("synthesis: template frequencies and damping ratios must be positive");
  }
  Problem pr(model, configurations, st, opt);
  const int P = pr.size();
  const int starts = 1 + opt.restarts;
  int start = 0;
  Epigraph e;
  e.problem = &pr;
  e.keep_going = [&]() {
    if (!opt.progress) return true;
    const double inner = std::min(1.0, e.evaluations / static_cast<double>(opt.max_evaluations));
    return opt.progress(std::min(1.0, (start + inner) / starts));
  };
  std::vector<double> x0(static_cast<std::size_t>(P));
  std::vector<double> xd(static_cast<std::size_t>(P));
  for (int k = 0; k < P; ++k) {
    const Parameter& p = pr.parameters()[static_cast<std::size_t>(k)];
    x0[static_cast<std::size_t>(k)] = p.entries.size() == 1 && p.entries[0].i == p.entries[0].j ? 1.0 : p.start;
    xd[static_cast<std::size_t>(k)] = p.start;
  }
  std::mt19937 rng(opt.seed);
  std::uniform_real_distribution<double> factor(0.5, 2.0);
  Outcome best;
  bool have = false;
  auto better = [&](const Outcome& a, const Outcome& b) {
    const double met = opt.hard_level * (1 + opt.hard_tolerance);
    const bool fa = a.gamma_hard <= met, fb = b.gamma_hard <= met;
    if (fa != fb) return fa;
    return fa ? a.gamma_soft < b.gamma_soft : a.gamma_hard < b.gamma_hard;
  };
  for (start = 0; start < starts && !e.cancelled; ++start) {
    // Starts: the inertia-based bounds (x = 1, the thesis' initial values), the diagonally
    // dominant gains, then random multiples of the first.
    std::vector<double> x = start == 1 ? xd : x0;
    if (start > 1) {
      for (double& v : x) v *= factor(rng);
    }
    // The smallest gains under the templates; if SLSQP ends outside them, γ_hard minimized from there.
    Outcome o = solveFrom(pr, x, false, e);
    if (o.gamma_hard > opt.hard_level * (1 + opt.hard_tolerance) && !e.cancelled) {
      o = solveFrom(pr, o.x, true, e);
      o.message += " (templates not met: gamma_hard minimized)";
    }
    if (!have || better(o, best)) best = o, have = true;
  }
  SynthesisResult r;
  r.gains = pr.gains(best.x.data());
  r.gamma_soft = best.gamma_soft;
  r.gamma_hard = best.gamma_hard;
  r.gamma_hard_each = best.each;
  r.omega_peak_each = best.peaks;
  r.feasible = best.gamma_hard <= opt.hard_level * (1 + opt.hard_tolerance);
  r.cancelled = e.cancelled;
  r.evaluations = e.evaluations;
  r.message = e.cancelled ? "cancelled" : best.message;
  const auto& joints = pr.joints();
  r.joint_kp.resize(static_cast<Eigen::Index>(joints.size()));
  r.joint_kd.resize(static_cast<Eigen::Index>(joints.size()));
  for (std::size_t k = 0; k < joints.size(); ++k) {
    // Centralized: Kp_mm = D_mm(q0) diag(kp), so kp_j = Kp(j, j) / D(j, j).
    const int j = joints[k];
    const double unit = st.centralized ? pr.D0()(j, j) : 1.0;
    r.joint_kp[static_cast<Eigen::Index>(k)] = r.gains.Kp(j, j) / unit;
    r.joint_kd[static_cast<Eigen::Index>(k)] = r.gains.Kd(j, j) / unit;
  }
  if (r.gains.anyRolloff()) {
    r.joint_rolloff.resize(static_cast<Eigen::Index>(joints.size()));
    for (std::size_t k = 0; k < joints.size(); ++k) r.joint_rolloff[static_cast<Eigen::Index>(k)] = r.gains.rolloff[static_cast<std::size_t>(joints[k])];
  }
  if (model.base_mode != BaseMode::kFixed && st.base != SynthesisStructure::Base::kNone) {
    r.kp_rot = r.gains.Kp.block<3, 3>(3, 3);
    r.kd_rot = r.gains.Kd.block<3, 3>(3, 3);
    r.kp_pos = r.gains.Kp.block<3, 3>(0, 0);
    r.kd_pos = r.gains.Kd.block<3, 3>(0, 0);
    if (st.base == SynthesisStructure::Base::kAttitudeScalar) {
      r.attitude_kp = best.x[0] * st.omega_b * st.omega_b;
      r.attitude_kd = best.x[1] * 2 * st.xi_b * st.omega_b;
    }
  }
  // The Lyapunov condition on the actuated channels.
  const Eigen::MatrixXd P_ = r.gains.Kp(r.gains.actuated, r.gains.actuated), V = r.gains.Kd(r.gains.actuated, r.gains.actuated);
  r.kp_min_eigenvalue = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (P_ + P_.transpose())).eigenvalues()[0];
  r.kd_min_eigenvalue = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (V + V.transpose())).eigenvalues()[0];
  r.kp_positive_definite = r.kp_min_eigenvalue > 0;
  r.kd_positive_definite = r.kd_min_eigenvalue > 0;
  return r;
}

WorstCase worstCase(const Model& m, const Eigen::VectorXd& q, const ClosedLoopGains& g, int samples, unsigned seed) {
  if (samples < 1) throw std::invalid_argument("worst case: at least one sample expected");
  if (q.size() != m.nq || !q.allFinite()) throw std::invalid_argument("worst case: bad configuration");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  WorstCase out;
  for (int k = 0; k < samples; ++k) {
    Eigen::VectorXd s = q;
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv != 1) continue;
      const int i = m.joint[b].idx_q;
      const double lo = std::isfinite(m.lower_position_limit[i]) ? m.lower_position_limit[i] : -M_PI;
      const double hi = std::isfinite(m.upper_position_limit[i]) ? m.upper_position_limit[i] : M_PI;
      s[i] = lo + (hi - lo) * u(rng);
    }
    const double gamma = evaluateController(m, s, g).upper;
    out.each.push_back(gamma);
    if (std::isinf(gamma)) ++out.unstable;
    if (k == 0 || gamma > out.gamma) {
      out.gamma = gamma;
      out.q = s;
    }
  }
  return out;
}

namespace detail {

double synthesisGradientError(const Model& model, const std::vector<Eigen::VectorXd>& configurations,
                              const SynthesisStructure& st, double scale) {
  SynthesisOptions opt;
  opt.grid_points = 12;
  Problem pr(model, configurations, st, opt);
  for (Plant& p : pr.plants()) p.omega.push_back(staticResponsePoint(p.omega));  // (as solveFrom adds it)
  const int P = pr.size();
  const unsigned n = static_cast<unsigned>(P + 1);
  std::vector<double> z(n);
  for (int k = 0; k < P; ++k) z[static_cast<std::size_t>(k)] = scale * pr.parameters()[static_cast<std::size_t>(k)].start;
  z[static_cast<std::size_t>(P)] = 1;
  Epigraph e;
  e.problem = &pr;
  e.moving = false;
  nlopt::opt dummy(nlopt::LD_SLSQP, n);
  e.solver = &dummy;
  double worst = 0;
  for (bool hard : {false, true}) {
    e.hard_mode = hard;
    unsigned m = hard ? 0 : 2 * static_cast<unsigned>(pr.soft().size());
    for (const Plant& p : pr.plants()) m += static_cast<unsigned>(p.omega.size() + 2 * kStabilityRows);
    std::vector<double> c(m), grad(static_cast<std::size_t>(m) * n), cp(m), cm(m);
    constraints(m, c.data(), n, z.data(), grad.data(), &e);
    for (unsigned k = 0; k < n; ++k) {
      const double h = 1e-6 * std::max(1.0, std::abs(z[k]));
      std::vector<double> zp = z, zm = z;
      zp[k] += h;
      zm[k] -= h;
      constraints(m, cp.data(), n, zp.data(), nullptr, &e);
      constraints(m, cm.data(), n, zm.data(), nullptr, &e);
      for (unsigned i = 0; i < m; ++i) {
        double size = 0;
        for (unsigned j = 0; j < n; ++j) size = std::max(size, std::abs(grad[i * n + j]));
        const double fd = (cp[i] - cm[i]) / (2 * h);
        const double error = std::abs(fd - grad[i * n + k]) / std::max(size, 1e-12);
        worst = std::isfinite(error) ? std::max(worst, error) : std::numeric_limits<double>::infinity();
      }
    }
  }
  return worst;
}

}  // namespace detail

HinfNorm evaluateController(const Model& m, const Eigen::VectorXd& q, const ClosedLoopGains& g) {
  if (q.size() != m.nq || !q.allFinite()) throw std::invalid_argument("controller evaluation: bad configuration");
  Data d(m, m.hasFlexibleBodies());
  const Eigen::MatrixXd D = massMatrix(m, d, flexAtZero(m, q));
  return hinfNorm(weightedSensitivity(D, stiffnessMatrix(m), dampingMatrix(m), g), 1e-6);
}

}  // namespace grapple::core
