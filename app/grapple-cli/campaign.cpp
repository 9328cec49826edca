// grapple-cli campaign run / merge / status / slurm: thousands of dispersed runs of a scenario.
//
// The local engine forks one process per run (at most --jobs at a time): a run that crashes,
// hangs past --timeout or throws never stops the others, and is recorded with its error. Each
// run writes into a temporary folder renamed to runs/NNNNNN when complete, so a folder that
// exists is a finished run: a campaign killed midway and started again skips those. Slices
// (--runs A-B, --shard K/N) let GNU parallel or a Slurm job array share a campaign's runs.
#include "app/grapple-cli/commands.hpp"
#include "app/grapple-cli/run_summary.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/campaign/campaign.hpp"
#include "core/campaign/results.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/load_error.hpp"
#include "core/math/concurrency.hpp"

namespace grapple::cli {

using namespace grapple::core;
using namespace grapple::core::campaign;
namespace fs = std::filesystem;

namespace {

// Writes the folder's manifest, after checking that the folder holds no other campaign's runs.
void adoptFolder(const std::string& out, const Campaign& c) {
  const Manifest m{c.name, fs::absolute(c.file).lexically_normal().string(), c.runs, c.seed, valueColumns(c)};
  if (fs::exists(fs::path(out) / "manifest.json")) {
    Manifest old;
    try {
      old = readManifest(out);
    } catch (const std::runtime_error& e) {
      throw LoadError(out, 0, e.what());
    }
    if (old.campaign_file != m.campaign_file || old.runs != m.runs || old.seed != m.seed || old.columns != m.columns) {
      throw LoadError(out, 0, "holds the runs of another campaign (" + old.campaign_file + ", " + std::to_string(old.runs) +
                                  " runs, seed " + std::to_string(old.seed) + "); expected an empty folder or one of " + c.file);
    }
  }
  writeManifest(out, m);
}

// The value of each dispersed key: its text, its number, or an array of numbers.
Json jsonValue(const Value& v) {
  if (v.isText()) return v.text;
  if (v.numbers.size() == 1) return v.numbers[0];
  return v.numbers;
}

// The "campaign" object each run's summary carries: which run, its drawn values (runs.csv's
// columns), the values written into the scenario, and those the simulation used.
void addCampaignFields(Json& j, const Campaign& c, const RunValues& v,
                       const std::vector<std::pair<std::string, Value>>& effective) {
  Json values = Json::object(), assigned = Json::object(), used = Json::object();
  const std::vector<std::string> cols = valueColumns(c);
  std::size_t col = 0;
  for (const Value& x : v.drawn) {
    if (x.isText()) {
      values[cols[col++]] = x.text;
    } else {
      for (double n : x.numbers) values[cols[col++]] = n;
    }
  }
  for (const auto& [key, x] : v.assigned) assigned[key] = jsonValue(x);
  for (const auto& [key, x] : effective) used[key] = jsonValue(x);
  j["campaign"] = Json{{"run", v.run}, {"seed", c.seed}, {"values", values}, {"assigned", assigned}, {"effective", used}};
}

// A run that produced no simulation (its scenario refused, a crash, a timeout).
std::string failureSummary(const Campaign& c, const RunValues& v, const std::string& error) {
  Json j{{"scenario", c.name},
         {"file", c.scenario_path},
         {"status", "failed: " + error},
         {"error", error},
         {"metrics", {{"outcome", "failed"}, {"captured", false}}}};
  addCampaignFields(j, c, v, {});
  std::ostringstream out;
  writeJson(out, j);
  return out.str();
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f.flush()) throw std::runtime_error(path.string() + ": cannot be written");
}

fs::path tmpFolder(const std::string& out, long run, pid_t pid) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "runs/.tmp-%06ld-%d", run, static_cast<int>(pid));
  return fs::path(out) / buf;
}

// Publishes a run: its temporary folder renamed to runs/NNNNNN (atomic).
void publish(const fs::path& tmp, const fs::path& final) {
  std::error_code ec;
  fs::rename(tmp, final, ec);
  if (ec) {
    fs::remove_all(tmp, ec);  // another engine finished the same run first: keep its folder
  }
}

