#include "core/sim/quasi_static.hpp"

#include <stdexcept>

#include "core/dynamics/inverse_dynamics.hpp"

namespace grapple::core {

namespace {

// The modes `keep` of a flexible body (indices increasing), every modal integral restricted to them.
FlexibleBody keepBodyModes(const FlexibleBody& fb, const std::vector<int>& keep) {
  const int nf = fb.nf, n = static_cast<int>(keep.size());
  FlexibleBody out = fb;
  out.nf = n;
  out.mode_names.clear();
  for (int k : keep) out.mode_names.push_back(fb.mode_names[static_cast<std::size_t>(k)]);
  auto cols = [&](const Eigen::MatrixXd& A) { return A.size() == 0 ? A : Eigen::MatrixXd(A(Eigen::all, keep)); };
  auto square = [&](const Eigen::MatrixXd& A) { return A.size() == 0 ? A : Eigen::MatrixXd(A(keep, keep)); };
  out.frequency = fb.frequency(keep);
  out.M_td = cols(fb.M_td);
  out.M_dd = square(fb.M_dd);
  out.K = square(fb.K);
  out.D = square(fb.D);
  out.Vu = cols(fb.Vu);
  out.Zuu = square(fb.Zuu);
  out.Hrpsi = cols(fb.Hrpsi);
  out.Phi_e = cols(fb.Phi_e);
  out.Delta_e = cols(fb.Delta_e);
  if (!fb.C.empty()) {
    out.C.clear();
    for (int k : keep) out.C.push_back(fb.C[static_cast<std::size_t>(k)]);
  }
  if (!fb.Q.empty() || !fb.X.empty()) {
    out.Q.assign(fb.Q.empty() ? 0 : static_cast<std::size_t>(n * n), Matrix3::Zero());
    out.X.assign(fb.X.empty() ? 0 : static_cast<std::size_t>(n * n), Vector3::Zero());
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        const auto from = static_cast<std::size_t>(keep[j] * nf + keep[k]), to = static_cast<std::size_t>(j * n + k);
        if (!fb.Q.empty()) out.Q[to] = fb.Q[from];
        if (!fb.X.empty()) out.X[to] = fb.X[from];
      }
    }
  }
  return out;
}

std::vector<std::vector<int>> modesBelow(const Model& m, double cutoff) {
  std::vector<std::vector<int>> keep(static_cast<std::size_t>(m.nbodies));
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    for (int k = 0; k < fb.nf; ++k) {
      if (!(fb.frequency[k] > cutoff)) keep[static_cast<std::size_t>(i)].push_back(k);
    }
  }
  return keep;
}

}  // namespace

Model keepModes(const Model& m, const std::vector<std::vector<int>>& keep) {
  if (m.hasMimicJoints()) throw std::invalid_argument("modes locked: not with mimic joints");
  if (static_cast<int>(keep.size()) != m.nbodies) throw std::invalid_argument("keepModes: one list per body");
  Model r = m;
  std::vector<int> q_of, v_of;  // full index of each reduced coordinate
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const FlexibleBody& fb = m.flex[i];
    const std::vector<int>& kept = keep[static_cast<std::size_t>(i)];
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (kept[k] < 0 || kept[k] >= fb.nf || (k > 0 && kept[k] <= kept[k - 1])) {
        throw std::invalid_argument("keepModes: body '" + m.body_name[i] + "': mode indices out of range or not increasing");
      }
    }
    r.joint[i].idx_q = static_cast<int>(q_of.size());
    r.joint[i].idx_v = static_cast<int>(v_of.size());
    for (int d = 0; d < j.nq; ++d) q_of.push_back(j.idx_q + d);
    for (int d = 0; d < j.nv; ++d) v_of.push_back(j.idx_v + d);
    if (fb.nf == 0) continue;
    FlexibleBody& out = r.flex[i];
    out = keepBodyModes(fb, kept);
    out.idx_q = static_cast<int>(q_of.size());
    out.idx_v = static_cast<int>(v_of.size());
    for (int k : kept) {
      q_of.push_back(fb.idx_q + k);
      v_of.push_back(fb.idx_v + k);
    }
  }
  r.nq = static_cast<int>(q_of.size());
  r.nv = static_cast<int>(v_of.size());
  r.nflex = 0;
  for (const FlexibleBody& fb : r.flex) r.nflex += fb.nf;
  r.lower_position_limit = m.lower_position_limit(q_of);
  r.upper_position_limit = m.upper_position_limit(q_of);
  r.velocity_limit = m.velocity_limit(v_of);
  r.effort_limit = m.effort_limit(v_of);
  r.armature = m.armature(v_of);
  r.v_body.clear();
  for (int k : v_of) r.v_body.push_back(m.v_body[static_cast<std::size_t>(k)]);
  return r;
}

