// A scenario run to its end, and its recorded channels by name, for the tests that fly missions.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::test {

using Overrides = std::vector<std::pair<std::string, std::string>>;

// The scenario `file` (a path, or a name in the source tree's scenarios/) with the overrides
// `set` (as --set), simulated to its end.
inline std::unique_ptr<core::Simulation> simulate(const std::string& file, const Overrides& set = {}) {
  const std::string path = !file.empty() && file.front() == '/' ? file : std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/" + file;
  core::LoadedScenario l = core::loadScenario(path, set);
  auto sim = std::make_unique<core::Simulation>(std::move(l.scenario), std::move(l.model));
  sim->run();
  return sim;
}

// A recorded channel; throws if the run has none of that name.
inline const std::vector<double>& column(const core::Simulation& sim, std::string_view name) {
  const int c = sim.recorder().find(name);
  if (c < 0) throw std::runtime_error("no channel " + std::string(name));
  return sim.recorder().column(c);
}

}  // namespace grapple::test
