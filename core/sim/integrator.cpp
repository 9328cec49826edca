#include "core/sim/integrator.hpp"

#include "core/dynamics/configuration.hpp"
#include "core/dynamics/forward_dynamics.hpp"

namespace grapple::core {

Rk4::Rk4(const Model& m)
    : qs_(m.nq), vs_(m.nv), tau_(m.nv) {
  for (int k = 0; k < 4; ++k) {
    dq_[k].resize(m.nq);
    dv_[k].resize(m.nv);
  }
}

double Rk4::step(const Model& m, Data& d, double t, double dt, Eigen::VectorXd& q,
                 Eigen::VectorXd& v, const ForceLaw& force, const BodyWrenches* fext) {
  static constexpr double kNode[4] = {0.0, 0.5, 0.5, 1.0};
  static constexpr double kWeight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  double work = 0.0;
  for (int k = 0; k < 4; ++k) {
    if (k == 0) {
      qs_ = q;
      vs_ = v;
    } else {
      qs_ = q + (kNode[k] * dt) * dq_[k - 1];
      vs_ = v + (kNode[k] * dt) * dv_[k - 1];
    }
    tau_.setZero();
    if (force) force(t + kNode[k] * dt, qs_, vs_, tau_);
    work += kWeight[k] * dt * tau_.dot(vs_);
    dq_[k] = configurationRate(m, qs_, vs_);
    dv_[k] = forwardDynamics(m, d, qs_, vs_, tau_, fext);
  }
  q += (dt / 6) * (dq_[0] + 2 * dq_[1] + 2 * dq_[2] + dq_[3]);
  v += (dt / 6) * (dv_[0] + 2 * dv_[1] + 2 * dv_[2] + dv_[3]);
  return work;
}

}  // namespace grapple::core
