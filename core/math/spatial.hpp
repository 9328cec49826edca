// Spatial algebra in the convention of the thesis (Dubanchet 2016, §4.1):
//   twist  t = [v; ω]  (linear velocity of the frame origin first, then angular velocity),
//   wrench w = [f; n]  (force first, then the moment about the frame origin),
// both expressed in the components of one frame and referred to that frame's origin.
//
// A rigid transform X_PC is the pose of a child frame C in a parent frame P:
//   R = ^P R_C (C components -> P components), p = ^P p_C (origin of C, in P components).
// The thesis' twist-propagation matrix is A_{C,P} = diag(R^T, R^T) [I  -p^x; 0  I]
// (eq. 4.29-4.31): t_C = A_{C,P} t_P for two frames of one rigid body. Its transpose moves a
// wrench from C to P: w_P = A_{C,P}^T w_C. The functions below apply these operators without
// forming 6x6 matrices.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>  // cross products

namespace grapple::core {

using Vector3 = Eigen::Vector3d;
using Vector4 = Eigen::Vector4d;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix3 = Eigen::Matrix3d;
using Matrix6 = Eigen::Matrix<double, 6, 6>;

// x^× such that x^× y = x × y.
inline Matrix3 skew(const Vector3& x) {
  Matrix3 s;
  s << 0.0, -x.z(), x.y(),
       x.z(), 0.0, -x.x(),
       -x.y(), x.x(), 0.0;
  return s;
}

// Pose of frame C in frame P (see the header comment). Composition: X_AB * X_BC = X_AC.
struct Transform {
  Matrix3 R = Matrix3::Identity();  // ^P R_C
  Vector3 p = Vector3::Zero();      // ^P p_C [m]

  static Transform Identity() { return {}; }
  Transform operator*(const Transform& X_BC) const { return {R * X_BC.R, R * X_BC.p + p}; }
  Transform inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  // Point given in C components -> the same point in P components.
  Vector3 act(const Vector3& x_C) const { return R * x_C + p; }
};

// t_C = A_{C,P} t_P: a twist given at P's origin in P components, re-expressed at C's origin in
// C components (same rigid motion).
inline Vector6 motionToChild(const Transform& X_PC, const Vector6& t_P) {
  Vector6 t_C;
  const Vector3 w = t_P.tail<3>();
  t_C.head<3>().noalias() = X_PC.R.transpose() * (t_P.head<3>() + w.cross(X_PC.p));
  t_C.tail<3>().noalias() = X_PC.R.transpose() * w;
  return t_C;
}

// Inverse of motionToChild: t_P = A_{C,P}^{-1} t_C.
inline Vector6 motionToParent(const Transform& X_PC, const Vector6& t_C) {
  Vector6 t_P;
  t_P.tail<3>().noalias() = X_PC.R * t_C.tail<3>();
  t_P.head<3>().noalias() = X_PC.R * t_C.head<3>();
  t_P.head<3>() -= t_P.tail<3>().cross(X_PC.p);
  return t_P;
}

// w_P = A_{C,P}^T w_C: a wrench at C's origin in C components, moved to P's origin in P components.
inline Vector6 forceToParent(const Transform& X_PC, const Vector6& w_C) {
  Vector6 w_P;
  w_P.head<3>().noalias() = X_PC.R * w_C.head<3>();
  w_P.tail<3>().noalias() = X_PC.R * w_C.tail<3>();
  w_P.tail<3>() += X_PC.p.cross(w_P.head<3>());
  return w_P;
}

// w_P += A_{C,P}ᵀ w_C: forceToParent accumulated in place (the recursions' wrench to the parent;
// a 6-vector temporary stored in two 3-vector halves and reloaded whole stalls the reload).
inline void addForceToParent(const Transform& X_PC, const Vector6& w_C, Vector6& w_P) {
  const Vector3 f = X_PC.R * w_C.head<3>();
  w_P.tail<3>() += X_PC.R * w_C.tail<3>() + X_PC.p.cross(f);
  w_P.head<3>() += f;
}

// Inverse of forceToParent: w_C = A_{C,P}^{-T} w_P.
inline Vector6 forceToChild(const Transform& X_PC, const Vector6& w_P) {
  Vector6 w_C;
  w_C.head<3>().noalias() = X_PC.R.transpose() * w_P.head<3>();
  w_C.tail<3>().noalias() = X_PC.R.transpose() * (w_P.tail<3>() - X_PC.p.cross(w_P.head<3>()));
  return w_C;
}

// The 6x6 matrix A_{C,P} of motionToChild (for tests and for dense analyses, not for recursions).
inline Matrix6 motionToChildMatrix(const Transform& X_PC) {
  Matrix6 A = Matrix6::Zero();
  A.topLeftCorner<3, 3>() = X_PC.R.transpose();
  A.topRightCorner<3, 3>() = -X_PC.R.transpose() * skew(X_PC.p);
  A.bottomRightCorner<3, 3>() = X_PC.R.transpose();
  return A;
}

// Spatial cross products for twist t = [v; ω]:
//   t ×m m = [ω × m_v + v × m_ω; ω × m_ω]   (motion)
//   t ×f f = [ω × f_f; v × f_f + ω × f_n]   (force, = -(t ×m)^T f)
inline Vector6 crossMotion(const Vector6& t, const Vector6& m) {
  Vector6 r;
  r.head<3>() = t.tail<3>().cross(m.head<3>()) + t.head<3>().cross(m.tail<3>());
  r.tail<3>() = t.tail<3>().cross(m.tail<3>());
  return r;
}
inline Vector6 crossForce(const Vector6& t, const Vector6& f) {
  Vector6 r;
  r.head<3>() = t.tail<3>().cross(f.head<3>());
  r.tail<3>() = t.head<3>().cross(f.head<3>()) + t.tail<3>().cross(f.tail<3>());
  return r;
}
// Matrix of m -> t ×m m.
inline Matrix6 crossMotionMatrix(const Vector6& t) {
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = skew(t.tail<3>());
  X.topRightCorner<3, 3>() = skew(t.head<3>());
  X.bottomRightCorner<3, 3>() = skew(t.tail<3>());
  return X;
}
// Matrix of f -> t ×f f.
inline Matrix6 crossForceMatrix(const Vector6& t) { return -crossMotionMatrix(t).transpose(); }
// (f ×̄f): the matrix of m -> m ×f f (skew-symmetric).
inline Matrix6 crossForceBarMatrix(const Vector6& f) {
  Matrix6 X = Matrix6::Zero();
  X.topRightCorner<3, 3>() = -skew(f.head<3>());
  X.bottomLeftCorner<3, 3>() = -skew(f.head<3>());
  X.bottomRightCorner<3, 3>() = -skew(f.tail<3>());
  return X;
}

// Rigid-body inertia about the origin O of a frame, in that frame's components (thesis eq. 4.8):
//   M = [ m I3   -h^x ]      h = m p_G  (first moment of mass about O)   [kg m]
//       [ h^x    I_O  ]      I_O = ∫ -(p^x)^2 dm (second moment about O) [kg m^2]
// so that M t = [linear momentum; angular momentum about O] and T = ½ t^T M t.
struct Inertia {
  double m = 0.0;                   // [kg]
  Vector3 h = Vector3::Zero();      // [kg m]
  Matrix3 I = Matrix3::Zero();      // [kg m^2] about O

