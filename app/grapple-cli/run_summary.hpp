// The summary.json of one run, as `grapple-cli run --out` writes it: shared by `run` and the
// campaign engine, so that a campaign's runs are summarized by exactly the same code.
#pragma once

#include <functional>
#include <ostream>

#include "core/io/json.hpp"
#include "core/sim/simulation.hpp"

namespace grapple::cli {

// The metrics of a finished (or failed) simulation and its summary; `extra` adds fields at the
// end of the top-level object (the campaign adds its run's values there).
void writeRunSummary(std::ostream& out, const core::Simulation& sim, double wall,
                     const std::function<void(core::Json&)>& extra = {});

}  // namespace grapple::cli
