#include "core/campaign/random.hpp"

#include <cmath>

namespace grapple::core::campaign {

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    k[0] += kW0;
    k[1] += kW1;
  }
  return c;
}

RandomStream::RandomStream(std::uint64_t seed, std::uint64_t run, std::uint32_t stream)
    : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
      counter_{0, stream, static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(run >> 32)} {}

std::uint64_t RandomStream::nextWord() {
  if (used_ == 4) {
    block_ = philox4x32(counter_, key_);
    ++counter_[0];
    used_ = 0;
  }
  const std::uint64_t w = (static_cast<std::uint64_t>(block_[used_]) << 32) | block_[used_ + 1];
  used_ += 2;
  return w;
}

double RandomStream::uniform() {
  // (k + 0.5) / 2^53 for the top 53 bits k: strictly inside (0, 1).
  return (static_cast<double>(nextWord() >> 11) + 0.5) * 0x1.0p-53;
}

double RandomStream::normal() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

Vector3 RandomStream::unitVector() {
  for (;;) {
    const Vector3 g(normal(), normal(), normal());
    const double n = g.norm();
    if (n > 1e-12) return g / n;
  }
}

Vector4 RandomStream::rotation() {
  const double u1 = uniform(), u2 = uniform(), u3 = uniform();
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return Vector4(b * std::cos(2 * M_PI * u3), a * std::sin(2 * M_PI * u2), a * std::cos(2 * M_PI * u2),
                 b * std::sin(2 * M_PI * u3));
}

}  // namespace grapple::core::campaign
