#include "core/analysis/lft.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/math/decompositions.hpp"

namespace grapple::core {

namespace {

using Eigen::MatrixXd;

MatrixXd blockDiag(const MatrixXd& a, const MatrixXd& b) {
  MatrixXd r = MatrixXd::Zero(a.rows() + b.rows(), a.cols() + b.cols());
  r.topLeftCorner(a.rows(), a.cols()) = a;
  r.bottomRightCorner(b.rows(), b.cols()) = b;
  return r;
}

MatrixXd vstack(const MatrixXd& a, const MatrixXd& b) {
  MatrixXd r(a.rows() + b.rows(), a.cols());
  r << a, b;
  return r;
}

MatrixXd hstack(const MatrixXd& a, const MatrixXd& b) {
  MatrixXd r(a.rows(), a.cols() + b.cols());
  r << a, b;
  return r;
}

std::vector<int> joined(const Lft& a, const Lft& b) {
  std::vector<int> p = a.param;
  p.insert(p.end(), b.param.begin(), b.param.end());
  return p;
}

void requireSize(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("LFT: ") + what + ": sizes do not match");
}

}  // namespace

Lft Lft::constant(const MatrixXd& value) {
  Lft r;
  r.M11.resize(0, 0);
  r.M12.resize(0, value.cols());
  r.M21.resize(value.rows(), 0);
  r.M22 = value;
  return r;
}

MatrixXd Lft::evaluate(const Eigen::VectorXd& sigma) const {
  const Eigen::Index n = deltaSize();
  if (n == 0) return M22;
  Eigen::VectorXd d(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int k = param[static_cast<std::size_t>(i)];
    if (k < 0 || k >= sigma.size()) throw std::invalid_argument("LFT: a parameter has no value");
    d[i] = sigma[k];
  }
  const Eigen::PartialPivLU<MatrixXd> lu(MatrixXd::Identity(n, n) - M11 * d.asDiagonal());
  if (!(std::abs(lu.determinant()) > 1e-300)) throw std::invalid_argument("LFT: I - M11 Δ is singular");
  return M22 + M21 * d.asDiagonal() * lu.solve(M12);
}

Lft Lft::transpose() const {
  Lft r;
  r.M11 = M11.transpose();
  r.M12 = M21.transpose();
  r.M21 = M12.transpose();
  r.M22 = M22.transpose();
  r.param = param;
  return r;
}

Lft Lft::inverse() const {
  requireSize(rows() == cols(), "inverse of a non-square matrix");
  const Eigen::PartialPivLU<MatrixXd> lu(M22);
  if (!(std::abs(lu.determinant()) > 0) || !lu.solve(MatrixXd::Identity(rows(), rows())).allFinite()) {
    throw std::invalid_argument("LFT: inverse of a matrix singular at the nominal parameters");
  }
  const MatrixXd Ainv = lu.inverse();
  Lft r;
  r.M11 = M11 - M12 * Ainv * M21;
  r.M12 = M12 * Ainv;
  r.M21 = -Ainv * M21;
  r.M22 = Ainv;
  r.param = param;
  return r;
}

Lft Lft::normalized(const Eigen::VectorXd& center, const Eigen::VectorXd& radius) const {
  // w = C z + R w', w' = δ z: z = Q (M11 R w' + M12 u), Q = (I - M11 C)⁻¹.
  const Eigen::Index n = deltaSize();
  Eigen::VectorXd c(n), r(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int k = param[static_cast<std::size_t>(i)];
    if (k < 0 || k >= center.size() || k >= radius.size()) throw std::invalid_argument("LFT: a parameter has no range");
    c[i] = center[k];
    r[i] = radius[k];
  }
  const Eigen::PartialPivLU<MatrixXd> lu(MatrixXd::Identity(n, n) - M11 * c.asDiagonal());
  const MatrixXd QM11 = lu.solve(M11), QM12 = lu.solve(M12);
  Lft out;
  out.M11 = QM11 * r.asDiagonal();
  out.M12 = QM12;
  out.M21 = M21 * (MatrixXd::Identity(n, n) + c.asDiagonal() * QM11) * r.asDiagonal();
  out.M22 = M22 + M21 * c.asDiagonal() * QM12;
  out.param = param;
  return out;
}

