#include "core/sim/quasi_static.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/dynamics/inverse_dynamics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

// The modes δ = P η of a flexible body: every modal integral of the new shapes Φ P.
FlexibleBody restrictBodyModes(const FlexibleBody& fb, const Eigen::MatrixXd& P, const Eigen::VectorXd& frequency,
                               const std::vector<std::string>& names) {
  const int nf = fb.nf, n = static_cast<int>(P.cols());
  FlexibleBody out = fb;
  out.nf = n;
  out.mode_names = names;
  out.frequency = frequency;
  auto cols = [&](const Eigen::MatrixXd& A) { return A.size() == 0 ? A : Eigen::MatrixXd(A * P); };
  auto square = [&](const Eigen::MatrixXd& A) { return A.size() == 0 ? A : Eigen::MatrixXd(P.transpose() * A * P); };
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
    out.C.assign(static_cast<std::size_t>(n), Matrix3::Zero());
    for (int j = 0; j < n; ++j) {
      for (int a = 0; a < nf; ++a) {
        if (P(a, j) != 0) out.C[static_cast<std::size_t>(j)] += P(a, j) * fb.C[static_cast<std::size_t>(a)];
      }
    }
  }
  // The products Φ_j Φ_kᵀ and Φ_j × Φ_k are bilinear: [j, k] = Σ_ab P_aj P_bk [a, b].
  auto bilinear = [&](const auto& from, auto& to, auto zero) {
    to.assign(from.empty() ? 0 : static_cast<std::size_t>(n * n), zero);
    if (from.empty()) return;
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        auto& t = to[static_cast<std::size_t>(j * n + k)];
        for (int a = 0; a < nf; ++a) {
          if (P(a, j) == 0) continue;
          for (int b = 0; b < nf; ++b) {
            if (P(b, k) != 0) t += (P(a, j) * P(b, k)) * from[static_cast<std::size_t>(a * nf + b)];
          }
        }
      }
    }
  };
  bilinear(fb.Q, out.Q, Matrix3::Zero().eval());
  bilinear(fb.X, out.X, Vector3::Zero().eval());
  return out;
}

// Columns `keep` of the nf x nf identity.
Eigen::MatrixXd selection(int nf, const std::vector<int>& keep) {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(nf, static_cast<Eigen::Index>(keep.size()));
  for (std::size_t k = 0; k < keep.size(); ++k) P(keep[k], static_cast<Eigen::Index>(k)) = 1;
  return P;
}

void checkKeep(const Model& m, const std::vector<std::vector<int>>& keep) {
  if (static_cast<int>(keep.size()) != m.nbodies) throw std::invalid_argument("LockedModes: one list of kept modes per body");
  for (int i = 0; i < m.nbodies; ++i) {
    const std::vector<int>& kept = keep[static_cast<std::size_t>(i)];
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (kept[k] < 0 || kept[k] >= m.flex[i].nf || (k > 0 && kept[k] <= kept[k - 1])) {
        throw std::invalid_argument("LockedModes: body '" + m.body_name[i] + "': mode indices out of range or not increasing");
      }
    }
  }
}

// The selections `keep` as bases (G = Pᵀ), with their frequencies and names.
LockedModes::Bases selections(const Model& m, const std::vector<std::vector<int>>& keep) {
  checkKeep(m, keep);
  LockedModes::Bases s;
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    const std::vector<int>& kept = keep[static_cast<std::size_t>(i)];
    s.P.push_back(selection(fb.nf, kept));
    s.G.push_back(s.P.back().transpose());
    s.frequency.push_back(fb.nf == 0 ? Eigen::VectorXd() : Eigen::VectorXd(fb.frequency(kept)));
    std::vector<std::string> names;
    for (int k : kept) names.push_back(fb.mode_names[static_cast<std::size_t>(k)]);
    s.names.push_back(std::move(names));
  }
  return s;
}

}  // namespace

