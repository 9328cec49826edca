#include "core/dynamics/flexible.hpp"

#include "core/dynamics/detail.hpp"
#include "core/math/sincos.hpp"
#include "core/math/small_cholesky.hpp"

namespace grapple::core::general {

Matrix3 eulerRateMatrix(const Vector3& psi) {
  double sy, cy, sz, cz;
  sinCos(psi.y(), sy, cy);
  sinCos(psi.z(), sz, cz);
  Matrix3 R;
  R << cz * cy, -sz, 0, sz * cy, cz, 0, -sy, 0, 1;
  return R;
}

Vector3 eulerRateMatrixDotTimes(const Vector3& psi, const Vector3& pd) {
  double sy, cy, sz, cz;
  sinCos(psi.y(), sy, cy);
  sinCos(psi.z(), sz, cz);
  // d/dt of the columns of R_Ψ (eq. A.12), times ψ̇.
  const Vector3 dcol_x = pd.y() * Vector3(-cz * sy, -sz * sy, -cy) +
                         pd.z() * Vector3(-sz * cy, cz * cy, 0);
  const Vector3 dcol_y = pd.z() * Vector3(-cz, -sz, 0);
  return pd.x() * dcol_x + pd.y() * dcol_y;
}

namespace {

using Eigen::VectorXd;

bool hasTipChildren(const Model& m, int i) {
  for (int c : m.children[i]) {
    if (m.at_tip[c]) return true;
  }
  return false;
}

// The deformed tip frame and its motion matrix from δ (eq. 5.31–5.35, 5.42a), per flexible model.
void updateTip(const Model& m, Data& d, int i, const VectorXd& q) {
  const FlexibleBody& fb = m.flex[i];
  FlexWork& w = d.flex[i];
  const auto delta = q.segment(fb.idx_q, fb.nf);
  const Vector3 psi = fb.Delta_e * delta, u = fb.Phi_e * delta;
  Matrix3 Re = Matrix3::Identity(), Rpsi = Matrix3::Identity();
  Vector3 pe = fb.p_tip + u;
  if (fb.model == FlexModel::kNominalA) {
    Re = rpyToMatrix(psi);
    pe = fb.p_tip;
  } else if (fb.model == FlexModel::kNominalR) {
    Rpsi = eulerRateMatrix(psi);
  } else {
    Re = rpyToMatrix(psi);
    Rpsi = eulerRateMatrix(psi);
  }
  w.X_PE = fb.X_body_link * Transform{Re, pe};
  w.S_E.topRows<3>().noalias() = Re.transpose() * fb.Phi_e;
  w.S_E.bottomRows<3>().noalias() = Re.transpose() * Rpsi * fb.Delta_e;
}

// Ṡ_E δ̇ (E components), consistent with updateTip.
Vector6 tipVelocityProduct(const Model& m, const Data& d, int i, const VectorXd& q,
                           const VectorXd& v) {
  const FlexibleBody& fb = m.flex[i];
  const FlexWork& w = d.flex[i];
  const auto dd = v.segment(fb.idx_v, fb.nf);
  const Vector3 v_rel = w.S_E.topRows<3>() * dd, w_rel = w.S_E.bottomRows<3>() * dd;
  Vector6 c = Vector6::Zero();
  if (fb.model != FlexModel::kNominalR) c.head<3>() = -w_rel.cross(v_rel);
  if (fb.model != FlexModel::kNominalA) {
    const Vector3 psi = fb.Delta_e * q.segment(fb.idx_q, fb.nf);
    const Vector3 pd = fb.Delta_e * dd;
    Matrix3 Re = fb.model == FlexModel::kNominalR ? Matrix3::Identity() : rpyToMatrix(psi);
    c.tail<3>() = Re.transpose() * eulerRateMatrixDotTimes(psi, pd);
  }
  return c;
}

void updatePlacement(const Model& m, Data& d, int i, const VectorXd& q) {
  if (!m.at_tip[i]) {
    detail::updateJointPlacement(m, d, i, q.data());
    return;
  }
  const Joint& j = m.joint[i];
  if (jointSubspaceVaries(j.type)) jointMotionSubspace(j, q.data() + j.idx_q, d.S[i]);
  d.flex[i].X_EB = m.X_tip_joint[i] * jointTransform(j, q.data() + j.idx_q);
  d.X_parent[i] = d.flex[m.parent[i]].X_PE * d.flex[i].X_EB;
}

void placements(const Model& m, Data& d, const VectorXd& q) {
  d.factorized = false;
  for (int i = 0; i < m.nbodies; ++i) {
    updatePlacement(m, d, i, q);
    if (m.flex[i].has_tip && hasTipChildren(m, i)) updateTip(m, d, i, q);
  }
}

// The inertial terms of a flexible body at (t, a, δ, δ̇, δ̈): adds to W (6 + nf) and, when Mf is
// given, writes M_f(δ) ((6 + nf)², the rigid block included).
void flexTerms(const Model& m, int i, const Vector6& t, const Vector6& acc, const VectorXd& q,
               const VectorXd& v, const double* a, ExtVector& W, ExtMatrix* Mf) {
  const FlexibleBody& fb = m.flex[i];
  const int nf = fb.nf;
  const auto delta = q.segment(fb.idx_q, nf);
  const auto ddelta = v.segment(fb.idx_v, nf);
  // δ̈: a's modal rows; without a (the velocity-product terms of the forward dynamics) the terms
  // in δ̈ are left out, not multiplied by zeros.
  const bool accel = a != nullptr;
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxModes, 1> dd2;
  if (accel) dd2 = Eigen::Map<const VectorXd>(a + fb.idx_v, nf);
  const Vector3 vv = t.head<3>(), w = t.tail<3>(), al = acc.tail<3>();
  const auto Mv = fb.M_td.topRows<3>(), Mw = fb.M_td.bottomRows<3>();
  auto top_v = W.head<3>();
  auto top_w = W.segment<3>(3);
  auto bottom = W.tail(nf);
  const bool full = fb.model == FlexModel::kFull && fb.beam;
  // (Products with the modal matrices, dynamic-sized, are evaluated into these: an expression
  // would put their temporaries on the heap.)
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxModes, 1> p1(nf), p2(nf);
  if (Mf != nullptr) {
    Mf->topLeftCorner<6, 6>() = m.inertia_matrix[i];
    Mf->topRightCorner(6, nf) = fb.M_td;
    Mf->bottomLeftCorner(nf, 6) = fb.M_td.transpose();
    Mf->bottomRightCorner(nf, nf) = fb.M_dd;
  }
  if (!full) {
    // Constant inertia M^(0): W_t += M_td δ̈ + t ×f (M_td δ̇), W_δ = M_tdᵀ a + M_dd δ̈.
    const Vector3 fv = Mv.lazyProduct(ddelta), fn = Mw.lazyProduct(ddelta);  // (M_td δ̇) split
    top_v += w.cross(fv);
    top_w += w.cross(fn);
    if (fb.model != FlexModel::kConstantMassPrinted) top_w += vv.cross(fv);
    p1.noalias() = fb.M_td.transpose() * acc;
    bottom = p1;
    if (accel) {
      top_v.noalias() += Mv * dd2;
      top_w.noalias() += Mw * dd2;
      p2.noalias() = fb.M_dd * dd2;
      bottom += p2;
    }
  } else {
    // Newton's law on the deformed beam (see flexible.hpp and model/flexible.hpp).
    const Vector3 a_O = acc.head<3>() + w.cross(vv);  // classical acceleration of the origin
    const Vector3 u = fb.Vu.lazyProduct(delta), ud = fb.Vu.lazyProduct(ddelta);
    // The modal sums as products of contiguous arrays: C (9 x nf), each row j of Q (9 x nf: Q_jk,
    // k = 0 .. nf - 1, are adjacent) and of X (3 x nf) are matrices in place.
    using Nine = Eigen::Matrix<double, 9, 1>;
    using NineColumns = Eigen::Matrix<double, 9, Eigen::Dynamic, 0, 9, kMaxModes>;
    using ModalColumns = Eigen::Matrix<double, 3, Eigen::Dynamic, 0, 3, kMaxModes>;
    const auto modal9 = [nf](const Matrix3* first) { return Eigen::Map<const Eigen::Matrix<double, 9, Eigen::Dynamic>>(first->data(), 9, nf); };
    const auto modal3 = [nf](const Vector3* first) { return Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>>(first->data(), 3, nf); };
    ModalColumns Hd = Mw;                            // H_ru + H_rψ + H_uu(δ)
    ModalColumns Xv = ModalColumns::Zero(3, nf);     // Σ_j δ̇_j X_jk
    NineColumns Qd(9, nf);                           // column j: Σ_k δ_k Q_jk (the modal rows' R2 below as well)
    for (int j = 0; j < nf; ++j) {
      Qd.col(j).noalias() = modal9(&fb.Q[static_cast<std::size_t>(j * nf)]).lazyProduct(delta);
      Hd.noalias() += delta[j] * modal3(&fb.X[static_cast<std::size_t>(j * nf)]);
      Xv.noalias() += ddelta[j] * modal3(&fb.X[static_cast<std::size_t>(j * nf)]);
    }
    const auto C9 = modal9(fb.C.data());
    const Nine cd = C9.lazyProduct(delta), cdd = C9.lazyProduct(ddelta), udd = Qd.lazyProduct(delta),
               uvd = Qd.lazyProduct(ddelta);
    const Eigen::Map<const Matrix3> Cd(cd.data()), Cdd(cdd.data()), Udd(udd.data()), Uvd(uvd.data());
    const Matrix3 I_def = (2 * Cd.trace() + Udd.trace()) * Matrix3::Identity() - Cd -
                          Cd.transpose() - Udd;
    const Matrix3 R1 = Cdd + Uvd;
    top_v += al.cross(u) + w.cross(w.cross(u)) + 2 * w.cross(ud);
    top_w += u.cross(a_O) + I_def * al + w.cross(I_def * w) + 2 * (R1.trace() * w - R1 * w) +
             w.cross(Vector3(fb.Hrpsi.lazyProduct(ddelta)));
    if (accel) {
      top_v.noalias() += fb.Vu * dd2;  // (noalias: no temporary, which for Vu's dynamic rows would be on the heap)
      top_w.noalias() += Hd * dd2;
    }
    const double w2 = w.squaredNorm();
    for (int k = 0; k < nf; ++k) {
      const Matrix3 R2 = fb.C[k] + Eigen::Map<const Matrix3>(Qd.col(k).data());  // C_k + Σ_j δ_j Q_kj
      bottom[k] = fb.Vu.col(k).dot(a_O) + Hd.col(k).dot(al) + w.dot(R2 * w) - w2 * R2.trace() +
                  2 * w.dot(Xv.col(k));
    }
    if (accel) {
      p1.noalias() = fb.M_dd * dd2;
      bottom += p1;
    }
    if (Mf != nullptr) {
      Mf->block<3, 3>(0, 3) -= skew(u);
      Mf->block<3, 3>(3, 0) += skew(u);
      Mf->block<3, 3>(3, 3) += I_def;
      Mf->block(3, 6, 3, nf) = Hd;
      Mf->block(6, 3, nf, 3) = Hd.transpose();
    }
  }
  p1.noalias() = fb.K * delta;
  p2.noalias() = fb.D * ddelta;
  bottom += p1 + p2;
}

// Whether body i is on the path from the root to body b (b itself included).
bool onPath(const Model& m, int i, int b) {
  while (b > i) b = m.parent[b];  // (a parent's index is below its child's)
  return b == i;
}

// Outward pass: placements, twists, accelerations (with a, or the velocity-product part when
// a == nullptr; the base's offset by -g), tip motions, and unless motion_only each body's extended
// wrench in d.flex[i].w (and M_f when with_inertia). With path_end >= 0: only the bodies on the
// path from the root to path_end (motion_only).
void outward(const Model& m, Data& d, const VectorXd& q, const VectorXd& v, const double* a,
             const BodyWrenches* fext, bool with_inertia, bool motion_only = false, int path_end = -1) {
  d.factorized = false;
  Vector6 a_world = Vector6::Zero();
  a_world.head<3>() = -m.gravity_W;
  for (int i = 0; i < m.nbodies; ++i) {
    if (path_end >= 0 && !onPath(m, i, path_end)) continue;
    const Joint& j = m.joint[i];
    const int p = m.parent[i];
    FlexWork& fw = d.flex[i];
    updatePlacement(m, d, i, q);
    const Vector6 vJ = detail::jointMotion(j, d.S[i], v.data() + j.idx_v);
    Vector6& t = d.t[i];
    Vector6& acc = d.a[i];
    if (p < 0) {
      t = vJ;
      acc = motionToChild(d.X_parent[i], a_world);
    } else if (m.at_tip[i]) {
      t = motionToChild(fw.X_EB, d.flex[p].t_E) + vJ;
      acc = motionToChild(fw.X_EB, d.flex[p].a_E) + crossMotion(t, vJ);
    } else {
      t = motionToChild(d.X_parent[i], d.t[p]) + vJ;
      acc = motionToChild(d.X_parent[i], d.a[p]) + crossMotion(t, vJ);
    }
    if (a != nullptr) acc += detail::jointMotion(j, d.S[i], a + j.idx_v);
    if (jointSubspaceVaries(j.type)) {
      acc += jointVelocityProduct(j, q.data() + j.idx_q, v.data() + j.idx_v);
    }
    const FlexibleBody& fb = m.flex[i];
    if (fb.has_tip && hasTipChildren(m, i)) {
      updateTip(m, d, i, q);
      fw.c_E = tipVelocityProduct(m, d, i, q, v);
      const Vector6 v_rel = fw.S_E * v.segment(fb.idx_v, fb.nf);
      fw.t_E = motionToChild(fw.X_PE, t) + v_rel;
      fw.a_E = motionToChild(fw.X_PE, acc) + fw.c_E + crossMotion(fw.t_E, v_rel);
      if (a != nullptr) fw.a_E += fw.S_E * Eigen::Map<const VectorXd>(a + fb.idx_v, fb.nf);
    }
    if (motion_only) continue;
    // Extended wrench: the rigid body, then the modal terms.
    const Inertia& I = m.inertia[i];
    fw.w.head<6>() = I * acc + crossForce(t, I * t);
    if (fext != nullptr) fw.w.head<6>() -= (*fext)[i];
    if (fb.nf > 0) {
      flexTerms(m, i, t, acc, q, v, a, fw.w, with_inertia ? &fw.M : nullptr);
    } else if (with_inertia) {
      fw.M = m.inertia_matrix[i];
    }
  }
}

// Carries an extended quantity of body c to its parent p: a wrench (6) of c, or the 6 rows of a
// matrix of c's columns, becomes an extended one of p (6 + nf_p rows).
void wrenchToParent(const Model& m, const Data& d, int c, const Vector6& f_c, ExtVector& out_p) {
  const int p = m.parent[c];
  if (m.at_tip[c]) {
    const FlexWork& P = d.flex[p];
    const Vector6 f_E = forceToParent(d.flex[c].X_EB, f_c);
    out_p.head<6>() += forceToParent(P.X_PE, f_E);
    out_p.tail(m.flex[p].nf) += P.S_E.transpose() * f_E;
  } else {
    out_p.head<6>() += forceToParent(d.X_parent[c], f_c);
  }
}

// out_p += Āᵀ M_c Ā for a 6x6 symmetric M_c of body c (Ā: c's twist from p's extended velocity).
void inertiaToParent(const Model& m, const Data& d, int c, const Matrix6& M_c, ExtMatrix& out_p) {
  const int p = m.parent[c];
  if (!m.at_tip[c]) {
    Matrix6 acc = Matrix6::Zero();
    addCongruenceToParentSymmetric(d.X_parent[c], M_c, acc);
    out_p.topLeftCorner<6, 6>() += acc;
    return;
  }
  const FlexWork& P = d.flex[p];
  const int nf = m.flex[p].nf;
  Matrix6 M_at_E = Matrix6::Zero();
  addCongruenceToParentSymmetric(d.flex[c].X_EB, M_c, M_at_E);
  Matrix6 top = Matrix6::Zero();
  addCongruenceToParentSymmetric(P.X_PE, M_at_E, top);
  out_p.topLeftCorner<6, 6>() += top;
  const TipMatrix MS = M_at_E * P.S_E;  // (6 x nf) at E
  for (int k = 0; k < nf; ++k) {
    const Vector6 col = forceToParent(P.X_PE, MS.col(k));
    out_p.block(0, 6 + k, 6, 1) += col;
    out_p.block(6 + k, 0, 1, 6) += col.transpose();
  }
  out_p.bottomRightCorner(nf, nf) += P.S_E.transpose() * MS;
}

// Extended joint-rate propagation P_i = blockdiag(S_i, I_nf) applied or projected.
int jointDofs(const Model& m, int i) { return m.joint[i].nv + m.flex[i].nf; }

void project(const Model& m, const Data& d, int i, const ExtVector& f, double* out_joint,
             double* out_modes) {
  detail::jointProject(m.joint[i], d.S[i], Vector6(f.head<6>()), out_joint);
  for (int k = 0; k < m.flex[i].nf; ++k) out_modes[k] = f[6 + k];
}

void checkArgs(const Model& m, const VectorXd& q, const VectorXd& v, const BodyWrenches* fext,
               const char* where) {
  detail::checkSize(q.size(), m.nq, "q", where);
  detail::checkSize(v.size(), m.nv, "v", where);
  if (fext) detail::checkSize(static_cast<Eigen::Index>(fext->size()), m.nbodies, "fext", where);
}

// Inward Newton–Euler: w_i = W_i + Σ_c Āᵀ w_c; τ = P_iᵀ w_i.
void inward(const Model& m, Data& d, VectorXd& out) {
  for (int i = m.nbodies - 1; i >= 0; --i) {
    FlexWork& fw = d.flex[i];
    project(m, d, i, fw.w, out.data() + m.joint[i].idx_v, out.data() + m.flex[i].idx_v);
    if (m.parent[i] >= 0) wrenchToParent(m, d, i, fw.w.head<6>(), d.flex[m.parent[i]].w);
  }
}

}  // namespace

void forwardKinematics(const Model& m, Data& d, const VectorXd& q) {
  detail::checkSize(q.size(), m.nq, "q", "forwardKinematics");
  placements(m, d, q);
  for (int i = 0; i < m.nbodies; ++i) {
    const int p = m.parent[i];
    d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
  }
}

void forwardKinematics(const Model& m, Data& d, const VectorXd& q, const VectorXd& v) {
  detail::checkSize(v.size(), m.nv, "v", "forwardKinematics");
  forwardKinematics(m, d, q);
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const int p = m.parent[i];
    const Vector6 vJ = detail::jointMotion(j, d.S[i], v.data() + j.idx_v);
    if (p < 0) d.t[i] = vJ;
    else if (m.at_tip[i]) d.t[i] = motionToChild(d.flex[i].X_EB, d.flex[p].t_E) + vJ;
    else d.t[i] = motionToChild(d.X_parent[i], d.t[p]) + vJ;
    const FlexibleBody& fb = m.flex[i];
    if (fb.has_tip && hasTipChildren(m, i)) {
      d.flex[i].t_E = motionToChild(d.flex[i].X_PE, d.t[i]) +
                      d.flex[i].S_E * v.segment(fb.idx_v, fb.nf);
    }
  }
}

