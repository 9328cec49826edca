// Integrators for x' = f(t, x) on plain vectors: the classical fixed-step RK4 (the thesis'
// integrator, for comparisons), adaptive embedded pairs, Dormand–Prince 5(4) and RK4(3), with
// the standard error control (Hairer, Nørsett & Wanner, Solving ODEs I, §II.4), and a linearly
// implicit Rosenbrock-W method for stiff systems (Hairer & Wanner, Solving ODEs II, §IV.7).
// Quaternions in x are integrated like every other entry, never renormalized: kinematics read
// them normalized.
#pragma once

#include <functional>

#include <Eigen/Core>

namespace grapple::core {

using OdeFunction = std::function<void(double t, const Eigen::VectorXd& x, Eigen::VectorXd& dx)>;

class Rk4Solver {
 public:
  // x(t) -> x(t + h).
  void step(const OdeFunction& f, double t, double h, Eigen::VectorXd& x);

 private:
  Eigen::VectorXd k_[4], tmp_, next_;
};

// The embedded pairs of AdaptiveRk.
enum class AdaptiveMethod {
  kDormandPrince54,  // 7 stages (6 evaluations per step, FSAL), order 5 with a 4th-order estimate
  kRk43,             // the classical RK4 with its embedded 3rd-order estimate
                     //   b̂ = (1/6, 1/3, 1/3, 0, 1/6) on k1..k4 and k5 = f(t + h, x_{n+1}) (FSAL):
                     //   4 evaluations per step. Its stability interval on the imaginary axis is
                     //   |hλ| <= 2.83 against 1.0 for Dormand–Prince (|R(iy)| of DOPRI5 exceeds 1
                     //   beyond y = 1), so on models with fast undamped modes (the traction modes of
                     //   flexible segments, ~1000 rad/s, amplitudes below atol) it takes 3x
                     //   (test_ode) to 15x (the flexible capture scenario) fewer evaluations.
};

struct AdaptiveOptions {
  AdaptiveMethod method = AdaptiveMethod::kDormandPrince54;  // (AdaptiveRk only)
  double rtol = 1e-9;          // relative tolerance
  double atol = 1e-12;         // absolute tolerance
  double h_initial = 1e-3;     // [s] first trial step
  double h_min = 1e-12;        // [s] below this the step fails (std::runtime_error)
  double h_max = 0.1;          // [s]
};

struct AdaptiveStats {
  long accepted = 0, rejected = 0, evaluations = 0;
};

// Adaptive explicit Runge–Kutta with an embedded error estimate and PI step-size control.
class AdaptiveRk {
 public:
  explicit AdaptiveRk(AdaptiveOptions options = {}) : options_(options), h_(options.h_initial) {}

  // Advances x from t to exactly t_end with accepted adaptive steps. Throws std::runtime_error if
  // the step size falls below h_min or the state stops being finite (the message says when).
  // f0: f(t, x) if the caller has it (it is then not evaluated).
  void advance(const OdeFunction& f, double t, double t_end, Eigen::VectorXd& x,
               const Eigen::VectorXd* f0 = nullptr);
  // After advance: f(t_end, x) (the last stage of the last step, first same as last).
  const Eigen::VectorXd& lastDerivative() const { return k_[0]; }

  const AdaptiveStats& stats() const { return stats_; }
  double lastStep() const { return h_; }
  const AdaptiveOptions& options() const { return options_; }

 private:
  // One trial step of size h from (t, x), k_[0] = f(t, x): the solution in y_, the error
  // estimate in err_ and, for FSAL, f(t + h, y_) in k_[last]. Returns that last index.
  int attempt(const OdeFunction& f, double t, double h, const Eigen::VectorXd& x);

  AdaptiveOptions options_;
  AdaptiveStats stats_;
  double h_;
  double err_old_ = 1e-4;   // error norm of the last accepted step (PI control)
  Eigen::VectorXd k_[7], y_, err_, tmp_;
};

// The stiff part of a system for RosenbrockW: a matrix J that approximates the Jacobian ∂f/∂x where
// it matters for stability (a W-method stays of its order with any J; the closer J is to ∂f/∂x,
// the larger the stable steps), and solutions of (g I − J) u = r.
class StiffPart {
 public:
  virtual ~StiffPart() = default;
  // J at (t, x): called once per accepted step, before the first factor().
  virtual void jacobian(double t, const Eigen::VectorXd& x) = 0;
  // Prepares solve() with g I − J (g = 1/(γ h); a new g after each rejected step).
  virtual void factor(double g) = 0;
  // r ← (g I − J)⁻¹ r.
  virtual void solve(Eigen::VectorXd& r) = 0;
};

// ROS34PW2 (Rang & Angermann, BIT 45, 2005): a 4-stage Rosenbrock-W method of order 3 with an
// embedded solution of order 2, L-stable and stiffly accurate, of order 3 for any J. Each step
// costs 4 evaluations of f, one jacobian() and 4 solves (one factor(), more after rejections).
// The stages, in the transformed variables u_i = Σ_j γ_ij k_j of Hairer & Wanner (IV.7.25):
//   (g I − J) u_i = f(t + α_i h, x + Σ_{j<i} a_ij u_j) + Σ_{j<i} (c_ij / h) u_j,   g = 1/(γ h),
//   x_{n+1} = x + Σ m_i u_i, error estimate Σ (m_i − m̂_i) u_i
// (∂f/∂t is taken as zero, which a W-method allows). Step control as AdaptiveRk's (PI, error
// estimate of order 2: exponent 1/3); options.method is not used.
class RosenbrockW {
 public:
  explicit RosenbrockW(AdaptiveOptions options = {});

  // Advances x from t to exactly t_end. Throws std::runtime_error as AdaptiveRk::advance does.
  void advance(const OdeFunction& f, StiffPart& stiff, double t, double t_end, Eigen::VectorXd& x);

  const AdaptiveStats& stats() const { return stats_; }
  double lastStep() const { return h_; }
  const AdaptiveOptions& options() const { return options_; }

 private:
  AdaptiveOptions options_;
  AdaptiveStats stats_;
  double h_;
  double err_old_ = 1e-4;
  Eigen::VectorXd u_[4], fx_, y_, err_;
};

}  // namespace grapple::core
