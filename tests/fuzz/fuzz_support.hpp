// Shared by the libFuzzer targets: what a target does with a model it could read, and how it
// tells an expected refusal (LoadError: "file:line: message") from a defect (any other
// exception, which grapple-cli would report as an internal error). A defect aborts, so libFuzzer
// keeps the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/analysis/modal.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/forward_dynamics.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/dynamics/mass_matrix.hpp"
#include "core/io/load_error.hpp"
#include "core/model/model.hpp"

namespace grapple::fuzz {

// The dynamics a loaded robot is put through by `grapple-cli info`, `probe` and `modes`: the
// neutral configuration, kinematics, mass matrix, forward dynamics at rest and, with flexible
// bodies, the coupled modes. Nothing here may throw or crash for a model the reader accepted.
inline void exerciseModel(const core::Model& m) {
  core::Data d(m, m.hasFlexibleBodies());
  const Eigen::VectorXd q = core::neutralConfiguration(m);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m.nv);
  core::forwardKinematics(m, d, q);
  core::massMatrix(m, d, q);
  core::forwardDynamics(m, d, q, zero, zero);
  if (m.hasFlexibleBodies()) core::coupledModes(m, q);
}

// Runs f(); a LoadError is the expected answer to a bad input. Anything else aborts.
template <class F>
void expectOnlyLoadErrors(F&& f) {
  try {
    f();
  } catch (const core::LoadError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception (an internal error for the user): %s\n", e.what());
    std::abort();
  }
}

}  // namespace grapple::fuzz
