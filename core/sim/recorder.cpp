#include "core/sim/recorder.hpp"

#include <charconv>
#include <ostream>
#include <stdexcept>

namespace grapple::core {

int Recorder::add(std::string name, std::string unit) {
  if (rows() > 0) throw std::logic_error("Recorder::add: channels are fixed once rows exist");
  if (find(name) >= 0) throw std::logic_error("Recorder::add: duplicate channel '" + name + "'");
  info_.push_back({std::move(name), std::move(unit)});
  columns_.emplace_back();
  return channels() - 1;
}

void Recorder::append(const std::vector<double>& row) {
  if (static_cast<int>(row.size()) != channels()) {
    throw std::logic_error("Recorder::append: row of " + std::to_string(row.size()) +
                           " values for " + std::to_string(channels()) + " channels");
  }
  for (std::size_t k = 0; k < row.size(); ++k) columns_[k].push_back(row[k]);
}

void Recorder::clear() {
  for (auto& c : columns_) c.clear();
}

int Recorder::find(std::string_view name) const {
  for (std::size_t k = 0; k < info_.size(); ++k) {
    if (info_[k].name == name) return static_cast<int>(k);
  }
  return -1;
}

void Recorder::writeCsv(std::ostream& out) const {
  for (int c = 0; c < channels(); ++c) {
    out << (c ? "," : "") << info_[c].name << " [" << info_[c].unit << "]";
  }
  out << '\n';
  char buf[32];
  std::string line;
  for (int r = 0; r < rows(); ++r) {
    line.clear();
    for (int c = 0; c < channels(); ++c) {
      if (c) line += ',';
      // Shortest representation that reads back to the same double.
      const auto res = std::to_chars(buf, buf + sizeof buf, columns_[c][r]);
      line.append(buf, res.ptr);
    }
    line += '\n';
    out << line;
  }
}

}  // namespace grapple::core
