// The simulation's state vector, one vector for everything that evolves:
//   x = [q (nq) | v (nv) | debris r_W, v_W, Q_WB, ω_B (13, if any) | W_in, W_ext, W_diss, fuel],
// W_* being the work of the actuators, the work of the environment's wrenches and the energy
// dissipated by the modal damping, fuel the thrusters' propellant (eq. 9.1). Each block's offset
// named once here.
#pragma once

#include <Eigen/Core>

#include "core/world/debris.hpp"

namespace grapple::core {

struct StateLayout {
  static constexpr int kDebrisSize = 13;
  StateLayout() = default;
  StateLayout(int nq_, int nv_, bool with_debris)
      : nq(nq_), nv(nv_), q(0), v(nq_), debris(with_debris ? nq_ + nv_ : -1),
        input_work(nq_ + nv_ + (with_debris ? kDebrisSize : 0)),
        external_work(input_work + 1), dissipated(input_work + 2), fuel(input_work + 3), size(input_work + 4) {}

  int nq = 0, nv = 0;
  int q = 0, v = 0;   // the chaser's configuration (nq) and velocity (nv)
  int debris = -1;    // the debris' block (kDebrisSize; -1 without debris): r_W, v_W, Q_WB, ω_B
  int input_work = 0, external_work = 0, dissipated = 0, fuel = 0;  // one each
  int size = 0;

  bool hasDebris() const { return debris >= 0; }
  DebrisState debrisOf(const Eigen::VectorXd& x) const {
    DebrisState d;
    d.r_W = x.segment<3>(debris);
    d.v_W = x.segment<3>(debris + 3);
    d.Q_WB = x.segment<4>(debris + 6);
    d.w_B = x.segment<3>(debris + 10);
    return d;
  }
  void setDebris(Eigen::VectorXd& x, const DebrisState& d) const {
    x.segment<3>(debris) = d.r_W;
    x.segment<3>(debris + 3) = d.v_W;
    x.segment<4>(debris + 6) = d.Q_WB;
    x.segment<3>(debris + 10) = d.w_B;
  }
  // The debris' rates [ṙ, v̇, Q̇, ω̇] into dx's debris block.
  void setDebrisRates(Eigen::VectorXd& dx, const DebrisRates& r) const {
    dx.segment<3>(debris) = r.r;
    dx.segment<3>(debris + 3) = r.v;
    dx.segment<4>(debris + 6) = r.Q;
    dx.segment<3>(debris + 10) = r.w;
  }
};

}  // namespace grapple::core
