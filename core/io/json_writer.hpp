// A small streaming JSON writer: objects, arrays, numbers printed to round-trip (17 significant
// digits), strings escaped. Non-finite numbers, which JSON cannot hold, are written as null.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

namespace grapple::core {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, int indent = 2) : out_(out), indent_(indent) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(double x);
  JsonWriter& value(int x);
  JsonWriter& value(bool x);
  JsonWriter& null();
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::vector<std::string>& list);
  // A vector as an array; a matrix as an array of rows.
  JsonWriter& value(const Eigen::Ref<const Eigen::MatrixXd>& m, bool as_matrix);
  JsonWriter& vector(const Eigen::Ref<const Eigen::VectorXd>& v) { return value(v, false); }
  JsonWriter& matrix(const Eigen::Ref<const Eigen::MatrixXd>& m) { return value(m, true); }

  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  static std::string escape(std::string_view s);

 private:
  void separate();   // comma and newline before a new element
  void newline();
  void number(double x);
  void row(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::Index r);
  struct Level {
    bool first = true;
    bool is_object = false;
  };
  std::ostream& out_;
  int indent_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace grapple::core