Model restrictModes(const Model& m, const std::vector<Eigen::MatrixXd>& P, const std::vector<Eigen::VectorXd>& frequency,
                    const std::vector<std::vector<std::string>>& names) {
  if (m.hasMimicJoints()) throw std::invalid_argument("modes locked: not with mimic joints");
  if (static_cast<int>(P.size()) != m.nbodies || frequency.size() != P.size() || names.size() != P.size()) {
    throw std::invalid_argument("restrictModes: one basis per body");
  }
  Model r = m;
  std::vector<int> q_of, v_of;  // full index of each reduced joint coordinate, or of the body's first mode
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const FlexibleBody& fb = m.flex[i];
    r.joint[i].idx_q = static_cast<int>(q_of.size());
    r.joint[i].idx_v = static_cast<int>(v_of.size());
    for (int d = 0; d < j.nq; ++d) q_of.push_back(j.idx_q + d);
    for (int d = 0; d < j.nv; ++d) v_of.push_back(j.idx_v + d);
    if (fb.nf == 0) {  // (a rigid body's empty modal block where the builder puts it: after its joint)
      r.flex[i].idx_q = static_cast<int>(q_of.size());
      r.flex[i].idx_v = static_cast<int>(v_of.size());
      continue;
    }
    const Eigen::MatrixXd& Pi = P[static_cast<std::size_t>(i)];
    if (Pi.rows() != fb.nf) throw std::invalid_argument("restrictModes: body '" + m.body_name[i] + "': basis of the wrong size");
    FlexibleBody& out = r.flex[i];
    out = restrictBodyModes(fb, Pi, frequency[static_cast<std::size_t>(i)], names[static_cast<std::size_t>(i)]);
    out.idx_q = static_cast<int>(q_of.size());
    out.idx_v = static_cast<int>(v_of.size());
    // (A modal coordinate's limits, armature and owner are its body's: those of the first mode.)
    for (Eigen::Index k = 0; k < Pi.cols(); ++k) {
      q_of.push_back(fb.idx_q);
      v_of.push_back(fb.idx_v);
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

LockedModes::LockedModes(const Model& m, const std::vector<std::vector<int>>& keep) : LockedModes(m, selections(m, keep)) {}

LockedModes::LockedModes(const Model& m, Bases bases)
    : reduced_(restrictModes(m, bases.P, bases.frequency, bases.names)), data_(reduced_, reduced_.hasFlexibleBodies()) {
  Eigen::Index scratch = 0;
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i], &jr = reduced_.joint[i];
    for (int d = 0; d < j.nq; ++d) {
      q_map_.push_back(j.idx_q + d);
      rigid_q_.push_back(j.idx_q + d);
      rigid_rq_.push_back(jr.idx_q + d);
    }
    for (int d = 0; d < j.nv; ++d) {
      v_map_.push_back(j.idx_v + d);
      rigid_v_.push_back(j.idx_v + d);
      rigid_rv_.push_back(jr.idx_v + d);
    }
    const FlexibleBody& fb = m.flex[i];
    if (fb.nf == 0) continue;
    Subspace b;
    b.body = i;
    b.q = fb.idx_q;
    b.v = fb.idx_v;
    b.nf = fb.nf;
    b.rq = reduced_.flex[i].idx_q;
    b.rv = reduced_.flex[i].idx_v;
    b.P = std::move(bases.P[static_cast<std::size_t>(i)]);
    b.G = std::move(bases.G[static_cast<std::size_t>(i)]);
    if (b.G.rows() != b.P.cols() || b.G.cols() != b.nf) {
      throw std::invalid_argument("modes locked: body '" + m.body_name[i] + "': the left inverse does not fit the basis");
    }
    locked_ += b.nf - static_cast<int>(b.P.cols());
    for (Eigen::Index k = 0; k < b.P.cols(); ++k) {
      // A kept coordinate that is one of the body's modes (a column of the identity) maps to it.
      Eigen::Index one = 0;
      const bool unit = b.P.col(k).cwiseAbs().maxCoeff(&one) == 1 && b.P.col(k).cwiseAbs().sum() == 1 &&
                        b.G.row(k).transpose() == b.P.col(k) && b.P(one, k) == 1;
      q_map_.push_back(unit ? b.q + static_cast<int>(one) : -1);
      v_map_.push_back(unit ? b.v + static_cast<int>(one) : -1);
    }
    scratch = std::max<Eigen::Index>(scratch, b.nf);
    sub_.push_back(std::move(b));
  }
  scratch_.resize(scratch);
}