void forwardKinematics(const Model& m, Data& d, const VectorXd& q, const VectorXd& v, const VectorXd& a, int body) {
  detail::checkSize(q.size(), m.nq, "q", "forwardKinematics");
  detail::checkSize(v.size(), m.nv, "v", "forwardKinematics");
  outward(m, d, q, v, a.data(), nullptr, false, true, body);
  for (int i = 0; i < m.nbodies; ++i) {
    if (body >= 0 && !onPath(m, i, body)) continue;
    const int p = m.parent[i];
    d.X_world[i] = p < 0 ? d.X_parent[i] : d.X_world[p] * d.X_parent[i];
  }
}

const VectorXd& inverseDynamics(const Model& m, Data& d, const VectorXd& q, const VectorXd& v,
                                const VectorXd& a, const BodyWrenches* fext) {
  checkArgs(m, q, v, fext, "inverseDynamics");
  detail::checkSize(a.size(), m.nv, "a", "inverseDynamics");
  outward(m, d, q, v, a.data(), fext, false);
  inward(m, d, d.tau);
  d.tau.array() += m.armature.array() * a.array();
  for (int i = 0; i < m.nbodies; ++i) d.w[i] = d.flex[i].w.head<6>();
  return d.tau;
}

const VectorXd& nonlinearEffects(const Model& m, Data& d, const VectorXd& q, const VectorXd& v,
                                 const BodyWrenches* fext) {
  checkArgs(m, q, v, fext, "nonlinearEffects");
  outward(m, d, q, v, nullptr, fext, false);
  inward(m, d, d.h);
  return d.h;
}