Lft Lft::grouped() const {
  std::vector<int> order(param.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return param[static_cast<std::size_t>(a)] < param[static_cast<std::size_t>(b)];
  });
  Lft r;
  r.M11 = M11(order, order);
  r.M12 = M12(order, Eigen::all);
  r.M21 = M21(Eigen::all, order);
  r.M22 = M22;
  for (int i : order) r.param.push_back(param[static_cast<std::size_t>(i)]);
  return r;
}

Lft Lft::block(const std::vector<int>& rows, const std::vector<int>& cols) const {
  Lft r = *this;
  r.M12 = M12(Eigen::all, cols);
  r.M21 = M21(rows, Eigen::all);
  r.M22 = M22(rows, cols);
  return r;
}

Lft operator+(const Lft& a, const Lft& b) {
  requireSize(a.rows() == b.rows() && a.cols() == b.cols(), "sum");
  Lft r;
  r.M11 = blockDiag(a.M11, b.M11);
  r.M12 = vstack(a.M12, b.M12);
  r.M21 = hstack(a.M21, b.M21);
  r.M22 = a.M22 + b.M22;
  r.param = joined(a, b);
  return r;
}

Lft operator-(const Lft& a, const Lft& b) { return a + (-MatrixXd::Identity(b.rows(), b.rows())) * b; }

Lft operator*(const Lft& a, const Lft& b) {
  requireSize(a.cols() == b.rows(), "product");
  Lft r;
  r.M11 = MatrixXd::Zero(a.deltaSize() + b.deltaSize(), a.deltaSize() + b.deltaSize());
  r.M11.topLeftCorner(a.deltaSize(), a.deltaSize()) = a.M11;
  r.M11.topRightCorner(a.deltaSize(), b.deltaSize()) = a.M12 * b.M21;
  r.M11.bottomRightCorner(b.deltaSize(), b.deltaSize()) = b.M11;
  r.M12 = vstack(a.M12 * b.M22, b.M12);
  r.M21 = hstack(a.M21, a.M22 * b.M21);
  r.M22 = a.M22 * b.M22;
  r.param = joined(a, b);
  return r;
}

Lft operator*(const MatrixXd& a, const Lft& b) {
  requireSize(a.cols() == b.rows(), "product");
  Lft r = b;
  r.M21 = a * b.M21;
  r.M22 = a * b.M22;
  return r;
}

Lft operator*(const Lft& a, const MatrixXd& b) {
  requireSize(a.cols() == b.rows(), "product");
  Lft r = a;
  r.M12 = a.M12 * b;
  r.M22 = a.M22 * b;
  return r;
}

Lft horizontalConcat(const Lft& a, const Lft& b) {
  requireSize(a.rows() == b.rows(), "horizontal concatenation");
  Lft r;
  r.M11 = blockDiag(a.M11, b.M11);
  r.M12 = blockDiag(a.M12, b.M12);
  r.M21 = hstack(a.M21, b.M21);
  r.M22 = hstack(a.M22, b.M22);
  r.param = joined(a, b);
  return r;
}

Lft verticalConcat(const Lft& a, const Lft& b) {
  requireSize(a.cols() == b.cols(), "vertical concatenation");
  Lft r;
  r.M11 = blockDiag(a.M11, b.M11);
  r.M12 = vstack(a.M12, b.M12);
  r.M21 = blockDiag(a.M21, b.M21);
  r.M22 = vstack(a.M22, b.M22);
  r.param = joined(a, b);
  return r;
}

Lft blockDiagonal(const Lft& a, const Lft& b) {
  Lft r;
  r.M11 = blockDiag(a.M11, b.M11);
  r.M12 = blockDiag(a.M12, b.M12);
  r.M21 = blockDiag(a.M21, b.M21);
  r.M22 = blockDiag(a.M22, b.M22);
  r.param = joined(a, b);
  return r;
}