Eigen::MatrixXd LockedModes::velocityBasis() const {
  Eigen::Index nv = static_cast<Eigen::Index>(rigid_v_.size());
  for (const Subspace& b : sub_) nv += b.nf;
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(nv, static_cast<Eigen::Index>(v_map_.size()));
  for (std::size_t k = 0; k < rigid_v_.size(); ++k) T(rigid_v_[k], rigid_rv_[k]) = 1;
  for (const Subspace& b : sub_) T.block(b.v, b.rv, b.nf, b.P.cols()) = b.P;
  return T;
}

void LockedModes::gatherQ(const Eigen::VectorXd& q, Eigen::VectorXd& q_r) const {
  q_r.resize(static_cast<Eigen::Index>(q_map_.size()));
  for (std::size_t k = 0; k < rigid_q_.size(); ++k) q_r[rigid_rq_[k]] = q[rigid_q_[k]];
  for (const Subspace& b : sub_) q_r.segment(b.rq, b.P.cols()).noalias() = b.G * q.segment(b.q, b.nf);
}

void LockedModes::gatherV(const Eigen::VectorXd& v, Eigen::VectorXd& v_r) const {
  v_r.resize(static_cast<Eigen::Index>(v_map_.size()));
  for (std::size_t k = 0; k < rigid_v_.size(); ++k) v_r[rigid_rv_[k]] = v[rigid_v_[k]];
  for (const Subspace& b : sub_) v_r.segment(b.rv, b.P.cols()).noalias() = b.G * v.segment(b.v, b.nf);
}

void LockedModes::gatherForce(const Eigen::VectorXd& tau, Eigen::VectorXd& tau_r) const {
  tau_r.resize(static_cast<Eigen::Index>(v_map_.size()));
  for (std::size_t k = 0; k < rigid_v_.size(); ++k) tau_r[rigid_rv_[k]] = tau[rigid_v_[k]];
  for (const Subspace& b : sub_) tau_r.segment(b.rv, b.P.cols()).noalias() = b.P.transpose() * tau.segment(b.v, b.nf);
}

void LockedModes::scatterV(const Eigen::VectorXd& v_r, Eigen::VectorXd& v) const {
  for (std::size_t k = 0; k < rigid_v_.size(); ++k) v[rigid_v_[k]] = v_r[rigid_rv_[k]];
  for (const Subspace& b : sub_) v.segment(b.v, b.nf).noalias() = b.P * v_r.segment(b.rv, b.P.cols());
}

void LockedModes::project(Eigen::VectorXd& x, bool positions) const {
  for (const Subspace& b : sub_) {
    auto d = x.segment(positions ? b.q : b.v, b.nf);
    auto eta = scratch_.head(b.P.cols());
    eta.noalias() = b.G * d;
    d.noalias() = b.P * eta;
  }
}

void LockedModes::lockQ(Eigen::VectorXd& q) const { project(q, true); }

void LockedModes::lockV(Eigen::VectorXd& v) const { project(v, false); }

namespace {

// The mass the coordinates `rows` see with the coordinates `free` free: the Schur complement
// H_ff − H_fr H_rr⁻¹ H_rf of the mass matrix H on them.
Eigen::MatrixXd schurComplement(const Eigen::MatrixXd& H, const std::vector<int>& rows,
                                const Eigen::LLT<Eigen::MatrixXd>& H_rr, const std::vector<int>& free) {
  Eigen::MatrixXd S = H(rows, rows);
  if (!free.empty()) {
    const Eigen::MatrixXd H_rf = H(free, rows);
    S -= H_rf.transpose() * H_rr.solve(H_rf);
  }
  return S;
}

}  // namespace

