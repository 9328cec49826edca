// Edits of a scenario's YAML document by path (core/io/scenario_document), without Qt: paths
// parsed as --set and the scenario editor write them (and refused with the reason); lookups never
// insert; set, remove, duplicate (names made unique) and move act on the document in place and
// keep the rest as it was; the robot reference follows a scenario saved elsewhere.
#include <QtTest>

#include <filesystem>

#include "core/io/scenario_document.hpp"
#include "core/io/scenario_yaml.hpp"

using namespace grapple::core;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

std::string pathText(const std::vector<PathStep>& steps) {
  std::string s;
  for (const PathStep& p : steps) s += p.index >= 0 ? "[" + std::to_string(p.index) + "]" : "/" + p.key;
  return s;
}

// The names of a list's items.
std::string names(const YAML::Node& list) {
  std::string s;
  for (const YAML::Node& n : list) s += (s.empty() ? "" : " ") + n["name"].as<std::string>();
  return s;
}

const char* kRobot =
    "model:\n"
    "  links:\n"
    "    - {name: a, joint: {name: j1}}\n"
    "    - {name: b, joint: {name: j2}}\n"
    "    - {name: c, joint: {name: j3}}\n";

}  // namespace

class TestScenarioDocument : public QObject {
  Q_OBJECT

