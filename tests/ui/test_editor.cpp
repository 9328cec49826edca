// The scenario editor, driven in the real window under a (virtual) X display: editing a link's
// mass changes the next run's result and undo restores it bit for bit (redo changes it again);
// the first robot edit embeds the robot in the scenario and leaves the shared robot file alone;
// invalid edits are refused with the loader's file:line message and change nothing; adding,
// removing and reordering links changes the model's bodies and undo restores them; the saved
// document reloads to the same scenario; a change made by another panel is followed.
// Nothing lost: edits are autosaved and offered back after the window went away unsaved, and
// after a process editing the scenario was killed (SIGKILL); a file changed on disk by someone else asks to reload, and
// the answer is followed; a corrupt settings file is ignored with a message.
// With no X display the whole test is skipped (CTest reports "Skipped").
#include "tests/support/fault_places.hpp"
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QStatusBar>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "core/io/scenario_yaml.hpp"
#include <yaml-cpp/yaml.h>
#include "ui/main_window.hpp"
#include "ui/scenario_editor.hpp"
#include "ui/sim_runner.hpp"
#include "ui/tuning_panel.hpp"

using namespace grapple;
namespace fs = std::filesystem;

namespace {

const QString kScenario = GRAPPLE_SOURCE_DIR "/scenarios/capture_rigid.yaml";
const std::string kRobot = GRAPPLE_SOURCE_DIR "/scenarios/robots/mda_deos.yaml";
constexpr double kRunTime = 2.0;  // [s] of the unfolding arm: the bus recoils

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A copy of the scenario in `dir` (its robot named by its absolute path), with run.duration set.
QString scenarioCopy(const QTemporaryDir& dir, double duration, const QString& name = "copy.yaml") {
  YAML::Node doc = YAML::LoadFile(kScenario.toStdString());
  doc["chaser"]["robot"] = kRobot;
  doc["run"]["duration"] = duration;
  const QString path = dir.filePath(name);
  YAML::Emitter out;
  out << doc;
  std::ofstream(path.toStdString()) << out.c_str() << "\n";
  return path;
}

// Clicks, in each question box named `name` that opens, the button whose text `choose` gives
// for the box's text ("" leaves the box to the next tick); until the object dies.
void answerQuestions(QObject* owner, const QString& name, std::function<QString(const QString&)> choose) {
  auto* timer = new QTimer(owner);
  QObject::connect(timer, &QTimer::timeout, owner, [name, choose] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box || box->objectName() != name) return;
    const QString want = choose(box->text());
    for (QAbstractButton* b : box->buttons()) {
      if (b->text() == want) b->click();
    }
  });
  timer->start(20);
}

// Set in the child process of editsInAKilledProcessAreOfferedBack: the scenario it edits.
constexpr char kChildVariable[] = "GRAPPLE_TEST_EDITOR_KILLED_CHILD";
bool isKilledChild() { return qEnvironmentVariableIsSet(kChildVariable); }

int bodyIndex(const core::Model& m, const std::string& name) {
  for (int i = 0; i < m.nbodies; ++i) {
    if (m.body_name[i] == name) return i;
  }
  return -1;
}

}  // namespace

