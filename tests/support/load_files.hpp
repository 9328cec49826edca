// Helpers for tests of file loading: files written to a temporary directory, and the check that
// loading throws LoadError at a given file and line with a given fragment in its message.
#pragma once

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

#include "core/io/load_error.hpp"

namespace grapple::test {

// Writes text to a file in a temporary directory and returns its path.
class Files {
 public:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir() const { return dir_.path().toStdString(); }

 private:
  QTemporaryDir dir_;
};

// Runs f, which must throw LoadError; returns its message ("" if it did not throw).
template <typename F>
std::string loadErrorOf(F&& f) {
  try {
    f();
  } catch (const grapple::core::LoadError& e) {
    return e.what();
  }
  return {};
}

}  // namespace grapple::test

#define EXPECT_LOAD_ERROR(expr, file, line, fragment)                                        \
  do {                                                                                      \
    const std::string what_ = grapple::test::loadErrorOf([&] { (void)(expr); });                           \
    const std::string where_ = grapple::core::LoadError::format(file, line, "");                          \
    QVERIFY2(what_.rfind(where_, 0) == 0, ("expected '" + where_ + "...', got '" + what_ + "'").c_str()); \
    QVERIFY2(what_.find(fragment) != std::string::npos,                                    \
             ("'" + what_ + "' lacks '" + std::string(fragment) + "'").c_str());          \
  } while (false)
