// libFuzzer target: the state file of `grapple-cli probe` (JSON or YAML) read against a robot
// and put through everything probe computes (mass and Coriolis matrices, forward and inverse
// dynamics, Jacobians, momentum, energy).
//
// Input: one byte choosing the robot (a floating rigid arm, the flexible chaser, a fixed planar
// arm, a flying aerial manipulator), then the state text.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "app/grapple-cli/commands.hpp"
#include "core/io/model_yaml.hpp"
#include "core/io/yaml_util.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

const std::vector<std::string> kRobots = {"mda_deos.yaml", "chaser.yaml", "planar_2dof_flex.yaml",
                                          "aerial_manipulator.yaml"};

const std::vector<grapple::core::Model>& robots() {
  static const std::vector<grapple::core::Model> models = [] {
    std::vector<grapple::core::Model> m;
    for (const std::string& r : kRobots) {
      m.push_back(grapple::core::loadModelFile(GRAPPLE_SOURCE_DIR "/scenarios/robots/" + r));
    }
    return m;
  }();
  return models;
}

class NullBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace grapple;
  if (size == 0) return 0;
  const std::size_t which = data[0] % kRobots.size();
  const core::Model& m = robots()[which];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::expectOnlyLoadErrors([&] {
    const YAML::Node state = core::yaml::loadString(text, "fuzz_state.json");
    NullBuffer null;
    std::ostream out(&null);
    cli::writeProbeOfState(out, m, kRobots[which], state, "fuzz_state.json");
  });
  return 0;
}