QuasiStaticModes::Parts QuasiStaticModes::split(const Model& m, double cutoff, CondensedModes which,
                                                const Eigen::VectorXd* q_ref) {
  Parts parts;
  Bases& kept = parts.kept;
  const bool coupled = which != CondensedModes::kBody;
  Eigen::MatrixXd H;
  std::vector<int> rigid;  // the joints' and the base's coordinates (v)
  if (coupled) {
    if (q_ref == nullptr || q_ref->size() != m.nq) {
      throw std::invalid_argument("quasi-static modes: the coupled modes need a reference configuration of the model's size");
    }
    Data d(m, m.hasFlexibleBodies());
    H = massMatrix(m, d, *q_ref);
    for (int i = 0; i < m.nbodies; ++i) {
      for (int k = 0; k < m.joint[i].nv; ++k) rigid.push_back(m.joint[i].idx_v + k);
    }
  }
  const Eigen::LLT<Eigen::MatrixXd> H_rr(!rigid.empty() ? Eigen::MatrixXd(H(rigid, rigid)) : Eigen::MatrixXd());
  std::vector<Eigen::MatrixXd> S(static_cast<std::size_t>(m.nbodies));  // each body's coupled mass
  for (int i = 0; i < m.nbodies; ++i) {
    const FlexibleBody& fb = m.flex[i];
    Eigen::MatrixXd Y = Eigen::MatrixXd::Identity(fb.nf, fb.nf), Yinv = Y;  // the body's modes, and their inverse
    Eigen::VectorXd w = fb.frequency;
    std::vector<std::string> names = fb.mode_names;
    if (coupled && fb.nf > 0) {
      // K y = ω² S y, S the mass the modes see with the joints and the base free (the Schur
      // complement of H on the body's modal rows): Yᵀ S Y = I, so Y⁻¹ = Yᵀ S.
      std::vector<int> rows(static_cast<std::size_t>(fb.nf));
      for (int k = 0; k < fb.nf; ++k) rows[static_cast<std::size_t>(k)] = fb.idx_v + k;
      S[static_cast<std::size_t>(i)] = schurComplement(H, rows, H_rr, rigid);
      const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(fb.K, S[static_cast<std::size_t>(i)]);
      if (eig.info() != Eigen::Success || !(eig.eigenvalues().minCoeff() > 0)) {
        throw std::invalid_argument("quasi-static modes: body '" + m.body_name[i] +
                                    "': no coupled modes (its stiffness or coupled mass is not positive definite)");
      }
      Y = eig.eigenvectors();
      Yinv = Y.transpose() * S[static_cast<std::size_t>(i)];
      w = eig.eigenvalues().cwiseSqrt();
      for (int k = 0; k < fb.nf; ++k) names[static_cast<std::size_t>(k)] = "coupled" + std::to_string(k + 1);
    }
    std::vector<int> keep, drop;
    for (int k = 0; k < fb.nf; ++k) (w[k] > cutoff ? drop : keep).push_back(k);
    kept.P.push_back(Y(Eigen::all, keep));
    kept.G.push_back(Yinv(keep, Eigen::all));
    kept.frequency.push_back(w(keep));
    std::vector<std::string> kept_names;
    for (int k : keep) kept_names.push_back(names[static_cast<std::size_t>(k)]);
    kept.names.push_back(std::move(kept_names));
    parts.condensed.push_back(Y(Eigen::all, drop));
  }
  if (which != CondensedModes::kWhole || m.nflex == 0) return parts;

  // kWhole: the model restricted to the kept modes, every joint and the base free, still has coupled
  // modes above the cutoff where one body's kept modes move with another's (a flexible body carried
  // by a flexible one, a grasped payload): K' y = ω² S' y on all the kept modal coordinates at once,
  // with S' the Schur complement of Tᵀ H T (T: the kept bases) on them. Each such mode's part on the
  // body that carries most of its kinetic energy (yᵢᵀ S'ᵢᵢ yᵢ) is condensed too, the body's kept
  // modes becoming its coupled modes on the K-orthogonal complement; again until none is left above
  // the cutoff (each round condenses at least one direction: at most nflex rounds).
  const Eigen::Index nr = static_cast<Eigen::Index>(rigid.size());
  for (int round = 0; round <= m.nflex; ++round) {
    // T: the rigid coordinates, then each body's kept modes.
    std::vector<Eigen::Index> at(static_cast<std::size_t>(m.nbodies), 0);
    Eigen::Index nk = 0;
    for (int i = 0; i < m.nbodies; ++i) {
      at[static_cast<std::size_t>(i)] = nr + nk;
      nk += kept.P[static_cast<std::size_t>(i)].cols();
    }
    if (nk == 0) break;
    Eigen::MatrixXd T = Eigen::MatrixXd::Zero(m.nv, nr + nk), K = Eigen::MatrixXd::Zero(nk, nk);
    for (Eigen::Index k = 0; k < nr; ++k) T(rigid[static_cast<std::size_t>(k)], k) = 1;
    for (int i = 0; i < m.nbodies; ++i) {
      const Eigen::MatrixXd& P = kept.P[static_cast<std::size_t>(i)];
      const Eigen::Index a = at[static_cast<std::size_t>(i)];
      T.block(m.flex[i].idx_v, a, P.rows(), P.cols()) = P;
      K.block(a - nr, a - nr, P.cols(), P.cols()) = P.transpose() * m.flex[i].K * P;
    }
    const Eigen::MatrixXd D = T.transpose() * H * T;
    std::vector<int> kept_rows(static_cast<std::size_t>(nk)), free(static_cast<std::size_t>(nr));
    for (Eigen::Index k = 0; k < nk; ++k) kept_rows[static_cast<std::size_t>(k)] = static_cast<int>(nr + k);
    for (Eigen::Index k = 0; k < nr; ++k) free[static_cast<std::size_t>(k)] = static_cast<int>(k);
    const Eigen::MatrixXd S_kept = schurComplement(D, kept_rows, H_rr, free);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K, S_kept);
    if (eig.info() != Eigen::Success) throw std::invalid_argument("quasi-static modes: no coupled modes of the kept ones");
    std::vector<std::vector<Eigen::VectorXd>> stiff(static_cast<std::size_t>(m.nbodies));
    for (Eigen::Index c = 0; c < nk; ++c) {
      if (!(eig.eigenvalues()[c] > cutoff * cutoff)) continue;
      const Eigen::VectorXd y = eig.eigenvectors().col(c);
      int carrier = -1;
      double most = -1;
      for (int i = 0; i < m.nbodies; ++i) {
        const Eigen::Index a = at[static_cast<std::size_t>(i)] - nr, k = kept.P[static_cast<std::size_t>(i)].cols();
        if (k == 0) continue;
        const double e = y.segment(a, k).dot(S_kept.block(a, a, k, k) * y.segment(a, k));
        if (e > most) most = e, carrier = i;
      }
      stiff[static_cast<std::size_t>(carrier)].push_back(y.segment(at[static_cast<std::size_t>(carrier)] - nr,
                                                                  kept.P[static_cast<std::size_t>(carrier)].cols()));
    }
    bool any = false;
    for (int i = 0; i < m.nbodies; ++i) {
      const auto bi = static_cast<std::size_t>(i);
      if (stiff[bi].empty()) continue;
      any = true;
      const Eigen::MatrixXd& P = kept.P[bi];
      Eigen::MatrixXd Z(P.cols(), static_cast<Eigen::Index>(stiff[bi].size()));
      for (std::size_t c = 0; c < stiff[bi].size(); ++c) Z.col(static_cast<Eigen::Index>(c)) = stiff[bi][c];
      // The directions condensed (an orthonormal basis of Z's range), and the kept ones: the
      // K-orthogonal complement, made the body's coupled modes there.
      const Eigen::MatrixXd K_b = P.transpose() * m.flex[i].K * P, S_b = P.transpose() * S[bi] * P;
      const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> z(Z);
      const Eigen::Index drop = std::max<Eigen::Index>(1, z.rank());
      const Eigen::MatrixXd Qz = z.householderQ();
      const Eigen::MatrixXd U = Qz.leftCols(drop);
      const Eigen::MatrixXd Qk = Eigen::MatrixXd(Eigen::HouseholderQR<Eigen::MatrixXd>(K_b * U).householderQ());
      const Eigen::MatrixXd N = Qk.rightCols(P.cols() - drop);
      const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> body(N.transpose() * K_b * N, N.transpose() * S_b * N);
      if (body.info() != Eigen::Success || (N.cols() > 0 && !(body.eigenvalues().minCoeff() > 0))) {
        throw std::invalid_argument("quasi-static modes: body '" + m.body_name[i] + "': no coupled modes of the kept ones");
      }
      Eigen::MatrixXd& C = parts.condensed[bi];
      Eigen::MatrixXd C_new(P.rows(), C.cols() + drop);
      C_new << C, P * U;
      C = std::move(C_new);
      kept.P[bi] = P * N * body.eigenvectors();
      kept.frequency[bi] = body.eigenvalues().cwiseSqrt();
      // The left inverse that projects along the condensed directions: the kept rows of [P C]⁻¹.
      Eigen::MatrixXd B(P.rows(), P.rows());
      B << kept.P[bi], C;
      kept.G[bi] = B.inverse().topRows(kept.P[bi].cols());
      kept.names[bi].clear();
      for (Eigen::Index k = 0; k < kept.P[bi].cols(); ++k) kept.names[bi].push_back("coupled" + std::to_string(k + 1));
    }
    if (!any) break;
  }
  return parts;
}

