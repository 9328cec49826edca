// libFuzzer target: a robot YAML file (format 1) through the reader, the model builder's checks
// and the dynamics of the model built.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io/model_yaml.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  grapple::fuzz::expectOnlyLoadErrors([&] {
    grapple::fuzz::exerciseModel(grapple::core::loadModelYamlString(text, "fuzz_robot.yaml"));
  });
  return 0;
}
