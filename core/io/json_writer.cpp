#include "core/io/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace grapple::core {

std::string JsonWriter::escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

void JsonWriter::newline() {
  if (indent_ <= 0) return;
  out_ << '\n' << std::string(stack_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  if (!stack_.back().first) out_ << ',';
  stack_.back().first = false;
  newline();
}

JsonWriter& JsonWriter::beginObject() {
  separate();
  out_ << '{';
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  const bool empty = stack_.back().first;
  stack_.pop_back();
  if (!empty) newline();
  out_ << '}';
  if (stack_.empty()) out_ << '\n';
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  separate();
  out_ << '[';
  stack_.push_back({true, false});
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  const bool empty = stack_.back().first;
  stack_.pop_back();
  if (!empty) newline();
  out_ << ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  out_ << '"' << escape(k) << "\": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::number(double x) {
  if (!std::isfinite(x)) {
    out_ << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  out_ << buf;
}

JsonWriter& JsonWriter::value(double x) {
  separate();
  number(x);
  return *this;
}

JsonWriter& JsonWriter::value(int x) {
  separate();
  out_ << x;
  return *this;
}

JsonWriter& JsonWriter::value(bool x) {
  separate();
  out_ << (x ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ << "null";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  out_ << '"' << escape(s) << '"';
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& list) {
  separate();
  out_ << '[';  // on one line
  for (std::size_t k = 0; k < list.size(); ++k) {
    out_ << (k ? ", \"" : "\"") << escape(list[k]) << '"';
  }
  out_ << ']';
  return *this;
}

void JsonWriter::row(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::Index r) {
  out_ << '[';
  for (Eigen::Index c = 0; c < m.cols(); ++c) {
    if (c) out_ << ", ";
    number(m(r, c));
  }
  out_ << ']';
}

JsonWriter& JsonWriter::value(const Eigen::Ref<const Eigen::MatrixXd>& m, bool as_matrix) {
  separate();
  if (!as_matrix) {  // a column vector, on one line
    row(m.transpose(), 0);
    return *this;
  }
  out_ << '[';  // one row per line: readable and diff-friendly
  stack_.push_back({true, false});
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (r) out_ << ',';
    newline();
    row(m, r);
  }
  stack_.pop_back();
  if (m.rows() > 0) newline();
  out_ << ']';
  return *this;
}

}  // namespace grapple::core
