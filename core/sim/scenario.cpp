#include "core/sim/scenario.hpp"

namespace grapple::core {

Scenario::Scenario() = default;
Scenario::Scenario(const Scenario&) = default;
Scenario::Scenario(Scenario&&) noexcept = default;
Scenario& Scenario::operator=(const Scenario&) = default;
Scenario& Scenario::operator=(Scenario&&) noexcept = default;
Scenario::~Scenario() = default;

void searchWindowsOnOneThread(Scenario& scenario) {
  for (ControllerSpec& c : scenario.controllers) {
    if (c.capture.window.threads == 0) c.capture.window.threads = 1;
  }
}

}  // namespace grapple::core