  // From mass, centre of mass and the inertia tensor about the centre of mass (same axes).
  static Inertia FromCom(double mass, const Vector3& com, const Matrix3& I_com) {
    const Matrix3 c = skew(com);
    return {mass, mass * com, I_com - mass * c * c};
  }
  Vector3 com() const { return m > 0.0 ? Vector3(h / m) : Vector3::Zero(); }
  Matrix3 inertiaAboutCom() const {
    const Matrix3 c = skew(com());
    return I + m * c * c;
  }

  Vector6 operator*(const Vector6& t) const {
    Vector6 r;
    const Vector3 v = t.head<3>(), w = t.tail<3>();
    r.head<3>() = m * v - h.cross(w);
    r.tail<3>() = h.cross(v) + I * w;
    return r;
  }
  // M e_k: the k-th column of the 6x6 matrix.
  Vector6 column(int k) const {
    Vector6 c;
    if (k < 3) {
      c.head<3>() = m * Vector3::Unit(k);
      c.tail<3>() = h.cross(Vector3::Unit(k));
    } else {
      c.head<3>() = -h.cross(Vector3::Unit(k - 3));
      c.tail<3>() = I.col(k - 3);
    }
    return c;
  }
  Inertia operator+(const Inertia& o) const { return {m + o.m, h + o.h, I + o.I}; }
  Inertia& operator+=(const Inertia& o) {
    m += o.m;
    h += o.h;
    I += o.I;
    return *this;
  }
  Matrix6 matrix() const {
    Matrix6 M;
    M.topLeftCorner<3, 3>() = m * Matrix3::Identity();
    M.topRightCorner<3, 3>() = -skew(h);
    M.bottomLeftCorner<3, 3>() = skew(h);
    M.bottomRightCorner<3, 3>() = I;
    return M;
  }
  // The same body seen from the parent frame P of X_PC: A_{C,P}^T M A_{C,P}.
  Inertia toParent(const Transform& X_PC) const {
    Inertia r;
    r.m = m;
    const Vector3 hR = X_PC.R * h;
    r.h = hR + m * X_PC.p;
    // R I Rᵀ - (p^x (Rh)^x + (Rh)^x p^x) - m p^x p^x, with a^x b^x = b aᵀ - (a·b) I.
    Matrix3 T;
    T.noalias() = X_PC.R * I;
    r.I.noalias() = T * X_PC.R.transpose();
    const Vector3& p = X_PC.p;
    const Matrix3 ph = hR * p.transpose();
    r.I -= ph + ph.transpose() - (2.0 * p.dot(hR)) * Matrix3::Identity();
    r.I -= m * (p * p.transpose() - p.squaredNorm() * Matrix3::Identity());
    return r;
  }
};

// A_{C,P}^T M A_{C,P} for any 6x6 matrix M given at C (used for articulated inertias, which are
// not rigid-body inertias, and for the Coriolis composites, which are not symmetric).
Matrix6 congruenceToParent(const Transform& X_PC, const Matrix6& M);
// Same, for symmetric M (cheaper; the result is symmetric).
Matrix6 congruenceToParentSymmetric(const Transform& X_PC, const Matrix6& M);
// out += A_{C,P}ᵀ M A_{C,P} for symmetric M (the articulated-inertia accumulation).
void addCongruenceToParentSymmetric(const Transform& X_PC, const Matrix6& M, Matrix6& out);

// Side lengths of the uniform box with this mass and inertia about its centre (inertia axes as
// the box axes), at least `floor` per side: the shape drawn for a body without one, and the bus'
// and debris' boxes of the capture's clearance checks.
Vector3 equivalentBox(double mass, const Matrix3& inertia_about_com, double floor);

}  // namespace grapple::core
