#include "core/sim/ode.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace grapple::core {

namespace {
// The classical RK4 step from x with k[0] = f(t, x) given: k[1..3], and the new state in out
// (tmp: scratch; out may not be x).
void rk4Stages(const OdeFunction& f, double t, double h, const Eigen::VectorXd& x,
               Eigen::VectorXd* k, Eigen::VectorXd& tmp, Eigen::VectorXd& out) {
  tmp = x + (0.5 * h) * k[0];
  f(t + 0.5 * h, tmp, k[1]);
  tmp = x + (0.5 * h) * k[1];
  f(t + 0.5 * h, tmp, k[2]);
  tmp = x + h * k[2];
  f(t + h, tmp, k[3]);
  out = x + (h / 6) * (k[0] + 2 * k[1] + 2 * k[2] + k[3]);
}
}  // namespace

void Rk4Solver::step(const OdeFunction& f, double t, double h, Eigen::VectorXd& x) {
  f(t, x, k_[0]);
  rk4Stages(f, t, h, x, k_, tmp_, next_);
  x.swap(next_);
}

namespace {

// RMS of err / (atol + rtol max(|x|, |y|)) (Hairer, Nørsett & Wanner I, eq. II.4.11).
double errorNorm(const AdaptiveOptions& o, const Eigen::VectorXd& x, const Eigen::VectorXd& y,
                 const Eigen::VectorXd& err) {
  double sum = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double sc = o.atol + o.rtol * std::max(std::abs(x[i]), std::abs(y[i]));
    sum += (err[i] / sc) * (err[i] / sc);
  }
  return x.size() > 0 ? std::sqrt(sum / static_cast<double>(x.size())) : 0.0;
}

// A trial step of size h from t gave a state that is not finite: h is cut by 10 unless it is at
// h_min already (then std::runtime_error).
void notFinite(const AdaptiveOptions& o, double t, double& h) {
  if (h <= o.h_min) {
    std::ostringstream os;
    os << "the state is no longer finite at t = " << t + h << " s (step " << h << " s)";
    throw std::runtime_error(os.str());
  }
  h *= 0.1;
}

void checkStep(const AdaptiveOptions& o, double t, double h) {
  if (h < o.h_min) {
    std::ostringstream os;
    os << "the step size fell below " << o.h_min << " s at t = " << t
       << " s: the motion is too stiff or discontinuous for the tolerances";
    throw std::runtime_error(os.str());
  }
}

// Step size control with the PI ("stabilized") law of Hairer's DOPRI5 code (safety 0.9, growth
// within [0.2, 10]): near the stability boundary, where flexible modes put a fast undamped
// oscillation, it cuts the rejected steps by half or more. expo = 1/(q + 1), q the order of the
// error estimate. Accepted (err <= 1): sets the next step h_next (kept when a step cut short to
// land on a sample end would shrink it) and err_old, returns true. Rejected: shrinks h (throws
// below h_min), returns false.
bool stepControl(const AdaptiveOptions& o, double err, double expo, double beta, bool last, double t,
                 double& h, double& h_next, double& err_old) {
  constexpr double kSafe = 0.9;
  const double fac11 = err == 0 ? 0.0 : std::pow(err, expo - 0.75 * beta);
  if (err <= 1.0) {
    const double fac = std::clamp(fac11 / std::pow(err_old, beta) / kSafe, 0.1, 5.0);
    err_old = std::max(err, 1e-4);
    if (!last || fac > 1) h_next = std::max(h / fac, o.h_min);
    return true;
  }
  h /= std::min(5.0, fac11 / kSafe);
  checkStep(o, t, h);
  return false;
}

// Dormand–Prince 5(4) tableau.
constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
constexpr double a21 = 1.0 / 5;
constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                 a65 = -5103.0 / 18656;
constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784,
                 b6 = 11.0 / 84;
// error coefficients: b - b*
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                 e6 = 22.0 / 525, e7 = -1.0 / 40;
}  // namespace

