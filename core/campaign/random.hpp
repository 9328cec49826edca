// Counter-based random numbers for campaigns: every number a run draws is a pure function of
// (campaign seed, run index, dispersion index, block), so run i is reproduced alone, on any
// machine, in any order, without drawing runs 0..i-1 first.
//
// The generator is Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011): a 10-round bijection of a 128-bit counter under a 64-bit key. Here the
// key is the seed, and the counter is (block, dispersion, run low 32 bits, run high 32 bits);
// each block gives two 64-bit words, consumed in order by one dispersion's stream. A dispersion
// that consumes more words (rejection sampling) therefore never shifts another's numbers.
#pragma once

#include <array>
#include <cstdint>

#include "core/math/spatial.hpp"

namespace grapple::core::campaign {

// One Philox4x32-10 block (counter, key) -> 4 words; checked against Random123's known answers.
std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key);

class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t run, std::uint32_t stream);

  std::uint64_t nextWord();
  // Uniform on the open interval (0, 1): 53 random bits, never 0 or 1.
  double uniform();
  // Standard normal, by Box–Muller (two uniforms per draw; the sine half is not kept, so the
  // stream stays a function of the draw count alone).
  double normal();
  // Uniformly distributed on the unit sphere (three normals, normalized).
  Vector3 unitVector();
  // A rotation uniformly distributed on SO(3), as a unit quaternion [w x y z] (Shoemake 1992).
  Vector4 rotation();

 private:
  std::array<std::uint32_t, 2> key_;
  std::array<std::uint32_t, 4> counter_;
  std::array<std::uint32_t, 4> block_{};
  int used_ = 4;  // words of block_ consumed (two per nextWord)
};

}  // namespace grapple::core::campaign