namespace {

// Δ = L Lᵀ in fw.Delta's storage (core/math/small_cholesky): at these sizes (a joint's and a
// body's modes, up to 22 rows) Eigen's LLT and its triangular solves cost more in dispatch and
// packing than in flops. A Δ that is not positive definite gives NaN factors, so the failure shows
// in the accelerations.
void factorDelta(FlexWork& fw) { choleskyInPlace(fw.Delta, fw.Delta_inv); }

// b ← L⁻¹ b, for each column of b.
template <typename Rhs>
void forwardSubstitute(const FlexWork& fw, Rhs& b) {
  const ExtMatrix& L = fw.Delta;
  const Eigen::Index n = L.rows();
  for (Eigen::Index j = 0; j < n; ++j) {
    b.row(j) *= fw.Delta_inv[j];
    b.bottomRows(n - j - 1).noalias() -= L.col(j).tail(n - j - 1) * b.row(j);
  }
}

// b ← Δ⁻¹ b = L⁻ᵀ L⁻¹ b, for a vector b.
void solveDelta(const FlexWork& fw, ExtVector& b) {
  const ExtMatrix& L = fw.Delta;
  const Eigen::Index n = L.rows();
  forwardSubstitute(fw, b);
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    const double x = b[j] *= fw.Delta_inv[j];
    for (Eigen::Index i = 0; i < j; ++i) b[i] -= L(j, i) * x;
  }
}