int AdaptiveRk::attempt(const OdeFunction& f, double t, double h, const Eigen::VectorXd& x) {
  if (options_.method == AdaptiveMethod::kRk43) {
    rk4Stages(f, t, h, x, k_, tmp_, y_);
    f(t + h, y_, k_[4]);
    stats_.evaluations += 4;
    err_ = (h / 6) * (k_[3] - k_[4]);  // (b - b̂) = (0, 0, 0, 1/6, -1/6)
    return 4;
  }
  y_ = x + h * a21 * k_[0];
  f(t + c2 * h, y_, k_[1]);
  y_ = x + h * (a31 * k_[0] + a32 * k_[1]);
  f(t + c3 * h, y_, k_[2]);
  y_ = x + h * (a41 * k_[0] + a42 * k_[1] + a43 * k_[2]);
  f(t + c4 * h, y_, k_[3]);
  y_ = x + h * (a51 * k_[0] + a52 * k_[1] + a53 * k_[2] + a54 * k_[3]);
  f(t + c5 * h, y_, k_[4]);
  y_ = x + h * (a61 * k_[0] + a62 * k_[1] + a63 * k_[2] + a64 * k_[3] + a65 * k_[4]);
  f(t + h, y_, k_[5]);
  y_ = x + h * (b1 * k_[0] + b3 * k_[2] + b4 * k_[3] + b5 * k_[4] + b6 * k_[5]);
  f(t + h, y_, k_[6]);
  stats_.evaluations += 6;
  err_ = h * (e1 * k_[0] + e3 * k_[2] + e4 * k_[3] + e5 * k_[4] + e6 * k_[5] + e7 * k_[6]);
  return 6;
}

void AdaptiveRk::advance(const OdeFunction& f, double t, double t_end, Eigen::VectorXd& x,
                         const Eigen::VectorXd* f0) {
  const AdaptiveOptions& o = options_;
  if (!(t_end >= t)) throw std::invalid_argument("AdaptiveRk::advance: t_end < t");
  // k1 is evaluated afresh on each call (unless given): the caller may have changed x or f (a
  // sampled control, an event) since the last one. Within the call, the last stage of a step is
  // k1 of the next (FSAL).
  if (f0 != nullptr) {
    k_[0] = *f0;
  } else {
    f(t, x, k_[0]);
    ++stats_.evaluations;
  }
  while (t < t_end) {
    double h = std::min({h_, o.h_max, t_end - t});
    for (;;) {
      const bool last = h >= t_end - t;  // this step lands on t_end (re-evaluated after rejections)
      const int last_stage = attempt(f, t, h, x);
      const double err = errorNorm(o, x, y_, err_);
      if (!std::isfinite(err) || !y_.allFinite()) {
        notFinite(o, t, h);
        ++stats_.rejected;
        continue;
      }
      // β = 0.04 as in DOPRI5 and, for the RK4(3) pair, 0.4/(q + 1) = 0.1 (Hairer & Wanner II,
      // IV.2), which on the flexible capture takes 12 % fewer evaluations than 0.04 and rejects 4x
      // fewer steps.
      const bool rk43 = options_.method == AdaptiveMethod::kRk43;
      if (stepControl(o, err, rk43 ? 0.25 : 0.2, rk43 ? 0.1 : 0.04, last, t, h, h_, err_old_)) {
        ++stats_.accepted;
        t = last ? t_end : t + h;
        x = y_;
        k_[0] = k_[last_stage];  // FSAL
        break;
      }
      ++stats_.rejected;
    }
  }
}

