// Recorder: named channels with units, one row per recorded instant (the run's output, plotted by
// the app and written to channels.csv by the CLI). Stored by column, so a plot reads a channel
// without copying.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace grapple::core {

struct ChannelInfo {
  std::string name;   // "group.quantity", e.g. "joint.shoulder_yaw.position"
  std::string unit;   // SI unit, "rad", "deg", "J", "1" for dimensionless
};

class Recorder {
 public:
  // Adds a channel (before the first row); returns its index. Names are unique.
  int add(std::string name, std::string unit);
  // Appends one row: a value per channel, in channel order.
  void append(const std::vector<double>& row);
  void clear();  // drops the rows, keeps the channels

  int channels() const { return static_cast<int>(info_.size()); }
  int rows() const { return info_.empty() ? 0 : static_cast<int>(columns_[0].size()); }
  const ChannelInfo& info(int channel) const { return info_[channel]; }
  const std::vector<ChannelInfo>& info() const { return info_; }
  int find(std::string_view name) const;  // -1 if there is no such channel
  const std::vector<double>& column(int channel) const { return columns_[channel]; }
  double at(int row, int channel) const { return columns_[channel][row]; }

  // CSV: a header row "name [unit]", then one row per instant, each number in the shortest form
  // that reads back to the same double.
  void writeCsv(std::ostream& out) const;

 private:
  std::vector<ChannelInfo> info_;
  std::vector<std::vector<double>> columns_;
};

}  // namespace grapple::core