// One run, in the child process: the scenario built, run, summarized.
void runOne(const Campaign& c, long run, const std::string& out, bool channels) {
  const fs::path tmp = tmpFolder(out, run, getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const RunValues v = drawRun(c, run);
  const YAML::Node doc = scenarioDocument(c, v);
  writeText(tmp / "scenario.yaml", scenarioText(c, v));
  std::string summary;
  try {
    LoadedScenario loaded = loadScenarioDocument(c.scenario_path, doc);
    searchWindowsOnOneThread(loaded.scenario);  // (the runs themselves fill the cores)
    Simulation sim(std::move(loaded.scenario), std::move(loaded.model));
    std::vector<std::pair<std::string, Value>> effective;
    for (const auto& [key, x] : v.assigned) effective.emplace_back(key, effectiveValue(sim, key));
    const auto start = std::chrono::steady_clock::now();
    sim.run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream s;
    writeRunSummary(s, sim, wall, [&](Json& j) { addCampaignFields(j, c, v, effective); });
    summary = s.str();
    if (channels) {
      std::ofstream f(tmp / "channels.csv");
      sim.recorder().writeCsv(f);
    }
  } catch (const std::exception& e) {
    summary = failureSummary(c, v, e.what());
  }
  writeText(tmp / "summary.json", summary);
  publish(tmp, fs::path(out) / runFolder(run));
}

volatile sig_atomic_t g_stop = 0;
extern "C" void onStop(int) { g_stop = 1; }

std::string signalText(int sig) {
  const char* d = strsignal(sig);
  return "killed by signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

std::string duration(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

}  // namespace

int runCampaignRun(const CampaignArgs& o) {
  const Campaign c = loadCampaign(o.file);
  std::error_code ec;
  fs::create_directories(fs::path(o.out) / "runs", ec);
  if (ec) throw LoadError(o.out, 0, "cannot create the campaign folder: " + ec.message());
  adoptFolder(o.out, c);

  const long last = o.last < 0 ? c.runs - 1 : std::min(o.last, c.runs - 1);
  std::vector<long> todo;
  long done_before = 0;
  for (long i = o.first; i <= last; ++i) {
    if (i % o.shards != o.shard) continue;
    if (fs::exists(fs::path(o.out) / runFolder(i))) {
      ++done_before;
    } else {
      todo.push_back(i);
    }
  }
  // Leftovers of an interrupted engine, for the runs this one is about to do.
  for (const auto& e : fs::directory_iterator(fs::path(o.out) / "runs")) {
    const std::string n = e.path().filename().string();
    if (n.rfind(".tmp-", 0) != 0 || n.size() < 11) continue;
    const long run = std::strtol(n.substr(5, 6).c_str(), nullptr, 10);
    if (std::binary_search(todo.begin(), todo.end(), run)) fs::remove_all(e.path(), ec);
  }

  const int jobs = threadsOrCores(o.jobs);
  const bool tty = isatty(fileno(stderr));
  if (!o.quiet) {
    std::fprintf(stderr, "Campaign  %s: %ld runs in this slice, %ld already done, %zu to run on %d process%s\n",
                 c.name.c_str(), done_before + static_cast<long>(todo.size()), done_before, todo.size(), jobs, jobs > 1 ? "es" : "");
  }
  struct sigaction sa{};
  sa.sa_handler = onStop;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::cout.flush();
  std::cerr.flush();

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_print = start;
  std::map<pid_t, long> active;
  std::size_t next = 0;
  long finished = 0, successes = 0, failed = 0;
  auto progress = [&](bool final) {
    if (o.quiet) return;
    const auto now = Clock::now();
    if (!final && now - last_print < std::chrono::milliseconds(tty ? 200 : 5000)) return;
    last_print = now;
    const double wall = std::chrono::duration<double>(now - start).count();
    const double total = static_cast<double>(todo.size());
    const double eta = finished ? wall / finished * (total - finished) : NAN;
    const int width = 30, filled = total > 0 ? static_cast<int>(finished / total * width) : width;
    std::fprintf(stderr, "%s[%s%s] %ld/%zu  success %.1f %%  failed %ld  %s elapsed, %s left%s",
                 tty ? "\r" : "", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(), finished,
                 todo.size(), finished ? 100.0 * successes / finished : 0.0, failed, duration(wall).c_str(),
                 duration(eta).c_str(), tty && !final ? " " : "\n");
  };
  auto reap = [&](pid_t pid, int status) {
    const long run = active.at(pid);
    active.erase(pid);
    const fs::path final = fs::path(o.out) / runFolder(run);
    if (!fs::exists(final)) {
      // The child died before publishing its run: record why, from here.
      std::string why = WIFSIGNALED(status) ? signalText(WTERMSIG(status)) : "exited with code " + std::to_string(WEXITSTATUS(status));
      if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) why += ": longer than --timeout";
      const fs::path tmp = tmpFolder(o.out, run, pid);
      std::error_code e2;
      fs::create_directories(tmp, e2);
      try {
        writeText(tmp / "summary.json", failureSummary(c, drawRun(c, run), why));
        publish(tmp, final);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "\ngrapple-cli: run %ld: %s\n", run, e.what());
      }
    }
    ++finished;
    try {
      const RunRecord r = readRunRecord((final / "summary.json").string());
      successes += r.success;
      failed += r.outcome == "failed";
    } catch (const std::exception&) {
      ++failed;
    }
    progress(false);
  };

  while ((next < todo.size() && !g_stop) || !active.empty()) {
    while (next < todo.size() && static_cast<int>(active.size()) < jobs && !g_stop) {
      const long run = todo[next++];
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (o.timeout > 0) alarm(static_cast<unsigned>(std::ceil(o.timeout)));
        int code = 0;
        try {
          runOne(c, run, o.out, o.channels || c.channels);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "grapple-cli: run %ld: %s\n", run, e.what());
          code = 1;
        }
        std::fflush(nullptr);
        _exit(code);
      }
      active[pid] = run;
    }
    if (g_stop) {
      for (const auto& [pid, run] : active) kill(pid, SIGTERM);
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (active.count(pid)) {
      if (g_stop) {
        fs::remove_all(tmpFolder(o.out, active[pid], pid), ec);  // interrupted: left for the next start
        active.erase(pid);
      } else {
        reap(pid, status);
      }
    }
  }
  progress(true);
  if (g_stop) {
    std::fprintf(stderr, "grapple-cli: campaign interrupted; %ld runs finished here, the rest run at the next start\n", finished);
    return 130;
  }
  if (!o.quiet) std::fprintf(stderr, "Output    %s/runs/ (`grapple-cli campaign merge %s` for runs.csv and campaign.json)\n", o.out.c_str(), o.out.c_str());
  return 0;
}