Eigen::MatrixXcd upperLft(const Eigen::MatrixXcd& M, const Eigen::MatrixXcd& Delta) {
  const Eigen::Index nz = Delta.cols(), nw = Delta.rows();
  requireSize(M.rows() >= nz && M.cols() >= nw, "upper LFT");
  const Eigen::Index p = M.rows() - nz, m = M.cols() - nw;
  const Eigen::MatrixXcd I = Eigen::MatrixXcd::Identity(nz, nz);
  return M.bottomRightCorner(p, m) +
         M.bottomLeftCorner(p, nw) * Delta * (I - M.topLeftCorner(nz, nw) * Delta).partialPivLu().solve(M.topRightCorner(nz, m));
}

Eigen::MatrixXcd lowerLft(const Eigen::MatrixXcd& P, const Eigen::MatrixXcd& K) {
  const Eigen::Index nu = K.rows(), ny = K.cols();
  requireSize(P.rows() >= ny && P.cols() >= nu, "lower LFT");
  const Eigen::Index ne = P.rows() - ny, nw = P.cols() - nu;
  const Eigen::MatrixXcd I = Eigen::MatrixXcd::Identity(ny, ny);
  return P.topLeftCorner(ne, nw) +
         P.topRightCorner(ne, nu) * K * (I - P.bottomRightCorner(ny, nu) * K).partialPivLu().solve(P.bottomLeftCorner(ny, nw));
}

Eigen::MatrixXcd starProduct(const Eigen::MatrixXcd& P, const Eigen::MatrixXcd& Q, Eigen::Index ny, Eigen::Index nu) {
  requireSize(P.rows() >= ny && P.cols() >= nu && Q.rows() >= nu && Q.cols() >= ny, "star product");
  const Eigen::Index ne = P.rows() - ny, nw = P.cols() - nu, nz = Q.rows() - nu, nv = Q.cols() - ny;
  const auto P11 = P.topLeftCorner(ne, nw), P12 = P.topRightCorner(ne, nu);
  const auto P21 = P.bottomLeftCorner(ny, nw), P22 = P.bottomRightCorner(ny, nu);
  const auto Q11 = Q.topLeftCorner(nu, ny), Q12 = Q.topRightCorner(nu, nv);
  const auto Q21 = Q.bottomLeftCorner(nz, ny), Q22 = Q.bottomRightCorner(nz, nv);
  // y = E (P21 w + P22 Q12 v), E = (I - P22 Q11)⁻¹; u = Q11 y + Q12 v.
  const Eigen::PartialPivLU<Eigen::MatrixXcd> E(Eigen::MatrixXcd::Identity(ny, ny) - P22 * Q11);
  const Eigen::MatrixXcd EP21 = E.solve(P21), EP22Q12 = E.solve(P22 * Q12);
  Eigen::MatrixXcd S(ne + nz, nw + nv);
  S.topLeftCorner(ne, nw) = P11 + P12 * Q11 * EP21;
  S.topRightCorner(ne, nv) = P12 * (Q11 * EP22Q12 + Q12);
  S.bottomLeftCorner(nz, nw) = Q21 * EP21;
  S.bottomRightCorner(nz, nv) = Q22 + Q21 * EP22Q12;
  return S;
}

Lft rotationZ(RotationParameter form, int param) {
  Lft r;
  if (form == RotationParameter::kTan2) {
    // eq. 8.20: y1 = u1 - 2σ2/(1+σ2²)(σ2 u1 - u2), y2 = u2 + 2σ2/(1+σ2²)(u1 - σ2 u2), y3 = u3.
    r.M11.resize(2, 2);
    r.M11 << 0, 1, -1, 0;
    r.M12.resize(2, 3);
    r.M12 << 2, 0, 0, 0, -2, 0;
    r.M21.resize(3, 2);
    r.M21 << 0, 1, 1, 0, 0, 0;
  } else {
    // eq. 8.23: each σ2 block of eq. 8.20 closed by its σ4 = tan(θ/4) feedback.
    r.M11.resize(4, 4);
    r.M11 << 0, 1, -2, 0, 1, 0, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0;
    r.M12.resize(4, 3);
    r.M12 << 0, -4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0;
    r.M21.resize(3, 4);
    r.M21 << 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0;
  }
  r.M22 = MatrixXd::Identity(3, 3);
  r.param.assign(static_cast<std::size_t>(r.M11.rows()), param);
  return r;
}

