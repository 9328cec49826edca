// Campaigns (scripts/bench.sh runs it once: each measurement takes minutes). Counters:
//   Campaign_MonteCarlo: the rigid-capture Monte Carlo (scenarios/campaigns/
//     capture_rigid_monte_carlo.yaml, GRAPPLE_BENCH_CAMPAIGN_RUNS runs, default 1000) by the local
//     engine on every core (campaign_s), the same runs one after the other with `grapple-cli run`
//     (sequential_s) and their ratio; on the first tenth, the local engine on one core against the
//     bare simulations (Simulation::run in this process, summed): overhead_ms per run (and
//     overhead_cpu_ms, in CPU time, which a shared machine's load does not stretch). Goals: the
//     1000 runs < 120 s, ratio <= 0.75, overhead < 20 ms.
//   Merge_10000: `campaign merge` of 10,000 summaries (copies of a real one); goal < 5 s.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/campaign/campaign.hpp"
#include "core/campaign/results.hpp"

using namespace grapple::core;
using namespace grapple::core::campaign;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kCli = GRAPPLE_BINARY_DIR "/app/grapple-cli";
const std::string kCampaign = GRAPPLE_SOURCE_DIR "/scenarios/campaigns/capture_rigid_monte_carlo.yaml";

// Runs grapple-cli with these arguments (no shell), output discarded; returns its wall time [s].
double cli(const std::vector<std::string>& args) {
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(kCli.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) _exit(127);
    execv(kCli.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  // 2 (the scenario refused) and 3 (the simulation failed) are results like any other for `run`.
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 1 || WEXITSTATUS(status) > 3) throw std::runtime_error("grapple-cli failed");
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time [s] of the children waited for so far, and of this thread.
double childrenCpu() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
double threadCpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string scratch(const std::string& name) {
  const std::string d = (fs::temp_directory_path() / ("grapple_bench_" + name + "_" + std::to_string(getpid()))).string();
  fs::remove_all(d);
  return d;
}

void Campaign_MonteCarlo(benchmark::State& state) {
  const char* env = std::getenv("GRAPPLE_BENCH_CAMPAIGN_RUNS");
  const long runs = env ? std::atol(env) : 1000;
  const Campaign c = loadCampaign(kCampaign);
  for (auto _ : state) {
    const std::string out = scratch("campaign");
    const double campaign = cli({"campaign", "run", kCampaign, "--out", out, "--runs", "0-" + std::to_string(runs - 1), "--quiet"});
    // The same runs one after the other, each by `grapple-cli run` on its scenario as run.
    double sequential = 0;
    for (long i = 0; i < runs; ++i) {
      sequential += cli({"run", out + "/" + runFolder(i) + "/scenario.yaml", "--quiet", "--out", out + "/sequential"});
    }
    // Overhead: the engine on one core against the bare simulations of the same runs.
    const long n = std::max(1L, runs / 10);
    const std::string one = scratch("one");
    const double cpu0 = childrenCpu();
    const double one_core = cli({"campaign", "run", kCampaign, "--out", one, "--runs", "0-" + std::to_string(n - 1), "--jobs", "1", "--quiet"});
    const double one_core_cpu = childrenCpu() - cpu0;
    double bare = 0, bare_cpu = 0;
    for (long i = 0; i < n; ++i) {
      LoadedScenario loaded = loadScenarioDocument(c.scenario_path, scenarioDocument(c, drawRun(c, i)));
      Simulation sim(std::move(loaded.scenario), std::move(loaded.model));
      const auto start = Clock::now();
      const double cpu = threadCpu();
      sim.run();
      bare_cpu += threadCpu() - cpu;
      bare += std::chrono::duration<double>(Clock::now() - start).count();
    }
    state.SetIterationTime(campaign);
    state.counters["runs"] = static_cast<double>(runs);
    state.counters["campaign_s"] = campaign;
    state.counters["sequential_s"] = sequential;
    state.counters["ratio"] = campaign / sequential;
    state.counters["bare_ms_per_run"] = 1e3 * bare / static_cast<double>(n);
    state.counters["one_core_ms_per_run"] = 1e3 * one_core / static_cast<double>(n);
    state.counters["overhead_ms"] = 1e3 * (one_core - bare) / static_cast<double>(n);
    // The same in CPU time (the machine may be shared: wall times stretch with its load).
    state.counters["overhead_cpu_ms"] = 1e3 * (one_core_cpu - bare_cpu) / static_cast<double>(n);
    fs::remove_all(out);
    fs::remove_all(one);
  }
}
BENCHMARK(Campaign_MonteCarlo)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void Merge_10000(benchmark::State& state) {
  const std::string src = scratch("merge_src");
  cli({"campaign", "run", kCampaign, "--out", src, "--runs", "0-0", "--quiet"});
  const std::string summary = src + "/" + runFolder(0) + "/summary.json";
  const std::string dir = scratch("merge");
  fs::create_directories(dir + "/runs");
  Manifest m = readManifest(src);
  m.runs = 10000;
  writeManifest(dir, m);
  for (long i = 0; i < m.runs; ++i) {
    fs::create_directories(dir + "/" + runFolder(i));
    fs::copy_file(summary, dir + "/" + runFolder(i) + "/summary.json");
  }
  for (auto _ : state) {
    const MergeReport r = mergeCampaign(dir);
    benchmark::DoNotOptimize(r.completed);
  }
  fs::remove_all(dir);
  fs::remove_all(src);
}
BENCHMARK(Merge_10000)->Unit(benchmark::kSecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