namespace {

void printReport(const std::string& dir, const MergeReport& r) {
  char line[256];
  std::snprintf(line, sizeof line, "Campaign  %s: %ld of %ld runs done (%ld failed, %zu missing)\n", dir.c_str(), r.completed,
                r.runs, r.failed, r.missing.size());
  std::cout << line;
  std::snprintf(line, sizeof line, "Success   %ld / %ld = %.1f %% (Wilson 95 %%: %.1f - %.1f %%)\n", r.successes, r.completed,
                100 * r.success_rate, 100 * r.wilson.low, 100 * r.wilson.high);
  std::cout << line;
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

int runCampaignMerge(const CampaignArgs& o, bool write) {
  const std::string dir = !o.file.empty() ? o.file : o.out;
  if (dir.empty()) throw UsageError(std::string("campaign ") + (write ? "merge" : "status") + " needs the campaign's DIR");
  MergeReport r;
  try {
    r = write ? mergeCampaign(dir) : campaignStatus(dir);
  } catch (const std::runtime_error& e) {
    throw LoadError(dir, 0, e.what());
  }
  if (!o.quiet) printReport(dir, r);
  if (write && !o.quiet) std::cout << "Output    " << dir << "/runs.csv, " << dir << "/campaign.json\n";
  return 0;
}

int runCampaignSlurm(const CampaignArgs& o) {
  const Campaign c = loadCampaign(o.file);
  const long tasks = std::min(c.runs, o.array_size > 0 ? o.array_size : std::min(c.runs, 1000L));
  const int jobs = o.jobs > 0 ? o.jobs : 1;
  const std::string out = fs::absolute(o.out).lexically_normal().string();
  const std::string file = fs::absolute(o.file).lexically_normal().string();
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::string job_name = "grapple";
  for (char ch : c.name) {
    if (job_name.size() < 40) job_name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by grapple-cli campaign slurm: task K of N runs the campaign's runs i with i % N == K.\n"
    << "#SBATCH --job-name=" << job_name.substr(0, 40) << "\n"
    << "#SBATCH --array=0-" << tasks - 1 << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << jobs << "\n"
    << "#SBATCH --output=" << out << "/slurm/task-%a.log\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  s << "exec " << shellQuote(exe) << " campaign run " << shellQuote(file) << " --out " << shellQuote(out)
    << " --shard \"${SLURM_ARRAY_TASK_ID}/" << tasks << "\" --jobs " << jobs << " --quiet\n";
  if (o.dry_run) {
    std::cout << s.str();
    return 0;
  }
  std::error_code ec;
  fs::create_directories(fs::path(out) / "slurm", ec);
  fs::create_directories(fs::path(out) / "runs", ec);
  if (ec) throw LoadError(out, 0, "cannot create the campaign folder: " + ec.message());
  adoptFolder(out, c);
  const std::string script = out + "/slurm/job.sh";
  writeFileAtomically(script, s.str());
  const std::string command = "sbatch --parsable " + shellQuote(script);
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start sbatch");
  std::string reply;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) reply += buf;
  const int status = pclose(p);
  if (status != 0) {
    std::cerr << "grapple-cli: sbatch refused the job (" << script << "): " << reply << '\n';
    return 4;
  }
  while (!reply.empty() && (reply.back() == '\n' || reply.back() == '\r')) reply.pop_back();
  std::cout << "Submitted " << script << " as Slurm job " << reply << " (" << tasks << " array tasks, " << c.runs
            << " runs)\nThen      grapple-cli campaign status " << out << "; grapple-cli campaign merge " << out << '\n';
  return 0;
}

}  // namespace grapple::cli
