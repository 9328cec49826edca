// grapple-cli campaign with the real engines: the local engine (one process per run; a run whose
// scenario is refused is recorded with its error and the others go on; every summary's effective
// values equal the values written; a run's scenario as run, re-run by `grapple-cli run`, gives
// the same metrics bit for bit), GNU parallel over shards and a Slurm job array on a one-node
// cluster started here, both giving a runs.csv byte-identical to the local engine's; a campaign
// killed midway completes when started again without redoing its finished runs.
#include <QtTest>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace {

const QString kCli = QStringLiteral(GRAPPLE_BINARY_DIR "/app/grapple-cli");
const std::string kSource = GRAPPLE_SOURCE_DIR;
constexpr int kRuns = 12;

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const QString& program, const QStringList& args, int timeout_ms = 300000) {
  QProcess p;
  p.start(program, args);
  p.waitForFinished(timeout_ms);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput().toStdString(),
          p.readAllStandardError().toStdString()};
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int finishedRuns(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/runs", ec)) n += e.path().filename().string()[0] != '.';
  return n;
}

// A one-node Slurm cluster in a temporary folder (root, no systemd): munged, slurmctld and
// slurmd, stopped by their PIDs. start() says why when it cannot.
class SlurmCluster {
 public:
  explicit SlurmCluster(std::string dir) : dir_(std::move(dir)) {}
  ~SlurmCluster() { stop(); }

  std::string start() {
    if (geteuid() != 0) return "not root: slurmctld and slurmd need root here";
    for (const char* exe : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue"}) {
      if (QStandardPaths::findExecutable(exe, {"/usr/sbin", "/usr/bin", "/sbin", "/bin"}).isEmpty()) {
        return std::string(exe) + " is not installed (Debian packages slurm-wlm and munge)";
      }
    }
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string h = host;
    h = h.substr(0, h.find('.'));
    fs::create_directories(dir_ + "/state");
    fs::create_directories(dir_ + "/spool");
    conf_ = dir_ + "/slurm.conf";
    std::ofstream(conf_) << "ClusterName=grapple\nSlurmctldHost=" << h
                         << "\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n"
                            "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
                            "SelectTypeParameters=CR_Core\nJobAcctGatherType=jobacct_gather/none\nMpiDefault=none\n"
                            "ReturnToService=2\nStateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_
                         << "/spool\nSlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_
                         << "/slurmd.pid\nSlurmctldLogFile=" << dir_ << "/slurmctld.log\nSlurmdLogFile=" << dir_
                         << "/slurmd.log\nNodeName=" << h << " CPUs=" << std::thread::hardware_concurrency()
                         << " RealMemory=2000 State=UNKNOWN\nPartitionName=grapple Nodes=" << h
                         << " Default=YES MaxTime=INFINITE State=UP\n";
    qputenv("SLURM_CONF", QByteArray::fromStdString(conf_));
    // munged: reused if one runs already (then it is not ours to stop).
    fs::create_directories("/run/munge");
    if (pidOf("/run/munge/munged.pid") <= 0) {
      if (!fs::exists("/etc/munge/munge.key") && run("mungekey", {"-c"}).code != 0) return "mungekey -c failed";
      const Result m = run("munged", {"--force"});
      if (m.code != 0) return "munged did not start: " + m.err;
      munged_ = pidOf("/run/munge/munged.pid");
    }
    const Result c = run("slurmctld", {"-c", "-f", QString::fromStdString(conf_)});
    if (c.code != 0) return "slurmctld did not start: " + c.err;
    const Result d = run("slurmd", {"-f", QString::fromStdString(conf_)});
    if (d.code != 0) return "slurmd did not start: " + d.err;
    for (int k = 0; k < 60; ++k) {
      const Result s = run("sinfo", {"-h", "-o", "%t"});
      if (s.out.find("idle") != std::string::npos) return {};
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return "the node did not become idle within 30 s (" + dir_ + "/slurmctld.log)";
  }

  void stop() {
    for (const std::string& f : {dir_ + "/slurmd.pid", dir_ + "/slurmctld.pid"}) {
      if (const pid_t p = pidOf(f); p > 0) terminate(p);
    }
    if (munged_ > 0) terminate(munged_);
    munged_ = 0;
  }

 private:
  static pid_t pidOf(const std::string& file) {
    std::ifstream in(file);
    long p = 0;
    if (!(in >> p) || p <= 0 || kill(static_cast<pid_t>(p), 0) != 0) return 0;
    return static_cast<pid_t>(p);
  }
  static void terminate(pid_t p) {
    kill(p, SIGTERM);
    for (int k = 0; k < 50 && kill(p, 0) == 0; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (kill(p, 0) == 0) kill(p, SIGKILL);
  }
  std::string dir_, conf_;
  pid_t munged_ = 0;
};

}  // namespace

class TestCampaignEngines : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  std::string file_, local_csv_, local_err_;
  std::string dir(const std::string& name) const { return tmp_.path().toStdString() + "/" + name; }