// One body of the lower sweep: μ_i = Ā μ_p + P X_i, X_i = Δ⁻¹ (X̂ - φ̄ᵀ Ā μ_p) written into out
// (jn: the joint's free coordinates).
void lowerStep(const Model& m, Data& d, int i, int jn, VectorXd& out) {
  FlexWork& fw = d.flex[i];
  const Joint& j = m.joint[i];
  const int nf = m.flex[i].nf, ext = 6 + nf, dof = jn + nf;
  const int p = m.parent[i];
  fw.mu.setZero(ext);
  if (p >= 0) {
    const FlexWork& P = d.flex[p];
    if (m.at_tip[i]) {
      const Vector6 mu_E = motionToChild(P.X_PE, Vector6(P.mu.head<6>())) +
                           P.S_E * P.mu.tail(m.flex[p].nf);
      fw.mu.head<6>() = motionToChild(fw.X_EB, mu_E);
    } else {
      fw.mu.head<6>() = motionToChild(d.X_parent[i], Vector6(P.mu.head<6>()));
    }
  }
  if (dof == 1 && nf == 0) {  // a rigid body on a 1-DOF joint (articulatedSweeps' fixed-size step)
    const int k = detail::unitAxisIndex(j.type);
    const double y = (fw.xhat[0] - fw.phibar.col(0).head<6>().dot(fw.mu.head<6>())) * fw.Delta_inv[0] * fw.Delta_inv[0];
    out[j.idx_v] = y;
    fw.mu[k] += y;
  } else if (dof > 0) {
    ExtVector y = fw.xhat;
    y.noalias() -= fw.phibar.transpose() * fw.mu;
    solveDelta(fw, y);
    out.segment(j.idx_v, jn) = y.head(jn);
    out.segment(m.flex[i].idx_v, nf) = y.tail(nf);
    if (jn > 0) fw.mu.head<6>() += detail::jointMotion(j, d.S[i], y.data());
    fw.mu.tail(nf) += y.tail(nf);
  }
}

