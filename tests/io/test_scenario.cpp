// Scenario files: every built-in scenario loads, and load → save → load gives the same scenario;
// each kind of bad input names its file, line and what was expected; mutated files never crash
// the loader; saving is atomic, and a save into a full or read-only place keeps the previous file
// and says why.
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "core/io/load_error.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/atomic_file.hpp"
#include "tests/support/fault_places.hpp"
#include "tests/support/load_files.hpp"
#include "tests/support/scenario_files.hpp"

using namespace grapple::core;
using grapple::test::Files;
using grapple::test::builtInScenarios;
using grapple::test::readText;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GRAPPLE_SOURCE_DIR;

// A small valid scenario (free-floating MDA arm, debris, one controller); line numbers below
// refer to it.
std::string validScenario() {
  return "format: 1\n"                                                     // 1
         "name: test\n"                                                    // 2
         "chaser:\n"                                                       // 3
         "  robot: " + kSource + "/scenarios/robots/mda_deos.yaml\n"       // 4
         "  initial:\n"                                                    // 5
         "    joints:\n"                                                   // 6
         "      joint2: {position: 0.5}\n"                                 // 7
         "debris:\n"                                                       // 8
         "  mass: 1060\n"                                                  // 9
         "  inertia: {xx: 1440, yy: 1120, zz: 2250, xy: -64}\n"            // 10
         "  target: [0, 0, 1.885]\n"                                       // 11
         "  initial:\n"                                                    // 12
         "    position: [7.2, 0, -1.3]\n"                                  // 13
         "    rate_deg_s: [4, 0, 0]\n"                                     // 14
         "controllers:\n"                                                  // 15
         "  - type: joint_trajectory\n"                                    // 16
         "    duration: 5\n"                                               // 17
         "    target: {joint2: 1.0}\n"                                     // 18
         "run:\n"                                                          // 19
         "  duration: 2\n"                                                 // 20
         "  integrator: dopri5\n";                                         // 21
}

// validScenario() with the first occurrence of `from` replaced by `to`.
std::string mutated(const std::string& from, const std::string& to) {
  std::string s = validScenario();
  const auto at = s.find(from);
  if (at == std::string::npos) qFatal("test scenario lacks '%s'", from.c_str());
  return s.replace(at, from.size(), to);
}

}  // namespace

class TestScenario : public QObject {
  Q_OBJECT

 private slots:
  void BuiltIn_LoadAndRoundTrip_data() {
    QTest::addColumn<QString>("file");
    for (const std::string& f : builtInScenarios()) {
      QTest::newRow(fs::path(f).filename().string().c_str()) << QString::fromStdString(f);
    }
    QVERIFY(builtInScenarios().size() >= 3);
  }
  // Every file in scenarios/ loads; saved elsewhere (the robot reference rewritten) and loaded
  // again, it writes the very same text, and the model is the same.
  void BuiltIn_LoadAndRoundTrip() {
    QFETCH(QString, file);
    const LoadedScenario a = loadScenario(file.toStdString());
    Files dir;
    const std::string saved = dir.dir() + "/sub/copy.yaml";
    fs::create_directories(dir.dir() + "/sub");
    saveScenario(a.scenario, saved);
    QVERIFY(!fs::exists(saved + ".tmp"));
    const LoadedScenario b = loadScenario(saved);
    QCOMPARE(b.model.nv, a.model.nv);
    QCOMPARE(b.model.name, a.model.name);
    QCOMPARE(fs::canonical(b.scenario.chaser.robot_path), fs::canonical(a.scenario.chaser.robot_path));
    saveScenario(b.scenario, dir.dir() + "/sub/copy2.yaml");
    QCOMPARE(readText(dir.dir() + "/sub/copy2.yaml"), readText(saved));
    // Field by field, what the text cannot hide.
    QCOMPARE(b.scenario.name, a.scenario.name);
    QCOMPARE(b.scenario.run.duration, a.scenario.run.duration);
    QCOMPARE(b.scenario.run.integrator, a.scenario.run.integrator);
    QCOMPARE(b.scenario.run.quasi_static_pair, a.scenario.run.quasi_static_pair);
    QCOMPARE(b.scenario.controllers.size(), a.scenario.controllers.size());
    QCOMPARE(b.scenario.debris.enabled, a.scenario.debris.enabled);
    QVERIFY(b.scenario.debris.properties.inertia == a.scenario.debris.properties.inertia);
    QVERIFY((b.scenario.debris.initial.w_B - a.scenario.debris.initial.w_B).norm() <=
            1e-15 * (1 + a.scenario.debris.initial.w_B.norm()));
    QVERIFY(b.scenario.chaser.initial.joint_position == a.scenario.chaser.initial.joint_position);
    QVERIFY(b.scenario.chaser.initial.mode_position == a.scenario.chaser.initial.mode_position);
    QVERIFY(b.scenario.chaser.structural_damping == a.scenario.chaser.structural_damping);
  }

