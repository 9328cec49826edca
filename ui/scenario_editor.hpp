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
#pragma once

#include <string>

#include <QString>
#include <QWidget>
#include <yaml-cpp/yaml.h>

class QLabel;
class QPushButton;
class QStandardItem;
class QStandardItemModel;
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
