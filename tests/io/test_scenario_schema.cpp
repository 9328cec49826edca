// The scenario schema (core/io/scenario_schema): the one list of the format's keys. Checked here:
// every key is listed once, with a line of doc and a default inside its range; the loader enforces
// every range the table states (a value just outside each one, set with --set, is refused and the
// message names the key); every built-in scenario written by the writer and read back is the same
// scenario; the key reference of scenarios/README.md lists exactly the table's keys, with its
// defaults and words; the units the editor shows come from the table.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/io/load_error.hpp"
#include "core/io/scenario_schema.hpp"
#include "core/io/scenario_yaml.hpp"
#include "tests/support/load_files.hpp"
#include "tests/support/scenario_files.hpp"

using namespace grapple::core;
namespace fs = std::filesystem;
using grapple::test::builtInScenarios;
using grapple::test::readText;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

// The key reference of scenarios/README.md: the first yaml block of its "## Scenarios" section.
std::string readmeReference() {
  const std::string text = readText(kSource + "/scenarios/README.md");
  const std::size_t section = text.find("\n## Scenarios");
  const std::size_t begin = text.find("```yaml\n", section);
  const std::size_t end = text.find("\n```", begin + 8);
  if (section == std::string::npos || begin == std::string::npos || end == std::string::npos) return {};
  return text.substr(begin + 8, end - begin - 8);
}

std::string join(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }

// The schema paths of the keys a document holds, and each scalar value written for them.
void walk(const YAML::Node& map, const std::string& section, std::map<std::string, YAML::Node>& found) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.Scalar();
    // A copy: `it->second` is a member of a proxy that dies with the expression (yaml-cpp's
    // iterator), so a range-for over it would read a dead object (found by AddressSanitizer).
    const YAML::Node value = it->second;
    std::string path = join(section, name);
    if (!scenarioKey(path) && scenarioKey(join(section, "*"))) path = join(section, "*");
    found[path] = value;
    const ScenarioKey* key = scenarioKey(path);
    if (!key) continue;  // not in the table: reported by the caller
    if (key->type == KeyType::kSection && value.IsMap()) walk(value, path, found);
    if (key->type == KeyType::kNames && value.IsMap()) walk(value, path, found);
    if (key->type == KeyType::kList && value.IsSequence()) {
      for (const YAML::Node& item : value) {
        if (!item.IsMap()) continue;
        if (scenarioKey(path + "[].type") && item["type"].IsScalar()) {
          found[path + "[].type"] = item["type"];
          YAML::Node rest = YAML::Clone(item);
          rest.remove("type");
          walk(rest, path + "[" + item["type"].Scalar() + "]", found);
        } else {
          walk(item, path + "[]", found);
        }
      }
    }
  }
}

}  // namespace

class TestScenarioSchema : public QObject {
  Q_OBJECT

 private slots:
  // Each key once, documented, its default (where it has one) inside its range, a choice's
  // default among its words.
  void EveryKeyOnceDocumentedWithAValidDefault() {
    std::set<std::string> paths;
    for (const ScenarioKey& k : scenarioSchema()) {
      QVERIFY2(paths.insert(k.path()).second, ("listed twice: " + k.path()).c_str());
      QVERIFY2(!k.doc.empty() || k.key == "*", ("no doc: " + k.path()).c_str());
      if (k.default_value.empty()) continue;
      if (k.type == KeyType::kNumber || k.type == KeyType::kInteger) {
        QVERIFY2(k.range.contains(std::stod(k.default_value)), (k.path() + ": default " + k.default_value).c_str());
      }
      if (k.type == KeyType::kChoice) {
        QVERIFY2(std::count(k.choices.begin(), k.choices.end(), k.default_value) == 1, k.path().c_str());
      }
    }
    QVERIFY(paths.size() > 150);
    for (const char* p : {"run.duration", "controllers[capture].window.horizon", "controllers[].type",
                          "chaser.initial.joints.*.position", "controllers[torque_windows].windows[].divisor",
                          "sensors.camera.filter.sigma_rate_deg_s", "debris.initial.rate_deg_s"}) {
      QVERIFY2(scenarioKey(p) != nullptr, p);
    }
    QCOMPARE(scenarioKey("controllers[capture].kp")->default_value, std::string("4"));  // not the struct's 0
    QCOMPARE(scenarioKey("controllers[joint_trajectory].kp")->default_value, std::string("0"));
    QCOMPARE(scenarioKey("environment.drag.enabled")->default_value, std::string("true"));  // when given
    QCOMPARE(scenarioKey("controllers[aerial].rotors")->range.text(), std::string("in [3, 12]"));
    QCOMPARE(scenarioKey("controllers[capture].w_u")->range.text(), std::string("> 0"));
  }

