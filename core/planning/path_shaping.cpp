#include "core/planning/path_shaping.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>

namespace grapple::core {

namespace {

using Shape = Eigen::Matrix<double, Eigen::Dynamic, 3>;

// The sum of the negative margins of every constraint checked (0: feasible).
double violation(const PlanCheck& c) {
  double v = 0;
  for (const ConstraintMargin& m : c.constraints) v += std::min(m.margin, 0.0);
  return v;
}

Shape unpack(const Eigen::VectorXd& x) {
  Shape s(x.size() / 3, 3);
  for (Eigen::Index k = 0; k < s.rows(); ++k) s.row(k) = x.segment<3>(3 * k).transpose();
  return s;
}

}  // namespace

bool shapeable(const PlanCheck& check, const PlanSeries& series, double t_f, const FeasibilityOptions& o,
               const ShapingOptions& so) {
  // Where the shaping does not start: a flight that violates a geometric constraint (singularity,
  // joint limits or rates, clearances) by more than max_geometric (a flight past a singular pose
  // diverges, and linearizing it means nothing), or asks the bus too much after the Ch. 7 stage
  // (the slide and the hold, where the path is the debris' own: the bus torque there is the arm's
  // configuration's and rates' at the meeting, which a correction vanishing there changes only
  // through the bus' drift), or far too much anywhere.
  for (const ConstraintMargin& c : check.constraints) {
    if (c.name != "bus_torque" && c.name != "joint_torque" && !(c.margin >= so.max_geometric)) return false;
  }
  const double limit = o.torque_margin * o.bus_torque_limit;
  if (!(check.bus_torque <= so.max_ratio * limit) || series.bus_torque.size() != check.times.size()) return false;
  for (std::size_t i = 0; i < check.times.size(); ++i) {
    if (check.times[i] > t_f + 1e-9 && series.bus_torque[i].cwiseAbs().maxCoeff() > limit) return false;
  }
  return true;
}

ShapedPlan shapeAgainstBusTorque(const Model& m, Data& d, const FeasibilityOptions& options,
                                 const ShapingOptions& so, CapturePlan& plan, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v, int ee_frame) {
  if (!options.hold_bus || !std::isfinite(options.bus_torque_limit)) {
    throw std::invalid_argument("path shaping: needs the bus held and its torque limited");
  }
  if (so.basis < 1 || so.basis > 24 || so.iterations < 0 || so.lawson < 1 || !(so.trust > 0) || !(so.delta > 0)) {
    throw std::invalid_argument("path shaping: expected 1-24 basis functions, iterations >= 0, lawson >= 1, trust > 0, "
                                "delta > 0");
  }
  FeasibilityOptions o = options;
  o.stop_at_violation = false;  // the whole path is linearized
  const int nx = 3 * so.basis;
  // One flight in prediction of the plan shaped by x: its check, and the rows the subproblem
  // bounds stacked: the bus torques, and where the geometric margin is under `geometric_on`, the
  // deficit κ (geometric_on − margin) with κ the bus' share of its limit (a unit of normalized
  // margin weighs as much as the whole torque a plan may ask).
  PlanSeries series;
  const double limit = o.torque_margin * o.bus_torque_limit;
  std::vector<int> active;         // steps whose geometric row is in, fixed per linearization
  Eigen::Index torque_rows = 0;    // the bus torques' rows of the linearization's flight
  auto rowsOf = [&](bool choose, Eigen::VectorXd& rows) {
    const auto n = static_cast<Eigen::Index>(series.bus_torque.size());
    if (choose) {
      torque_rows = 3 * n;
      active.clear();
      for (Eigen::Index i = 0; i < n; ++i) {
        if (series.geometric[static_cast<std::size_t>(i)] < so.geometric_on) active.push_back(static_cast<int>(i));
      }
    }
    rows.resize(3 * n + static_cast<Eigen::Index>(active.size()));
    for (Eigen::Index i = 0; i < n; ++i) rows.segment<3>(3 * i) = series.bus_torque[static_cast<std::size_t>(i)];
    for (std::size_t a = 0; a < active.size(); ++a) {
      const double g = active[a] < n ? series.geometric[static_cast<std::size_t>(active[a])] : -INFINITY;
      rows[3 * n + static_cast<Eigen::Index>(a)] = limit * (so.geometric_on - g);
    }
  };
  auto fly = [&](const Eigen::VectorXd& x, Eigen::VectorXd& rows, bool choose) {
    plan.setShape(unpack(x));
    PlanCheck c = checkCapturePlan(m, d, o, plan, q, v, ee_frame, &series);
    rowsOf(choose, rows);
    return c;
  };
  Eigen::VectorXd x = Eigen::VectorXd::Zero(nx), tau;
  if (plan.options().shape.rows() == so.basis) {
    for (int k = 0; k < so.basis; ++k) x.segment<3>(3 * k) = plan.options().shape.row(k).transpose();
  }
  ShapedPlan out;
  out.check = fly(x, tau, true);
  out.shape = unpack(x);
  out.predictions = 1;
  out.bus_torque_before = out.check.bus_torque;
  if (!shapeable(out.check, series, plan.rendezvousTime(), o, so)) {
    out.hopeless = true;
    return out;
  }
  double kept = violation(out.check), mu = so.trust;
  Eigen::MatrixXd G;
  Eigen::VectorXd tau_j;
  bool moved = true;  // x changed since G was formed
  for (int it = 0; it < so.iterations && !out.check.feasible; ++it) {
    // The Jacobian of the rows (the bus torques along the flight, the geometric deficits) with
    // respect to the coefficients, by forward differences of whole flights (the path's change
    // moves the arm's configuration and rates, not only its acceleration: the instantaneous
    // sensitivity alone mispredicts).
    const Eigen::Index R = tau.size();
    if (moved) {
      G.resize(R, nx);
      bool complete = true;
      for (int j = 0; j < nx && complete; ++j) {
        Eigen::VectorXd xj = x;
        xj[j] += so.delta;
        fly(xj, tau_j, false);
        ++out.predictions;
        complete = tau_j.size() == R && tau_j.allFinite();  // (a diverged flight stops early)
        if (complete) G.col(j) = (tau_j - tau) / so.delta;
      }
      if (!complete) break;
      moved = false;
    }
    // min over x' of the largest row r + G (x' − x) (in absolute value for the torques) with a
    // trust region μ s |x' − x|² (s: the mean squared entry of G, so that μ is dimensionless), by
    // Lawson's reweighted least squares.
    const double s = G.squaredNorm() / static_cast<double>(R * nx);
    const Eigen::MatrixXd trust = (mu * s) * Eigen::MatrixXd::Identity(nx, nx);
    Eigen::VectorXd w = Eigen::VectorXd::Constant(R, 1.0 / static_cast<double>(R)), step = Eigen::VectorXd::Zero(nx);
    for (int l = 0; l < so.lawson; ++l) {
      const Eigen::MatrixXd WG = w.asDiagonal() * G;
      step = (G.transpose() * WG + trust).ldlt().solve(-WG.transpose() * tau);
      Eigen::VectorXd res = tau + G * step;
      // The geometric rows bound from one side: a margin above its target is no error (a small
      // weight kept so that the row can come back).
      res.head(torque_rows) = res.head(torque_rows).cwiseAbs();
      for (Eigen::Index r = torque_rows; r < R; ++r) res[r] = std::max(res[r], 1e-9 * limit);
      w = w.cwiseProduct(res);
      const double sum = w.sum();
      if (!(sum > 0) || !std::isfinite(sum)) break;
      w /= sum;
    }
    if (!step.allFinite()) break;
    Eigen::VectorXd tau_next;
    const Eigen::VectorXd x_next = x + step;
    const PlanCheck check = fly(x_next, tau_next, false);
    ++out.predictions;
    const double vio = violation(check);
    if (vio > kept) {
      kept = vio;
      out.check = check;
      out.shape = unpack(x_next);
      x = x_next;
      rowsOf(true, tau);  // (the geometric rows active there)
      mu = std::max(mu / 3, 1e-6);
      moved = true;
    } else {
      mu *= 10;
    }
  }
  plan.setShape(out.shape);
  return out;
}

}  // namespace grapple::core
