#include "core/campaign/results.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/campaign/campaign.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/json.hpp"

namespace grapple::core::campaign {
namespace {

namespace fs = std::filesystem;
using json = Json;

json readJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON: " + e.what());
  }
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A JSON value as a CSV cell: numbers exact, booleans as true/false, null empty, a list of
// violations as their requirements joined by ';'.
std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return formatNumber(v.get<double>());
  if (v.is_string()) return csvField(v.get<std::string>());
  if (v.is_array()) {
    std::string s;
    for (const json& x : v) {
      const std::string item = x.is_object() && x.contains("requirement") ? x["requirement"].get<std::string>() : x.dump();
      s += (s.empty() ? "" : ";") + item;
    }
    return csvField(s);
  }
  return csvField(v.dump());
}

RunRecord recordOf(const json& j, long run) {
  RunRecord r;
  r.run = run;
  const std::string status = j.value("status", std::string("completed"));
  const json metrics = j.value("metrics", json::object());
  if (metrics.contains("outcome") && metrics["outcome"].is_string()) {
    r.outcome = metrics["outcome"].get<std::string>();
  } else if (status.rfind("failed", 0) == 0) {
    r.outcome = "failed";
  } else {
    // Summaries written before outcomes existed: `captured` (a grasp) is the only verdict.
    r.outcome = metrics.value("captured", false) ? "captured" : "missed";
  }
  r.success = r.outcome == "captured";
  if (r.outcome == "failed") {
    r.error = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
              : status.rfind("failed: ", 0) == 0 ? status.substr(8) : status;
  }
  return r;
}

struct Scan {
  std::vector<std::pair<long, json>> summaries;  // by run index
  std::vector<long> missing;
};

Scan scan(const std::string& dir, long runs) {
  Scan s;
  for (long i = 0; i < runs; ++i) {
    const std::string path = dir + "/" + runFolder(i) + "/summary.json";
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      s.missing.push_back(i);
      continue;
    }
    s.summaries.emplace_back(i, readJson(path));
  }
  return s;
}

MergeReport report(const Manifest& m, const Scan& s, std::vector<RunRecord>* records) {
  MergeReport r;
  r.runs = m.runs;
  r.missing = s.missing;
  for (const auto& [i, j] : s.summaries) {
    const RunRecord rec = recordOf(j, i);
    ++r.completed;
    r.failed += rec.outcome == "failed";
    r.successes += rec.success;
    if (records) records->push_back(rec);
  }
  r.success_rate = r.completed ? static_cast<double>(r.successes) / static_cast<double>(r.completed) : 0.0;
  r.wilson = wilsonInterval(r.successes, r.completed);
  return r;
}

}  // namespace

std::string runFolder(long run) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "runs/%06ld", run);
  return buf;
}

RunRecord readRunRecord(const std::string& summary_path) {
  const json j = readJson(summary_path);
  return recordOf(j, j.contains("campaign") ? j["campaign"].value("run", -1L) : -1L);
}