  // Every range of the table is the loader's: on capture_rigid.yaml (its controllers[1] a
  // capture), each number of a map section (not of a list item but the capture) set just outside
  // its range is refused, naming the key, and set to its default is accepted.
  void LoaderEnforcesEveryRangeOfTheTable() {
    const std::string path = kSource + "/scenarios/capture_rigid.yaml";
    int refused = 0;
    for (const ScenarioKey& k : scenarioSchema()) {
      if (k.type != KeyType::kNumber && k.type != KeyType::kInteger) continue;
      std::string at = k.path();
      if (at.rfind("controllers[capture].", 0) == 0) {
        at.replace(0, std::string("controllers[capture]").size(), "controllers[1]");
      }
      if (at.find('[') != std::string::npos && at.rfind("controllers[1].", 0) != 0) continue;
      if (at.find('*') != std::string::npos) continue;
      // (A star tracker feeds the gyro's attitude filter: it needs the gyro.)
      std::vector<std::pair<std::string, std::string>> set;
      if (at.rfind("sensors.star_tracker.", 0) == 0) set.emplace_back("sensors.gyro.history", "2");
      auto with = [&set, &at](const std::string& value) {
        auto s = set;
        s.emplace_back(at, value);
        return s;
      };
      std::vector<double> outside;
      if (std::isfinite(k.range.lo)) outside.push_back(k.range.lo_open ? k.range.lo : k.range.lo - 1);
      if (std::isfinite(k.range.hi)) outside.push_back(k.range.hi_open ? k.range.hi : k.range.hi + 1);
      for (double x : outside) {
        std::ostringstream v;
        v << x;
        const std::string what = grapple::test::loadErrorOf([&] { loadScenario(path, with(v.str())); });
        QVERIFY2(what.find(at + ":") != std::string::npos, (at + "=" + v.str() + ": " + what).c_str());
        ++refused;
      }
      if (!k.default_value.empty()) {
        try {
          loadScenario(path, with(k.default_value));
        } catch (const LoadError& e) {
          QFAIL((at + "=" + k.default_value + " (the default) refused: " + e.what()).c_str());
        }
      }
    }
    qInfo("%d values outside their range refused", refused);
    QVERIFY(refused > 60);
  }

  // The options that are words: the table's choices are the enums' words, a value read is the
  // enum's, and a wrong word is refused at its line with the words expected.
  void OptionsAreEnumsReadFromTheirWords() {
    auto words = [](const char* path) { return scenarioKey(path)->choices; };
    auto table = [](const auto& t) {
      std::vector<std::string> w;
      for (const auto& e : t) w.push_back(e.word);
      return w;
    };
    QVERIFY(words("controllers[capture].law") == table(kCaptureLawWords));
    QVERIFY(words("controllers[capture].arm_pd") == table(kArmPdWords));
    QVERIFY(words("controllers[capture].matching") == table(kCaptureMatchingWords));
    QVERIFY(words("controllers[capture].reaction_inverse") == table(kReactionInverseWords));
    QVERIFY(words("controllers[joint_trajectory].profile") == table(kPathProfileWords));
    const std::string path = kSource + "/scenarios/capture_rigid.yaml";
    const LoadedScenario s = loadScenario(path, {{"controllers[1].law", "transpose_jacobian"},
                                                 {"controllers[1].arm_pd", "centralized"},
                                                 {"controllers[1].matching", "position"}});
    QCOMPARE(s.scenario.controllers[1].capture.law, CaptureLaw::kTransposeJacobian);
    QCOMPARE(s.scenario.controllers[1].capture.arm_pd, ArmPd::kCentralized);
    QCOMPARE(s.scenario.controllers[1].capture.matching, CaptureMatching::kPosition);
    QVERIFY(scenarioToYaml(s.scenario).find("law: transpose_jacobian") != std::string::npos);
    grapple::test::Files f;
    const std::string bad = f.write("bad.yaml", "format: 1\nchaser:\n  robot: " + kSource +
                                                    "/scenarios/robots/mda_deos.yaml\ncontrollers:\n"
                                                    "  - {type: capture, law: joint_p}\n");
    EXPECT_LOAD_ERROR(loadScenario(bad), bad, 5, "controllers[0].law: 'joint_p' is not one of: resolved_acceleration "
                                                 "resolved_rate transpose_jacobian joint_pd (did you mean 'joint_pd'?)");
  }