// The two sweeps of the articulated recursion (Alg. A.3 with extended bodies), after
// outward(..., true). x holds forces, except, where driven[i] is set for body i, the
// acceleration of joint i (hybrid dynamics, Featherstone RBDA §9.2): such a joint is not
// projected out; its known motion e = [S_i q̈_i; 0] joins the bias, ζ' = ζ + M̄ e, and its
// torque is read after the lower sweep, τ_i = S_iᵀ (M̄ μ_i + ζ)_twist + armature q̈_i.
void articulatedSweeps(const Model& m, Data& d, const VectorXd& x, const char* driven) {
  // Upper sweep: M̄ and the accumulator ζ (in fw.w) arrive with what the children sent.
  for (int i = m.nbodies - 1; i >= 0; --i) {
    FlexWork& fw = d.flex[i];
    const Joint& j = m.joint[i];
    const bool drv = driven && driven[i];
    const int jn = drv ? 0 : j.nv;  // free joint coordinates
    const int nf = m.flex[i].nf, ext = 6 + nf, dof = jn + nf;
    const int p = m.parent[i];
    if (nf == 0 && j.nv <= 1 && p >= 0) {
      // A rigid body on a joint of at most one DOF (most of a flexible robot's bodies): S is the
      // unit axis k, so φ̄ = M̄ e_k and Δ = M̄_kk + armature are a column and a scalar — the
      // classic articulated-body step in fixed sizes (the quantities of the general step below,
      // without its dynamic-size products). A driven joint adds M̄ e_k q̈ to the bias instead.
      const int k = j.nv == 1 ? detail::unitAxisIndex(j.type) : 0;
      Vector6 z = fw.w.head<6>();
      Matrix6 Ma = fw.M.topLeftCorner<6, 6>();
      if (dof == 1) {
        const Vector6 U = Ma.col(k);
        const double D = U[k] + m.armature[j.idx_v];
        const double sqrt_d = D > 0 ? std::sqrt(D) : std::numeric_limits<double>::quiet_NaN();
        fw.phibar.resize(6, 1);
        fw.phibar.col(0) = U;
        fw.Delta.resize(1, 1);
        fw.Delta(0, 0) = sqrt_d;
        fw.Delta_inv.resize(1);
        fw.Delta_inv[0] = 1 / sqrt_d;
        fw.xhat.resize(1);
        fw.xhat[0] = x[j.idx_v] - z[k];
        z += U * (fw.xhat[0] / D);
        Ma.noalias() -= U * (U.transpose() / D);
      } else if (drv && j.nv == 1) {
        z += Ma.col(k) * x[j.idx_v];
      }
      wrenchToParent(m, d, i, z, d.flex[p].w);
      inertiaToParent(m, d, i, Ma, d.flex[p].M);
      continue;
    }
    ExtVector zeta = fw.w;
    if (drv) {
      ExtVector e = ExtVector::Zero(ext);
      e.head<6>() = detail::jointMotion(j, d.S[i], x.data() + j.idx_v);
      zeta.noalias() += fw.M * e;
    }
    if (dof > 0) {
      // φ̄ = M̄ P, Δ = Pᵀ M̄ P, X̂ = b - Pᵀ ζ, with P = blockdiag(S_i, I_nf) (its free columns)
      fw.phibar.resize(ext, dof);
      fw.phibar.leftCols(jn).noalias() = fw.M.leftCols<6>() * d.S[i].leftCols(jn);
      fw.phibar.rightCols(nf) = fw.M.rightCols(nf);
      ExtMatrix& Delta = fw.Delta;
      Delta.resize(dof, dof);
      Delta.topRows(jn).noalias() = d.S[i].leftCols(jn).transpose() * fw.phibar.topRows<6>();
      Delta.bottomRows(nf) = fw.phibar.bottomRows(nf);
      for (int k = 0; k < jn; ++k) Delta(k, k) += m.armature[j.idx_v + k];
      factorDelta(fw);
      fw.xhat.resize(dof);
      fw.xhat.head(jn) = x.segment(j.idx_v, jn);
      fw.xhat.head(jn).noalias() -= d.S[i].leftCols(jn).transpose() * zeta.head<6>();
      fw.xhat.tail(nf) = x.segment(m.flex[i].idx_v, nf) - zeta.tail(nf);
    }
    if (p < 0) break;  // the root is body 0
    // ζ' + φ X̂ and M̄ - φ φ̄ᵀ, of which the parent sees the 6 rows of the twist.
    Vector6 z = zeta.head<6>();
    Matrix6 Ma = fw.M.topLeftCorner<6, 6>();
    if (dof > 0) {
      // With W = L⁻¹ φ̄ᵀ (the twist's rows of φ̄): φ̄ Δ⁻¹ X̂ = Wᵀ L⁻¹ X̂ and φ̄ Δ⁻¹ φ̄ᵀ = Wᵀ W
      // (forward substitutions only).
      Eigen::Matrix<double, Eigen::Dynamic, 6, 0, kMaxExt, 6> W = fw.phibar.topRows<6>().transpose();
      forwardSubstitute(fw, W);
      ExtVector u = fw.xhat;
      forwardSubstitute(fw, u);
      z.noalias() += W.transpose() * u;
      Ma.noalias() -= W.transpose() * W;
    }
    wrenchToParent(m, d, i, z, d.flex[p].w);
    inertiaToParent(m, d, i, Ma, d.flex[p].M);
  }
  // Lower sweep: X_i = Δ⁻¹ (X̂ - φ̄ᵀ μ_in), μ_i = μ_in + e + P X_i.
  for (int i = 0; i < m.nbodies; ++i) {
    FlexWork& fw = d.flex[i];
    const Joint& j = m.joint[i];
    const bool drv = driven && driven[i];
    lowerStep(m, d, i, drv ? 0 : j.nv, d.ddq);
    if (drv) {
      d.ddq.segment(j.idx_v, j.nv) = x.segment(j.idx_v, j.nv);
      fw.mu.head<6>() += detail::jointMotion(j, d.S[i], x.data() + j.idx_v);
      const Vector6 W = fw.M.topRows<6>() * fw.mu + fw.w.head<6>();
      detail::jointProject(j, d.S[i], W, d.tau.data() + j.idx_v);
      for (int k = 0; k < j.nv; ++k) {
        d.tau[j.idx_v + k] += m.armature[j.idx_v + k] * x[j.idx_v + k];
      }
    }
    d.a[i] += fw.mu.head<6>();
  }
}

}  // namespace

const VectorXd& forwardDynamics(const Model& m, Data& d, const VectorXd& q, const VectorXd& v,
                                const VectorXd& tau, const BodyWrenches* fext) {
  checkArgs(m, q, v, fext, "forwardDynamics");
  detail::checkSize(tau.size(), m.nv, "tau", "forwardDynamics");
  outward(m, d, q, v, nullptr, fext, true);
  articulatedSweeps(m, d, tau, nullptr);
  d.factorized = true;
  return d.ddq;
}

