#include "core/io/yaml_util.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace grapple::core {

static std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

namespace yaml {
namespace {

// Recursive descent over: expr = term {(+|-) term}; term = factor {(*|/) factor};
// factor = [+|-] (number | pi | deg | '(' expr ')').
class ExpressionParser {
 public:
  explicit ExpressionParser(const std::string& s) : s_(s) {}
  double parse() {
    const double v = expr();
    skip();
    if (pos_ != s_.size()) throw std::invalid_argument("unexpected '" + s_.substr(pos_) + "'");
    return v;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  double expr() {
    double v = term();
    for (;;) {
      if (eat('+')) v += term();
      else if (eat('-')) v -= term();
      else return v;
    }
  }
  double term() {
    double v = factor();
    for (;;) {
      if (eat('*')) {
        v *= factor();
      } else if (eat('/')) {
        const double d = factor();
        if (d == 0.0) throw std::invalid_argument("division by zero");
        v /= d;
      } else {
        return v;
      }
    }
  }
  double factor() {
    // Each sign and parenthesis recurses: a bound keeps a pathological text ("((((...", "----...")
    // from exhausting the stack.
    if (++depth_ > kMaxDepth) throw std::invalid_argument("nested more than " + std::to_string(kMaxDepth) + " deep");
    const double v = signedValue();
    --depth_;
    return v;
  }
  double signedValue() {
    if (eat('-')) return -factor();
    if (eat('+')) return factor();
    if (eat('(')) {
      const double v = expr();
      if (!eat(')')) throw std::invalid_argument("missing ')'");
      return v;
    }
    skip();
    if (s_.compare(pos_, 2, "pi") == 0) {
      pos_ += 2;
      return M_PI;
    }
    if (s_.compare(pos_, 3, "deg") == 0) {
      pos_ += 3;
      return M_PI / 180.0;
    }
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin) {
      throw std::invalid_argument(pos_ < s_.size() ? "unexpected '" + s_.substr(pos_) + "'"
                                                   : "a number is missing");
    }
    pos_ += static_cast<std::size_t>(end - begin);
    return v;
  }
  static constexpr int kMaxDepth = 200;
  const std::string& s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

LoadError fromYamlException(const std::string& file, const YAML::Exception& e) {
  return LoadError(file, e.mark.is_null() ? 0 : e.mark.line + 1, e.msg);
}

}  // namespace

double evaluateExpression(const std::string& text) { return ExpressionParser(text).parse(); }

YAML::Node loadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw LoadError(path, 0, "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return loadString(ss.str(), path);
}

YAML::Node loadString(const std::string& text, const std::string& name) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw fromYamlException(name, e);
  }
}

int lineOf(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const YAML::Mark m = node.Mark();
  // Position 0 is the document itself (a whole-file problem) or a node made outside the file
  // (a --set value): no line to show.
  if (m.is_null() || (m.pos == 0 && m.line == 0 && m.column == 0)) return 0;
  return m.line + 1;
}

void Reader::fail(const YAML::Node& at, const std::string& message) const {
  throw LoadError(file_, lineOf(at), message);
}

void Reader::requireMap(const YAML::Node& node, const std::string& what) const {
  if (!node.IsMap()) fail(node, what + ": expected a map of keys and values");
}

void Reader::requireSequence(const YAML::Node& node, const std::string& what) const {
  if (!node.IsSequence()) fail(node, what + ": expected a list");
}

void Reader::checkKeys(const YAML::Node& map, std::initializer_list<const char*> allowed,
                       const std::string& what) const {
  checkKeys(map, std::vector<std::string>(allowed.begin(), allowed.end()), what);
}

void Reader::checkKeys(const YAML::Node& map, const std::vector<std::string>& names, const std::string& what) const {
  requireMap(map, what);
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string msg = what + ": unknown key '" + key + "'";
    const std::string hint = closestMatch(key, names);
    if (!hint.empty()) {
      msg += " (did you mean '" + hint + "'?)";
    } else {
      msg += " (expected one of:";
      for (const std::string& n : names) msg += " " + n;
      msg += ")";
    }
    fail(it->first, msg);
  }
}

YAML::Node Reader::require(const YAML::Node& map, const char* key, const std::string& what) const {
  const YAML::Node n = map[key];
  if (!n.IsDefined() || n.IsNull()) fail(map, what + ": missing key '" + key + "'");
  return n;
}

