// ScenarioEditor: the scenario as a tree (chaser and its robot: base, links with their joints,
// flexible segments and their modes, solar arrays; initial state; debris with its tumbling rate;
// environment; controllers; run settings) over the scenario's YAML document, with a property
// editor for the selected node, and add (a copy) / remove / move up / move down for list items.
//
// Every edit is made on a copy of the document, which is validated exactly as a file is
// (core::loadScenarioDocument) and run (MainWindow::applyScenario, which also reports what only
// the initial state reveals). A refused edit shows the loader's "file:line: message" in red and
// leaves the document as it was; an accepted one is an undoable command holding the document's
// text before and after, and the 3D view and the run restart from the edited scenario at once.
// Line numbers name lines of the document as the editor would save it.
//
// The robot: a scenario names a robot file (chaser.robot) that several scenarios share, and that
// the editor never writes. Its `model` map is shown under the chaser; the first edit inside it
// copies the map into the scenario as chaser.model (chaser.robot dropped), which the status bar
// says. Saving writes the document atomically; yaml-cpp keeps keys, values and their order, not
// comments.
//
// When the scenario is replaced by someone else (File > Open, the tuning panels, a reset), the
// document follows: a reset changes nothing; a scenario equal to its file (an open) is read from
// the file again; anything else (a tuning panel's change) is rebuilt from the Scenario struct
// (core::scenarioToYaml, which keeps an embedded robot), marked modified, and the undo history
// is cleared (its commands would silently undo the other panel's change).
//
// Nothing lost: while the document differs from its file, it is autosaved every few seconds
// (atomically) into the user's data folder (autosave/, one file per scenario, its first line
// naming the scenario); the autosave is removed once the document is saved or back to its file.
// An application killed, crashed or closed with unsaved edits leaves it behind, and
// MainWindow::offerRecovery() offers the edits back at the next start. The scenario's file is
// watched: changed on disk by someone else (into another scenario than the one open), the
// editor asks whether to reload it or keep the document, instead of overwriting it unasked.
#pragma once

#include <string>
#include <vector>

#include <QString>
#include <QWidget>
#include <yaml-cpp/yaml.h>

class QFileSystemWatcher;
class QLabel;
class QMessageBox;
class QPushButton;
class QStandardItem;
class QStandardItemModel;
class QTimer;
class QTreeView;
class QUndoStack;
class QVBoxLayout;

namespace grapple::ui {

class MainWindow;

class ScenarioEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioEditor(MainWindow* window, QWidget* parent = nullptr);
  ~ScenarioEditor() override;

  // The edits, as the property editor and the buttons make them. Nodes are named by paths of keys
  // and list indices, "chaser.model.links[2].mass". Each returns false, with the reason in
  // lastError() (and in red in the panel), if the edited scenario is refused.
  // The node at `path` becomes `yaml` (a scalar "12.5", a list "[0, 0, 4]", any YAML); a key that
  // does not exist is added (and refused as the loader refuses unknown keys).
  bool setValue(const QString& path, const QString& yaml);
  // Removes a list item or a map key.
  bool removeItem(const QString& path);
  // Inserts a copy of a list item after it; its `name` (and its joint's) made unique.
  bool duplicateItem(const QString& path);
  // Moves a list item by `delta` places (-1: up).
  bool moveItem(const QString& path, int delta);

  // The node at `path` as YAML text ("" if there is none), as the tree shows it (the robot
  // file's model under chaser.model while the robot is not embedded).
  QString valueText(const QString& path) const;
  bool hasNode(const QString& path) const;
  // The document as Save writes it.
  QString text() const { return QString::fromStdString(text_); }
  const QString& lastError() const { return error_; }
  // The document differs from its file (edits since the last open or save, or a change made by
  // another panel).
  bool isModified() const;
  bool robotEmbedded() const;
  QUndoStack* undoStack() const { return undo_; }
  QTreeView* tree() const { return tree_; }
  // Selects a node in the tree (and shows it in the property editor); false if there is none.
  bool select(const QString& path);
  QString selectedPath() const;

  // Writes the document to `path` atomically (temporary file + rename); a relative robot
  // reference is rewritten relative to the new place. The document is then unmodified, and its
  // file is `path`. Throws std::runtime_error naming the file.
  void saveTo(const QString& path);

