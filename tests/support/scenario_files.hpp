// The built-in scenarios (scenarios/*.yaml) and a file's text, for the scenario tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace grapple::test {

// Every scenarios/*.yaml of the source tree, sorted.
inline std::vector<std::string> builtInScenarios() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A file's whole text ("" if it cannot be read).
inline std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace grapple::test