const VectorXd& solveMassMatrix(const Model& m, Data& d, const VectorXd& b) {
  detail::checkSize(b.size(), m.nv, "b", "solveMassMatrix");
  if (!d.factorized) throw std::logic_error("solveMassMatrix: call forwardDynamics first (flexible model)");
  // The sweeps of forwardDynamics on its factors (φ̄_i, Δ_i), with no bias wrench.
  for (int i = 0; i < m.nbodies; ++i) d.flex[i].w.setZero(6 + m.flex[i].nf);
  for (int i = m.nbodies - 1; i >= 0; --i) {
    FlexWork& fw = d.flex[i];
    const Joint& j = m.joint[i];
    const int nf = m.flex[i].nf;
    if (j.nv + nf > 0) {
      fw.xhat.head(j.nv) = b.segment(j.idx_v, j.nv);
      fw.xhat.head(j.nv).noalias() -= d.S[i].leftCols(j.nv).transpose() * fw.w.head<6>();
      fw.xhat.tail(nf) = b.segment(m.flex[i].idx_v, nf) - fw.w.tail(nf);
    }
    const int p = m.parent[i];
    if (p < 0) break;
    Vector6 z = fw.w.head<6>();
    if (j.nv + nf > 0) {
      ExtVector y = fw.xhat;
      solveDelta(fw, y);
      z.noalias() += fw.phibar.topRows<6>() * y;
    }
    wrenchToParent(m, d, i, z, d.flex[p].w);
  }
  for (int i = 0; i < m.nbodies; ++i) lowerStep(m, d, i, m.joint[i].nv, d.x);
  return d.x;
}

const VectorXd& hybridDynamics(const Model& m, Data& d, const VectorXd& q, const VectorXd& v,
                               const VectorXd& x, const std::vector<char>& driven,
                               const BodyWrenches* fext) {
  checkArgs(m, q, v, fext, "hybridDynamics");
  detail::checkSize(x.size(), m.nv, "x", "hybridDynamics");
  outward(m, d, q, v, nullptr, fext, true);
  d.tau = x;
  articulatedSweeps(m, d, x, driven.data());
  return d.tau;
}

namespace {

// The composite-body part of massMatrix, from the placements and each body's M_f(δ) in d.flex[i].M
// (which it turns into the composite inertias).
void compositeMassMatrix(const Model& m, Data& d) {
  for (int i = m.nbodies - 1; i > 0; --i) {
    inertiaToParent(m, d, i, Matrix6(d.flex[i].M.topLeftCorner<6, 6>()), d.flex[m.parent[i]].M);
  }
  // H(i, i) = Pᵀ M̂ P; F = M̂ P carried to each ancestor, H(j, i) = P_jᵀ F. Column by column,
  // only F's twist rows travel (Vector6); the modal rows a flexible ancestor p sees are S_Eᵀ f_E,
  // written straight into H.
  d.H.setZero();
  double pr[kMaxExt];
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const int dof = jointDofs(m, i);
    if (dof == 0) continue;
    const Joint& ji = m.joint[i];
    const ExtMatrix& M = d.flex[i].M;
    const int nfi = m.flex[i].nf, fi = m.flex[i].idx_v;
    // the columns of body i: joint DOFs then modes
    for (int c = 0; c < dof; ++c) {
      const int col = c < ji.nv ? ji.idx_v + c : fi + (c - ji.nv);
      // F = M̂ P_i e_c: a column of M̂ for a unit joint axis or a mode
      const int unit = c >= ji.nv ? 6 + (c - ji.nv) : ji.nv == 6 ? c : ji.nv == 1 ? detail::unitAxisIndex(ji.type) : -1;
      // (A unit column is read in place: copying it cost more than the rest of the column's work.)
      ExtVector product;
      if (unit < 0) product.noalias() = M.leftCols<6>() * d.S[i].col(c);
      const double* F = unit >= 0 ? M.col(unit).data() : product.data();
      Vector6 f = Eigen::Map<const Vector6>(F);
      // diagonal block
      detail::jointProject(ji, d.S[i], f, pr);
      for (int r = 0; r < ji.nv; ++r) d.H(ji.idx_v + r, col) = pr[r];
      for (int r = 0; r < nfi; ++r) d.H(fi + r, col) = F[6 + r];
      // ancestors
      for (int ch = i, p = m.parent[i]; p >= 0; ch = p, p = m.parent[p]) {
        const Joint& jp = m.joint[p];
        if (m.at_tip[ch]) {
          const FlexWork& P = d.flex[p];
          const Vector6 f_E = forceToParent(d.flex[ch].X_EB, f);
          f = forceToParent(P.X_PE, f_E);
          const int fp = m.flex[p].idx_v;
          for (int r = 0; r < m.flex[p].nf; ++r) {
            const double h = P.S_E.col(r).dot(f_E);
            d.H(fp + r, col) = h;
            d.H(col, fp + r) = h;
          }
        } else {
          f = forceToParent(d.X_parent[ch], f);
        }
        if (jp.nv == 0) continue;
        detail::jointProject(jp, d.S[p], f, pr);
        for (int r = 0; r < jp.nv; ++r) {
          d.H(jp.idx_v + r, col) = pr[r];
          d.H(col, jp.idx_v + r) = pr[r];
        }
      }
    }
  }
  d.H.diagonal() += m.armature;
}

}  // namespace

const Eigen::MatrixXd& massMatrix(const Model& m, Data& d, const VectorXd& q) {
  detail::checkSize(q.size(), m.nq, "q", "massMatrix");
  const VectorXd& zero = d.flex_zero;
  // M_f(δ) of each body (velocities are irrelevant to it).
  placements(m, d, q);
  for (int i = 0; i < m.nbodies; ++i) {
    FlexWork& fw = d.flex[i];
    if (m.flex[i].nf > 0) {
      fw.w.setZero(6 + m.flex[i].nf);
      flexTerms(m, i, Vector6::Zero(), Vector6::Zero(), q, zero, nullptr, fw.w, &fw.M);
    } else {
      fw.M = m.inertia_matrix[i];
    }
  }
  compositeMassMatrix(m, d);
  return d.H;
}

