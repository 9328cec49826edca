// Writing a file so that a crash, a full disk or a read-only folder never leaves half of it: the
// text goes to a temporary file beside the target, flushed to the disk, which is then renamed over
// it (atomic on POSIX file systems). On any failure the temporary file is removed and the target
// is untouched.
#pragma once

#include <string>

namespace grapple::core {

// Throws std::runtime_error naming the file and the system's reason ("No space left on device",
// "Read-only file system", "Permission denied") if it cannot be written; the target is then
// untouched.
void writeFileAtomically(const std::string& path, const std::string& text);

// A temporary name beside `path` (same folder, so the final rename is atomic) for the atomic
// writers: ".NAME.WHATPID.N", hidden, a new one at every call (N counts the calls of the
// process), so concurrent writers of one target never write into each other's file.
std::string temporaryBeside(const std::string& path, const char* what);

}  // namespace grapple::core