  // chaser.structural_damping gives D = 2 ξ ω m to the modes that have none (the arm segments of
  // robots/chaser.yaml) and leaves the arrays' own 0.005 alone; ξ must be in [0, 1).
  void StructuralDamping() {
    const std::string path = kSource + "/scenarios/capture_flexible.yaml";
    const LoadedScenario none = loadScenario(path, {{"chaser.structural_damping", "0"}});
    const LoadedScenario some = loadScenario(path, {{"chaser.structural_damping", "0.02"}});
    int damped = 0;
    for (std::size_t b = 0; b < some.model.flex.size(); ++b) {
      const auto& f0 = none.model.flex[b];
      const auto& f1 = some.model.flex[b];
      if (f1.nf == 0) continue;
      if (f0.D.isZero(0.0)) {
        ++damped;
        for (int j = 0; j < f1.nf; ++j) {
          // ξ = D_jj / (2 ω_j m_j), m_j = K_jj / ω_j²
          const double xi = f1.D(j, j) * f1.frequency[j] / (2 * f1.K(j, j));
          QVERIFY(std::abs(xi - 0.02) < 1e-12);
        }
      } else {
        QVERIFY(f1.D == f0.D);
      }
    }
    QCOMPARE(damped, 2);  // the two flexible arm segments
    EXPECT_LOAD_ERROR(loadScenario(path, {{"chaser.structural_damping", "1.5"}}), path, 0, "damping ratio");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"chaser.structural_damping", "-0.1"}}), path, 0, "structural_damping");
  }

  void Overrides_ChangeFieldsAndAreValidated() {
    Files f;
    const std::string path = f.write("s.yaml", validScenario());
    const LoadedScenario s = loadScenario(path, {{"run.duration", "7.5"},
                                                 {"debris.initial.rate_deg_s", "[0, 0, 11]"},
                                                 {"run.integrator", "rk43"}});
    QCOMPARE(s.scenario.run.duration, 7.5);
    QCOMPARE(s.scenario.run.integrator, IntegratorType::kRk43);
    QVERIFY(std::abs(s.scenario.debris.initial.w_B.z() - 11 * M_PI / 180) < 1e-15);
    // Values set on the command line have no line in the file.
    EXPECT_LOAD_ERROR(loadScenario(path, {{"run.duraton", "3"}}), path, 0, "did you mean 'duration'");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"run.duration", "-3"}}), path, 0, "(with --set run.duration=-3)");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"run..duration", "3"}}), path, 0, "empty key component");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"name.x", "3"}}), path, 0, "'name' is not a map");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"run.duration", "[1, "}}), path, 0, "--set run.duration");
  }

  // `--set key=value` as both command lines read it: split at the first '=', the value kept as
  // written (empty, or holding '='); no '=' or no key is refused. The pair read from the text
  // changes the scenario as the pair written by hand does.
  void Overrides_ParsedFromTheCommandLine() {
    using Pair = std::pair<std::string, std::string>;
    QCOMPARE(parseOverride("run.duration=7.5"), Pair("run.duration", "7.5"));
    QCOMPARE(parseOverride("controllers[1].kd=2"), Pair("controllers[1].kd", "2"));
    QCOMPARE(parseOverride("debris.initial.rate_deg_s=[0, 0, 8]"), Pair("debris.initial.rate_deg_s", "[0, 0, 8]"));
    QCOMPARE(parseOverride("name=a=b"), Pair("name", "a=b"));
    QCOMPARE(parseOverride("name="), Pair("name", ""));
    for (const char* bad : {"run.duration", "=5", "", "run.duration 5"}) {
      try {
        parseOverride(bad);
        QFAIL(("accepted '" + std::string(bad) + "'").c_str());
      } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()) == "expects key=value, got '" + std::string(bad) + "'", e.what());
      }
    }
    Files f;
    const std::string path = f.write("s.yaml", validScenario());
    const LoadedScenario s = loadScenario(path, {parseOverride("run.duration=7.5"), parseOverride("debris.initial.rate_deg_s=[0,0,11]")});
    QCOMPARE(s.scenario.run.duration, 7.5);
    QVERIFY(std::abs(s.scenario.debris.initial.w_B.z() - 11 * M_PI / 180) < 1e-15);
  }

  // List entries by index: a controller's field, one component of a vector; the list must have
  // the entry, and an index must be one.
  void Overrides_IndexLists() {
    const std::string path = kSource + "/scenarios/capture_rigid.yaml";
    const LoadedScenario s = loadScenario(path, {{"controllers[1].approach.distance", "0.3"},
                                                 {"controllers[1].window.horizon", "120"},
                                                 {"debris.initial.rate_deg_s[1]", "6"}});
    QCOMPARE(s.scenario.controllers[1].capture.approach.distance, 0.3);
    QCOMPARE(s.scenario.controllers[1].capture.window.horizon, 120.0);
    QCOMPARE(s.scenario.controllers[0].kp, loadScenario(path).scenario.controllers[0].kp);
    QVERIFY(std::abs(s.scenario.debris.initial.w_B.y() - 6 * M_PI / 180) < 1e-15);
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[2].kd", "1"}}), path, 0, "'controllers' has 2 entries");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"run[0]", "1"}}), path, 0, "'run' is not a list");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[x].kd", "1"}}), path, 0, "expected NAME or NAME[INDEX]");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[1.kd", "1"}}), path, 0, "expected NAME or NAME[INDEX]");
    EXPECT_LOAD_ERROR(loadScenario(path, {{"controllers[1].approach.distance", "-1"}}), path, 0, "approach.distance");
  }

  // One bad input per row: the file's line and a fragment saying what was expected.
  void Malformed_NameFileLineAndExpectation_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("fragment");
    auto row = [](const char* name, const std::string& text, int line, const char* fragment) {
      QTest::newRow(name) << QString::fromStdString(text) << line << QString(fragment);
    };
    row("wrong type", mutated("duration: 2", "duration: two"), 20, "run.duration: expected a number");
    row("negative mass", mutated("mass: 1060", "mass: -1060"), 9, "debris.mass");
    row("zero mass", mutated("mass: 1060", "mass: 0"), 9, "debris.mass");
    row("non-PD inertia", mutated("xx: 1440", "xx: -1440"), 10, "inertia");
    row("triangle inequality", mutated("zz: 2250", "zz: 9000"), 10, "inertia");
    row("missing mass", mutated("  mass: 1060\n", ""), 9, "debris: missing key 'mass'");
    row("missing chaser", mutated("chaser:", "chasr:"), 3, "did you mean 'chaser'");
    row("missing robot", mutated("mda_deos.yaml", "nope.yaml"), 4, "no robot file");
    row("unknown key", mutated("  integrator: dopri5", "  integrater: dopri5"), 21, "did you mean 'integrator'");
    row("bad choice", mutated("integrator: dopri5", "integrator: dopri8"), 21, "dopri5");
    row("quasi_static pair", mutated("integrator: dopri5", "integrator: quasi_static\n  quasi_static_pair: ros34pw2"), 22,
        "run.quasi_static_pair: 'ros34pw2' is not one of: dopri5 rk43");
    row("unknown joint", mutated("joint2: {position: 0.5}", "joint9: {position: 0.5}"), 7, "joint9");
    row("unknown joint in target", mutated("target: {joint2: 1.0}", "target: {jont2: 1.0}"), 18, "jont2");
    row("not finite", mutated("duration: 2", "duration: .nan"), 20, "got '.nan'");
    row("zero quaternion", mutated("rate_deg_s: [4, 0, 0]", "attitude: [0, 0, 0, 0]"), 14, "quaternion");
    row("short vector", mutated("target: [0, 0, 1.885]", "target: [0, 1.885]"), 11, "3");
    row("wrong format", mutated("format: 1", "format: 2"), 1, "format 1");
    row("no format", mutated("format: 1\n", ""), 0, "scenario: missing key 'format'");
    row("negative duration", mutated("    duration: 5", "    duration: -5"), 17, "duration");
    row("too many rows", mutated("  duration: 2\n", "  duration: 1e9\n"), 20, "record_rate");
    row("RK4 step above the recording interval",
        mutated("integrator: dopri5", "integrator: rk4\n  step: 0.1"), 20, "step");
    const std::string servo = "  - type: joint_trajectory\n    duration: 5\n    target: {joint2: 1.0}\n";
    row("capture weight", mutated(servo, "  - {type: capture, w_u: -1}\n"), 16, "controllers[0].w_u: must be > 0");
    row("capture matching", mutated(servo, "  - {type: capture, matching: speed}\n"), 16, "position_velocity");
    row("joint_pd gains", mutated(servo, "  - {type: capture, law: joint_pd, joint_kp: [1, 2]}\n"), 16,
        "controllers[0].joint_kp: expected 6 gains");
    row("arm_pd", mutated(servo, "  - {type: capture, arm_pd: central}\n"), 16, "centralized");
    row("joint_rolloff count", mutated(servo, "  - {type: capture, law: joint_pd, joint_rolloff: [1, 2]}\n"), 16,
        "controllers[0].joint_rolloff: expected one bandwidth, or 6");
    row("joint_rolloff continuous", mutated(servo, "  - {type: capture, law: joint_pd, joint_rolloff: [3]}\n"), 16,
        "set run.control_rate");
    row("joint_rolloff zero", mutated(servo, "  - {type: capture, law: joint_pd, joint_rolloff: [0]}\n"), 16,
        "joint_rolloff");
    row("rate_filter continuous", mutated(servo, "  - {type: capture, rate_filter: 0.1}\n"), 16, "set run.control_rate");
    row("rate_filter negative", mutated(servo, "  - {type: capture, rate_filter: -0.1}\n"), 16, "rate_filter");
    row("bus rate_filter continuous",
        mutated("  initial:\n    joints:", "  attitude_control: {rate_filter: 0.5}\n  initial:\n    joints:"), 5,
        "chaser.attitude_control.rate_filter: the filter is sampled at the control rate");
    row("feedforward", mutated("  initial:\n    joints:", "  attitude_control: {feedforward: maybe}\n  initial:\n    joints:"),
        5, "attitude_control.feedforward");
    row("capture twice", mutated(servo, "  - {type: capture}\n  - {type: capture}\n"), 17, "one capture controller at most");
    row("syntax error", mutated("name: test", "name: [test"), 3, "end of sequence flow not found");
    const std::string k = validScenario() + "knowledge:\n";  // line 22
    row("knowledge: no such body", k + "  links:\n    segmnt2: {mass: 0.1}\n", 24, "knowledge.links.segmnt2: the robot has no body");
    row("knowledge: a merged link", k + "  links:\n    hub2: {mass: 0.1}\n", 24, "merged into it");
    row("knowledge: inertia count", k + "  bus: {inertia: [0.1, 0.2]}\n", 23, "knowledge.bus.inertia: one relative error, or three");
    row("knowledge: mass range", k + "  payload: {mass: -2}\n", 23, "knowledge.payload.mass: must be > -1");
    row("knowledge: not physical", k + "  links:\n    segment2: {inertia: [0, -0.5, 0]}\n", 24, "triangle inequality");
    row("knowledge: flexible", k + "  flexible: stiff\n", 23, "modes rigid");
    row("sequence for map", mutated("  initial:\n    joints:\n      joint2: {position: 0.5}\n", "  initial: [1, 2]\n"), 5, "chaser.initial");
  }
  void Malformed_NameFileLineAndExpectation() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, fragment);
    Files f;
    const std::string path = f.write("bad.yaml", text.toStdString());
    const std::string what = grapple::test::loadErrorOf([&] { loadScenario(path); });
    qInfo("%s", what.c_str());
    QVERIFY2(!what.empty(), "no LoadError");
    const std::string at = grapple::core::LoadError::format(path, line, "");
    QVERIFY2(what.rfind(at, 0) == 0, ("expected '" + at + "...', got '" + what + "'").c_str());
    QVERIFY2(what.find(fragment.toStdString()) != std::string::npos, what.c_str());
  }

  // The knowledge section: read as written (one inertia error for three axes, or three), written
  // back and read again the same; saved elsewhere, its robot reference follows, like the chaser's.
  void Knowledge_ReadWrittenAndReadBack() {
    Files f;
    fs::create_directories(f.dir() + "/a/robots");
    fs::copy_file(kSource + "/scenarios/robots/mda_deos.yaml", f.dir() + "/a/robots/known.yaml");
    const std::string path = f.write("a/k.yaml", mutated("  target: [0, 0, 1.885]\n", "  target: [0, 0, 1.885]\n  size: [1.5, 1.5, 3.77]\n") +
                                                     "knowledge:\n"
                                                     "  robot: robots/known.yaml\n"
                                                     "  bus: {mass: 0.05, com: [0.01, 0, 0], inertia: -0.1}\n"
                                                     "  links:\n    segment2: {inertia: [0.03, 0.02, 0.02]}\n"
                                                     "  debris: {mass: -0.2, ratios_only: true, grasp_point: [0, 0, 0.01]}\n"
                                                     "  flexible: rigid\n");
    const LoadedScenario a = loadScenario(path);
    QVERIFY(a.scenario.knowledge.has_value());
    const KnowledgeSpec& k = *a.scenario.knowledge;
    QCOMPARE(k.bus->mass, 0.05);
    QVERIFY(k.bus->com == Vector3(0.01, 0, 0));
    QVERIFY(k.bus->inertia == Vector3::Constant(-0.1));
    QVERIFY(k.links.at("segment2").inertia == Vector3(0.03, 0.02, 0.02));
    QVERIFY(!k.payload.has_value());
    QCOMPARE(k.debris.mass, -0.2);
    QVERIFY(k.debris.ratios_only);
    QVERIFY(k.debris.grasp_point == Vector3(0, 0, 0.01));
    QVERIFY(k.rigid);
    QVERIFY(k.robot_model != nullptr);
    QCOMPARE(k.robot_model->nv, a.model.nv);
    const std::string text = scenarioToYaml(a.scenario);
    QVERIFY(text.find("inertia: -0.1") != std::string::npos);
    fs::create_directories(f.dir() + "/b/c");
    saveScenario(a.scenario, f.dir() + "/b/c/k.yaml");
    const LoadedScenario b = loadScenario(f.dir() + "/b/c/k.yaml");
    QCOMPARE(b.scenario.knowledge->robot, std::string("../../a/robots/known.yaml"));
    QCOMPARE(fs::canonical(b.scenario.knowledge->robot_path), fs::canonical(k.robot_path));
    QVERIFY(b.scenario.knowledge->links.at("segment2").inertia == Vector3(0.03, 0.02, 0.02));
    QCOMPARE(scenarioToYaml(b.scenario), scenarioToYaml(loadScenarioText(scenarioToYaml(b.scenario), f.dir() + "/b/c/k.yaml").scenario));
    // No section: none written.
    QVERIFY(scenarioToYaml(loadScenarioText(validScenario(), path).scenario).find("knowledge") == std::string::npos);
  }

  // The adjugate regularization inverts a square [bus; hand] system: 6 joints.
  void AdjugateNeedsSixJoints() {
    Files f;
    const std::string path = f.write("s.yaml", validScenario());
    const std::string what = grapple::test::loadErrorOf([&] {
      loadScenario(path, {{"chaser.robot", kSource + "/scenarios/robots/saha_planar.yaml"},
                          {"chaser.initial", "{}"},
                          {"controllers", "[{type: capture, reaction_inverse: adjugate}]"}});
    });
    QVERIFY2(what.find("6-joint arm; the robot has 3") != std::string::npos, what.c_str());
  }

  // A capture needs a debris to capture.
  void CaptureWithoutDebris() {
    Files f;
    std::string text = validScenario();
    text = text.substr(0, text.find("debris:")) + text.substr(text.find("controllers:"));
    text.replace(text.find("  - type: joint_trajectory"), std::string::npos, "  - {type: capture}\n");
    const std::string path = f.write("nodebris.yaml", text);
    EXPECT_LOAD_ERROR(loadScenario(path), path, 9, "a capture needs a debris");
  }

  void UnreadableFiles() {
    Files f;
    EXPECT_LOAD_ERROR(loadScenario(f.dir() + "/missing.yaml"), f.dir() + "/missing.yaml", 0, "");
    EXPECT_LOAD_ERROR(loadScenario(f.dir()), f.dir(), 0, "");
    const std::string empty = f.write("empty.yaml", "");
    EXPECT_LOAD_ERROR(loadScenario(empty), empty, 0, "");
    const std::string binary = f.write("binary.yaml", std::string("\x00\x01\xff\xfe garbage", 12));
    QVERIFY(!grapple::test::loadErrorOf([&] { loadScenario(binary); }).empty());
    // A robot file that is itself broken reports the robot file's name.
    const std::string bad_robot = f.write("robot.yaml", "name: r\nlinks: [\n");
    const std::string s = f.write("s.yaml", mutated(kSource + "/scenarios/robots/mda_deos.yaml", bad_robot));
    const std::string what = grapple::test::loadErrorOf([&] { loadScenario(s); });
    QVERIFY2(what.rfind(bad_robot, 0) == 0, what.c_str());
  }

  // Mutated files (lines dropped, duplicated or swapped, characters flipped, values replaced by
  // odd tokens): the loader either accepts the file or throws LoadError; nothing else escapes.
  void Fuzz_MutatedScenariosNeverCrash() {
    std::mt19937 rng(5);
    std::vector<std::string> sources{validScenario()};
    for (const std::string& f : builtInScenarios()) {
      std::string text = readText(f);
      // Built-in files name their robot relative to scenarios/: make it absolute.
      const auto at = text.find("robot: robots/");
      if (at != std::string::npos) text.replace(at, 14, "robot: " + kSource + "/scenarios/robots/");
      sources.push_back(text);
    }
    const std::vector<std::string> tokens{"-1", "0", "1e308", ".nan", ".inf", "[]", "{}", "~", "\"\"",
                                          "[1, 2]", "x", "- a", ": :", "&a", "*a", "!!binary AAA"};
    Files files;
    int accepted = 0, rejected = 0;
    for (int trial = 0; trial < 600; ++trial) {
      const std::string& src = sources[trial % sources.size()];
      std::vector<std::string> lines;
      std::stringstream ss(src);
      for (std::string l; std::getline(ss, l);) lines.push_back(l);
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !lines.empty(); ++e) {
        const std::size_t i = rng() % lines.size();
        switch (rng() % 5) {
          case 0: lines.erase(lines.begin() + static_cast<long>(i)); break;
          case 1: lines.insert(lines.begin() + static_cast<long>(i), lines[rng() % lines.size()]); break;
          case 2: std::swap(lines[i], lines[rng() % lines.size()]); break;
          case 3:
            if (!lines[i].empty()) lines[i][rng() % lines[i].size()] = static_cast<char>(32 + rng() % 95);
            break;
          default: {
            const auto colon = lines[i].find(": ");
            if (colon != std::string::npos) lines[i] = lines[i].substr(0, colon + 2) + tokens[rng() % tokens.size()];
          }
        }
      }
      std::string text;
      for (const std::string& l : lines) text += l + "\n";
      const std::string path = files.write("fuzz.yaml", text);
      try {
        loadScenario(path);
        ++accepted;
      } catch (const LoadError& e) {
        ++rejected;
        QVERIFY(std::string(e.what()).rfind(path, 0) == 0);
      } catch (const std::exception& e) {
        QFAIL(("not a LoadError: " + std::string(e.what()) + "\n--- file:\n" + text).c_str());
      }
    }
    qInfo("600 mutated scenarios: %d accepted, %d rejected with a message", accepted, rejected);
    QVERIFY(rejected > 100);
  }

  // chaser.model (the robot embedded, the map of a robot file's `model`) gives the same model as
  // the file it was copied from, survives load → save → load, and its errors name the scenario
  // file and the line inside it; a scenario has exactly one of robot / model.
  void EmbeddedModel_SameAsTheFileAndErrorsNameTheScenario() {
    Files f;
    const std::string robot_file = kSource + "/scenarios/robots/mda_deos.yaml";
    const LoadedScenario by_file = loadScenario(f.write("file.yaml", validScenario()));
    YAML::Node doc = YAML::Load(validScenario());
    YAML::Node chaser;
    for (auto it = doc["chaser"].begin(); it != doc["chaser"].end(); ++it) {
      const std::string key = it->first.Scalar();
      chaser[key == "robot" ? "model" : key] = key == "robot" ? YAML::LoadFile(robot_file)["model"] : it->second;
    }
    doc["chaser"] = chaser;
    YAML::Emitter e;
    e << doc;
    const std::string embedded_path = f.write("embedded.yaml", e.c_str());
    const LoadedScenario by_text = loadScenario(embedded_path);
    const Model& a = by_file.model;
    const Model& b = by_text.model;
    QCOMPARE(b.name, a.name);
    QCOMPARE(b.nbodies, a.nbodies);
    QCOMPARE(b.nq, a.nq);
    QCOMPARE(b.nv, a.nv);
    QVERIFY(b.body_name == a.body_name);
    QVERIFY(b.parent == a.parent);
    for (int i = 0; i < a.nbodies; ++i) {
      QVERIFY(b.inertia_matrix[i] == a.inertia_matrix[i]);
      QVERIFY(b.X_parent_joint[i].R == a.X_parent_joint[i].R && b.X_parent_joint[i].p == a.X_parent_joint[i].p);
    }
    QVERIFY(b.armature == a.armature);
    QVERIFY(b.effort_limit == a.effort_limit);
    QVERIFY(by_text.scenario.chaser.robot.empty() && by_text.scenario.chaser.robot_path.empty());
    QVERIFY(!by_text.scenario.chaser.model_yaml.empty());
    // Saved elsewhere and read again: the same text, the model embedded.
    const std::string saved = f.dir() + "/saved.yaml";
    saveScenario(by_text.scenario, saved);
    const LoadedScenario again = loadScenario(saved);
    QCOMPARE(scenarioToYaml(again.scenario), scenarioToYaml(by_text.scenario));
    QVERIFY(again.model.inertia_matrix == a.inertia_matrix);
    QVERIFY(readText(saved).find("\n  model:") != std::string::npos);
    QVERIFY(readText(saved).find("robot:") == std::string::npos);

    // An error inside the embedded robot: the scenario's file and line.
    const std::string tiny =
        "format: 1\n"                                                                   // 1
        "chaser:\n"                                                                     // 2
        "  model:\n"                                                                    // 3
        "    name: tiny\n"                                                              // 4
        "    base: {mode: floating, mass: 10, inertia: {xx: 1, yy: 1, zz: 1}}\n"        // 5
        "    links:\n"                                                                  // 6
        "      - name: arm\n"                                                           // 7
        "        mass: MASS\n"                                                          // 8
        "        inertia: {xx: 0.1, yy: 0.1, zz: 0.1}\n"                                // 9
        "        joint: {name: j1, type: revolute, parent: base, axis: [0, 0, 1]}\n";   // 10
    auto with = [&](const std::string& mass) {
      std::string t = tiny;
      return t.replace(t.find("MASS"), 4, mass);
    };
    const LoadedScenario ok = loadScenario(f.write("tiny.yaml", with("2")));
    QCOMPARE(ok.model.nbodies, 2);
    QCOMPARE(ok.model.totalMass(), 12.0);
    const std::string bad = f.write("tiny_bad.yaml", with("-2"));
    EXPECT_LOAD_ERROR(loadScenario(bad), bad, 8, "mass");
    const std::string unknown = f.write("tiny_key.yaml", with("2\n        mas: 3"));
    EXPECT_LOAD_ERROR(loadScenario(unknown), unknown, 9, "did you mean");
    // Both, or neither.
    const std::string both = f.write("both.yaml", mutated("  initial:\n", "  model: {name: x}\n  initial:\n"));
    EXPECT_LOAD_ERROR(loadScenario(both), both, 4, "exactly one of 'robot'");
    const std::string neither = f.write("neither.yaml", "format: 1\nchaser:\n  base_mode: fixed\n");
    EXPECT_LOAD_ERROR(loadScenario(neither), neither, 3, "exactly one of 'robot'");
  }

  // The editor's route: the document read with the overrides, then validated, is what
  // loadScenario gives; the document is not changed by validation.
  void Document_ReadThenValidate() {
    Files f;
    const std::string path = f.write("s.yaml", validScenario());
    const YAML::Node doc = readScenarioDocument(path, {{"run.duration", "3"}});
    QCOMPARE(doc["run"]["duration"].as<double>(), 3.0);
    const LoadedScenario a = loadScenarioDocument(path, doc);
    const LoadedScenario b = loadScenario(path, {{"run.duration", "3"}});
    QCOMPARE(scenarioToYaml(a.scenario), scenarioToYaml(b.scenario));
    QCOMPARE(a.scenario.run.duration, 3.0);
    YAML::Emitter e;
    e << doc;
    QVERIFY2(std::string(e.c_str()).find("robot:") != std::string::npos, e.c_str());
    QVERIFY(std::string(e.c_str()).find("model:") == std::string::npos);
  }

  // Saving replaces the file in one rename; a failed save (no such directory) leaves no file
  // behind and says which.
  void Save_IsAtomicAndReportsFailures() {
    Files f;
    const LoadedScenario s = loadScenario(f.write("s.yaml", validScenario()));
    const std::string target = f.dir() + "/out.yaml";
    { std::ofstream(target) << "previous content\n"; }
    saveScenario(s.scenario, target);
    QVERIFY(readText(target).rfind("format: 1", 0) == 0);
    QVERIFY(!grapple::test::temporaryLeftBeside(target));
    for (const std::string& name : grapple::test::folderEntries(f.dir())) {
      QVERIFY2(name == "s.yaml" || name == "out.yaml", name.c_str());  // no temporary file left
    }
    const std::string bad = f.dir() + "/no/such/dir/out.yaml";
    try {
      saveScenario(s.scenario, bad);
      QFAIL("saving into a missing directory succeeded");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("no/such/dir") != std::string::npos, e.what());
    }
    QVERIFY(!fs::exists(bad));
  }

  // Two writers of one file at once (two threads, as two windows saving the same scenario): each
  // write goes through a temporary file of its own, so none fails and the file is always one of
  // the complete texts. (With one temporary name per target, a writer renames the other's file
  // away and its own rename finds nothing.)
  void ConcurrentAtomicWrites_NeverCollide() {
    Files f;
    const std::string target = f.dir() + "/shared.yaml";
    const std::string a(20000, 'a'), b(30000, 'b');
    std::atomic<int> failures{0};
    auto writer = [&](const std::string& text) {
      for (int k = 0; k < 200; ++k) {
        try {
          writeFileAtomically(target, text);
        } catch (const std::exception& e) {
          qWarning("%s", e.what());
          ++failures;
        }
      }
    };
    std::thread ta(writer, a), tb(writer, b);
    ta.join();
    tb.join();
    QCOMPARE(failures.load(), 0);
    const std::string last = readText(target);
    QVERIFY(last == a || last == b);
    QCOMPARE(grapple::test::folderEntries(f.dir()), std::vector<std::string>{"shared.yaml"});
  }

  // A full file system and a read-only folder: saveScenario throws, naming the file and the
  // system's reason; the previous scenario is there byte for byte, and nothing else is left.
  void Save_IntoAFullOrReadOnlyPlace_KeepsThePreviousFile() {
    Files f;
    const LoadedScenario s = loadScenario(f.write("s.yaml", validScenario()));
    const std::string previous = "format: 1\n# the previous version, kept\n";
    auto check = [&](grapple::test::FaultPlace& place) {
      qInfo("%s", place.kind().c_str());
      std::string message;
      try {
        saveScenario(s.scenario, place.file("scenario.yaml"));
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
      place.restore();
      QVERIFY2(message.find(place.file("scenario.yaml")) != std::string::npos, message.c_str());
      QVERIFY2(message.find(place.reason()) != std::string::npos, message.c_str());
      QCOMPARE(grapple::test::fileText(place.file("scenario.yaml")), previous);
      for (const std::string& name : grapple::test::folderEntries(place.dir())) {
        QVERIFY2(name == "scenario.yaml" || name == "filler", name.c_str());
      }
    };
    {
      grapple::test::FullPlace full("scenario.yaml", previous);
      check(full);
    }
    grapple::test::ReadOnlyFolder readonly("scenario.yaml", previous);
    if (!readonly.effective()) QSKIP("root without the right to mount: no folder is read-only to this process");
    check(readonly);
  }
};

QTEST_APPLESS_MAIN(TestScenario)
#include "test_scenario.moc"