double Reader::number(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) fail(node, what + ": expected a number");
  const std::string& s = node.Scalar();
  double v;
  try {
    std::size_t used = 0;
    v = std::stod(s, &used);
    if (used != s.size()) v = evaluateExpression(s);
  } catch (const std::invalid_argument&) {
    try {
      v = evaluateExpression(s);
    } catch (const std::invalid_argument& e) {
      fail(node, what + ": expected a number or an expression such as -pi/2, got '" + s + "' (" +
                     e.what() + ")");
    }
  } catch (const std::out_of_range&) {
    fail(node, what + ": '" + s + "' is out of range");
  }
  if (!std::isfinite(v)) fail(node, what + ": must be a finite number, got '" + s + "'");
  return v;
}

double Reader::number(const YAML::Node& map, const char* key, double fallback,
                      const std::string& what) const {
  const YAML::Node n = map[key];
  if (!n.IsDefined() || n.IsNull()) return fallback;
  return number(n, what);
}

double Reader::positive(const YAML::Node& node, const std::string& what) const {
  const double v = number(node, what);
  if (!(v > 0)) fail(node, what + ": must be > 0, got " + node.Scalar());
  return v;
}

double Reader::nonNegative(const YAML::Node& node, const std::string& what) const {
  const double v = number(node, what);
  if (v < 0) fail(node, what + ": must be >= 0, got " + node.Scalar());
  return v;
}

int Reader::integer(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) fail(node, what + ": expected an integer");
  try {
    std::size_t used = 0;
    const long v = std::stol(node.Scalar(), &used);
    if (used == node.Scalar().size() && v >= INT32_MIN && v <= INT32_MAX) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  fail(node, what + ": expected an integer, got '" + node.Scalar() + "'");
}

bool Reader::boolean(const YAML::Node& node, const std::string& what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  fail(node, what + ": expected true or false");
}

std::string Reader::string(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar() || node.Scalar().empty()) fail(node, what + ": expected a text value");
  return node.Scalar();
}

std::vector<double> Reader::numbers(const YAML::Node& node, int n, const std::string& what) const {
  const std::string expected = n >= 0 ? std::to_string(n) + " numbers" : "a list of numbers";
  if (!node.IsSequence()) fail(node, what + ": expected " + expected);
  if (n >= 0 && static_cast<int>(node.size()) != n) {
    fail(node, what + ": expected " + expected + ", got " + std::to_string(node.size()));
  }
  if (n < 0 && node.size() == 0) fail(node, what + ": expected " + expected + ", got none");
  std::vector<double> out;
  for (std::size_t k = 0; k < node.size(); ++k) {
    out.push_back(number(node[k], what + "[" + std::to_string(k) + "]"));
  }
  return out;
}

Vector3 Reader::vector3(const YAML::Node& node, const std::string& what) const {
  const std::vector<double> v = numbers(node, 3, what);
  return {v[0], v[1], v[2]};
}

Matrix3 Reader::inertia(const YAML::Node& n, const std::string& what) const {
  checkKeys(n, {"xx", "yy", "zz", "xy", "xz", "yz"}, what);
  const double xx = nonNegative(require(n, "xx", what), what + ".xx");
  const double yy = nonNegative(require(n, "yy", what), what + ".yy");
  const double zz = nonNegative(require(n, "zz", what), what + ".zz");
  const double xy = number(n, "xy", 0.0, what + ".xy");
  const double xz = number(n, "xz", 0.0, what + ".xz");
  const double yz = number(n, "yz", 0.0, what + ".yz");
  Matrix3 I;
  I << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  return I;
}

std::string Reader::choice(const YAML::Node& node, std::initializer_list<const char*> words,
                           const std::string& what) const {
  return choice(node, std::vector<std::string>(words.begin(), words.end()), what);
}

std::string Reader::choice(const YAML::Node& node, const std::vector<std::string>& names, const std::string& what) const {
  const std::string s = string(node, what);
  if (std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string msg = what + ": '" + s + "' is not one of:";
  for (const std::string& n : names) msg += " " + n;
  const std::string hint = closestMatch(s, names);
  if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
  fail(node, msg);
}

}  // namespace yaml
}  // namespace grapple::core
