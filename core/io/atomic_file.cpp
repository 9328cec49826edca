#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace grapple::core {

std::string temporaryBeside(const std::string& path, const char* what) {
  const std::filesystem::path p(path);
  std::string name = ".";  // appended piece by piece: GCC 12 warns (-Wrestrict) on "." + s
  name += p.filename().string();
  name += '.';
  name += what;
  name += std::to_string(::getpid());
  // A number of its own for every call, so that two writers of one target in one process (two
  // threads, two windows) never share a temporary file.
  static std::atomic<unsigned long> counter{0};
  name += '.';
  name += std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
  return (p.parent_path() / name).string();
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = temporaryBeside(path, "tmp");
  auto fail = [&](const std::string& what, int err, int fd) {
    if (fd >= 0) ::close(fd);
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": " + what + ": " + std::strerror(err) + " (the file is unchanged)");
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;  // nothing was created: nothing to remove
    throw std::runtime_error(path + ": cannot write the file: " + std::strerror(err) + " (the file is unchanged)");
  }
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing failed", n < 0 ? errno : ENOSPC, fd);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("writing failed", errno, fd);
  if (::close(fd) != 0) fail("writing failed", errno, -1);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot replace the file", errno, -1);
}

}  // namespace grapple::core
