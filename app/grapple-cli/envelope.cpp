// grapple-cli envelope: a capture scenario flown over the grid of the debris' tumbling rates, axes
// and phases (core/analysis/envelope), its outcomes written as a table and drawn as a map.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "app/grapple-cli/commands.hpp"
#include "core/analysis/envelope.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/load_error.hpp"
#include "core/math/concurrency.hpp"

namespace grapple::cli {

using namespace grapple::core;

namespace {

const char* colourOf(Outcome o) {
  switch (o) {
    case Outcome::kCaptured: return "#2e9e44";
    case Outcome::kCapturedOutOfSpec: return "#e0b400";
    case Outcome::kAborted: return "#e07000";
    case Outcome::kMissed: return "#c0392b";
    case Outcome::kFailed: return "#404040";
  }
  return "#ffffff";
}

std::string csvField(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double x) {
  if (std::isnan(x)) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

// The map: rows the tumbling axes, columns the rates, each cell split into its phases, coloured by
// outcome, with the limiting constraint's initials where the capture did not succeed.
std::string svgMap(const EnvelopeGrid& g, const std::vector<EnvelopeCell>& cells, const std::string& title,
                   const std::string& subtitle) {
  const int cw = 96, ch = 44, left = 150, top = 70;
  const int np = static_cast<int>(g.phases_deg.size()), na = static_cast<int>(g.axes.size());
  const int nr = static_cast<int>(g.rates_deg_s.size());
  const int width = left + nr * cw + 20, height = top + na * ch + 110;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" << title << "</text>\n";
  s << "<text x=\"10\" y=\"42\">" << subtitle << "</text>\n";
  for (int r = 0; r < nr; ++r) {
    s << "<text x=\"" << left + r * cw + cw / 2 << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\">"
      << number(g.rates_deg_s[r]) << " deg/s</text>\n";
  }
  for (int a = 0; a < na; ++a) {
    s << "<text x=\"" << left - 8 << "\" y=\"" << top + a * ch + ch / 2 + 4 << "\" text-anchor=\"end\">"
      << g.axes[a].name << "</text>\n";
  }
  for (const EnvelopeCell& c : cells) {
    const int r = static_cast<int>(std::find(g.rates_deg_s.begin(), g.rates_deg_s.end(), c.rate_deg_s) - g.rates_deg_s.begin());
    const int p = static_cast<int>(std::find(g.phases_deg.begin(), g.phases_deg.end(), c.phase_deg) - g.phases_deg.begin());
    const int x = left + r * cw + p * cw / np, y = top + c.axis * ch;
    s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw / np - 2 << "\" height=\"" << ch - 2 << "\" fill=\""
      << colourOf(c.outcome) << "\"><title>" << number(c.rate_deg_s) << " deg/s, " << g.axes[c.axis].name << ", phase "
      << number(c.phase_deg) << " deg: " << outcomeName(c.outcome) << "</title></rect>\n";
    if (!c.limiting.empty()) {
      // (bus_torque_bound: no plan can meet the bus limit, distinct from the planner's miss)
      std::string label = c.limiting == "bus_torque_bound" ? "no plan" : c.limiting.substr(0, 9);
      s << "<text x=\"" << x + cw / np / 2 - 1 << "\" y=\"" << y + ch / 2 + 3 << "\" text-anchor=\"middle\" font-size=\"8\" fill=\"white\">"
        << label << "</text>\n";
    }
  }
  int lx = 10;
  const int ly = top + na * ch + 30;
  for (Outcome o : {Outcome::kCaptured, Outcome::kCapturedOutOfSpec, Outcome::kAborted, Outcome::kMissed, Outcome::kFailed}) {
    s << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"14\" height=\"14\" fill=\"" << colourOf(o) << "\"/>";
    s << "<text x=\"" << lx + 18 << "\" y=\"" << ly + 12 << "\">" << outcomeName(o) << "</text>\n";
    lx += 40 + 8 * static_cast<int>(outcomeName(o).size());
  }
  s << "<text x=\"10\" y=\"" << ly + 40 << "\">Each cell: phase 0 deg (left) and 180 deg (right) of the debris' initial attitude; "
    << "label: the limiting constraint (no plan: the bus limit is below what riding the grasp point asks).</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace

int runEnvelope(const EnvelopeArgs& a) {
  const std::string& scenario = a.scenario;
  const std::string& out_dir = a.out;
  const int threads = threadsOrCores(a.threads);
  LoadedScenario loaded = loadScenario(scenario, a.overrides);
  if (!loaded.scenario.debris.enabled) throw LoadError(scenario, 0, "envelope: the scenario has no debris");
  EnvelopeGrid grid = EnvelopeGrid::standard(loaded.scenario.debris.properties);
  if (!a.rates.empty()) grid.rates_deg_s = a.rates;
  const std::vector<EnvelopeCell> cells = runEnvelope(loaded.scenario, loaded.model, grid, threads, 60, [](std::size_t done, std::size_t n) {
    std::fprintf(stderr, "\renvelope: %zu / %zu runs", done, n);
  });
  std::fprintf(stderr, "\n");
  std::ostringstream csv;
  csv << "rate_deg_s,axis,axis_x,axis_y,axis_z,phase_deg,outcome,limiting,grasp_time_s,hand_to_plan_m,bus_attitude_deg,"
         "bus_torque_Nm,joint_torque_Nm,simulated_s,reason\n";
  std::map<double, std::pair<int, int>> by_rate;  // captured, runs
  int captured = 0;
  for (const EnvelopeCell& c : cells) {
    const Vector3& ax = grid.axes[c.axis].axis;
    csv << number(c.rate_deg_s) << ',' << csvField(grid.axes[c.axis].name) << ',' << number(ax.x()) << ',' << number(ax.y()) << ','
        << number(ax.z()) << ',' << number(c.phase_deg) << ',' << outcomeName(c.outcome) << ',' << csvField(c.limiting) << ','
        << number(c.grasp_time) << ',' << number(c.hand_to_plan) << ',' << number(c.bus_attitude_deg) << ','
        << number(c.bus_torque) << ',' << number(c.joint_torque) << ',' << number(c.simulated) << ',' << csvField(c.reason) << '\n';
    const bool ok = c.outcome == Outcome::kCaptured;
    captured += ok;
    by_rate[c.rate_deg_s].first += ok;
    ++by_rate[c.rate_deg_s].second;
  }
  std::ostringstream summary;
  char line[200];
  std::snprintf(line, sizeof line, "captured in %d of %zu runs (%.1f %%)", captured, cells.size(), 100.0 * captured / cells.size());
  summary << line;
  std::cout << "Envelope  " << loaded.scenario.name << ": " << line << '\n';
  for (const auto& [rate, n] : by_rate) {
    std::snprintf(line, sizeof line, "          %5.2f deg/s: %d of %d captured\n", rate, n.first, n.second);
    std::cout << line;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw LoadError(out_dir, 0, "cannot create the output folder: " + ec.message());
  writeFileAtomically(out_dir + "/envelope.csv", csv.str());
  writeFileAtomically(out_dir + "/envelope.svg",
                      svgMap(grid, cells, "Capture envelope: " + loaded.scenario.name, summary.str() + " (outcome per rate, tumbling axis and phase)"));
  std::cout << "Output    " << out_dir << "/envelope.csv, " << out_dir << "/envelope.svg\n";
  return 0;
}

}  // namespace grapple::cli