  void merge(const std::string& d) {
    const Result m = run(kCli, {"campaign", "merge", QString::fromStdString(d)});
    QVERIFY2(m.code == 0, m.err.c_str());
  }

  // The local engine's runs.csv, the reference of the others (run once).
  const std::string& localCsv() {
    if (local_csv_.empty()) {
      const std::string out = dir("local");
      local_err_ = run(kCli, {"campaign", "run", QString::fromStdString(file_), "--out", QString::fromStdString(out), "--jobs", "2"}).err;
      run(kCli, {"campaign", "merge", QString::fromStdString(out)});
      local_csv_ = readText(out + "/runs.csv");
    }
    return local_csv_;
  }

 private slots:
  void initTestCase() {
    // The rigid capture: the debris' mass (one value refused by the loader: those runs fail) x its
    // rate scaled, with the grasp point dispersed. 12 runs.
    file_ = dir("campaign.yaml");
    std::ofstream(file_) << "format: 1\nname: engines\nscenario: " << kSource << "/scenarios/capture_rigid.yaml\n"
                         << "seed: 7\nruns: " << kRuns << "\n"
                         << "grid:\n"
                            "  - {key: debris.mass, values: [1060, -1]}\n"
                            "  - {key: debris.initial.rate_deg_s, name: rate_factor, values: [0.95, 1.05], apply: multiply}\n"
                            "dispersions:\n"
                            "  - {key: \"debris.target[0]\", distribution: uniform, min: -0.02, max: 0.02}\n"
                            "  - {key: chaser.initial.base.attitude, distribution: rotation, sigma_deg: 0.5}\n";
  }