class TestEditor : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  ui::ScenarioEditor* editor_ = nullptr;
  std::string robot_text_;

  // Runs the open scenario for kRunTime and returns the final configuration (base pose, joints).
  Eigen::VectorXd run() {
    ui::SimRunner* r = window_->runner();
    r->runUntil(kRunTime);
    QElapsedTimer clock;
    clock.start();
    while ((r->status().running || r->status().time < kRunTime - 1e-9) && clock.elapsed() < 120000) QTest::qWait(10);
    window_->tick();
    const render::Snapshot s = r->snapshot(r->rows() - 1);
    if (std::abs(s.time - kRunTime) > 1e-9 || r->rows() != 101) {
      qWarning("the run stopped at %g s after %d rows", s.time, r->rows());
      return {};
    }
    return s.q;
  }

  static bool sameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
  }

 private slots:
  void initTestCase() {
    if (isKilledChild()) return;  // editsInAKilledProcessAreOfferedBack's child: its own window
    QSettings().clear();
    for (const auto& r : ui::ScenarioEditor::pendingRecoveries()) ui::ScenarioEditor::discardRecovery(r.autosave);
    robot_text_ = readText(kRobot);
    QVERIFY(grapple::test::showMainWindow(window_));
    window_->setOverrides({{"run.duration", "5"}});
    window_->setSpeed(0);
    QVERIFY(window_->openScenario(kScenario));
    editor_ = window_->editor();
    QVERIFY(editor_ != nullptr);
    auto* dock = window_->findChild<QDockWidget*>("dock:editor");
    QVERIFY(dock);
    dock->raise();
    window_->setSpeed(0);
  }

  // The tree holds the document and the robot file's model, the units are shown, nothing is
  // modified yet, and the Edit menu carries the undo stack.
  void showsTheScenario() {
    QVERIFY(!editor_->isModified());
    QVERIFY(!editor_->robotEmbedded());
    QCOMPARE(editor_->valueText("run.duration"), QString("5"));
    QCOMPARE(editor_->valueText("chaser.robot"), QString("robots/mda_deos.yaml"));
    QCOMPARE(editor_->valueText("chaser.model.links[2].name"), QString("segment2"));
    QCOMPARE(editor_->valueText("chaser.model.links[2].mass"), QString("9.20"));
    QCOMPARE(editor_->valueText("debris.initial.rate_deg_s"), QString("[0, 4, 0]"));
    QVERIFY(editor_->tree()->model()->rowCount() >= 5);
    QVERIFY(editor_->select("chaser.model.links[2]"));
    QVERIFY(editor_->findChild<QLineEdit*>("edit:chaser.model.links[2].mass") != nullptr);
    QVERIFY(editor_->select("debris.initial"));
    QLineEdit* rate = editor_->findChild<QLineEdit*>("edit:debris.initial.rate_deg_s");
    QVERIFY(rate != nullptr);
    QVERIFY(rate->isVisible());
    bool edit_menu = false;
    for (QAction* a : window_->menuBar()->actions()) edit_menu |= a->text() == "&Edit";
    QVERIFY(edit_menu);
  }

  // The acceptance: a mass edited in the editor changes the next run; undo restores it.
  void editingAMassChangesTheRunAndUndoRestoresIt() {
    const Eigen::VectorXd first = run();
    QVERIFY(first.size() > 0);
    window_->resetRun();  // the same scenario again: the same bits (and the editor unmoved)
    QCOMPARE(window_->runner()->rows(), 1);
    const Eigen::VectorXd again = run();
    QVERIFY(sameBits(first, again));
    QVERIFY(!editor_->isModified());

    const int seg2 = bodyIndex(window_->loaded().model, "segment2");
    QVERIFY(seg2 > 0);
    const double body_mass = window_->loaded().model.inertia[seg2].m;  // segment2 and its hub
    QSignalSpy replaced(window_.get(), &ui::MainWindow::scenarioReplaced);
    QVERIFY2(editor_->setValue("chaser.model.links[2].mass", "30"), qPrintable(editor_->lastError()));
    QCOMPARE(replaced.count(), 1);  // the run restarted from the edited scenario (and the 3D scene)
    QCOMPARE(window_->runner()->rows(), 1);
    const core::Model& m = window_->loaded().model;
    QCOMPARE(m.inertia[seg2].m, body_mass + (30 - 9.2));
    QCOMPARE(window_->runner()->model().inertia[seg2].m, body_mass + (30 - 9.2));
    // The robot is now embedded; the shared robot file is untouched.
    QVERIFY(editor_->robotEmbedded());
    QVERIFY(!editor_->text().contains("robot:"));
    QVERIFY(editor_->text().contains("mass: 30"));
    QVERIFY(window_->loaded().scenario.chaser.robot_path.empty());
    QCOMPARE(readText(kRobot), robot_text_);
    QVERIFY(editor_->isModified());
    QCOMPARE(editor_->undoStack()->count(), 1);

    const Eigen::VectorXd edited = run();
    QVERIFY2(!sameBits(edited, first), "the mass edit did not change the run");
    const double shift = (edited.head<3>() - first.head<3>()).norm();
    qInfo("base position after %g s: %.9f m apart with segment2 at 30 kg instead of 9.2 kg", kRunTime, shift);
    QVERIFY(shift > 1e-6);

    editor_->undoStack()->undo();
    QCOMPARE(window_->loaded().model.inertia[seg2].m, body_mass);
    QVERIFY(!editor_->robotEmbedded());
    QVERIFY(!editor_->isModified());
    const Eigen::VectorXd undone = run();
    QVERIFY2(sameBits(undone, first), "undo did not restore the first run bit for bit");

    editor_->undoStack()->redo();
    QCOMPARE(window_->loaded().model.inertia[seg2].m, body_mass + (30 - 9.2));
    const Eigen::VectorXd redone = run();
    QVERIFY(!sameBits(redone, first));
    QVERIFY(sameBits(redone, edited));
    editor_->undoStack()->undo();
  }

  // The tumbling rate (a scenario value, not the robot's) goes the same way without embedding.
  void editingTheTumblingRate() {
    QVERIFY(editor_->setValue("debris.initial.rate_deg_s", "[0, 0, 6]"));
    QVERIFY(!editor_->robotEmbedded());
    QVERIFY(std::abs(window_->loaded().scenario.debris.initial.w_B.z() - 6 * M_PI / 180) < 1e-15);
    editor_->undoStack()->undo();
    QVERIFY(std::abs(window_->loaded().scenario.debris.initial.w_B.y() - 4 * M_PI / 180) < 1e-15);
  }

  // A negative mass, an unknown key, a value that is not YAML: refused, with the loader's
  // file:line message in red; the document, the run and the undo stack stay as they were.
  void invalidEditsAreRefused() {
    const QString before = editor_->text();
    const int commands = editor_->undoStack()->count();
    const int index = editor_->undoStack()->index();
    const double mass = window_->loaded().model.totalMass();
    QSignalSpy replaced(window_.get(), &ui::MainWindow::scenarioReplaced);

    QVERIFY(!editor_->setValue("chaser.model.links[2].mass", "-3"));
    const QString file = QFileInfo(kScenario).absoluteFilePath();
    QRegularExpression where("^" + QRegularExpression::escape(file) + ":(\\d+): ");
    QRegularExpressionMatch m = where.match(editor_->lastError());
    QVERIFY2(m.hasMatch(), qPrintable(editor_->lastError()));
    QVERIFY(m.captured(1).toInt() > 0);
    QVERIFY2(editor_->lastError().contains("mass"), qPrintable(editor_->lastError()));
    auto* label = editor_->findChild<QLabel*>("editorError");
    QVERIFY(label && label->isVisible() && label->text().startsWith(editor_->lastError()));
    QVERIFY(label->styleSheet().contains("color"));
    QCOMPARE(editor_->text(), before);
    QVERIFY(!editor_->robotEmbedded());

    QVERIFY(!editor_->setValue("run.durationn", "3"));
    QVERIFY2(where.match(editor_->lastError()).hasMatch(), qPrintable(editor_->lastError()));
    QVERIFY2(editor_->lastError().contains("did you mean 'duration'"), qPrintable(editor_->lastError()));
    QCOMPARE(editor_->text(), before);

    QVERIFY(!editor_->setValue("run.duration", "[1, 2"));
    QVERIFY(!editor_->setValue("run.record_rate", "0"));
    QVERIFY(!editor_->removeItem("chaser.model.links[0]"));  // segment1 carries the arm
    QVERIFY(!editor_->moveItem("controllers[0]", -1));
    QCOMPARE(editor_->text(), before);
    QCOMPARE(replaced.count(), 0);
    QCOMPARE(editor_->undoStack()->count(), commands);
    QCOMPARE(editor_->undoStack()->index(), index);
    QCOMPARE(window_->loaded().model.totalMass(), mass);

    // The property editor takes the same path: a refused value is put back.
    QVERIFY(editor_->select("run"));
    QLineEdit* rate = editor_->findChild<QLineEdit*>("edit:run.record_rate");
    QVERIFY(rate);
    rate->setText("-50");
    emit rate->editingFinished();
    QCOMPARE(rate->text(), QString("50"));
    QVERIFY(editor_->lastError().contains("record_rate"));
    rate->setText("25");
    emit rate->editingFinished();
    QCOMPARE(window_->loaded().scenario.run.record_rate, 25.0);
    QVERIFY(!editor_->findChild<QLabel*>("editorError")->isVisible());
    editor_->undoStack()->undo();
    QCOMPARE(window_->loaded().scenario.run.record_rate, 50.0);
  }

  // Add (a copy), reorder and remove links: the model's bodies follow; undo restores them.
  void addRemoveAndReorderLinks() {
    const core::Model before = window_->loaded().model;
    const std::vector<std::string> names = before.body_name;
    QVERIFY(bodyIndex(before, "segment6") > 0);

    // segment6 copied (with its joint): one more body and one more joint, on segment5.
    QVERIFY2(editor_->duplicateItem("chaser.model.links[10]"), qPrintable(editor_->lastError()));
    QCOMPARE(editor_->selectedPath(), QString("chaser.model.links[11]"));
    QCOMPARE(editor_->valueText("chaser.model.links[11].joint.name"), QString("joint6_copy"));
    const core::Model added = window_->loaded().model;
    QCOMPARE(added.nbodies, before.nbodies + 1);
    QCOMPARE(added.nv, before.nv + 1);
    QVERIFY(bodyIndex(added, "segment6_copy") > bodyIndex(added, "segment6"));
    QCOMPARE(window_->runner()->model().nbodies, before.nbodies + 1);

    // The copy moved up, before segment6: the body order changes.
    QVERIFY2(editor_->moveItem("chaser.model.links[11]", -1), qPrintable(editor_->lastError()));
    QCOMPARE(editor_->selectedPath(), QString("chaser.model.links[10]"));
    const core::Model moved = window_->loaded().model;
    QCOMPARE(moved.nbodies, added.nbodies);
    QVERIFY(bodyIndex(moved, "segment6_copy") < bodyIndex(moved, "segment6"));

    // Removed again: the robot's bodies as they were.
    QVERIFY2(editor_->removeItem("chaser.model.links[10]"), qPrintable(editor_->lastError()));
    QVERIFY(window_->loaded().model.body_name == names);
    // hub6 removed (a point mass fixed to segment6): 5.4 kg less, no frame hub6.
    QVERIFY2(editor_->removeItem("chaser.model.links[11]"), qPrintable(editor_->lastError()));
    QVERIFY(std::abs(window_->loaded().model.totalMass() - (before.totalMass() - 5.4)) < 1e-9);
    QCOMPARE(window_->loaded().model.frameId("hub6"), -1);

    // Undo, step by step.
    editor_->undoStack()->undo();
    QVERIFY(window_->loaded().model.frameId("hub6") >= 0);
    editor_->undoStack()->undo();
    QVERIFY(window_->loaded().model.body_name == moved.body_name);
    editor_->undoStack()->undo();
    QVERIFY(window_->loaded().model.body_name == added.body_name);
    editor_->undoStack()->undo();
    QVERIFY(window_->loaded().model.body_name == names);
    QCOMPARE(window_->loaded().model.nv, before.nv);
    QVERIFY(window_->loaded().model.inertia_matrix == before.inertia_matrix);
    QVERIFY(!editor_->isModified());
    QVERIFY(!editor_->robotEmbedded());

    // A controller is a list item too.
    const std::size_t controllers = window_->loaded().scenario.controllers.size();
    QVERIFY2(editor_->moveItem("controllers[0]", +1), qPrintable(editor_->lastError()));
    QCOMPARE(window_->loaded().scenario.controllers[0].type, core::ControllerType::kCapture);
    QVERIFY(editor_->removeItem("controllers[0]"));
    QCOMPARE(window_->loaded().scenario.controllers.size(), controllers - 1);
    editor_->undoStack()->undo();
    editor_->undoStack()->undo();
    QCOMPARE(window_->loaded().scenario.controllers[0].type, core::ControllerType::kJointTrajectory);
  }

  // Saved, the document reloads with loadScenario to the same scenario; the write is atomic and
  // never touches the robot file; a relative robot reference follows the file elsewhere. (Saved
  // into another folder, the undo history is cleared: its documents name the robot from the old
  // place.)
  void savedDocumentReloadsToTheSameScenario() {
    QTemporaryDir dir;
    // With the robot embedded.
    QVERIFY(editor_->setValue("chaser.model.links[4].mass", "12.5"));  // segment3
    QVERIFY(editor_->setValue("run.duration", "4"));
    QVERIFY(editor_->isModified());
    const QString embedded = dir.filePath("embedded.yaml");
    editor_->saveTo(embedded);
    QVERIFY(!editor_->isModified());
    QCOMPARE(editor_->undoStack()->count(), 0);
    QVERIFY(!grapple::test::temporaryLeftBeside(embedded.toStdString()));
    QCOMPARE(readText(kRobot), robot_text_);
    const core::LoadedScenario reloaded = core::loadScenario(embedded.toStdString());
    QCOMPARE(core::scenarioToYaml(reloaded.scenario), core::scenarioToYaml(window_->loaded().scenario));
    QCOMPARE(reloaded.model.totalMass(), window_->loaded().model.totalMass());
    QVERIFY(reloaded.model.inertia_matrix == window_->loaded().model.inertia_matrix);
    QVERIFY(editor_->text().contains("mass: 12.5"));
    QCOMPARE(QString::fromStdString(readText(embedded.toStdString())), editor_->text());

    // With the robot file referenced: the reference is rewritten relative to the new place.
    QVERIFY(window_->openScenario(kScenario));
    QVERIFY(!editor_->robotEmbedded());
    QVERIFY(!editor_->isModified());
    QVERIFY(editor_->setValue("debris.mass", "900"));
    fs::create_directories(dir.filePath("deeper/still").toStdString());
    const QString referenced = dir.filePath("deeper/still/referenced.yaml");
    editor_->saveTo(referenced);
    QVERIFY(editor_->text().contains("robot: ../../"));
    const core::LoadedScenario by_reference = core::loadScenario(referenced.toStdString());
    QCOMPARE(fs::canonical(by_reference.scenario.chaser.robot_path), fs::canonical(kRobot));
    core::Scenario a = by_reference.scenario, b = window_->loaded().scenario;
    a.chaser.robot = b.chaser.robot = "";
    QCOMPARE(core::scenarioToYaml(a), core::scenarioToYaml(b));
    QCOMPARE(by_reference.scenario.debris.properties.mass, 900.0);
    QCOMPARE(readText(kRobot), robot_text_);
    // The document now lives there: an edit validates against that place.
    QVERIFY(editor_->setValue("debris.mass", "950"));
    QVERIFY(editor_->lastError().isEmpty());
    QVERIFY(!editor_->setValue("debris.mass", "-1"));
    QVERIFY2(editor_->lastError().startsWith(QFileInfo(referenced).absoluteFilePath() + ":"), qPrintable(editor_->lastError()));
    // Back to the built-in file (nothing written there).
    QVERIFY(window_->openScenario(kScenario));
    QVERIFY(!editor_->isModified());
    QCOMPARE(editor_->undoStack()->count(), 0);
    QCOMPARE(window_->loaded().scenario.debris.properties.mass, 1060.0);
  }

  // A reset changes nothing; another panel's change (applyScenario of a modified scenario) is
  // followed by the document, marked modified, and the undo history cleared.
  void followsOtherPanels() {
    QVERIFY(editor_->setValue("run.duration", "3"));
    window_->resetRun();
    QCOMPARE(editor_->undoStack()->count(), 1);
    QCOMPARE(editor_->valueText("run.duration"), QString("3"));
    core::LoadedScenario tuned = window_->loaded();
    tuned.scenario.controllers[1].kp = 7;  // as a tuning panel would
    QVERIFY(window_->applyScenario(tuned, true));
    QCOMPARE(editor_->valueText("controllers[1].kp"), QString("7"));
    QCOMPARE(editor_->valueText("run.duration"), QString("3"));
    QVERIFY(editor_->isModified());
    QCOMPARE(editor_->undoStack()->count(), 0);
    QVERIFY(editor_->setValue("controllers[1].kd", "5"));
    QCOMPARE(window_->loaded().scenario.controllers[1].kp, 7.0);
    QCOMPARE(window_->loaded().scenario.controllers[1].kd, 5.0);
  }

  // Autosave and recovery: edits autosaved within the interval (atomically, beside nothing of the
  // scenario's); a window that goes away without saving (as a killed application: no code of
  // the editor cleans up) leaves them; the next window offers them back and, restored, they are
  // the document (unsaved) and the scenario run; saving removes the autosave.
  void autosavedEditsAreOfferedBackAtTheNextStart() {
    QTemporaryDir dir;
    const QString copy = scenarioCopy(dir, 6);
    QString autosave;
    {
      ui::MainWindow first;
      QVERIFY(first.openScenario(copy));
      ui::ScenarioEditor* e = first.editor();
      e->setAutosaveInterval(50);
      autosave = e->autosavePath();
      QVERIFY(!QFile::exists(autosave));
      QVERIFY(e->setValue("run.duration", "4.5"));
      QTRY_VERIFY(QFile::exists(autosave));
      const std::string text = readText(autosave.toStdString());
      QVERIFY2(text.find(copy.toStdString()) != std::string::npos, text.c_str());
      QVERIFY2(text.find("duration: 4.5") != std::string::npos, text.c_str());
      // Undone back to the file: nothing to recover; edited again: autosaved again.
      e->undoStack()->undo();
      QTRY_VERIFY(!QFile::exists(autosave));
      e->undoStack()->redo();
      QTRY_VERIFY(QFile::exists(autosave));
      QVERIFY(!grapple::test::temporaryLeftBeside(autosave.toStdString()));
    }  // gone, unsaved
    QVERIFY(QFile::exists(autosave));
    QCOMPARE(core::loadScenario(copy.toStdString()).scenario.run.duration, 6.0);  // the file untouched
    bool offered = false;
    for (const auto& r : ui::ScenarioEditor::pendingRecoveries()) offered |= r.scenario == copy && r.autosave == autosave;
    QVERIFY(offered);

    ui::MainWindow next;
    QVERIFY(next.openScenario(kScenario));
    // Other documents' autosaves (this test's main window has edits too) are kept for later.
    answerQuestions(&next, "recoveryQuestion", [&](const QString& text) { return text.contains(copy) ? "Restore" : "Not now"; });
    next.offerRecovery();
    QCOMPARE(next.scenarioPath(), copy);
    ui::ScenarioEditor* e = next.editor();
    QVERIFY(e->isModified());
    QCOMPARE(e->valueText("run.duration"), QString("4.5"));
    QCOMPARE(next.loaded().scenario.run.duration, 4.5);
    e->saveTo(copy);
    QVERIFY(!QFile::exists(autosave));
    QCOMPARE(core::loadScenario(copy.toStdString()).scenario.run.duration, 4.5);
    for (const auto& r : ui::ScenarioEditor::pendingRecoveries()) QVERIFY(r.scenario != copy);
  }

  // The application killed for real (SIGKILL, no code of it runs at the end): a child process —
  // this executable, running childEditsUntilKilled — opens a copy of the scenario in a main
  // window, edits it and waits; once it says the edit is autosaved it is killed. The next window
  // offers the edit back, and restored it is the document.
  void editsInAKilledProcessAreOfferedBack() {
    QTemporaryDir dir;
    const QString copy = scenarioCopy(dir, 6, "killed.yaml");
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(kChildVariable, copy);
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {"childEditsUntilKilled"});
    QVERIFY(child.waitForStarted());
    QString output, autosave;
    QElapsedTimer clock;
    clock.start();
    while (autosave.isEmpty() && child.state() == QProcess::Running && clock.elapsed() < 120000) {
      child.waitForReadyRead(100);
      output += QString::fromLocal8Bit(child.readAll());
      for (const QString& line : output.split('\n')) {
        if (line.startsWith("autosaved: ") && output.contains(line + "\n")) autosave = line.mid(11);
      }
    }
    QVERIFY2(!autosave.isEmpty(), qPrintable(output));
    child.kill();  // SIGKILL
    QVERIFY(child.waitForFinished());
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    QVERIFY(QFile::exists(autosave));
    QCOMPARE(core::loadScenario(copy.toStdString()).scenario.run.duration, 6.0);  // the file untouched

    ui::MainWindow next;
    QVERIFY(next.openScenario(kScenario));
    answerQuestions(&next, "recoveryQuestion", [&](const QString& text) { return text.contains(copy) ? "Restore" : "Not now"; });
    next.offerRecovery();
    QCOMPARE(next.scenarioPath(), copy);
    QVERIFY(next.editor()->isModified());
    QCOMPARE(next.editor()->valueText("run.duration"), QString("3.25"));
    QCOMPARE(next.loaded().scenario.run.duration, 3.25);
    next.editor()->saveTo(copy);
    QVERIFY(!QFile::exists(autosave));
  }

  // editsInAKilledProcessAreOfferedBack's child (skipped when run otherwise): edits the scenario
  // named by the environment, prints "autosaved: PATH" once the autosave is written, and waits.
  void childEditsUntilKilled() {
    if (!isKilledChild()) QSKIP("the child process of editsInAKilledProcessAreOfferedBack");
    ui::MainWindow w;
    w.show();
    QVERIFY(w.openScenario(qEnvironmentVariable(kChildVariable)));
    ui::ScenarioEditor* e = w.editor();
    e->setAutosaveInterval(50);
    QVERIFY(e->setValue("run.duration", "3.25"));
    QTRY_VERIFY(QFile::exists(e->autosavePath()));
    std::printf("autosaved: %s\n", qPrintable(e->autosavePath()));
    std::fflush(stdout);
    for (;;) QTest::qWait(1000);
  }

  // The scenario's file changed on disk by another program: the editor asks; Reload opens the
  // file's version, Keep mine keeps the edits (and saving them then writes them). A save by the
  // application itself asks nothing.
  void aFileChangedOnDiskAsksToReload() {
    QTemporaryDir dir;
    const QString copy = scenarioCopy(dir, 6);
    ui::MainWindow w;
    QVERIFY(w.openScenario(copy));
    ui::ScenarioEditor* e = w.editor();
    auto answer = [&](const QString& button) {
      QTRY_VERIFY(e->reloadQuestion() != nullptr);
      QVERIFY(e->fileChangedOnDisk());
      for (QAbstractButton* b : e->reloadQuestion()->buttons()) {
        if (b->text() == button) b->click();
      }
      QTRY_VERIFY(e->reloadQuestion() == nullptr);
    };
    // Unedited, changed in place: reloaded.
    scenarioCopy(dir, 7);
    answer("Reload");
    QCOMPARE(w.loaded().scenario.run.duration, 7.0);
    QCOMPARE(e->valueText("run.duration"), QString("7"));
    QVERIFY(!e->isModified());
    // Edited, then replaced by a rename (as an atomic save): kept, and saved over the file.
    QVERIFY(e->setValue("run.duration", "8"));
    scenarioCopy(dir, 9, "other.yaml");
    QVERIFY(QFile::remove(copy));
    QVERIFY(QFile::rename(dir.filePath("other.yaml"), copy));
    answer("Keep mine");
    QVERIFY(e->isModified());
    QCOMPARE(w.loaded().scenario.run.duration, 8.0);
    QVERIFY(!e->fileChangedOnDisk());
    e->saveTo(copy);
    QCOMPARE(core::loadScenario(copy.toStdString()).scenario.run.duration, 8.0);
    // The application's own saves: no question.
    QVERIFY(e->setValue("run.duration", "10"));
    e->saveTo(copy);
    QVERIFY(w.tuning()->saveGains(true));
    QTest::qWait(300);
    QVERIFY(e->reloadQuestion() == nullptr);
    QVERIFY(!e->fileChangedOnDisk());
  }

  // A settings file written over with rubbish: the window starts with the defaults, says which
  // settings it ignored in the status bar, and works.
  void aCorruptSettingsFileIsIgnoredWithAMessage() {
    const QString file = QSettings().fileName();
    QSettings().sync();  // nothing of this process' settings pending: the file is what is read next
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("[General]\nrecent=@ByteArray(\x01\x02\x03)\n\xff\xfe garbage without a key\n"
              "[window]\ngeometry=@ByteArray(not a geometry)\nstate=@ByteArray(\x01\x02\xff rubbish)\n"
              "[view]\nexaggeration=lots\n");
    }
    QSettings().sync();
    {
      ui::MainWindow w;
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      const QStringList problems = w.settingsProblems();
      for (const char* key : {"window/geometry", "window/state", "recent", "view/exaggeration"}) {
        QVERIFY2(problems.contains(key), qPrintable(problems.join(", ")));
      }
      const QString message = w.statusBar()->currentMessage();
      QVERIFY2(message.contains(file) && message.contains("ignored"), qPrintable(message));
      QCOMPARE(w.findChild<QDoubleSpinBox*>("exaggeration")->value(), 10.0);
      QVERIFY(w.openScenario(kScenario));
    }
    QSettings().clear();
  }

  // A look at the dock (written next to the tests' binaries).
  void screenshot() {
    QVERIFY(window_->openScenario(kScenario));
    auto* dock = window_->findChild<QDockWidget*>("dock:editor");
    QVERIFY(dock);
    dock->setFloating(true);
    dock->resize(520, 760);
    dock->show();
    dock->raise();
    editor_->tree()->expandAll();
    QVERIFY(editor_->select("chaser.model.links[2]"));
    editor_->setValue("chaser.model.links[2].mass", "-1");  // shows the red message
    QTest::qWait(200);
    const QImage image = dock->grab().toImage();
    image.save(GRAPPLE_BINARY_DIR "/test_editor_dock.png");
    QVERIFY(image.width() >= 400);
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestEditor, "test_editor")

#include "test_editor.moc"