  void BuiltIn_WrittenAndReadBackIdentical_data() {
    QTest::addColumn<QString>("file");
    for (const std::string& f : builtInScenarios()) {
      QTest::newRow(fs::path(f).filename().string().c_str()) << QString::fromStdString(f);
    }
  }
  // The writer writes every field (defaults included, doubles to 17 digits): the text read back
  // and written again is the same text, so the scenario read back is the same scenario. Every key
  // it writes is in the table.
  void BuiltIn_WrittenAndReadBackIdentical() {
    QFETCH(QString, file);
    const LoadedScenario a = loadScenario(file.toStdString());
    const std::string text = scenarioToYaml(a.scenario);
    const LoadedScenario b = loadScenarioText(text, file.toStdString());
    QCOMPARE(scenarioToYaml(b.scenario), text);
    QCOMPARE(b.model.nv, a.model.nv);
    QCOMPARE(b.scenario.controllers.size(), a.scenario.controllers.size());
    std::map<std::string, YAML::Node> written;
    walk(YAML::Load(text), "", written);
    for (const auto& [p, v] : written) QVERIFY2(scenarioKey(p) != nullptr, ("written, not in the table: " + p).c_str());
  }

  // scenarios/README.md's key reference lists exactly the table's keys (a key shown commented out,
  // `# key:`, counts), every number shown is the table's default where the table has one, and
  // every word shown is one of the key's choices.
  void ReadmeKeyReferenceIsTheTable() {
    const std::string reference = readmeReference();
    QVERIFY(!reference.empty());
    std::map<std::string, YAML::Node> shown;
    walk(YAML::Load(reference), "", shown);
    QStringList problems;
    for (const auto& [path, value] : shown) {
      const ScenarioKey* k = scenarioKey(path);
      if (!k) {
        problems << QString("README shows '%1', which the format does not have").arg(QString::fromStdString(path));
        continue;
      }
      if (!value.IsScalar()) continue;
      if (k->type == KeyType::kChoice &&
          std::find(k->choices.begin(), k->choices.end(), value.Scalar()) == k->choices.end()) {
        problems << QString("%1: README shows '%2', not one of its words").arg(QString::fromStdString(path),
                                                                               QString::fromStdString(value.Scalar()));
      }
      if ((k->type == KeyType::kNumber || k->type == KeyType::kInteger) && !k->default_value.empty() &&
          std::stod(value.Scalar()) != std::stod(k->default_value)) {
        problems << QString("%1: README shows %2, the default is %3")
                        .arg(QString::fromStdString(path), QString::fromStdString(value.Scalar()),
                             QString::fromStdString(k->default_value));
      }
    }
    for (const ScenarioKey& k : scenarioSchema()) {
      if (shown.count(k.path()) || k.key == "*") continue;
      if (std::regex_search(reference, std::regex("#\\s*" + k.key + ":"))) continue;  // shown commented out
      problems << QString("README lacks '%1'").arg(QString::fromStdString(k.path()));
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
  }

  // The editor's units: the table's, found from a place in a document (a typed list's item by its
  // type, a map of names by "*", a vector's component by the vector).
  void KeyAtADocumentPlace() {
    const YAML::Node doc = YAML::Load(readText(kSource + "/scenarios/capture_rigid.yaml"));
    auto unit = [&](std::vector<PathStep> steps) {
      const ScenarioKey* k = scenarioKeyAt(doc, steps);
      return k ? k->unit : std::string("(none)");
    };
    QCOMPARE(unit({{"controllers"}, {"", 1}, {"window"}, {"horizon"}}), std::string("s"));
    QCOMPARE(unit({{"controllers"}, {"", 1}, {"kp"}}), std::string("1/s²"));
    QCOMPARE(unit({{"debris"}, {"initial"}, {"rate_deg_s"}, {"", 1}}), std::string("deg/s"));
    QCOMPARE(unit({{"chaser"}, {"initial"}, {"joints"}, {"joint2"}, {"position"}}), std::string("rad or m"));
    QCOMPARE(unit({{"environment"}, {"drag"}, {"density"}}), std::string("kg/m³"));
    QCOMPARE(unit({{"run"}, {"record_rate"}}), std::string("Hz"));
    QCOMPARE(unit({{"run"}, {"no_such_key"}}), std::string("(none)"));
    const ScenarioKey* type = scenarioKeyAt(doc, {{"controllers"}, {"", 0}, {"type"}});
    QVERIFY(type != nullptr);
    QCOMPARE(type->choices.size(), std::size_t(4));
  }
};

QTEST_APPLESS_MAIN(TestScenarioSchema)
#include "test_scenario_schema.moc"