void massMatrixAndBias(const Model& m, Data& d, const VectorXd& q, const VectorXd& v, const BodyWrenches* fext) {
  checkArgs(m, q, v, fext, "massMatrixAndBias");
  // The bias' outward pass makes the placements and each body's M_f(δ) on its way (M_f depends
  // on δ only: the same matrices massMatrix makes).
  outward(m, d, q, v, nullptr, fext, true);
  inward(m, d, d.h);
  compositeMassMatrix(m, d);
}

double kineticEnergy(const Model& m, Data& d, const VectorXd& q, const VectorXd& v) {
  forwardKinematics(m, d, q, v);
  const VectorXd zero = VectorXd::Zero(m.nv);
  double T = v.dot(m.armature.cwiseProduct(v));
  for (int i = 0; i < m.nbodies; ++i) {
    const int nf = m.flex[i].nf;
    if (nf == 0) {
      T += d.t[i].dot(m.inertia[i] * d.t[i]);
      continue;
    }
    FlexWork& fw = d.flex[i];
    fw.w.setZero(6 + nf);
    flexTerms(m, i, Vector6::Zero(), Vector6::Zero(), q, zero, nullptr, fw.w, &fw.M);
    ExtVector zeta(6 + nf);
    zeta << d.t[i], v.segment(m.flex[i].idx_v, nf);
    T += zeta.dot(fw.M * zeta);
  }
  return 0.5 * T;
}

Vector6 momentum(const Model& m, Data& d, const VectorXd& q, const VectorXd& v) {
  forwardKinematics(m, d, q, v);
  const VectorXd zero = VectorXd::Zero(m.nv);
  Vector6 total = Vector6::Zero();
  for (int i = 0; i < m.nbodies; ++i) {
    const int nf = m.flex[i].nf;
    Vector6 h = m.inertia[i] * d.t[i];
    if (nf > 0) {
      FlexWork& fw = d.flex[i];
      fw.w.setZero(6 + nf);
      flexTerms(m, i, Vector6::Zero(), Vector6::Zero(), q, zero, nullptr, fw.w, &fw.M);
      ExtVector zeta(6 + nf);
      zeta << d.t[i], v.segment(m.flex[i].idx_v, nf);
      h = (fw.M * zeta).head<6>();
    }
    total += forceToParent(d.X_world[i], h);
  }
  return total;
}

double elasticEnergy(const Model& m, const VectorXd& q) {
  double U = 0;
  for (const FlexibleBody& fb : m.flex) {
    if (fb.nf == 0) continue;
    const auto delta = q.segment(fb.idx_q, fb.nf);
    U += delta.dot(fb.K * delta);
  }
  return 0.5 * U;
}

void frameJacobian(const Model& m, Data& d, int frame_id, const Vector3& p_F, bool world) {
  const Frame& f = m.frames.at(frame_id);
  const Transform X_WF = d.X_world[f.body] * f.X_body_frame;
  const Vector3 p_W = X_WF.act(p_F);
  d.J.setZero();
  auto column = [&](const Transform& X, const Vector6& s, int col) {
    const Vector3 w = X.R * s.tail<3>();
    d.J.col(col).head<3>() = X.R * s.head<3>() + w.cross(p_W - X.p);
    d.J.col(col).tail<3>() = w;
  };
  for (int j = f.body, c = -1; j >= 0; c = j, j = m.parent[j]) {
    const Joint& jt = m.joint[j];
    for (int k = 0; k < jt.nv; ++k) column(d.X_world[j], d.S[j].col(k), jt.idx_v + k);
    // the modes of j move the point only through its tip, if the path came from there
    if (c >= 0 && m.at_tip[c]) {
      const Transform X_WE = d.X_world[j] * d.flex[j].X_PE;
      for (int k = 0; k < m.flex[j].nf; ++k) {
        column(X_WE, d.flex[j].S_E.col(k), m.flex[j].idx_v + k);
      }
    }
  }
  if (!world) {
    const Matrix3 R_FW = X_WF.R.transpose();
    for (Eigen::Index c = 0; c < d.J.cols(); ++c) {
      const Vector3 v = d.J.col(c).head<3>(), w = d.J.col(c).tail<3>();
      d.J.col(c).head<3>() = R_FW * v;
      d.J.col(c).tail<3>() = R_FW * w;
    }
  }
}

namespace {

// d/dt R_Ψ (eq. A.12) as a matrix, for ψ̇.
Matrix3 eulerRateMatrixDot(const Vector3& psi, const Vector3& pd) {
  double sy, cy, sz, cz;
  sinCos(psi.y(), sy, cy);
  sinCos(psi.z(), sz, cz);
  Matrix3 Ry, Rz;
  Ry << -cz * sy, 0, 0, -sz * sy, 0, 0, -cy, 0, 0;
  Rz << -sz * cy, -cz, 0, cz * cy, -sz, 0, 0, 0, 0;
  return pd.y() * Ry + pd.z() * Rz;
}

// Ṡ_E (6 x nf, E components): the time derivative of the tip motion matrix, per model
// (consistent with tipVelocityProduct: Ṡ_E δ̇ = c_E).
TipMatrix tipMotionDerivative(const Model& m, const Data& d, int i, const VectorXd& q,
                              const VectorXd& v) {
  const FlexibleBody& fb = m.flex[i];
  const FlexWork& w = d.flex[i];
  const auto dd = v.segment(fb.idx_v, fb.nf);
  const Vector3 w_rel = w.S_E.bottomRows<3>() * dd;
  const Matrix3 W = skew(w_rel);
  TipMatrix Sd = TipMatrix::Zero(6, fb.nf);
  if (fb.model != FlexModel::kNominalR) {
    Sd.topRows<3>() = -W * w.S_E.topRows<3>();
    Sd.bottomRows<3>() = -W * w.S_E.bottomRows<3>();
  }
  if (fb.model != FlexModel::kNominalA) {
    const Vector3 psi = fb.Delta_e * q.segment(fb.idx_q, fb.nf), pd = fb.Delta_e * dd;
    const Matrix3 Re = fb.model == FlexModel::kNominalR ? Matrix3::Identity() : rpyToMatrix(psi);
    Sd.bottomRows<3>() += Re.transpose() * eulerRateMatrixDot(psi, pd) * fb.Delta_e;
  }
  return Sd;
}

// ∂M_f/∂δ_j for a beam in the full model.
ExtMatrix massDerivative(const FlexibleBody& fb, const VectorXd& delta, int j) {
  const int nf = fb.nf;
  ExtMatrix Mj = ExtMatrix::Zero(6 + nf, 6 + nf);
  const Vector3 vu = fb.Vu.col(j);
  Mj.block<3, 3>(0, 3) = -skew(vu);
  Mj.block<3, 3>(3, 0) = skew(vu);
  Matrix3 dU = Matrix3::Zero();  // ∂U/∂δ_j, U = Σ δ_a δ_b Q_ab
  for (int b = 0; b < nf; ++b) dU += delta[b] * (fb.Q[j * nf + b] + fb.Q[b * nf + j]);
  const Matrix3& Cj = fb.C[j];
  Mj.block<3, 3>(3, 3) = (2 * Cj.trace() + dU.trace()) * Matrix3::Identity() - Cj - Cj.transpose() - dU;
  for (int k = 0; k < nf; ++k) {
    Mj.block<3, 1>(3, 6 + k) = fb.X[j * nf + k];
    Mj.block<1, 3>(6 + k, 3) = fb.X[j * nf + k].transpose();
  }
  return Mj;
}


}  // namespace

