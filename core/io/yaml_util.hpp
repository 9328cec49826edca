// Reading YAML with exact error locations: every value is checked, every unknown key is an error
// with a did-you-mean hint (a typo must not silently become a default), and every message is
// "file:line: what is wrong, what was expected". Shared by the model and scenario readers.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/io/load_error.hpp"
#include "core/math/spatial.hpp"

namespace grapple::core::yaml {

// Reads the file, turning yaml-cpp's exceptions (missing file, syntax) into LoadError.
YAML::Node loadFile(const std::string& path);
// Parses text (JSON is accepted: it is YAML); `name` is used in messages.
YAML::Node loadString(const std::string& text, const std::string& name);

// 1-based line of a node (0 when unknown).
int lineOf(const YAML::Node& node);

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;

  // The map must have only these keys; an unknown one is an error naming the closest allowed key.
  void checkKeys(const YAML::Node& map, std::initializer_list<const char*> allowed,
                 const std::string& what) const;
  void checkKeys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what) const;
  void requireMap(const YAML::Node& node, const std::string& what) const;
  void requireSequence(const YAML::Node& node, const std::string& what) const;
  // The child `key` of map, which must exist.
  YAML::Node require(const YAML::Node& map, const char* key, const std::string& what) const;

  // A finite number. Strings holding simple expressions are accepted for angles and exact data:
  // numbers, pi, deg (= pi/180), + - * / and parentheses, e.g. "-pi/2" or "90*deg".
  double number(const YAML::Node& node, const std::string& what) const;
  double number(const YAML::Node& map, const char* key, double fallback,
                const std::string& what) const;
  double positive(const YAML::Node& node, const std::string& what) const;  // > 0
  double nonNegative(const YAML::Node& node, const std::string& what) const;  // >= 0
  int integer(const YAML::Node& node, const std::string& what) const;
  bool boolean(const YAML::Node& node, const std::string& what) const;
  std::string string(const YAML::Node& node, const std::string& what) const;
  // A sequence of exactly n numbers (n < 0: any length >= 1).
  std::vector<double> numbers(const YAML::Node& node, int n, const std::string& what) const;
  Vector3 vector3(const YAML::Node& node, const std::string& what) const;
  // {xx, yy, zz, xy, xz, yz} [kg m^2]: a symmetric tensor, diagonal >= 0, products default 0
  // (whether it is a physical inertia is the caller's check, which knows the body).
  Matrix3 inertia(const YAML::Node& node, const std::string& what) const;
  // One of the given words; otherwise an error listing them.
  std::string choice(const YAML::Node& node, std::initializer_list<const char*> words,
                     const std::string& what) const;
  std::string choice(const YAML::Node& node, const std::vector<std::string>& words, const std::string& what) const;

 private:
  std::string file_;
};

// Evaluates the small arithmetic language of Reader::number; throws std::invalid_argument.
double evaluateExpression(const std::string& text);

}  // namespace grapple::core::yaml