double rotationParameter(RotationParameter form, double theta) {
  return std::tan(theta / (form == RotationParameter::kTan2 ? 2 : 4));
}

double rotationAngle(RotationParameter form, double sigma) {
  return (form == RotationParameter::kTan2 ? 2 : 4) * std::atan(sigma);
}

Lft massMatrixLft(const Model& m, const Eigen::VectorXd& q, const std::vector<int>& joints, RotationParameter form) {
  if (m.hasFlexibleBodies()) throw std::invalid_argument("mass-matrix LFT: rigid models only");
  if (q.size() != m.nq || !q.allFinite()) throw std::invalid_argument("mass-matrix LFT: q has the wrong size or is not finite");
  const int nb = m.nbodies, n6 = 6 * nb;
  std::vector<int> which(static_cast<std::size_t>(nb), -1);
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const int b = joints[k];
    if (b <= 0 || b >= nb || m.joint[static_cast<std::size_t>(b)].type != JointType::kRevolute ||
        !m.joint[static_cast<std::size_t>(b)].axis.isApprox(Vector3::UnitZ())) {
      throw std::invalid_argument("mass-matrix LFT: body " + std::to_string(b) + " is not moved by a revolute joint about z");
    }
    if (which[static_cast<std::size_t>(b)] >= 0) throw std::invalid_argument("mass-matrix LFT: a joint is given twice");
    which[static_cast<std::size_t>(b)] = static_cast<int>(k);
  }
  // Twists t = A t + P q̇ (all bodies, body components): A's fixed blocks, and P.
  MatrixXd A0 = MatrixXd::Zero(n6, n6), P = MatrixXd::Zero(n6, m.nv), Mb = MatrixXd::Zero(n6, n6);
  Lft A = Lft::constant(MatrixXd::Zero(n6, n6));
  for (int i = 0; i < nb; ++i) {
    const Joint& j = m.joint[static_cast<std::size_t>(i)];
    Mb.block(6 * i, 6 * i, 6, 6) = m.inertia_matrix[static_cast<std::size_t>(i)];
    Matrix6 S = Matrix6::Zero();
    jointMotionSubspace(j, q.data() + j.idx_q, S);
    P.block(6 * i, j.idx_v, 6, j.nv) = S.leftCols(j.nv);
    const int p = m.parent[static_cast<std::size_t>(i)];
    if (p < 0) continue;
    const Transform& Xpj = m.X_parent_joint[static_cast<std::size_t>(i)];
    const int k = which[static_cast<std::size_t>(i)];
    if (k < 0) {
      A0.block(6 * i, 6 * p, 6, 6) = motionToChildMatrix(Xpj * jointTransform(j, q.data() + j.idx_q));
      continue;
    }
    // A_{i,p} = blockdiag(R_z(θ)ᵀ, R_z(θ)ᵀ) A(X_pj): rows of body i, columns of its parent.
    const Lft Rt = rotationZ(form, k).transpose();
    MatrixXd rows = MatrixXd::Zero(n6, 6), cols = MatrixXd::Zero(6, n6);
    rows.block(6 * i, 0, 6, 6).setIdentity();
    cols.block(0, 6 * p, 6, 6) = motionToChildMatrix(Xpj);
    A = A + rows * blockDiagonal(Rt, Rt) * cols;
  }
  A.M22 += A0;
  // N = (I - A)⁻¹ P, D = Nᵀ [M] N + armature.
  const Lft N = (Lft::constant(MatrixXd::Identity(n6, n6)) - A).inverse() * P;
  Lft D = N.transpose() * (Mb * N);
  D.M22 += MatrixXd(m.armature.asDiagonal());
  return D.grouped();
}

}  // namespace grapple::core
