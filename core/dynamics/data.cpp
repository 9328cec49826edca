#include "core/dynamics/data.hpp"

#include <algorithm>

namespace grapple::core {

Data::Data(const Model& model, bool general)
    : X_parent(model.nbodies),
      X_world(model.nbodies),
      S(model.nbodies, Matrix6::Zero()),
      t(model.nbodies, Vector6::Zero()),
      a(model.nbodies, Vector6::Zero()),
      w(model.nbodies, Vector6::Zero()),
      Ic(model.nbodies),
      X_root(model.nbodies),
      S_root(Eigen::MatrixXd::Zero(6, model.nv)),
      Mbar(model.nbodies, Matrix6::Zero()),
      phi(model.nbodies, Matrix6::Zero()),
      Delta_inv(Eigen::VectorXd::Zero(model.nv)),
      eta(model.nbodies, Vector6::Zero()),
      mu(model.nbodies, Vector6::Zero()),
      t_world(model.nbodies, Vector6::Zero()),
      Ic_world(model.nbodies),
      Bc(model.nbodies, Matrix6::Zero()),
      S_world(Eigen::MatrixXd::Zero(6, model.nv)),
      Sdot_world(Eigen::MatrixXd::Zero(6, model.nv)),
      tau(Eigen::VectorXd::Zero(model.nv)),
      ddq(Eigen::VectorXd::Zero(model.nv)),
      h(Eigen::VectorXd::Zero(model.nv)),
      x(Eigen::VectorXd::Zero(model.nv)),
      H(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      C(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      J(Eigen::MatrixXd::Zero(6, model.nv)) {
  Delta.reserve(model.nbodies);
  hybrid_free.reserve(static_cast<std::size_t>(model.nv));
  hybrid_driven.assign(static_cast<std::size_t>(model.nbodies), 0);
  // Constant joint-rate propagation matrices are set once here; the universal joint, whose P
  // depends on q, is refreshed by every pass over the configuration.
  for (int i = 0; i < model.nbodies; ++i) {
    const Joint& j = model.joint[i];
    std::vector<double> q0(j.nq, 0.0);
    if (j.type == JointType::kSpherical) q0[0] = 1.0;
    if (j.type == JointType::kFree) q0[3] = 1.0;
    jointMotionSubspace(j, q0.data(), S[i]);
    Delta.emplace_back(std::max(j.nv, 1));  // sized once: compute() then never allocates
  }
  // The coordinates of each body's ancestors' joints but the root's (the rows of H's column for
  // body i above its diagonal block and below the root's rows), merged into contiguous runs: one
  // run on a chain, one per branch taken on a tree numbered depth first.
  ancestor_runs_begin.assign(1, 0);
  for (int i = 0; i < model.nbodies; ++i) {
    std::vector<std::array<int, 2>> runs;
    for (int p = model.parent[i]; p > 0; p = model.parent[p]) {
      if (model.joint[p].nv > 0) runs.push_back({model.joint[p].idx_v, model.joint[p].nv});
    }
    std::sort(runs.begin(), runs.end());
    for (const auto& r : runs) {
      if (static_cast<int>(ancestor_runs.size()) > ancestor_runs_begin.back() &&
          ancestor_runs.back()[0] + ancestor_runs.back()[1] == r[0]) {
        ancestor_runs.back()[1] += r[1];
      } else {
        ancestor_runs.push_back(r);
      }
    }
    ancestor_runs_begin.push_back(static_cast<int>(ancestor_runs.size()));
  }
  if (model.hasMimicJoints()) {
    full_model.push_back(*model.full);
    full.emplace_back(*model.full, general);
    q_full = Eigen::VectorXd::Zero(model.full->nq);
    v_full = Eigen::VectorXd::Zero(model.full->nv);
    a_full = Eigen::VectorXd::Zero(model.full->nv);
    H_llt = Eigen::LLT<Eigen::MatrixXd>(model.nv);
  }
  if (general || model.hasFlexibleBodies()) {
    flex.resize(model.nbodies);
    flex_zero = Eigen::VectorXd::Zero(model.nv);
    for (int i = 0; i < model.nbodies; ++i) {
      const int nf = model.flex[i].nf, m = 6 + nf, dd = model.joint[i].nv + nf;
      FlexWork& f = flex[i];
      f.S_E = TipMatrix::Zero(6, nf);
      f.M = ExtMatrix::Zero(m, m);
      f.w = ExtVector::Zero(m);
      f.phibar = ExtMatrix::Zero(m, dd);
      f.Delta = ExtMatrix::Zero(dd, dd);
      f.Delta_inv = ExtVector::Zero(dd);
      f.xhat = ExtVector::Zero(dd);
      f.mu = ExtVector::Zero(m);
    }
  }
}

}  // namespace grapple::core
