// How many threads (or processes) parallel work uses when its settings leave it to the machine.
#pragma once

#include <algorithm>
#include <thread>

namespace grapple::core {

// `requested` if positive; else (0, "one per core") the machine's hardware threads, at least 1.
inline int threadsOrCores(int requested) {
  return requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace grapple::core