QuasiStaticModes::QuasiStaticModes(const Model& m, double cutoff, CondensedModes which, const Eigen::VectorXd* q_ref)
    : QuasiStaticModes(m, split(m, cutoff, which, q_ref)) {}

QuasiStaticModes::QuasiStaticModes(const Model& m, Parts parts)
    : LockedModes(m, std::move(parts.kept)), condensed_(std::move(parts.condensed)) {
  for (int i = 0; i < m.nbodies; ++i) {
    const Eigen::MatrixXd& C = condensed_[static_cast<std::size_t>(i)];
    if (C.cols() == 0) continue;
    Block b;
    b.q = m.flex[i].idx_q;
    b.v = m.flex[i].idx_v;
    b.C = C;
    b.K.compute(C.transpose() * m.flex[i].K * C);
    if (b.K.info() != Eigen::Success) {
      throw std::invalid_argument("quasi-static modes: the stiffness of body '" + m.body_name[i] +
                                  "''s condensed modes is not positive definite");
    }
    blocks_.push_back(std::move(b));
  }
}

void QuasiStaticModes::deflect(const Model& m, Data& d, Eigen::VectorXd& q, const Eigen::VectorXd& v,
                               const Eigen::VectorXd& ddq, const BodyWrenches* fext) {
  lockQ(q);
  if (blocks_.empty()) return;
  // The generalized forces the condensed directions C need: their share Cᵀ τ_δ of the whole model's
  // inverse dynamics at the locked state (the stiffness coupling to the kept modes included); the
  // elastic force −Cᵀ K C η_c supplies them.
  const Eigen::VectorXd& tau = inverseDynamics(m, d, q, v, ddq, fext);
  for (const Block& b : blocks_) {
    rhs_.noalias() = -b.C.transpose() * tau.segment(b.v, b.C.rows());
    b.K.solveInPlace(rhs_);
    q.segment(b.q, b.C.rows()).noalias() += b.C * rhs_;
  }
}

void LockedModes::syncInertia(const Model& m) {
  reduced_.inertia = m.inertia;
  reduced_.inertia_matrix = m.inertia_matrix;
}

}  // namespace grapple::core
