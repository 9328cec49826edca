// Integrators for x' = f(t, x) on plain vectors: the classical fixed-step RK4 (the thesis'
// integrator, for comparisons) and adaptive embedded pairs, Dormand–Prince 5(4) and RK4(3), with
// the standard error control (Hairer, Nørsett & Wanner, Solving ODEs I, §II.4). Quaternions in x are integrated like
// every other entry, never renormalized: kinematics read them normalized.
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
  AdaptiveMethod method = AdaptiveMethod::kDormandPrince54;
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
  void advance(const OdeFunction& f, double t, double t_end, Eigen::VectorXd& x);

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

}  // namespace grapple::core