const Eigen::MatrixXd& coriolisMatrix(const Model& m, Data& d, const VectorXd& q, const VectorXd& v) {
  detail::checkSize(q.size(), m.nq, "q", "coriolisMatrix");
  detail::checkSize(v.size(), m.nv, "v", "coriolisMatrix");
  forwardKinematics(m, d, q, v);
  const VectorXd zero = VectorXd::Zero(m.nv);
  d.C.setZero();
  for (int k = 0; k < m.nbodies; ++k) {
    const FlexibleBody& fk = m.flex[k];
    const int ext = 6 + fk.nf;
    // Extended Jacobian of body k (ζ_k = J v) and its time derivative, body k components.
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(ext, m.nv), Jd = Eigen::MatrixXd::Zero(ext, m.nv);
    const Transform& X_Wk = d.X_world[k];
    const Vector6& t_k = d.t[k];
    // A motion s given in frame F (pose X_WF, twist t_F), with component derivative sd.
    auto addColumn = [&](const Transform& X_WF, const Vector6& t_F, const Vector6& s,
                         const Vector6& sd, int col) {
      const Vector6 c = motionToChild(X_Wk, motionToParent(X_WF, s));
      const Vector6 dc = motionToChild(X_Wk, motionToParent(X_WF, Vector6(crossMotion(t_F, s) + sd)));
      J.block<6, 1>(0, col) = c;
      Jd.block<6, 1>(0, col) = dc - crossMotion(t_k, c);
    };
    for (int j = k, c = -1; j >= 0; c = j, j = m.parent[j]) {
      const Joint& jt = m.joint[j];
      Matrix6 Sd = Matrix6::Zero();
      jointSubspaceRate(jt, d.S[j], v.data() + jt.idx_v, Sd);
      for (int a = 0; a < jt.nv; ++a) {
        addColumn(d.X_world[j], d.t[j], d.S[j].col(a), Sd.col(a), jt.idx_v + a);
      }
      if (c >= 0 && m.at_tip[c]) {  // the modes of j reach k through j's tip
        const TipMatrix SdE = tipMotionDerivative(m, d, j, q, v);
        const Transform X_WE = d.X_world[j] * d.flex[j].X_PE;
        for (int a = 0; a < m.flex[j].nf; ++a) {
          addColumn(X_WE, d.flex[j].t_E, d.flex[j].S_E.col(a), SdE.col(a), m.flex[j].idx_v + a);
        }
      }
    }
    for (int a = 0; a < fk.nf; ++a) J(6 + a, fk.idx_v + a) = 1.0;
    // The body's M(δ), Ṁ, and B with Bζ = b, B + Bᵀ = Ṁ (see flexible.hpp).
    ExtMatrix M(ext, ext);
    if (fk.nf > 0) {
      ExtVector scratch = ExtVector::Zero(ext);
      flexTerms(m, k, Vector6::Zero(), Vector6::Zero(), q, zero, nullptr, scratch, &M);
    } else {
      M = m.inertia_matrix[k];
    }
    ExtVector zeta(ext);
    zeta.head<6>() = t_k;
    if (fk.nf > 0) zeta.tail(fk.nf) = v.segment(fk.idx_v, fk.nf);
    const Vector6 h_t = (M * zeta).head<6>();
    ExtMatrix B = ExtMatrix::Zero(ext, ext);
    B.topRows<6>() += 0.5 * crossForceMatrix(t_k) * M.topRows<6>();
    B.leftCols<6>() += 0.5 * M.leftCols<6>() * crossMotionMatrix(t_k);
    B.topLeftCorner<6, 6>() += 0.5 * crossForceBarMatrix(h_t);
    if (fk.nf > 0 && fk.beam && fk.model == FlexModel::kFull) {
      const VectorXd delta = q.segment(fk.idx_q, fk.nf);
      for (int j = 0; j < fk.nf; ++j) {
        const ExtMatrix Mj = massDerivative(fk, delta, j);
        B += 0.5 * zeta[6 + j] * Mj;                       // ½ Ṁ
        const ExtVector Mjz = Mj * zeta;
        B.col(6 + j) += 0.5 * Mjz;                         // N₂ = ½ (M_j ζ e_jᵀ - e_j ζᵀ M_j)
        B.row(6 + j) -= 0.5 * Mjz.transpose();
      }
    }
    if (fk.nf > 0 && fk.model == FlexModel::kConstantMassPrinted) {
      // the printed flex-M drops v × (V_u δ̇) from the moment rows
      B.block(3, 6, 3, fk.nf) -= skew(t_k.head<3>()) * fk.M_td.topRows<3>();
    }
    if (fk.nf > 0) B.bottomRightCorner(fk.nf, fk.nf) += fk.D;  // modal damping: C_d δ̇
    const Eigen::MatrixXd Mm = M, Bm = B;
    d.C.noalias() += J.transpose() * (Mm * Jd + Bm * J);
  }
  return d.C;
}

}  // namespace grapple::core::general