  void LocalEngine_RunsRecordsFailuresAndMerges() {
    const std::string out = dir("local");
    QVERIFY(!localCsv().empty());
    QVERIFY2(local_err_.find("12/12") != std::string::npos, local_err_.c_str());  // the progress line
    QCOMPARE(finishedRuns(out), kRuns);
    QCOMPARE(std::count(local_csv_.begin(), local_csv_.end(), '\n'), static_cast<long>(kRuns + 1));
    const YAML::Node j = YAML::LoadFile(out + "/campaign.json");
    QCOMPARE(j["completed"].as<int>(), kRuns);
    QCOMPARE(j["failures"].as<int>(), kRuns / 2);  // the runs with mass -1
    QVERIFY(j["failed"][0]["error"].as<std::string>().find("debris.mass") != std::string::npos);
    for (int i = 0; i < kRuns; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "/runs/%06d", i);
      const std::string run_dir = out + name;
      const YAML::Node s = YAML::LoadFile(run_dir + "/summary.json");
      QCOMPARE(s["campaign"]["run"].as<int>(), i);
      const bool refused = (i % 4) / 2 == 1;  // grid point i % 4; the mass axis is the slower one
      QCOMPARE(s["metrics"]["outcome"].IsDefined() ? s["metrics"]["outcome"].as<std::string>() == "failed"
                                                    : s["status"].as<std::string>().rfind("failed", 0) == 0,
               refused);
      if (refused) continue;
      // Dispersions applied: the values the simulation used equal those written.
      const YAML::Node assigned = s["campaign"]["assigned"], effective = s["campaign"]["effective"];
      QCOMPARE(effective.size(), assigned.size());
      QCOMPARE(assigned.size(), std::size_t{4});
      for (auto it = assigned.begin(); it != assigned.end(); ++it) {
        const std::string key = it->first.as<std::string>();
        const YAML::Node a = it->second, e = effective[key];
        QVERIFY2(e.IsDefined(), key.c_str());
        const std::size_t n = a.IsSequence() ? a.size() : 1;
        double norm = 0;
        for (std::size_t k = 0; k < n; ++k) norm += std::pow(a.IsSequence() ? a[k].as<double>() : a.as<double>(), 2);
        for (std::size_t k = 0; k < n; ++k) {
          const double x = a.IsSequence() ? a[k].as<double>() : a.as<double>();
          const double y = e.IsSequence() ? e[k].as<double>() : e.as<double>();
          // Quaternions come back normalized.
          QVERIFY2(std::abs(x / (n == 4 ? std::sqrt(norm) : 1.0) - y) <= 1e-12 * std::max(1.0, std::abs(x)), key.c_str());
        }
      }
      // The scenario as run, run again by `grapple-cli run`: the same metrics, bit for bit.
      if (i == 1) {
        const Result again = run(kCli, {"run", QString::fromStdString(run_dir + "/scenario.yaml"), "--quiet", "--out",
                                        QString::fromStdString(dir("rerun"))});
        QVERIFY2(again.code == 0, again.err.c_str());
        YAML::Emitter a, b;
        a << YAML::LoadFile(dir("rerun") + "/summary.json")["metrics"];
        b << s["metrics"];
        QCOMPARE(std::string(a.c_str()), std::string(b.c_str()));
      }
    }
    // Run again: everything is done, nothing is redone.
    const Result again = run(kCli, {"campaign", "run", QString::fromStdString(file_), "--out", QString::fromStdString(out)});
    QVERIFY2(again.err.find("12 already done, 0 to run") != std::string::npos, again.err.c_str());
  }

  void GnuParallel_ShardsGiveTheSameCsv() {
    const QString parallel = QStandardPaths::findExecutable("parallel");
    if (parallel.isEmpty()) QSKIP("GNU parallel is not installed (Debian package parallel)");
    const std::string out = dir("parallel");
    const Result r = run(parallel, {"--will-cite", "-j", "2", kCli, "campaign", "run", QString::fromStdString(file_), "--out",
                                    QString::fromStdString(out), "--shard", "{}/3", "--jobs", "1", "--quiet", ":::", "0", "1", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QCOMPARE(finishedRuns(out), kRuns);
    merge(out);
    QVERIFY2(readText(out + "/runs.csv") == localCsv(), "runs.csv differs from the local engine's");
  }

  void Killed_ResumesWithoutRedoing() {
    const std::string out = dir("killed");
    QProcess p;
    p.start(kCli, {"campaign", "run", QString::fromStdString(file_), "--out", QString::fromStdString(out), "--jobs", "1"});
    QVERIFY(p.waitForStarted());
    // Killed (SIGKILL: no chance to tidy up) once a few runs are done.
    for (int k = 0; k < 1200 && finishedRuns(out) < 3; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    QVERIFY(finishedRuns(out) >= 3);
    kill(static_cast<pid_t>(p.processId()), SIGKILL);
    p.waitForFinished();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // an orphaned run may still publish
    const int before = finishedRuns(out);
    QVERIFY2(before < kRuns, "the campaign finished before it was killed");
    std::map<std::string, std::pair<ino_t, long>> stamps;
    for (const auto& e : fs::directory_iterator(out + "/runs")) {
      if (e.path().filename().string()[0] == '.') continue;
      struct stat st{};
      QCOMPARE(stat((e.path() / "summary.json").c_str(), &st), 0);
      stamps[e.path().string()] = {st.st_ino, st.st_mtim.tv_nsec + 1000000000L * (st.st_mtim.tv_sec % 100000)};
    }
    const Result r = run(kCli, {"campaign", "run", QString::fromStdString(file_), "--out", QString::fromStdString(out), "--jobs", "2"});
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY2(r.err.find(std::to_string(before) + " already done, " + std::to_string(kRuns - before) + " to run") != std::string::npos, r.err.c_str());
    QCOMPARE(finishedRuns(out), kRuns);
    for (const auto& [path, stamp] : stamps) {
      struct stat st{};
      QCOMPARE(stat((path + "/summary.json").c_str(), &st), 0);
      QVERIFY2(st.st_ino == stamp.first && st.st_mtim.tv_nsec + 1000000000L * (st.st_mtim.tv_sec % 100000) == stamp.second,
               (path + " was redone").c_str());
    }
    merge(out);
    QVERIFY2(readText(out + "/runs.csv") == localCsv(), "runs.csv differs from the local engine's");
  }

  void Slurm_JobArrayGivesTheSameCsv() {
    SlurmCluster cluster(dir("slurm-cluster"));
    const std::string why = cluster.start();
    if (!why.empty()) QSKIP(qPrintable(QString::fromStdString("no Slurm cluster could be started here: " + why)));
    const std::string out = dir("slurm");
    const Result dry = run(kCli, {"campaign", "slurm", QString::fromStdString(file_), "--out", QString::fromStdString(out),
                                  "--array-size", "4", "--dry-run"});
    QVERIFY2(dry.code == 0, dry.err.c_str());
    QVERIFY(dry.out.find("#SBATCH --array=0-3") != std::string::npos);
    QVERIFY(!fs::exists(out + "/runs"));  // a dry run writes nothing
    const Result r = run(kCli, {"campaign", "slurm", QString::fromStdString(file_), "--out", QString::fromStdString(out),
                                "--array-size", "4", "--partition", "grapple"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const std::string job = r.out.substr(r.out.find("Slurm job ") + 10, r.out.find(" (") - r.out.find("Slurm job ") - 10);
    for (int k = 0; k < 600; ++k) {
      const Result q = run("squeue", {"-h", "-j", QString::fromStdString(job)});
      if (q.code == 0 && q.out.find_first_not_of(" \n") == std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    QVERIFY2(finishedRuns(out) == kRuns, readText(out + "/slurm/task-0.log").c_str());
    merge(out);
    QVERIFY2(readText(out + "/runs.csv") == localCsv(), "runs.csv differs from the local engine's");
  }
};

QTEST_GUILESS_MAIN(TestCampaignEngines)
#include "test_campaign_engines.moc"
