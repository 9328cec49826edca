// Writing a file so that a crash or a full disk never leaves half of it: the text goes to a
// temporary file beside the target, which is then renamed over it (atomic on POSIX file systems).
#pragma once

#include <string>

namespace grapple::core {

// Throws std::runtime_error naming the file if it cannot be written; the target is then untouched.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace grapple::core
