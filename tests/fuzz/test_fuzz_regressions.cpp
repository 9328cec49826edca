// The fuzz targets' inputs replayed in the ordinary build (no clang, no libFuzzer): every input
// that once crashed a target or made it report a defect (tests/fuzz/regressions/TARGET/), and the
// targets' seeds. Each target aborts on a defect (an exception other than LoadError, a saved
// scenario that does not load again); under scripts/sanitize.sh the same replay runs with
// AddressSanitizer and UndefinedBehaviorSanitizer.
#include <QtTest>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

// The targets' entry points, renamed (tests/CMakeLists.txt) so that the five link together.
extern "C" int fuzz_scenario(const std::uint8_t* data, std::size_t size);
extern "C" int fuzz_robot_yaml(const std::uint8_t* data, std::size_t size);
extern "C" int fuzz_urdf(const std::uint8_t* data, std::size_t size);
extern "C" int fuzz_probe_state(const std::uint8_t* data, std::size_t size);
extern "C" int fuzz_campaign(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;
using Target = int (*)(const std::uint8_t*, std::size_t);
const fs::path kSource = GRAPPLE_SOURCE_DIR;

std::string contents(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The files of dir whose names start with prefix and end with suffix, sorted.
std::vector<fs::path> filesIn(const fs::path& dir, const std::string& prefix = "", const std::string& suffix = "") {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs the target on each input; the number of inputs it returned 0 for.
int replayInputs(Target target, const std::vector<std::string>& inputs) {
  int n = 0;
  for (const std::string& data : inputs) {
    n += target(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()) == 0 ? 1 : 0;
  }
  return n;
}

// A target's inputs: the ones that once crashed it, then the seeds scripts/fuzz.sh starts from.
std::vector<std::string> inputsOf(const std::string& target) {
  std::vector<fs::path> files = filesIn(kSource / "tests/fuzz/regressions" / target);
  auto add = [&](const std::vector<fs::path>& more) { files.insert(files.end(), more.begin(), more.end()); };
  std::vector<std::string> inputs;
  if (target == "fuzz_scenario") {
    add(filesIn(kSource / "scenarios", "", ".yaml"));
    add(filesIn(kSource / "tests/fuzz/seeds", "scenario_"));
  } else if (target == "fuzz_robot_yaml") {
    add(filesIn(kSource / "scenarios/robots", "", ".yaml"));
  } else if (target == "fuzz_urdf") {
    add(filesIn(kSource / "tests/data", "", ".urdf"));
  } else if (target == "fuzz_campaign") {
    add(filesIn(kSource / "scenarios/campaigns", "", ".yaml"));
    add(filesIn(kSource / "tests/fuzz/seeds", "campaign_"));
  } else {
    add(filesIn(kSource / "tests/fuzz/seeds", "probe_"));
    for (const fs::path& f : filesIn(kSource / "tests/data", "", "_state.json")) inputs.push_back("0" + contents(f));
  }
  for (const fs::path& f : files) inputs.push_back(contents(f));
  return inputs;
}

}  // namespace

class TestFuzzRegressions : public QObject {
  Q_OBJECT

 private slots:
  void replay_data() {
    QTest::addColumn<QString>("target");
    for (const char* t : {"fuzz_scenario", "fuzz_robot_yaml", "fuzz_urdf", "fuzz_probe_state", "fuzz_campaign"}) QTest::newRow(t) << t;
  }
  void replay() {
    QFETCH(QString, target);
    const std::map<QString, Target> targets = {{"fuzz_scenario", fuzz_scenario},
                                               {"fuzz_robot_yaml", fuzz_robot_yaml},
                                               {"fuzz_urdf", fuzz_urdf},
                                               {"fuzz_probe_state", fuzz_probe_state},
                                               {"fuzz_campaign", fuzz_campaign}};
    const std::vector<std::string> inputs = inputsOf(target.toStdString());
    QVERIFY(!inputs.empty());
    QCOMPARE(replayInputs(targets.at(target), inputs), static_cast<int>(inputs.size()));
    qInfo("%s: %zu inputs replayed", qPrintable(target), inputs.size());
  }
};

QTEST_APPLESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
