// libFuzzer target: a URDF file through the reader, the model builder's checks and the dynamics
// of the model built, with the base mode the file implies and with a floating base.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io/urdf.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace grapple;
  const std::string xml(reinterpret_cast<const char*>(data), size);
  fuzz::expectOnlyLoadErrors([&] { fuzz::exerciseModel(core::loadUrdfString(xml, "fuzz.urdf").model); });
  fuzz::expectOnlyLoadErrors([&] {
    core::UrdfOptions o;
    o.base_mode = core::BaseMode::kFloating;
    fuzz::exerciseModel(core::loadUrdfString(xml, "fuzz.urdf", o).model);
  });
  return 0;
}
