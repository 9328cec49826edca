// Models for tests and benchmarks: random trees with every joint type, serial chains.
#pragma once

#include <random>

#include "core/model/model.hpp"

namespace grapple::test {

struct RandomTreeOptions {
  int links = 10;                       // links besides the base
  core::BaseMode base = core::BaseMode::kFloating;
  bool all_joint_types = true;          // revolute only when false
  double fixed_fraction = 0.1;          // share of fixed joints (merged into their parent)
  double mimic_fraction = 0.0;          // share of 1-DOF joints mimicking an earlier 1-DOF joint
                                        //   (itself possibly a mimic), random multiplier and offset
};

// A random tree: each link hangs from a random earlier link; random joint types, axes, placements,
// masses, centres of mass and inertias (physically valid).
core::Model randomTree(std::mt19937& rng, const RandomTreeOptions& options);

// A serial chain of n revolute joints with alternating axes (z, y, x, ...), 0.3 m links of 2 kg,
// on the given base (a 100 kg box when free).
core::Model serialChain(int n, core::BaseMode base);

// A vector of n independent normal draws of standard deviation scale.
Eigen::VectorXd randomVector(std::mt19937& rng, int n, double scale = 1.0);

// A random physically valid inertia about the centre of mass.
core::Matrix3 randomInertiaAboutCom(std::mt19937& rng, double mass);

}  // namespace grapple::test