LockedModes::LockedModes(const Model& m, const std::vector<std::vector<int>>& keep)
    : reduced_(keepModes(m, keep)), data_(reduced_, reduced_.hasFlexibleBodies()) {
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    for (int d = 0; d < j.nq; ++d) q_map_.push_back(j.idx_q + d);
    for (int d = 0; d < j.nv; ++d) v_map_.push_back(j.idx_v + d);
    const FlexibleBody& fb = m.flex[i];
    const std::vector<int>& kept = keep[static_cast<std::size_t>(i)];
    for (int k = 0, next = 0; k < fb.nf; ++k) {
      if (next < static_cast<int>(kept.size()) && kept[static_cast<std::size_t>(next)] == k) {
        q_map_.push_back(fb.idx_q + k);
        v_map_.push_back(fb.idx_v + k);
        ++next;
      } else {
        cq_.push_back(fb.idx_q + k);
        cv_.push_back(fb.idx_v + k);
      }
    }
  }
}

QuasiStaticModes::QuasiStaticModes(const Model& m, double cutoff) : LockedModes(m, modesBelow(m, cutoff)) {
  // One block per body with condensed modes (cq_, cv_ list them body by body).
  for (int i = 0, begin = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    std::vector<int> dropped;
    for (int k = 0; k < fb.nf; ++k) {
      if (fb.frequency[k] > cutoff) dropped.push_back(k);
    }
    Block b;
    b.begin = begin;
    b.size = static_cast<int>(dropped.size());
    begin += b.size;
    if (b.size == 0) continue;
    b.K.compute(fb.K(dropped, dropped));
    if (b.K.info() != Eigen::Success) {
      throw std::invalid_argument("quasi-static modes: the stiffness of body '" + m.body_name[i] +
                                  "''s condensed modes is not positive definite");
    }
    blocks_.push_back(std::move(b));
  }
  q_.resize(m.nq);
  rhs_.resize(static_cast<Eigen::Index>(cv_.size()));
}

void LockedModes::gatherQ(const Eigen::VectorXd& q, Eigen::VectorXd& q_r) const {
  q_r.resize(static_cast<Eigen::Index>(q_map_.size()));
  for (std::size_t k = 0; k < q_map_.size(); ++k) q_r[static_cast<Eigen::Index>(k)] = q[q_map_[k]];
}

void LockedModes::gatherV(const Eigen::VectorXd& v, Eigen::VectorXd& v_r) const {
  v_r.resize(static_cast<Eigen::Index>(v_map_.size()));
  for (std::size_t k = 0; k < v_map_.size(); ++k) v_r[static_cast<Eigen::Index>(k)] = v[v_map_[k]];
}

void LockedModes::scatterV(const Eigen::VectorXd& v_r, Eigen::VectorXd& v) const {
  for (int k : cv_) v[k] = 0;
  for (std::size_t k = 0; k < v_map_.size(); ++k) v[v_map_[k]] = v_r[static_cast<Eigen::Index>(k)];
}

void LockedModes::lockQ(Eigen::VectorXd& q) const {
  for (int k : cq_) q[k] = 0;
}

void LockedModes::lockV(Eigen::VectorXd& v) const {
  for (int k : cv_) v[k] = 0;
}

void QuasiStaticModes::deflect(const Model& m, Data& d, Eigen::VectorXd& q, const Eigen::VectorXd& v,
                               const Eigen::VectorXd& ddq, const BodyWrenches* fext) {
  if (cv_.empty()) return;
  q_ = q;
  lockQ(q_);
  // The generalized forces the locked modes need: their rows of the whole model's inverse dynamics
  // (the stiffness coupling to the kept modes included); the elastic force -K_cc δ_c supplies them.
  const Eigen::VectorXd& tau = inverseDynamics(m, d, q_, v, ddq, fext);
  for (std::size_t k = 0; k < cv_.size(); ++k) rhs_[static_cast<Eigen::Index>(k)] = -tau[cv_[k]];
  for (const Block& b : blocks_) {
    Eigen::VectorBlock<Eigen::VectorXd> x = rhs_.segment(b.begin, b.size);
    b.K.solveInPlace(x);
  }
  for (std::size_t k = 0; k < cq_.size(); ++k) q[cq_[k]] = rhs_[static_cast<Eigen::Index>(k)];
}

void LockedModes::syncInertia(const Model& m) {
  reduced_.inertia = m.inertia;
  reduced_.inertia_matrix = m.inertia_matrix;
}

}  // namespace grapple::core