namespace {

// ROS34PW2 (Rang & Angermann, BIT 45, 2005): γ, the lower triangle of (γ_ij) and of (α_ij), the
// weights b and the embedded b̂.
constexpr double kGamma = 0.43586652150845900;
constexpr double kGammaTable[4][4] = {{kGamma, 0, 0, 0},
                                      {-0.87173304301691801, kGamma, 0, 0},
                                      {-0.90338057013044082, 0.054180672388095326, kGamma, 0},
                                      {0.24212380706095346, -1.2232505839045147, 0.54526025533510214, kGamma}};
constexpr double kAlphaTable[4][4] = {{0, 0, 0, 0},
                                      {0.87173304301691801, 0, 0, 0},
                                      {0.84457060015369423, -0.11299064236484185, 0, 0},
                                      {0, 0, 1, 0}};
constexpr double kB[4] = {0.24212380706095346, -1.2232505839045147, 1.5452602553351020, kGamma};
constexpr double kBHat[4] = {0.37810903145819369, -0.096042292212423178, 0.5, 0.21793326075422950};

// The coefficients of the transformed stages (Hairer & Wanner II, IV.7.25): a = α Γ⁻¹,
// c = diag(1/γ) − Γ⁻¹, m = b Γ⁻¹, m̂ = b̂ Γ⁻¹, and the nodes α_i = Σ_j α_ij.
struct Ros34pw2 {
  double a[4][4] = {}, c[4][4] = {}, m[4] = {}, e[4] = {}, node[4] = {};
  Ros34pw2() {
    double inv[4][4] = {};  // Γ⁻¹, lower triangular, by forward substitution
    for (int j = 0; j < 4; ++j) {
      for (int i = j; i < 4; ++i) {
        double s = i == j ? 1.0 : 0.0;
        for (int k = j; k < i; ++k) s -= kGammaTable[i][k] * inv[k][j];
        inv[i][j] = s / kGammaTable[i][i];
      }
    }
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 4; ++k) a[i][j] += kAlphaTable[i][k] * inv[k][j];
        c[i][j] = (i == j ? 1 / kGamma : 0.0) - inv[i][j];
        m[j] += kB[i] * inv[i][j];
        e[j] += (kB[i] - kBHat[i]) * inv[i][j];
        node[i] += kAlphaTable[i][j];
      }
    }
  }
};
const Ros34pw2 kRos;

}  // namespace

RosenbrockW::RosenbrockW(AdaptiveOptions options) : options_(options), h_(options.h_initial) {}

void RosenbrockW::advance(const OdeFunction& f, StiffPart& stiff, double t, double t_end,
                          Eigen::VectorXd& x) {
  const AdaptiveOptions& o = options_;
  if (!(t_end >= t)) throw std::invalid_argument("RosenbrockW::advance: t_end < t");
  while (t < t_end) {
    stiff.jacobian(t, x);
    f(t, x, fx_);  // the first stage's, kept through rejections
    ++stats_.evaluations;
    double h = std::min({h_, o.h_max, t_end - t});
    for (;;) {
      const bool last = h >= t_end - t;
      stiff.factor(1 / (kGamma * h));
      for (int i = 0; i < 4; ++i) {
        if (i == 0) {
          u_[0] = fx_;
        } else {
          y_ = x;
          for (int j = 0; j < i; ++j) y_ += kRos.a[i][j] * u_[j];
          f(t + kRos.node[i] * h, y_, u_[i]);
          ++stats_.evaluations;
        }
        for (int j = 0; j < i; ++j) u_[i] += (kRos.c[i][j] / h) * u_[j];
        stiff.solve(u_[i]);
      }
      y_ = x;
      err_.setZero(x.size());
      for (int i = 0; i < 4; ++i) {
        y_ += kRos.m[i] * u_[i];
        err_ += kRos.e[i] * u_[i];
      }
      const double err = errorNorm(o, x, y_, err_);
      if (!std::isfinite(err) || !y_.allFinite()) {
        notFinite(o, t, h);
        ++stats_.rejected;
        continue;
      }
      // PI control for an estimate of order q = 2: exponent 1/3, β = 0.4/3.
      if (stepControl(o, err, 1.0 / 3, 0.4 / 3, last, t, h, h_, err_old_)) {
        ++stats_.accepted;
        t = last ? t_end : t + h;
        x = y_;
        break;
      }
      ++stats_.rejected;
    }
  }
}

}  // namespace grapple::core
