#include "core/sim/channels.hpp"

namespace grapple::core::channel {

std::string joint(std::string_view joint, int k, int nv, Name quantity) {
  std::string name(kJointGroup);  // appended piece by piece: GCC 12 warns (-Wrestrict) on "a" + s
  name += joint;
  if (nv > 1) {
    name += '[';
    name += std::to_string(k);
    name += ']';
  }
  name += '.';
  name += quantity;
  return name;
}

bool isJoint(std::string_view channel, Name quantity) {
  return channel.size() > kJointGroup.size() + quantity.size() + 1 && channel.substr(0, kJointGroup.size()) == kJointGroup &&
         channel.substr(channel.size() - quantity.size()) == quantity &&
         channel[channel.size() - quantity.size() - 1] == '.';
}

std::string mode(std::string_view body, std::string_view mode) {
  std::string name(kModeGroup);
  name += body;
  name += '.';
  name += mode;
  return name;
}

const ErrorBound* errorBound(std::string_view error) {
  for (const ErrorBound& b : kErrorBounds) {
    if (b.error == error) return &b;
  }
  return nullptr;
}

}  // namespace grapple::core::channel
