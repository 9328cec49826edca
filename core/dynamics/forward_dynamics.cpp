#include "core/dynamics/forward_dynamics.hpp"

#include "core/dynamics/detail.hpp"
#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"

namespace grapple::core {
namespace {

using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

// Upper-triangular sweep, leaves to base. acc[i] arrives holding what the children sent (plus,
// in forwardDynamics, the body's own bias wrench); b is the right-hand side. With kFactorize the
// articulated inertias and the factors are computed on the way (data.Mbar must then hold M_i).
// X̄_i is left in xbar.
template <bool kFactorize>
void upperSweep(const Model& m, Data& d, const double* b, std::vector<Vector6>& acc,
                Eigen::VectorXd& xbar) {
  for (int i = m.nbodies - 1; i >= 0; --i) {
    const Joint& j = m.joint[i];
    const int nv = j.nv, iv = j.idx_v;
    const int p = m.parent[i];
    Vector6& zeta = acc[i];
    if (nv == 1) {
      const int ax = detail::unitAxisIndex(j.type);  // P_i = e_ax
      if constexpr (kFactorize) {
        const Vector6 phibar = d.Mbar[i].col(ax);
        d.Delta_inv[iv] = 1.0 / (phibar[ax] + m.armature[iv]);
        d.phi[i].col(0) = phibar * d.Delta_inv[iv];
        if (p >= 0) {
          // M̄_i - φ_i φ̄_iᵀ, column by column (symmetric), then carried to the parent.
          Matrix6 Ma;
          const Vector6 phi = d.phi[i].col(0);
          for (int c = 0; c < 6; ++c) Ma.col(c) = d.Mbar[i].col(c) - phibar[c] * phi;
          addCongruenceToParentSymmetric(d.X_parent[i], Ma, d.Mbar[p]);
        }
      }
      const double xhat = b[iv] - zeta[ax];
      zeta += d.phi[i].col(0) * xhat;
      xbar[iv] = xhat * d.Delta_inv[iv];
    } else if (nv == 6 && p < 0) {
      // The free base: P = I, so Δ_0 = M̄_0, and no φ_0 is needed (nothing lies above it). A
      // free joint inside the tree takes the general path below.
      if constexpr (kFactorize) d.Delta_base.compute(d.Mbar[i]);
      xbar.segment<6>(iv) = d.Delta_base.solve(Eigen::Map<const Vector6>(b + iv) - zeta);
    } else if (nv > 1) {
      const auto S = d.S[i].leftCols(nv);
      if constexpr (kFactorize) {
        Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> phibar(6, nv);
        phibar.noalias() = d.Mbar[i] * S;
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6> delta(nv, nv);
        delta.noalias() = S.transpose() * phibar;
        delta.diagonal() += m.armature.segment(iv, nv);
        d.Delta[i].compute(delta);
        // φ_i = φ̄_i Δ_i⁻¹ (Δ symmetric): φᵀ = Δ⁻¹ φ̄ᵀ
        Eigen::Matrix<double, Eigen::Dynamic, 6, 0, 6, 6> phiT = phibar.transpose();
        d.Delta[i].solveInPlace(phiT);
        d.phi[i].leftCols(nv) = phiT.transpose();
        if (p >= 0) {
          Matrix6 Ma = d.Mbar[i];
          Ma.noalias() -= d.phi[i].leftCols(nv) * phibar.transpose();
          addCongruenceToParentSymmetric(d.X_parent[i], Ma, d.Mbar[p]);
        }
      }
      SmallVector xhat(nv);
      xhat.noalias() = -S.transpose() * zeta;
      xhat += Eigen::Map<const SmallVector>(b + iv, nv);
      zeta.noalias() += d.phi[i].leftCols(nv) * xhat;
      d.Delta[i].solveInPlace(xhat);
      xbar.segment(iv, nv) = xhat;
    }
    if (p >= 0) addForceToParent(d.X_parent[i], zeta, acc[p]);
  }
}

// Lower-triangular sweep, base to leaves: x_i = X̄_i - φ_iᵀ A_{i,p} μ_p (x holds X̄ on entry).
// μ_i = A_{i,p} μ_p + P_i x_i is the acceleration of body i due to q̈ alone.
void lowerSweep(const Model& m, Data& d, Eigen::VectorXd& x) {
  for (int i = 0; i < m.nbodies; ++i) {
    const Joint& j = m.joint[i];
    const int nv = j.nv, iv = j.idx_v;
    const int p = m.parent[i];
    Vector6& mu = d.mu[i];
    if (p < 0) {  // the root: nothing above it, x_0 = X̄_0
      mu = detail::jointMotion(j, d.S[i], x.data() + iv);
      continue;
    }
    mu = motionToChild(d.X_parent[i], d.mu[p]);
    if (nv == 1) {
      x[iv] -= d.phi[i].col(0).dot(mu);
      mu[detail::unitAxisIndex(j.type)] += x[iv];
    } else if (nv > 1) {
      x.segment(iv, nv).noalias() -= d.phi[i].leftCols(nv).transpose() * mu;
      mu += detail::jointMotion(j, d.S[i], x.data() + iv);
    }
  }
}

}  // namespace

const Eigen::VectorXd& forwardDynamics(const Model& m, Data& d, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                       const BodyWrenches* fext) {
  if (m.hasMimicJoints()) return mimic::forwardDynamics(m, d, q, v, tau, fext);
  if (m.hasFlexibleBodies()) return general::forwardDynamics(m, d, q, v, tau, fext);
  detail::checkSize(q.size(), m.nq, "q", "forwardDynamics");
  detail::checkSize(v.size(), m.nv, "v", "forwardDynamics");
  detail::checkSize(tau.size(), m.nv, "tau", "forwardDynamics");
  if (fext != nullptr) {
    detail::checkSize(static_cast<Eigen::Index>(fext->size()), m.nbodies, "fext",
                      "forwardDynamics");
  }
  // Outward: kinematics, velocity-product accelerations (a_i at q̈ = 0, gravity included) and
  // the bias wrench of each body, which seeds the accumulator of the upper sweep (b = τ - h).
  detail::newtonEulerOutward(m, d, q, v, nullptr, fext);
  for (int i = 0; i < m.nbodies; ++i) d.Mbar[i] = m.inertia_matrix[i];
  upperSweep<true>(m, d, tau.data(), d.w, d.ddq);
  d.factorized = true;
  lowerSweep(m, d, d.ddq);
  for (int i = 0; i < m.nbodies; ++i) d.a[i] += d.mu[i];
  return d.ddq;
}

void factorizeMassMatrix(const Model& m, Data& d, const Eigen::VectorXd& q) {
  if (m.hasMimicJoints()) return mimic::factorizeMassMatrix(m, d, q);
  if (m.hasFlexibleBodies()) {  // the factors of the forward dynamics (they depend on q alone)
    general::forwardDynamics(m, d, q, d.flex_zero, d.flex_zero, nullptr);
    return;
  }
  detail::checkSize(q.size(), m.nq, "q", "factorizeMassMatrix");
  for (int i = 0; i < m.nbodies; ++i) {
    detail::updateJointPlacement(m, d, i, q.data());
    d.Mbar[i] = m.inertia_matrix[i];
    d.eta[i].setZero();
  }
  d.x.setZero();
  upperSweep<true>(m, d, d.x.data(), d.eta, d.x);
  d.factorized = true;
}

const Eigen::VectorXd& solveMassMatrix(const Model& m, Data& d, const Eigen::VectorXd& b) {
  if (m.hasMimicJoints()) return mimic::solveMassMatrix(m, d, b);
  if (m.hasFlexibleBodies()) return general::solveMassMatrix(m, d, b);
  detail::checkSize(b.size(), m.nv, "b", "solveMassMatrix");
  if (!d.factorized) throw std::logic_error("solveMassMatrix: call factorizeMassMatrix first");
  for (int i = 0; i < m.nbodies; ++i) d.eta[i].setZero();
  upperSweep<false>(m, d, b.data(), d.eta, d.x);
  lowerSweep(m, d, d.x);
  return d.x;
}

}  // namespace grapple::core