Interval wilsonInterval(long successes, long n, double z) {
  if (n <= 0) return {0, 1};
  const double N = static_cast<double>(n), p = static_cast<double>(successes) / N, z2 = z * z;
  const double centre = (p + z2 / (2 * N)) / (1 + z2 / N);
  const double half = z / (1 + z2 / N) * std::sqrt(p * (1 - p) / N + z2 / (4 * N * N));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Manifest readManifest(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  if (!fs::exists(path)) throw std::runtime_error(dir + ": not a campaign folder (no manifest.json; `grapple-cli campaign run` writes it)");
  const json j = readJson(path);
  Manifest m;
  try {
    m.name = j.at("name").get<std::string>();
    m.campaign_file = j.at("campaign").get<std::string>();
    m.runs = j.at("runs").get<long>();
    m.seed = j.at("seed").get<unsigned long long>();
    m.columns = j.at("columns").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return m;
}

void writeManifest(const std::string& dir, const Manifest& m) {
  std::ostringstream out;
  writeJson(out, Json{{"name", m.name}, {"campaign", m.campaign_file}, {"runs", m.runs}, {"seed", m.seed},
                      {"columns", m.columns}});
  // Shards of one campaign started together all write it: each through its own temporary file,
  // renamed over the manifest (the same text, whichever lands last).
  const std::string path = dir + "/manifest.json";
  const std::string tmp = path + ".tmp-" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) ^
                                                          static_cast<std::size_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  {
    std::ofstream f(tmp, std::ios::binary);
    f << out.str();
    if (!f.flush()) throw std::runtime_error(tmp + ": cannot be written");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot be written: " + ec.message());
  }
}

MergeReport campaignStatus(const std::string& dir) {
  const Manifest m = readManifest(dir);
  return report(m, scan(dir, m.runs), nullptr);
}

MergeReport mergeCampaign(const std::string& dir) {
  const Manifest m = readManifest(dir);
  const Scan s = scan(dir, m.runs);
  std::vector<RunRecord> records;
  const MergeReport r = report(m, s, &records);

  // Metric columns in order of first appearance, runs in index order: the same files give the
  // same columns, whichever engine wrote them.
  std::vector<std::string> metric_names;
  std::map<std::string, std::vector<double>> metric_values;
  for (const auto& [i, j] : s.summaries) {
    if (!j.contains("metrics") || !j["metrics"].is_object()) continue;
    for (const auto& [k, v] : j["metrics"].items()) {
      if (k == "outcome") continue;
      if (!metric_values.count(k)) {
        metric_names.push_back(k);
        metric_values[k];
      }
      if (v.is_number() && std::isfinite(v.get<double>())) metric_values[k].push_back(v.get<double>());
    }
  }

  std::string csv = "run";
  for (const std::string& c : m.columns) csv += "," + csvField(c);
  csv += ",outcome";
  for (const std::string& k : metric_names) csv += "," + csvField(k);
  csv += ",error\n";
  for (std::size_t n = 0; n < s.summaries.size(); ++n) {
    const auto& [i, j] = s.summaries[n];
    csv += std::to_string(i);
    const json values = j.contains("campaign") ? j["campaign"].value("values", json::object()) : json::object();
    for (const std::string& c : m.columns) {
      csv += ',';
      if (values.contains(c)) csv += cell(values[c]);
    }
    csv += "," + records[n].outcome;
    const json metrics = j.value("metrics", json::object());
    for (const std::string& k : metric_names) {
      csv += ',';
      if (metrics.contains(k)) csv += cell(metrics[k]);
    }
    csv += "," + csvField(records[n].error) + "\n";
  }
  writeFileAtomically(dir + "/runs.csv", csv);

  Json c{{"name", m.name}, {"campaign", m.campaign_file}, {"runs", r.runs}, {"completed", r.completed},
         {"successes", r.successes}, {"failures", r.failed}, {"success_rate", r.success_rate},
         {"success_rate_wilson95", {r.wilson.low, r.wilson.high}}};
  std::map<std::string, long> outcomes;
  for (const RunRecord& rec : records) ++outcomes[rec.outcome];
  c["outcomes"] = Json::object();
  for (const auto& [k, n] : outcomes) c["outcomes"][k] = n;
  c["metrics"] = Json::object();
  for (const std::string& k : metric_names) {
    std::vector<double>& v = metric_values[k];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    c["metrics"][k] = Json{{"count", v.size()}, {"min", v.front()}, {"p5", percentile(v, 0.05)}, {"p50", percentile(v, 0.5)},
                           {"p95", percentile(v, 0.95)}, {"max", v.back()}, {"mean", mean}};
  }
  c["failed"] = Json::array();
  for (const RunRecord& rec : records) {
    if (rec.outcome == "failed") c["failed"].push_back(Json{{"run", rec.run}, {"error", rec.error}});
  }
  c["missing"] = r.missing;
  std::ostringstream out;
  writeJson(out, c);
  writeFileAtomically(dir + "/campaign.json", out.str());
  return r;
}

}  // namespace grapple::core::campaign
