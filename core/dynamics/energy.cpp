#include "core/dynamics/energy.hpp"

#include "core/dynamics/flexible.hpp"
#include "core/dynamics/mimic.hpp"
#include "core/dynamics/kinematics.hpp"

namespace grapple::core {

Vector3 centerOfMass(const Model& m, Data& d, const Eigen::VectorXd& q) {
  forwardKinematics(m, d, q);
  Vector3 first_moment = Vector3::Zero();
  double mass = 0.0;
  for (int i = 0; i < m.nbodies; ++i) {
    const Inertia& I = m.inertia[i];
    const Transform& X = d.X_world[i];
    Vector3 h = I.h;
    const FlexibleBody& f = m.flex[i];
    // The deformation shifts the first moment by the translational participation times δ
    // (V_u δ for a beam, L_vᵀ δ for a modal appendage), as the momentum's M_td δ̇ says.
    if (f.nf > 0) h += f.M_td.topRows<3>() * q.segment(f.idx_q, f.nf);
    first_moment += X.R * h + I.m * X.p;
    mass += I.m;
  }
  return mass > 0 ? Vector3(first_moment / mass) : Vector3::Zero();
}

Vector6 momentum(const Model& m, Data& d, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  if (m.hasFlexibleBodies()) return general::momentum(m, d, q, v);
  forwardKinematics(m, d, q, v);
  Vector6 total = Vector6::Zero();
  for (int i = 0; i < m.nbodies; ++i) {
    // M_i t_i = [linear momentum; angular momentum about O_i] in body i, moved to the origin.
    total += forceToParent(d.X_world[i], m.inertia[i] * d.t[i]);
  }
  return total;
}

Vector3 angularMomentumAboutCom(const Model& m, Data& d, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& v) {
  const Vector6 h = momentum(m, d, q, v);
  const Vector3 c = centerOfMass(m, d, q);
  return h.tail<3>() - c.cross(h.head<3>());
}

double kineticEnergy(const Model& m, Data& d, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& v) {
  if (m.hasMimicJoints()) return mimic::kineticEnergy(m, d, q, v);
  if (m.hasFlexibleBodies()) return general::kineticEnergy(m, d, q, v);
  forwardKinematics(m, d, q, v);
  double T = 0.0;
  for (int i = 0; i < m.nbodies; ++i) T += d.t[i].dot(m.inertia[i] * d.t[i]);
  T += v.dot(m.armature.cwiseProduct(v));
  return 0.5 * T;
}

double potentialEnergy(const Model& m, Data& d, const Eigen::VectorXd& q) {
  return -m.totalMass() * m.gravity_W.dot(centerOfMass(m, d, q));
}

}  // namespace grapple::core
