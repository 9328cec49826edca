// The thesis' two synthesis configurations of the chaser's arm (eq. 8.12), for tests and
// benchmarks of the robust-control design.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "core/model/model.hpp"

namespace grapple::test {

inline const std::vector<double> kThesisQ1{0, 0, 0, 0, 0, 0};
inline const std::vector<double> kThesisQ2{2.21, 0.81, 1.27, 1.64, 2.83, 1.25};

// The model's configuration with its 1-DOF joints at `joints` (in order), the base at the origin
// unrotated (identity quaternion at q[3..6]), everything else zero.
inline Eigen::VectorXd armConfiguration(const core::Model& m, const std::vector<double>& joints) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(m.nq);
  if (m.base_mode != core::BaseMode::kFixed) q[3] = 1;
  std::size_t k = 0;
  for (int b = 1; b < m.nbodies && k < joints.size(); ++b) {
    if (m.joint[b].nv == 1) q[m.joint[b].idx_q] = joints[k++];
  }
  return q;
}

}  // namespace grapple::test