 private slots:
  void PathsParsedOrRefusedWithTheReason() {
    QCOMPARE(pathText(parseDocumentPath("controllers[1].kd")), std::string("/controllers[1]/kd"));
    QCOMPARE(pathText(parseDocumentPath("debris.initial.rate_deg_s[2]")), std::string("/debris/initial/rate_deg_s[2]"));
    QCOMPARE(pathText(parseDocumentPath("a.b[2][3].c")), std::string("/a/b[2][3]/c"));
    QCOMPARE(pathText(parseDocumentPath("a.[0]")), std::string("/a[0]"));
    for (const auto& [bad, reason] : {std::pair{"run..duration", "empty key component"},
                                      std::pair{"controllers[x].kd", "expected NAME or NAME[INDEX]"},
                                      std::pair{"controllers[1.kd", "expected NAME or NAME[INDEX]"},
                                      std::pair{"a[1234567]", "expected NAME or NAME[INDEX]"},
                                      std::pair{".a", "empty key component"}, std::pair{"", "empty key"}}) {
      try {
        parseDocumentPath(bad);
        QFAIL(("accepted '" + std::string(bad) + "'").c_str());
      } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find(reason) != std::string::npos, e.what());
      }
    }
  }

  void LookupsNeverInsert() {
    const YAML::Node doc = YAML::Load(kRobot);
    const std::string before = documentText(doc);
    QVERIFY(nodeAt(doc, parseDocumentPath("model.links[1].joint.name")).has_value());
    QCOMPARE(nodeAt(doc, parseDocumentPath("model.links[1].joint.name"))->as<std::string>(), std::string("j2"));
    QVERIFY(!nodeAt(doc, parseDocumentPath("model.links[3]")).has_value());
    QVERIFY(!nodeAt(doc, parseDocumentPath("model.nothing.here")).has_value());
    QVERIFY(!nodeAt(doc, parseDocumentPath("model.links.name")).has_value());
    QCOMPARE(documentText(doc), before);
  }

  void SetRemoveDuplicateMove() {
    YAML::Node doc = YAML::Load(kRobot);
    setNode(doc, parseDocumentPath("model.links[1].mass"), YAML::Load("30"));
    QCOMPARE(doc["model"]["links"][1]["mass"].as<double>(), 30.0);
    setNode(doc, parseDocumentPath("model.links[0].name"), YAML::Node("z"));
    QCOMPARE(names(doc["model"]["links"]), std::string("z b c"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, setNode(doc, parseDocumentPath("model.links[5].mass"), YAML::Load("1")));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, setNode(doc, parseDocumentPath("model.none.mass"), YAML::Load("1")));

    duplicateItem(doc, parseDocumentPath("model.links[1]"));
    duplicateItem(doc, parseDocumentPath("model.links[1]"));
    QCOMPARE(names(doc["model"]["links"]), std::string("z b b_copy2 b_copy c"));
    QCOMPARE(doc["model"]["links"][2]["joint"]["name"].as<std::string>(), std::string("j2_copy2"));
    QCOMPARE(doc["model"]["links"][2]["mass"].as<double>(), 30.0);  // a copy of the item, all of it

    moveItem(doc, parseDocumentPath("model.links[4]"), -4);
    QCOMPARE(names(doc["model"]["links"]), std::string("c z b b_copy2 b_copy"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, moveItem(doc, parseDocumentPath("model.links[0]"), -1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, moveItem(doc, parseDocumentPath("model.links"), 1));

    removeNode(doc, parseDocumentPath("model.links[2]"));
    QCOMPARE(names(doc["model"]["links"]), std::string("c z b_copy2 b_copy"));
    removeNode(doc, parseDocumentPath("model.links[0].joint"));
    QVERIFY(!doc["model"]["links"][0]["joint"].IsDefined());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, removeNode(doc, parseDocumentPath("model.links[9]")));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, duplicateItem(doc, parseDocumentPath("model.links[0].name")));
  }

  // On a built-in scenario: the edits give documents the loader takes, with the change made.
  void EditsOfABuiltInScenarioValidate() {
    const std::string path = kSource + "/scenarios/capture_rigid.yaml";
    YAML::Node doc = readScenarioDocument(path);
    const std::size_t n = loadScenarioDocument(path, doc).scenario.controllers.size();
    duplicateItem(doc, parseDocumentPath("controllers[0]"));
    moveItem(doc, parseDocumentPath("controllers[2]"), -2);  // the capture first
    setNode(doc, parseDocumentPath("run.duration"), YAML::Load("3"));
    const LoadedScenario s = loadScenarioDocument(path, doc);
    QCOMPARE(s.scenario.controllers.size(), n + 1);
    QCOMPARE(s.scenario.controllers[0].type, ControllerType::kCapture);
    QCOMPARE(s.scenario.run.duration, 3.0);
  }

  void WithModelReplacesOrFollowsTheRobot() {
    const YAML::Node doc = YAML::Load("format: 1\nchaser: {robot: r.yaml, base_mode: floating}\nrun: {duration: 1}\n");
    const YAML::Node model = YAML::Load(kRobot)["model"];
    const YAML::Node embedded = withModel(doc, model, false);
    QVERIFY(!embedded["chaser"]["robot"].IsDefined());
    QCOMPARE(names(embedded["chaser"]["model"]["links"]), std::string("a b c"));
    std::string keys;
    for (auto it = embedded["chaser"].begin(); it != embedded["chaser"].end(); ++it) keys += it->first.Scalar() + " ";
    QCOMPARE(keys, std::string("model base_mode "));  // in the robot's place
    QVERIFY(withModel(doc, model, true)["chaser"]["robot"].IsDefined());
    QVERIFY(!doc["chaser"]["model"].IsDefined());  // the document itself untouched
  }

  void RobotReferenceFollowsTheScenario() {
    QCOMPARE(robotReference("/x/robots/r.yaml", "/x/s.yaml"), std::string("robots/r.yaml"));
    QCOMPARE(robotReference("/x/robots/r.yaml", "/x/sub/s.yaml"), std::string("../robots/r.yaml"));
    QCOMPARE(robotReference("/x/a/../robots/r.yaml", "/x/sub/./s.yaml"), std::string("../robots/r.yaml"));
    const fs::path here = fs::current_path();
    QCOMPARE(robotReference("robots/r.yaml", "s.yaml"), std::string("robots/r.yaml"));
    QCOMPARE(robotReference((here / "r.yaml").string(), (here / "d" / "s.yaml").string()), std::string("../r.yaml"));
  }
};

QTEST_APPLESS_MAIN(TestScenarioDocument)
#include "test_scenario_document.moc"
