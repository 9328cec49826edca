// Places where writing fails, for the tests that a failed save or export loses nothing: the
// previous file stays byte for byte, no partial file is left, and the message says why.
//   FullPlace: a file system with no room left. A tmpfs of 64 KiB mounted on a temporary folder
//     and filled up (needs root; the system then answers ENOSPC, "No space left on device");
//     where mounting is not allowed, a file-size limit (RLIMIT_FSIZE of 1 byte, SIGXFSZ ignored)
//     while the write runs, which the system answers with EFBIG ("File too large"). kind() says
//     which was used.
//   ReadOnlyFolder: a folder one cannot write into. As root, a tmpfs remounted read-only (EROFS;
//     root ignores permission bits); otherwise a folder of mode 0555 (EACCES).
// Both hold a previous file written before the place turns hostile, and whatever `prepare`
// writes into the folder then (a campaign's folder, say).
#pragma once

#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace grapple::test {

inline std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The names in the folder (to check that no temporary or partial file is left).
inline std::vector<std::string> folderEntries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// A temporary file of an atomic write of `path` left beside it (".NAME.*", see
// core::temporaryBeside).
inline bool temporaryLeftBeside(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = "." + p.filename().string() + ".";
  for (const std::string& name : folderEntries(p.parent_path().string())) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

class FaultPlace {
 public:
  FaultPlace(const FaultPlace&) = delete;
  FaultPlace& operator=(const FaultPlace&) = delete;
  ~FaultPlace() {
    restore();
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    if (chmodded_) std::filesystem::permissions(dir_, std::filesystem::perms::owner_all);
  }
  bool valid() const { return tmp_.isValid(); }
  const std::string& dir() const { return dir_; }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  // How the fault is made (for the test's log).
  const std::string& kind() const { return kind_; }
  // The fault is a file-size limit of the whole process (and of the programs it starts): every
  // file written meanwhile fails, log files included.
  bool byFileSizeLimit() const { return by_limit_; }
  // The system's words for the failure expected (strerror of the errno the place gives).
  const std::string& reason() const { return reason_; }
  // Lifts a file-size limit (called by the destructor; call it before checking files).
  void restore() {
    if (!limited_) return;
    ::setrlimit(RLIMIT_FSIZE, &saved_limit_);
    ::signal(SIGXFSZ, saved_handler_);
    limited_ = false;
  }

 protected:
  FaultPlace() : dir_(tmp_.path().toStdString() + "/place") {
    std::filesystem::create_directory(dir_);
    if (::geteuid() == 0) mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=64k,mode=0755") == 0;
  }
  void writePrevious(const std::string& name, const std::string& text) {
    std::ofstream(file(name), std::ios::binary) << text;
  }
  void limitFileSize() {
    ::getrlimit(RLIMIT_FSIZE, &saved_limit_);
    rlimit one = saved_limit_;
    one.rlim_cur = 1;
    saved_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    ::setrlimit(RLIMIT_FSIZE, &one);
    limited_ = by_limit_ = true;
  }

  QTemporaryDir tmp_;
  std::string dir_, kind_, reason_;
  bool mounted_ = false, chmodded_ = false, limited_ = false, by_limit_ = false;
  rlimit saved_limit_{};
  sighandler_t saved_handler_ = SIG_DFL;
};

class FullPlace : public FaultPlace {
 public:
  // The place with `name` holding `previous` (and what `prepare` writes), then full.
  FullPlace(const std::string& name, const std::string& previous,
            const std::function<void(const std::string& dir)>& prepare = {}) {
    writePrevious(name, previous);
    if (prepare) prepare(dir_);
    if (mounted_) {
      kind_ = "a full 64 KiB tmpfs";
      reason_ = "No space left on device";
      std::ofstream filler(file("filler"), std::ios::binary);
      const std::string block(4096, 'x');
      while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) filler.flush();
    } else {
      kind_ = "a file-size limit (RLIMIT_FSIZE = 1 byte)";
      reason_ = "File too large";
      limitFileSize();
    }
  }
};

class ReadOnlyFolder : public FaultPlace {
 public:
  ReadOnlyFolder(const std::string& name, const std::string& previous,
                 const std::function<void(const std::string& dir)>& prepare = {}) {
    writePrevious(name, previous);
    if (prepare) prepare(dir_);
    if (mounted_ && ::mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0) {
      kind_ = "a read-only tmpfs";
      reason_ = "Read-only file system";
    } else {
      std::filesystem::permissions(dir_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                             std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                             std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
      chmodded_ = true;
      kind_ = "a folder of mode 0555";
      reason_ = "Permission denied";
    }
  }
  // False where the fault cannot be made: root without the right to mount (permission bits do
  // not stop root).
  bool effective() const { return !(chmodded_ && ::geteuid() == 0); }
};

}  // namespace grapple::test
