#include "core/analysis/manipulability.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <mutex>
#include <random>
#include <thread>

#include "core/dynamics/data.hpp"
#include "core/dynamics/jacobian.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

// The columns (velocity indices) of the 1-DOF joints: the arm's, without the base and the modes.
std::vector<int> jointColumns(const Model& m) {
  std::vector<int> cols;
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1) cols.push_back(m.joint[b].idx_v);
  }
  std::sort(cols.begin(), cols.end());
  return cols;
}

// The body of the 1-DOF joint with velocity index v_index.
int bodyOfJoint(const Model& m, int v_index) {
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv == 1 && m.joint[b].idx_v == v_index) return b;
  }
  throw std::invalid_argument("manipulability: coordinate " + std::to_string(v_index) + " is not a 1-DOF joint");
}

int qIndexOf(const Model& m, int v_index) { return m.joint[static_cast<std::size_t>(bodyOfJoint(m, v_index))].idx_q; }

void check(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o) {
  if (q.size() != m.nq) throw std::invalid_argument("manipulability: q has the wrong size");
  if (o.frame < 0 || o.frame >= static_cast<int>(m.frames.size())) throw std::invalid_argument("manipulability: no such frame");
  if (o.jacobian == ManipulabilityJacobian::kGeneralized && m.base_mode != BaseMode::kFloating) {
    throw std::invalid_argument("manipulability: the generalized Jacobian needs a floating base");
  }
}

Eigen::MatrixXd taskRows(const Eigen::MatrixXd& J6, ManipulabilityTask task) {
  switch (task) {
    case ManipulabilityTask::kPosition: return J6.topRows<3>();
    case ManipulabilityTask::kPlanarXY: return J6.topRows<2>();
    case ManipulabilityTask::kFull: return J6;
  }
  return J6;
}

// The Jacobian's task rows with a given Data (no allocation of a Data per point).
Eigen::MatrixXd jacobianWith(const Model& m, Data& d, const Eigen::VectorXd& q, const ManipulabilityOptions& o,
                             const std::vector<int>& cols) {
  if (o.jacobian == ManipulabilityJacobian::kGeneralized) {
    const Eigen::MatrixXd Js = generalizedJacobian(m, d, q, o.frame, o.point);  // columns: v index - 6
    Eigen::MatrixXd J(6, static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) J.col(static_cast<Eigen::Index>(k)) = Js.col(cols[k] - 6);
    return taskRows(J, o.task);
  }
  forwardKinematics(m, d, q);
  const Eigen::MatrixXd& Jf = frameJacobian(m, d, o.frame, o.point);
  return taskRows(Jf(Eigen::all, cols), o.task);
}

Manipulability measure(const Eigen::MatrixXd& J) {
  // sqrt(det(J Jᵀ)) as the product of the singular values: the determinant's rounding (~1e-17)
  // would otherwise show as ~1e-9 after the square root near a singular pose.
  Manipulability r;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J);
  const Eigen::VectorXd& s = svd.singularValues();
  r.yoshikawa = s.prod();
  const double smin = s.size() > 0 ? s.minCoeff() : 0.0;
  r.condition = smin > 0 ? s.maxCoeff() / smin : INFINITY;
  if (J.rows() > J.cols()) {  // fewer joints than task rows: never full rank
    r.yoshikawa = 0;
    r.condition = INFINITY;
  }
  return r;
}

