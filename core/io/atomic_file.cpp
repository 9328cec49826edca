#include "core/io/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace grapple::core {

void writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    if (!out) throw std::runtime_error(tmp + ": cannot write the file");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error(tmp + ": writing failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot replace the file: " + ec.message());
  }
}

}  // namespace grapple::core