  // ---- autosave and recovery ----
  // The autosave file of the open scenario (whether it exists or not).
  QString autosavePath() const;
  // How often the document is autosaved while modified (default 3 s).
  void setAutosaveInterval(int ms);
  // Autosaved edits of a previous session (what the user's data folder holds).
  struct Recovery {
    QString autosave;  // the autosave file
    QString scenario;  // the scenario it edits
    QString saved;     // when it was written ("2026-11-24 23:40:12")
  };
  static std::vector<Recovery> pendingRecoveries();
  // Opens the recovered edits' scenario and makes the autosaved document the editor's
  // (modified: saving writes it). False, with the reason in lastError(), if the scenario cannot
  // be opened or the document is refused now; the autosave is then kept.
  bool recover(const QString& autosave);
  static void discardRecovery(const QString& autosave);

  // ---- the file on disk ----
  // The question asked when the scenario's file changed on disk (nullptr when none is open):
  // "Reload" opens the file again, "Keep mine" keeps the document.
  QMessageBox* reloadQuestion() const { return reload_question_; }
  // The file differs from what was last read or saved here, or the question is open.
  bool fileChangedOnDisk() const;
  // The application wrote the scenario's file (File > Save of an unedited document, the tuning
  // panels' Save): its new text is not someone else's change.
  void fileWrittenHere();

 signals:
  // For the status bar (e.g. "the robot is now embedded in the scenario").
  void statusMessage(const QString& message);
  void documentChanged();

 private:
  friend class EditCommand;
  // Validates `doc`, runs it and makes it the document; pushes an undo command unless `restoring`.
  bool commit(const YAML::Node& doc, const QString& what);
  // Re-applies a document text (undo, redo); false if it is refused now (robot file changed).
  bool restore(const std::string& text);
  // A copy of the document to edit; `path` inside the robot embeds the robot file's model first.
  YAML::Node editableCopy(const QString& path, bool* embedded) const;
  void loadFromFile();
  void onScenarioReplaced();
  void adoptText(const std::string& text, const std::string& scenario_yaml);
  void refreshRobotModel();
  void rebuildTree();
  void showProperties();
  void updateButtons();
  void fail(const QString& message);
  void clearError();
  QStandardItem* itemAt(const QString& path) const;
  void autosave();
  void removeAutosave();  // the one this editor wrote
  // Watches path_ from now on, its present text being what the editor knows of it.
  void watchFile();
  void onFileChanged();

  MainWindow* window_;
  std::string path_;             // the document's file (messages, relative robot path)
  std::string text_;             // the document, emitted
  YAML::Node doc_;               // text_ parsed (its marks are lines of text_)
  std::string scenario_yaml_;    // core::scenarioToYaml of the document's scenario
  std::string robot_file_;       // resolved robot file whose model is shown (YAML robots)
  YAML::Node robot_model_;       // its `model` map (null if not a YAML robot)
  bool foreign_modified_ = false;
  bool rebuilding_ = false;      // the tree is being refilled: its item changes are ours
  bool applying_ = false;        // our own applyScenario: ignore the scenarioReplaced it emits
  int generation_ = 0;           // of the property editor's widgets
  QString error_;
  QString autosave_file_;        // the autosave written (removed once saved), "" if none
  std::string autosaved_;        // the text it holds
  std::string disk_text_;        // path_'s text when last read or written here
  QTimer* autosave_timer_ = nullptr;
  QFileSystemWatcher* watcher_ = nullptr;
  QMessageBox* reload_question_ = nullptr;

  QUndoStack* undo_ = nullptr;
  QTreeView* tree_ = nullptr;
  QStandardItemModel* model_ = nullptr;
  QLabel* robot_note_ = nullptr;
  QLabel* heading_ = nullptr;
  QWidget* form_host_ = nullptr;
  QVBoxLayout* form_layout_ = nullptr;
  QWidget* form_ = nullptr;
  QLabel* error_label_ = nullptr;
  QPushButton* add_ = nullptr;
  QPushButton* remove_ = nullptr;
  QPushButton* up_ = nullptr;
  QPushButton* down_ = nullptr;
};

}  // namespace grapple::ui
