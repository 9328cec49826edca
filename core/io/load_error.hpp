// An input file that cannot be used: what() is "file:line: message", as compilers print it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace grapple::core {

class LoadError : public std::runtime_error {
 public:
  LoadError(std::string file, int line, std::string message)
      : std::runtime_error(format(file, line, message)),
        file_(std::move(file)),
        line_(line),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 1-based; 0 when the problem is the whole file
  const std::string& message() const { return message_; }

  static std::string format(const std::string& file, int line, const std::string& message) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
  }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

// Closest candidate within a small edit distance, for "did you mean 'mass'?" hints; empty if none.
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace grapple::core