// Runs rows [0, n) of a map on `threads` threads, each with its own Data.
template <class Row>
void parallelRows(const Model& m, int n, int threads, const Row& row) {
  threads = std::clamp(threads, 1, std::max(1, n));
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (int k = 0; k < threads; ++k) {
    pool.emplace_back([&, k] {
      try {
        Data d(m, m.hasFlexibleBodies());
        for (int i = k; i < n; i += threads) row(d, i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        error = std::current_exception();
      }
    });
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

std::vector<double> grid(double lo, double hi, int n) {
  if (n < 1 || !(hi >= lo)) throw std::invalid_argument("manipulability: a grid needs n >= 1 and max >= min");
  std::vector<double> g(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) g[static_cast<std::size_t>(k)] = n == 1 ? lo : lo + (hi - lo) * k / (n - 1);
  return g;
}

}  // namespace

Eigen::MatrixXd manipulabilityJacobian(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o) {
  check(m, q, o);
  Data d(m, m.hasFlexibleBodies());
  return jacobianWith(m, d, q, o, jointColumns(m));
}

Manipulability manipulability(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o) {
  return measure(manipulabilityJacobian(m, q, o));
}

ManipulabilityMap jointManipulabilityMap(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o,
                                         int joint_a, double a_min, double a_max, int na, int joint_b, double b_min,
                                         double b_max, int nb, int threads) {
  check(m, q, o);
  const int qa = qIndexOf(m, joint_a), qb = qIndexOf(m, joint_b);
  const std::vector<int> cols = jointColumns(m);
  ManipulabilityMap map;
  map.a_values = grid(a_min, a_max, na);
  map.b_values = grid(b_min, b_max, nb);
  map.yoshikawa.resize(na, nb);
  map.condition.resize(na, nb);
  parallelRows(m, na, threads, [&](Data& d, int i) {
    Eigen::VectorXd x = q;
    x[qa] = map.a_values[static_cast<std::size_t>(i)];
    for (int j = 0; j < nb; ++j) {
      x[qb] = map.b_values[static_cast<std::size_t>(j)];
      const Manipulability r = measure(jacobianWith(m, d, x, o, cols));
      map.yoshikawa(i, j) = r.yoshikawa;
      map.condition(i, j) = r.condition;
    }
  });
  return map;
}

ManipulabilityMap planeManipulabilityMap(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o,
                                         int joint_a, int joint_b, const Vector3& origin, const Vector3& u,
                                         const Vector3& v, double s_min, double s_max, int ns, double t_min,
                                         double t_max, int nt, int threads) {
  check(m, q, o);
  if (std::abs(u.norm() - 1) > 1e-9 || std::abs(v.norm() - 1) > 1e-9 || std::abs(u.dot(v)) > 1e-9) {
    throw std::invalid_argument("manipulability: the plane's axes must be orthonormal");
  }
  const int qa = qIndexOf(m, joint_a), qb = qIndexOf(m, joint_b);
  const std::vector<int> cols = jointColumns(m);
  const Vector3 n = u.cross(v);
  ManipulabilityMap map;
  map.a_values = grid(s_min, s_max, ns);
  map.b_values = grid(t_min, t_max, nt);
  map.yoshikawa.setConstant(ns, nt, NAN);
  map.condition.setConstant(ns, nt, NAN);
  Eigen::Matrix<double, 2, 3> P;
  P.row(0) = u.transpose();
  P.row(1) = v.transpose();
  parallelRows(m, ns, threads, [&](Data& d, int i) {
    Eigen::VectorXd x = q;  // the warm start: the previous point of the row, or q
    for (int j = 0; j < nt; ++j) {
      const Vector3 target = origin + map.a_values[static_cast<std::size_t>(i)] * u + map.b_values[static_cast<std::size_t>(j)] * v;
      Eigen::VectorXd y = x;
      bool reached = false;
      for (int it = 0; it < 50; ++it) {
        forwardKinematics(m, d, y);
        const Vector3 p = framePose(m, d, o.frame).p + framePose(m, d, o.frame).R * o.point;
        const Eigen::Vector2d e = P * (target - p);
        if (e.norm() < 1e-10 && std::abs(n.dot(target - p)) < 1e-6) {
          reached = true;
          break;
        }
        const Eigen::MatrixXd& J = frameJacobian(m, d, o.frame, o.point);
        Eigen::Matrix2d A;
        A.col(0) = P * J.block<3, 1>(0, joint_a);
        A.col(1) = P * J.block<3, 1>(0, joint_b);
        if (std::abs(A.determinant()) < 1e-12) break;
        Eigen::Vector2d step = A.partialPivLu().solve(e);
        const double big = step.cwiseAbs().maxCoeff();
        if (big > 0.5) step *= 0.5 / big;  // at most 0.5 rad (or m) per iteration
        y[qa] += step[0];
        y[qb] += step[1];
      }
      if (reached) {
        reached = y[qa] >= m.lower_position_limit[qa] && y[qa] <= m.upper_position_limit[qa] &&
                  y[qb] >= m.lower_position_limit[qb] && y[qb] <= m.upper_position_limit[qb];
      }
      if (!reached) continue;
      x = y;
      const Manipulability r = measure(jacobianWith(m, d, y, o, cols));
      map.yoshikawa(i, j) = r.yoshikawa;
      map.condition(i, j) = r.condition;
    }
  });
  return map;
}

ArmPlane armPlane(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o, int joint_a, int joint_b) {
  check(m, q, o);
  auto bodyOf = [&](int v_index) {
    for (int b = 1; b < m.nbodies; ++b) {
      if (m.joint[b].nv == 1 && m.joint[b].idx_v == v_index && m.joint[b].type == JointType::kRevolute) return b;
    }
    throw std::invalid_argument("manipulability: coordinate " + std::to_string(v_index) + " is not a revolute joint");
  };
  const int ba = bodyOf(joint_a), bb = bodyOf(joint_b);
  Data data(m, m.hasFlexibleBodies());
  forwardKinematics(m, data, q);
  // A revolute joint's body frame turns about the axis through its origin: the axis has the same
  // components in the joint and body frames.
  const Vector3 axis = (data.X_world[ba].R * m.joint[ba].axis).normalized();
  ArmPlane plane;
  const Vector3 hand = framePose(m, data, o.frame).act(o.point);
  // On joint a's axis, level with the hand: turning a and b keeps the hand in this plane.
  plane.origin = data.X_world[ba].p + axis * axis.dot(hand - data.X_world[ba].p);
  const Vector3 elbow = data.X_world[bb].p;
  auto inPlane = [&](const Vector3& x) { return Vector3(x - axis * axis.dot(x)); };
  Vector3 u = inPlane(hand - plane.origin);
  if (u.norm() < 1e-9) u = inPlane(elbow - plane.origin);
  if (u.norm() < 1e-9) u = inPlane(axis.unitOrthogonal());
  plane.u = u.normalized();
  plane.v = axis.cross(plane.u);
  plane.reach = inPlane(elbow - plane.origin).norm() + inPlane(hand - elbow).norm();
  return plane;
}

CarriedArmPlane carryArmPlane(const Model& m, const Eigen::VectorXd& q, const ArmPlane& plane, int joint_a) {
  if (q.size() != m.nq) throw std::invalid_argument("arm plane: q has the wrong size");
  CarriedArmPlane c;
  c.body = m.parent[static_cast<std::size_t>(bodyOfJoint(m, joint_a))];
  Data d(m, m.hasFlexibleBodies());
  forwardKinematics(m, d, q);
  const Transform& X = d.X_world[static_cast<std::size_t>(c.body)];
  c.local.origin = X.R.transpose() * (plane.origin - X.p);
  c.local.u = X.R.transpose() * plane.u;
  c.local.v = X.R.transpose() * plane.v;
  c.local.reach = plane.reach;
  return c;
}

ArmPlane armPlaneAt(const Model& m, const Eigen::VectorXd& q, const CarriedArmPlane& c, int frame, Vector3* hand) {
  if (q.size() != m.nq) throw std::invalid_argument("arm plane: q has the wrong size");
  if (c.body < 0 || c.body >= m.nbodies) throw std::invalid_argument("arm plane: no such body");
  if (hand && (frame < 0 || frame >= static_cast<int>(m.frames.size()))) throw std::invalid_argument("arm plane: no such frame");
  Data d(m, m.hasFlexibleBodies());
  forwardKinematics(m, d, q);
  const Transform& X = d.X_world[static_cast<std::size_t>(c.body)];
  ArmPlane p;
  p.origin = X.act(c.local.origin);
  p.u = X.R * c.local.u;
  p.v = X.R * c.local.v;
  p.reach = c.local.reach;
  if (hand) *hand = framePose(m, d, frame).p;
  return p;
}

ManipulabilityEllipsoid manipulabilityEllipsoid(const Model& m, const Eigen::VectorXd& q, const ManipulabilityOptions& o) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(manipulabilityJacobian(m, q, o), Eigen::ComputeThinU);
  return {svd.singularValues(), svd.matrixU()};
}

std::vector<Vector3> workspaceCloud(const Model& m, const Eigen::VectorXd& q, int frame, int samples, unsigned seed,
                                    const Vector3& point) {
  if (q.size() != m.nq) throw std::invalid_argument("workspace: q has the wrong size");
  if (frame < 0 || frame >= static_cast<int>(m.frames.size())) throw std::invalid_argument("workspace: no such frame");
  if (samples < 0) throw std::invalid_argument("workspace: samples must be >= 0");
  std::vector<std::pair<int, std::uniform_real_distribution<double>>> joints;  // q index, range
  for (int b = 1; b < m.nbodies; ++b) {
    if (m.joint[b].nv != 1 || m.joint[b].nq != 1) continue;
    const int i = m.joint[b].idx_q;
    double lo = m.lower_position_limit[i], hi = m.upper_position_limit[i];
    if (!std::isfinite(lo)) lo = -M_PI;
    if (!std::isfinite(hi)) hi = M_PI;
    joints.push_back({i, std::uniform_real_distribution<double>(lo, hi)});
  }
  std::mt19937_64 rng(seed);
  Data d(m, m.hasFlexibleBodies());
  Eigen::VectorXd x = q;
  std::vector<Vector3> cloud;
  cloud.reserve(static_cast<std::size_t>(samples));
  for (int k = 0; k < samples; ++k) {
    for (auto& [i, dist] : joints) x[i] = dist(rng);
    forwardKinematics(m, d, x);
    const Transform X = framePose(m, d, frame);
    cloud.push_back(X.p + X.R * point);
  }
  return cloud;
}

std::vector<Vector3> frameAlongJointBox(const Model& m, const Eigen::VectorXd& q, int frame, int qa, double lower_a,
                                        double upper_a, int qb, double lower_b, double upper_b, int per_edge) {
  if (q.size() != m.nq) throw std::invalid_argument("joint box: q has the wrong size");
  if (frame < 0 || frame >= static_cast<int>(m.frames.size())) throw std::invalid_argument("joint box: no such frame");
  if (qa < 0 || qa >= m.nq || qb < 0 || qb >= m.nq || per_edge < 1) throw std::invalid_argument("joint box: bad joints or points");
  const double corners[5][2] = {{lower_a, lower_b}, {upper_a, lower_b}, {upper_a, upper_b}, {lower_a, upper_b}, {lower_a, lower_b}};
  Data d(m, m.hasFlexibleBodies());
  Eigen::VectorXd x = q;
  std::vector<Vector3> out;
  out.reserve(static_cast<std::size_t>(4 * per_edge + 1));
  for (int e = 0; e < 4; ++e) {
    for (int i = 0; i < per_edge + (e == 3 ? 1 : 0); ++i) {
      const double f = static_cast<double>(i) / per_edge;
      x[qa] = corners[e][0] + f * (corners[e + 1][0] - corners[e][0]);
      x[qb] = corners[e][1] + f * (corners[e + 1][1] - corners[e][1]);
      forwardKinematics(m, d, x);
      out.push_back(framePose(m, d, frame).p);
    }
  }
  return out;
}

}  // namespace grapple::core
