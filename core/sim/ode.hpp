// Integrators for x' = f(t, x) on plain vectors: the classical fixed-step RK4 (the thesis'
// integrator, for comparisons) and the adaptive Dormand–Prince 5(4) pair with its standard error
// control (Hairer, Nørsett & Wanner, Solving ODEs I, §II.4). Quaternions in x are integrated like
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
  Eigen::VectorXd k_[4], tmp_;
};

struct DopriOptions {
  double rtol = 1e-9;          // relative tolerance
  double atol = 1e-12;         // absolute tolerance
  double h_initial = 1e-3;     // [s] first trial step
  double h_min = 1e-12;        // [s] below this the step fails (std::runtime_error)
  double h_max = 0.1;          // [s]
};

struct DopriStats {
  long accepted = 0, rejected = 0, evaluations = 0;
};

class DormandPrince {
 public:
  explicit DormandPrince(DopriOptions options = {}) : options_(options), h_(options.h_initial) {}

  // Advances x from t to exactly t_end with accepted adaptive steps. Throws std::runtime_error if
  // the step size falls below h_min or the state stops being finite (the message says when).
  void advance(const OdeFunction& f, double t, double t_end, Eigen::VectorXd& x);

  const DopriStats& stats() const { return stats_; }
  double lastStep() const { return h_; }
  const DopriOptions& options() const { return options_; }

 private:
  DopriOptions options_;
  DopriStats stats_;
  double h_;
  Eigen::VectorXd k_[7], y_, err_;
};

}  // namespace grapple::core
