#include "ui/scenario_editor.hpp"

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <QColor>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTimer>
#include <QTreeView>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include "core/io/atomic_file.hpp"
#include "core/io/load_error.hpp"
#include "core/io/scenario_document.hpp"
#include "core/io/scenario_schema.hpp"
#include "core/io/scenario_yaml.hpp"
#include "ui/main_window.hpp"

namespace grapple::ui {

namespace fs = std::filesystem;

// One accepted edit: the document's text before and after. The edit is already applied when the
// command is pushed, so its first redo does nothing.
class EditCommand : public QUndoCommand {
 public:
  EditCommand(ScenarioEditor* editor, std::string before, std::string after, const QString& what)
      : QUndoCommand(what), editor_(editor), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override {
    if (first_) {
      first_ = false;
      return;
    }
    editor_->restore(after_);
  }
  void undo() override { editor_->restore(before_); }

 private:
  ScenarioEditor* editor_;
  std::string before_, after_;
  bool first_ = true;
};

namespace {

constexpr int kPathRole = Qt::UserRole + 1;

// A path "chaser.model.links[2].mass" as steps: a map key, or a list index (index >= 0).
using Step = core::PathStep;

std::optional<std::vector<Step>> parsePath(const QString& path) {
  try {
    return core::parseDocumentPath(path.toStdString());
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

QString childPath(const QString& parent, const std::string& key) {
  return parent.isEmpty() ? QString::fromStdString(key) : parent + "." + QString::fromStdString(key);
}
QString childPath(const QString& parent, int index) { return parent + QString("[%1]").arg(index); }

using core::nodeAt;

bool isScalarList(const YAML::Node& n) {
  if (!n.IsSequence() || n.size() == 0) return false;
  for (const YAML::Node& c : n) {
    if (!c.IsScalar()) return false;
  }
  return true;
}

// Shown in the value column and edited in one line: scalars and lists of scalars.
bool isLeaf(const YAML::Node& n) { return n.IsScalar() || n.IsNull() || isScalarList(n); }

// Compact one-line text of a node: 12.5, [0, 0, 4], {xx: 1, yy: 2}.
std::string compact(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  if (n.IsNull()) return "";
  std::string s;
  if (n.IsSequence()) {
    for (const YAML::Node& c : n) s += (s.empty() ? "" : ", ") + compact(c);
    return "[" + s + "]";
  }
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      s += (s.empty() ? "" : ", ") + it->first.Scalar() + ": " + compact(it->second);
    }
    return "{" + s + "}";
  }
  return "";
}

std::string scalarOf(const YAML::Node& map, const char* key) {
  if (!map.IsDefined() || !map.IsMap()) return {};  // (a missing key's node throws on IsMap)
  const YAML::Node v = map[key];
  return v.IsDefined() && v.IsScalar() ? v.Scalar() : std::string();
}

// A summary of a list item for the value column: a link's joint, parent and mass; a
// controller's type and start.
QString summary(const std::vector<Step>& steps, const YAML::Node& n) {
  if (!n.IsMap()) return {};
  const bool link = steps.size() >= 2 && steps[steps.size() - 2].key == "links";
  if (link) {
    const YAML::Node j = n["joint"];
    QString s = QString::fromStdString(scalarOf(j, "type") + " '" + scalarOf(j, "name") + "' on " + scalarOf(j, "parent"));
    if (!scalarOf(n, "mass").empty()) s += QString(", %1 kg").arg(QString::fromStdString(scalarOf(n, "mass")));
    const YAML::Node f = n["flexible"];
    if (f.IsDefined()) s += f["modal"].IsDefined() ? ", flexible (modal)" : ", flexible (beam)";
    return s;
  }
  if (!scalarOf(n, "type").empty()) {
    QString s = QString::fromStdString(scalarOf(n, "type"));
    if (!scalarOf(n, "start").empty()) s += QString(" from %1 s").arg(QString::fromStdString(scalarOf(n, "start")));
    return s;
  }
  return {};
}

// A list item's label: its name or type, else its index.
QString labelOf(const YAML::Node& n, int index) {
  const std::string name = scalarOf(n, "name");
  if (!name.empty()) return QString::fromStdString(name);
  const std::string type = scalarOf(n, "type");
  if (!type.empty()) return QString("%1: %2").arg(index).arg(QString::fromStdString(type));
  return QString("[%1]").arg(index);
}

// The unit of a robot file's key (scenarios/README.md, "Robots"): inside chaser.model.
QString robotUnitOf(const std::string& parent, const std::string& key) {
  if (parent == "tip_load") return key == "mass" ? "kg" : "kg m²";
  if (parent == "inertia" || key == "inertia" || key == "armature") return "kg m²";
  static const std::map<std::string, QString> kUnits{
      {"mass", "kg"},    {"com", "m"},      {"xyz", "m"},      {"length", "m"},      {"root", "m"},
      {"size", "m"},     {"radius", "m"},   {"d", "m"},        {"a", "m"},           {"rpy", "rad"},
      {"alpha", "rad"},  {"theta", "rad"},  {"lower", "rad"},  {"upper", "rad"},     {"density", "kg/m³"},
      {"area", "m²"},    {"young", "Pa"},   {"shear", "Pa"},   {"Iy", "m⁴"},         {"Iz", "m⁴"},
      {"frequency", "rad/s"}, {"gravity", "m/s²"}, {"damping_ratio", "ξ"}};
  const auto it = kUnits.find(key);
  return it == kUnits.end() ? QString() : it->second;
}

// The unit of the key at `steps`: the scenario format's (core/io/scenario_schema), or inside the
// embedded robot the robot format's.
QString unitOf(const YAML::Node& doc, const std::vector<Step>& steps) {
  if (steps.size() > 2 && steps[0].key == "chaser" && steps[1].key == "model") {
    std::string key, parent;
    for (const Step& s : steps) {
      if (s.index >= 0) continue;
      parent = key;
      key = s.key;
    }
    return robotUnitOf(parent, key);
  }
  std::vector<core::PathStep> path;
  for (const Step& s : steps) path.push_back({s.key, s.index});
  const core::ScenarioKey* k = core::scenarioKeyAt(doc, path);
  if (!k) return {};
  return k->type == core::KeyType::kQuaternion ? "[w x y z]" : QString::fromStdString(k->unit);
}

// The first line of an autosave file; the scenario's path follows it.
constexpr char kAutosaveHeader[] = "# grapple autosave of the scenario editor's document: ";
constexpr int kAutosaveMs = 3000;

QString autosaveDir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave";
}

// A file's whole text ("" if it cannot be read).
std::string fileText(const std::string& path) {
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

}  // namespace

ScenarioEditor::ScenarioEditor(MainWindow* window, QWidget* parent) : QWidget(parent), window_(window) {
  setObjectName("scenarioEditor");
  undo_ = new QUndoStack(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  robot_note_ = new QLabel(this);
  robot_note_->setObjectName("robotNote");
  robot_note_->setWordWrap(true);
  layout->addWidget(robot_note_);

  auto* split = new QSplitter(Qt::Vertical, this);
  model_ = new QStandardItemModel(this);
  model_->setHorizontalHeaderLabels({tr("Item"), tr("Value"), tr("Unit")});
  tree_ = new QTreeView(split);
  tree_->setObjectName("scenarioTree");
  tree_->setModel(model_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  tree_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  tree_->header()->setSectionResizeMode(1, QHeaderView::Stretch);
  tree_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(false);
  tree_->setColumnWidth(0, 190);
  connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    showProperties();
    updateButtons();
  });
  // In-place edits of the value column go through the same path as the property editor.
  connect(model_, &QStandardItemModel::itemChanged, this, [this](QStandardItem* item) {
    if (rebuilding_ || item->column() != 1) return;
    const QString path = item->data(kPathRole).toString();
    const QString text = item->text();
    if (text == valueText(path)) return;
    QMetaObject::invokeMethod(
        this,
        [this, path, text] {
          if (!setValue(path, text)) rebuildTree();  // the refused value out of the cell
        },
        Qt::QueuedConnection);
  });

  auto* props = new QWidget(split);
  auto* pl = new QVBoxLayout(props);
  pl->setContentsMargins(0, 0, 0, 0);
  heading_ = new QLabel(props);
  heading_->setObjectName("propertyHeading");
  heading_->setWordWrap(true);
  heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  pl->addWidget(heading_);
  auto* buttons = new QHBoxLayout;
  add_ = new QPushButton(tr("Add copy"), props);
  add_->setToolTip(tr("Insert a copy of the selected list item after it (link, controller, window...)"));
  remove_ = new QPushButton(tr("Remove"), props);
  up_ = new QPushButton(tr("Up"), props);
  down_ = new QPushButton(tr("Down"), props);
  for (QPushButton* b : {add_, remove_, up_, down_}) buttons->addWidget(b);
  buttons->addStretch(1);
  pl->addLayout(buttons);
  connect(add_, &QPushButton::clicked, this, [this] { duplicateItem(selectedPath()); });
  connect(remove_, &QPushButton::clicked, this, [this] { removeItem(selectedPath()); });
  connect(up_, &QPushButton::clicked, this, [this] { moveItem(selectedPath(), -1); });
  connect(down_, &QPushButton::clicked, this, [this] { moveItem(selectedPath(), +1); });
  auto* scroll = new QScrollArea(props);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  form_host_ = new QWidget(scroll);
  form_layout_ = new QVBoxLayout(form_host_);
  form_layout_->setContentsMargins(0, 0, 0, 0);
  form_layout_->addStretch(1);
  scroll->setWidget(form_host_);
  pl->addWidget(scroll, 1);
  error_label_ = new QLabel(props);
  error_label_->setObjectName("editorError");
  error_label_->setWordWrap(true);
  error_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_label_->setStyleSheet("QLabel { color: #c0392b; font-weight: bold; }");
  error_label_->hide();
  pl->addWidget(error_label_);
  split->addWidget(tree_);
  split->addWidget(props);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);

  connect(window_, &MainWindow::scenarioReplaced, this, &ScenarioEditor::onScenarioReplaced);
  autosave_timer_ = new QTimer(this);
  autosave_timer_->setInterval(kAutosaveMs);
  connect(autosave_timer_, &QTimer::timeout, this, &ScenarioEditor::autosave);
  autosave_timer_->start();
  watcher_ = new QFileSystemWatcher(this);
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, &ScenarioEditor::onFileChanged);
  rebuildTree();
}

// (The autosave stays: unsaved edits are offered back at the next start.)
ScenarioEditor::~ScenarioEditor() = default;

bool ScenarioEditor::isModified() const { return foreign_modified_ || !undo_->isClean(); }

bool ScenarioEditor::robotEmbedded() const {
  const std::optional<YAML::Node> m = nodeAt(doc_, {{"chaser"}, {"model"}});
  return m.has_value();
}

// ---- the document ----------------------------------------------------------------------------

void ScenarioEditor::refreshRobotModel() {
  robot_model_ = YAML::Node();
  robot_file_.clear();
  const std::optional<YAML::Node> robot = nodeAt(doc_, {{"chaser"}, {"robot"}});
  if (robot && robot->IsScalar()) {
    fs::path p(robot->Scalar());
    if (p.is_relative() && !path_.empty()) p = fs::path(path_).parent_path() / p;
    const std::string ext = p.extension().string();
    if (ext == ".yaml" || ext == ".yml") {
      try {
        const YAML::Node file = YAML::LoadFile(p.lexically_normal().string());
        if (file["model"].IsMap()) {
          robot_model_ = file["model"];
          robot_file_ = p.lexically_normal().string();
        }
      } catch (const YAML::Exception&) {
        // The loader has reported it (the document validated); nothing to show.
      }
    }
    robot_note_->setText(robot_model_.IsMap()
                             ? tr("Robot: <b>%1</b>, a file shared by other scenarios and never written here. "
                                  "Editing the robot copies it into this scenario (chaser.model).")
                                   .arg(QString::fromStdString(robot->Scalar()).toHtmlEscaped())
                             : tr("Robot: <b>%1</b> (not a YAML robot: its links are not editable here).")
                                   .arg(QString::fromStdString(robot->Scalar()).toHtmlEscaped()));
  } else if (robotEmbedded()) {
    robot_note_->setText(tr("Robot: embedded in this scenario (chaser.model)."));
  } else {
    robot_note_->setText(tr("No scenario."));
  }
}

void ScenarioEditor::adoptText(const std::string& text, const std::string& scenario_yaml) {
  text_ = text;
  doc_ = YAML::Load(text_);
  scenario_yaml_ = scenario_yaml;
  refreshRobotModel();
  rebuildTree();
  emit documentChanged();
}

void ScenarioEditor::onScenarioReplaced() {
  if (applying_) return;
  const std::string now = core::scenarioToYaml(window_->loaded().scenario);
  const std::string wpath = window_->scenarioPath().toStdString();
  if (!text_.empty() && wpath == path_ && now == scenario_yaml_) return;  // a reset: nothing new
  clearError();
  try {
    // An open (or a scenario equal to its file): the file's document.
    const std::string text = core::documentText(core::readScenarioDocument(wpath, window_->overrides()));
    const std::string scen = core::scenarioToYaml(core::loadScenarioDocument(wpath, YAML::Load(text)).scenario);
    if (wpath != path_ || scen == now) {
      path_ = wpath;
      undo_->clear();
      foreign_modified_ = false;
      adoptText(text, scen);
      watchFile();
      return;
    }
  } catch (const std::exception&) {
    // The file changed or went away since: the scenario itself, below.
  }
  // Another panel's change: the document rebuilt from the scenario.
  if (wpath != path_) {
    path_ = wpath;
    watchFile();
  }
  undo_->clear();
  foreign_modified_ = true;
  std::string scen = now;
  try {
    scen = core::scenarioToYaml(core::loadScenarioDocument(path_, YAML::Load(now)).scenario);
  } catch (const std::exception&) {
  }
  adoptText(now, scen);
  emit statusMessage(tr("Scenario editor: the scenario was changed by another panel; the document now follows it "
                        "(its undo history was cleared)."));
}

bool ScenarioEditor::restore(const std::string& text) {
  clearError();
  core::LoadedScenario loaded;
  YAML::Node parsed;
  try {
    parsed = YAML::Load(text);
    loaded = core::loadScenarioDocument(path_, parsed);
  } catch (const core::LoadError& e) {
    fail(QString::fromStdString(e.what()));
    return false;
  } catch (const std::exception& e) {  // YAML::Exception: a value that is not YAML
    fail(QString::fromStdString(path_ + ": " + e.what()));
    return false;
  }
  const std::string scen = core::scenarioToYaml(loaded.scenario);
  applying_ = true;
  const bool ok = window_->applyScenario(std::move(loaded), /*quiet=*/true);
  applying_ = false;
  if (!ok) {
    fail(window_->lastError());
    return false;
  }
  adoptText(text, scen);
  return true;
}

bool ScenarioEditor::commit(const YAML::Node& doc, const QString& what) {
  const std::string text = core::documentText(doc);
  if (text == text_) {
    clearError();
    return true;
  }
  const std::string before = text_;
  if (!restore(text)) return false;
  undo_->push(new EditCommand(this, before, text, what));
  return true;
}

YAML::Node ScenarioEditor::editableCopy(const QString& path, bool* embedded) const {
  *embedded = false;
  if (path.startsWith("chaser.model") && robot_model_.IsMap() && !robotEmbedded()) {
    *embedded = true;
    return core::withModel(doc_, robot_model_, /*keep_robot=*/false);
  }
  return YAML::Clone(doc_);
}

bool ScenarioEditor::hasNode(const QString& path) const {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull()) return false;
  const YAML::Node view = robot_model_.IsMap() ? core::withModel(doc_, robot_model_, true) : doc_;
  return nodeAt(view, *steps).has_value();
}

QString ScenarioEditor::valueText(const QString& path) const {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull()) return {};
  const YAML::Node view = robot_model_.IsMap() ? core::withModel(doc_, robot_model_, true) : doc_;
  const std::optional<YAML::Node> n = nodeAt(view, *steps);
  return n ? QString::fromStdString(compact(*n)) : QString();
}

// ---- the edits -------------------------------------------------------------------------------

bool ScenarioEditor::setValue(const QString& path, const QString& yaml) {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull()) {
    fail(tr("No node '%1' to edit.").arg(path));
    return false;
  }
  YAML::Node value;
  try {
    value = YAML::Load(yaml.toStdString());
  } catch (const YAML::Exception& e) {
    fail(tr("%1: '%2' is not a YAML value: %3").arg(path, yaml, QString::fromStdString(e.msg)));
    return false;
  }
  // A name or a description stays text, whatever it looks like.
  if (steps->back().key == "name" || steps->back().key == "description") value = YAML::Node(yaml.toStdString());
  bool embedded = false;
  YAML::Node doc = editableCopy(path, &embedded);
  try {
    core::setNode(doc, *steps, value);
  } catch (const std::invalid_argument&) {
    fail(tr("No node '%1' to edit.").arg(path));
    return false;
  }
  if (!commit(doc, tr("Set %1 = %2").arg(path, yaml))) return false;
  if (embedded) {
    emit statusMessage(tr("The robot of %1 is now embedded in this scenario (chaser.model): saving writes the "
                          "scenario only, never the shared robot file.")
                           .arg(QString::fromStdString(fs::path(robot_file_).filename().string())));
  }
  return true;
}

bool ScenarioEditor::removeItem(const QString& path) {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull()) {
    fail(tr("Cannot remove '%1'.").arg(path));
    return false;
  }
  bool embedded = false;
  YAML::Node doc = editableCopy(path, &embedded);
  try {
    core::removeNode(doc, *steps);
  } catch (const std::invalid_argument&) {
    fail(tr("No node '%1' to remove.").arg(path));
    return false;
  }
  const bool ok = commit(doc, tr("Remove %1").arg(path));
  if (ok && embedded) emit statusMessage(tr("The robot is now embedded in this scenario (chaser.model)."));
  return ok;
}

bool ScenarioEditor::duplicateItem(const QString& path) {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull() || steps->back().index < 0) {
    fail(tr("Only list items (links, controllers, ...) can be copied; '%1' is not one.").arg(path));
    return false;
  }
  bool embedded = false;
  YAML::Node doc = editableCopy(path, &embedded);
  try {
    core::duplicateItem(doc, *steps);
  } catch (const std::invalid_argument&) {
    fail(tr("No node '%1' to copy.").arg(path));
    return false;
  }
  const bool ok = commit(doc, tr("Copy %1").arg(path));
  if (ok) {
    select(childPath(path.left(path.lastIndexOf('[')), steps->back().index + 1));
    if (embedded) emit statusMessage(tr("The robot is now embedded in this scenario (chaser.model)."));
  }
  return ok;
}

bool ScenarioEditor::moveItem(const QString& path, int delta) {
  const auto steps = parsePath(path);
  if (!steps || doc_.IsNull() || steps->back().index < 0) {
    fail(tr("Only list items can be moved; '%1' is not one.").arg(path));
    return false;
  }
  bool embedded = false;
  YAML::Node doc = editableCopy(path, &embedded);
  try {
    core::moveItem(doc, *steps, delta);
  } catch (const std::invalid_argument&) {
    fail(tr("Cannot move '%1' there.").arg(path));
    return false;
  }
  const bool ok = commit(doc, tr("Move %1 %2").arg(path, delta < 0 ? tr("up") : tr("down")));
  if (ok) {
    select(childPath(path.left(path.lastIndexOf('[')), steps->back().index + delta));
    if (embedded) emit statusMessage(tr("The robot is now embedded in this scenario (chaser.model)."));
  }
  return ok;
}

void ScenarioEditor::saveTo(const QString& path) {
  YAML::Node doc = YAML::Clone(doc_);
  const std::string target = fs::absolute(path.toStdString()).lexically_normal().string();
  const bool moved = fs::path(target).parent_path() != fs::absolute(path_).lexically_normal().parent_path();
  // A relative robot reference follows the scenario to its new place.
  if (std::optional<YAML::Node> robot = nodeAt(doc, {{"chaser"}, {"robot"}}); robot && robot->IsScalar() && moved) {
    const fs::path p(robot->Scalar());
    if (p.is_relative()) doc["chaser"]["robot"] = core::robotReference((fs::path(path_).parent_path() / p).string(), target);
  }
  const std::string text = core::documentText(doc);
  core::writeFileAtomically(target, text);
  removeAutosave();  // saved: nothing to recover
  path_ = target;
  watchFile();
  if (moved) undo_->clear();  // the history's documents would name the robot from the old place
  if (text != text_) adoptText(text, scenario_yaml_);
  undo_->setClean();
  foreign_modified_ = false;
  emit documentChanged();
}

// ---- autosave and recovery -------------------------------------------------------------------

QString ScenarioEditor::autosavePath() const {
  const QByteArray key = QCryptographicHash::hash(QByteArray::fromStdString(path_), QCryptographicHash::Sha1);
  return autosaveDir() + "/" + QString::fromLatin1(key.toHex().left(16)) + ".yaml";
}

void ScenarioEditor::setAutosaveInterval(int ms) { autosave_timer_->setInterval(ms); }

void ScenarioEditor::removeAutosave() {
  if (!autosave_file_.isEmpty()) QFile::remove(autosave_file_);
  autosave_file_.clear();
  autosaved_.clear();
}

void ScenarioEditor::autosave() {
  if (!isModified()) {  // undone back to the file: nothing to recover
    removeAutosave();
    return;
  }
  if (text_ == autosaved_ && autosave_file_ == autosavePath()) return;
  const QString file = autosavePath();
  try {
    QDir().mkpath(autosaveDir());
    core::writeFileAtomically(file.toStdString(), kAutosaveHeader + path_ + "\n" + text_);
    autosave_file_ = file;
    autosaved_ = text_;
  } catch (const std::exception& e) {
    emit statusMessage(tr("Scenario editor: autosave failed: %1").arg(QString::fromStdString(e.what())));
  }
}

std::vector<ScenarioEditor::Recovery> ScenarioEditor::pendingRecoveries() {
  std::vector<Recovery> found;
  const QFileInfoList files = QDir(autosaveDir()).entryInfoList({"*.yaml"}, QDir::Files, QDir::Time);
  for (const QFileInfo& fi : files) {
    QFile f(fi.absoluteFilePath());
    if (!f.open(QIODevice::ReadOnly)) continue;
    const QString first = QString::fromUtf8(f.readLine()).trimmed();
    if (!first.startsWith(QLatin1String(kAutosaveHeader))) continue;  // not ours
    found.push_back({fi.absoluteFilePath(), first.mid(int(std::strlen(kAutosaveHeader))),
                     fi.lastModified().toString("yyyy-MM-dd HH:mm:ss")});
  }
  return found;
}

bool ScenarioEditor::recover(const QString& autosave) {
  const std::string content = fileText(autosave.toStdString());
  const std::size_t eol = content.find('\n');
  if (content.rfind(kAutosaveHeader, 0) != 0 || eol == std::string::npos) {
    fail(tr("%1: not an autosave of the scenario editor").arg(autosave));
    return false;
  }
  const QString scenario = QString::fromStdString(content.substr(std::strlen(kAutosaveHeader), eol - std::strlen(kAutosaveHeader)));
  if (!window_->openScenario(scenario)) {
    fail(tr("Cannot recover the edits of %1: %2").arg(scenario, window_->lastError()));
    return false;
  }
  if (!restore(content.substr(eol + 1))) return false;
  undo_->clear();
  foreign_modified_ = true;  // the file does not hold them: Save writes them
  autosave_file_ = autosave;
  autosaved_ = text_;
  emit documentChanged();
  emit statusMessage(tr("Scenario editor: the unsaved edits of %1 were recovered; save to keep them.").arg(scenario));
  return true;
}

void ScenarioEditor::discardRecovery(const QString& autosave) { QFile::remove(autosave); }

// ---- the file on disk -------------------------------------------------------------------------

void ScenarioEditor::watchFile() {
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  disk_text_ = fileText(path_);
  if (!path_.empty() && fs::exists(path_)) watcher_->addPath(QString::fromStdString(path_));
}

void ScenarioEditor::fileWrittenHere() { disk_text_ = fileText(path_); }

bool ScenarioEditor::fileChangedOnDisk() const {
  return reload_question_ != nullptr || (fs::exists(path_) && fileText(path_) != disk_text_);
}

void ScenarioEditor::onFileChanged() {
  const QString qpath = QString::fromStdString(path_);
  // A file replaced by a rename (any atomic save) is no longer watched: watch the new one.
  if (fs::exists(path_) && !watcher_->files().contains(qpath)) watcher_->addPath(qpath);
  const std::string now = fileText(path_);
  if (now == disk_text_ || reload_question_) return;
  disk_text_ = now;  // asked once per change
  if (!fs::exists(path_)) {
    emit statusMessage(tr("%1 was removed from the disk; Save writes it again.").arg(qpath));
    return;
  }
  auto* box = new QMessageBox(QMessageBox::Question, tr("Scenario changed on disk"),
                              tr("%1 was changed on disk by another program.\n\nReload it? %2")
                                  .arg(qpath, isModified() ? tr("The editor's unsaved edits will be lost.")
                                                           : tr("(The editor has no unsaved edits.)")),
                              QMessageBox::NoButton, this);
  box->setObjectName("reloadQuestion");
  QPushButton* reload = box->addButton(tr("Reload"), QMessageBox::AcceptRole);
  box->addButton(tr("Keep mine"), QMessageBox::RejectRole);
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(box, &QMessageBox::finished, this, [this, box, reload, qpath] {
    reload_question_ = nullptr;
    if (box->clickedButton() == reload) {
      window_->openScenario(qpath);
    } else {
      emit statusMessage(tr("Kept the editor's document; saving it overwrites the file changed on disk."));
    }
  });
  reload_question_ = box;
  box->open();
}

// ---- the widgets -----------------------------------------------------------------------------

void ScenarioEditor::fail(const QString& message) {
  error_ = message;
  error_label_->setText(message + "\n" + tr("(refused; line numbers are those of the scenario as Save would write it)"));
  error_label_->show();
}

void ScenarioEditor::clearError() {
  error_.clear();
  error_label_->clear();
  error_label_->hide();
}

QStandardItem* ScenarioEditor::itemAt(const QString& path) const {
  const QModelIndexList found =
      model_->match(model_->index(0, 0), kPathRole, path, 1, Qt::MatchExactly | Qt::MatchRecursive);
  return found.isEmpty() ? nullptr : model_->itemFromIndex(found.first());
}

QString ScenarioEditor::selectedPath() const {
  const QModelIndex i = tree_->currentIndex();
  return i.isValid() ? i.siblingAtColumn(0).data(kPathRole).toString() : QString();
}

bool ScenarioEditor::select(const QString& path) {
  QStandardItem* item = itemAt(path);
  if (!item) return false;
  tree_->setCurrentIndex(item->index());
  tree_->scrollTo(item->index());
  return true;
}

void ScenarioEditor::rebuildTree() {
  // Keep what was open and selected.
  std::set<QString> expanded;
  const QString selected = selectedPath();
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < model_->rowCount(parent); ++r) {
      const QModelIndex i = model_->index(r, 0, parent);
      if (tree_->isExpanded(i)) expanded.insert(i.data(kPathRole).toString());
      walk(i);
    }
  };
  walk(QModelIndex());
  const bool first = model_->rowCount() == 0;
  rebuilding_ = true;
  model_->removeRows(0, model_->rowCount());
  if (doc_.IsMap()) {
    const YAML::Node view = robot_model_.IsMap() ? core::withModel(doc_, robot_model_, true) : doc_;
    const bool borrowed = robot_model_.IsMap();
    std::function<void(QStandardItem*, const YAML::Node&, const QString&, std::vector<Step>&)> add;
    add = [&](QStandardItem* parent, const YAML::Node& node, const QString& path, std::vector<Step>& steps) {
      auto row = [&](const QString& label, const YAML::Node& child, const QString& child_path) {
        auto* key = new QStandardItem(label);
        key->setData(child_path, kPathRole);
        key->setEditable(false);
        auto* value = new QStandardItem;
        value->setData(child_path, kPathRole);
        auto* unit = new QStandardItem(unitOf(doc_, steps));
        unit->setEditable(false);
        if (isLeaf(child)) {
          value->setText(QString::fromStdString(compact(child)));
          value->setEditable(true);
        } else {
          value->setText(summary(steps, child));
          value->setEditable(false);
          value->setForeground(QColor(110, 110, 110));
        }
        if (borrowed && child_path.startsWith("chaser.model")) {
          key->setToolTip(tr("From the robot file; editing it embeds a copy in this scenario"));
          if (child_path == "chaser.model") key->setText(tr("model (robot file)"));
        }
        parent->appendRow({key, value, unit});
        if (!isLeaf(child)) add(key, child, child_path, steps);
      };
      if (node.IsMap()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
          const std::string k = it->first.Scalar();
          steps.push_back({k, -1});
          row(QString::fromStdString(k), it->second, childPath(path, k));
          steps.pop_back();
        }
      } else if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
          steps.push_back({{}, static_cast<int>(i)});
          row(labelOf(node[i], static_cast<int>(i)), node[i], childPath(path, static_cast<int>(i)));
          steps.pop_back();
        }
      }
    };
    std::vector<Step> steps;
    add(model_->invisibleRootItem(), view, QString(), steps);
  }
  rebuilding_ = false;
  // Open again what was open; at first the main groups.
  for (int r = 0; r < model_->rowCount(); ++r) {
    const QModelIndex i = model_->index(r, 0);
    const QString p = i.data(kPathRole).toString();
    if (first && (p == "chaser" || p == "debris" || p == "controllers" || p == "run")) tree_->expand(i);
  }
  for (const QString& p : expanded) {
    if (QStandardItem* item = itemAt(p)) tree_->expand(item->index());
  }
  if (!selected.isEmpty() && select(selected)) return;
  showProperties();
  updateButtons();
}

void ScenarioEditor::updateButtons() {
  const auto steps = parsePath(selectedPath());
  const bool item = steps && steps->back().index >= 0;
  add_->setEnabled(item);
  up_->setEnabled(item && steps->back().index > 0);
  down_->setEnabled(item && hasNode(childPath(selectedPath().left(selectedPath().lastIndexOf('[')), steps->back().index + 1)));
  remove_->setEnabled(steps.has_value());
}

void ScenarioEditor::showProperties() {
  // The old form goes later: its line edit may be the one whose signal brought us here.
  ++generation_;
  if (form_) {
    form_->hide();
    form_->setParent(nullptr);  // out of findChild's reach at once
    form_->deleteLater();
  }
  form_ = new QWidget(form_host_);
  auto* form = new QFormLayout(form_);
  form->setContentsMargins(0, 0, 0, 0);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form_layout_->insertWidget(0, form_);

  const QString path = selectedPath();
  const auto steps = parsePath(path);
  const YAML::Node view = robot_model_.IsMap() ? core::withModel(doc_, robot_model_, true) : doc_;
  const std::optional<YAML::Node> node = steps ? nodeAt(view, *steps) : std::nullopt;
  if (!node) {
    heading_->setText(doc_.IsNull() ? tr("No scenario open.") : tr("Select an item of the scenario to edit it."));
    form_->show();
    return;
  }
  QString heading = QString("<b>%1</b>").arg(path.toHtmlEscaped());
  if (path.startsWith("chaser.model") && robot_model_.IsMap()) {
    heading += "<br>" + tr("in the robot file %1: an edit copies the robot into this scenario")
                            .arg(QString::fromStdString(fs::path(robot_file_).filename().string()).toHtmlEscaped());
  }
  heading_->setText(heading);

  const int generation = generation_;
  auto addEditor = [&](const QString& label, const YAML::Node& value, const QString& value_path,
                       const std::vector<Step>& value_steps) {
    auto* edit = new QLineEdit(QString::fromStdString(compact(value)), form_);
    edit->setObjectName("edit:" + value_path);
    edit->setToolTip(tr("YAML: a number, a word, or a list [a, b, c]; Enter applies"));
    const QString unit = unitOf(doc_, value_steps);
    QWidget* field = edit;
    if (!unit.isEmpty()) {
      field = new QWidget(form_);
      auto* h = new QHBoxLayout(field);
      h->setContentsMargins(0, 0, 0, 0);
      h->addWidget(edit, 1);
      h->addWidget(new QLabel(unit, field));
    }
    form->addRow(label, field);
    connect(edit, &QLineEdit::editingFinished, this, [this, edit, value_path, generation] {
      if (generation != generation_) return;
      const QString now = valueText(value_path);
      if (edit->text() == now) return;
      if (!setValue(value_path, edit->text())) edit->setText(now);
    });
  };
  if (isLeaf(*node)) {
    addEditor(QString::fromStdString(steps->back().index >= 0 ? "[" + std::to_string(steps->back().index) + "]"
                                                               : steps->back().key),
              *node, path, *steps);
  } else if (node->IsMap() || node->IsSequence()) {
    int k = 0;
    for (auto it = node->begin(); it != node->end(); ++it, ++k) {
      const bool map = node->IsMap();
      const YAML::Node child = map ? it->second : *it;
      const std::string key = map ? it->first.Scalar() : std::string();
      const QString cp = map ? childPath(path, key) : childPath(path, k);
      std::vector<Step> cs = *steps;
      cs.push_back(map ? Step{key, -1} : Step{{}, k});
      const QString label = map ? QString::fromStdString(key) : labelOf(child, k);
      if (isLeaf(child)) {
        addEditor(label, child, cp, cs);
      } else {
        auto* open = new QPushButton(QString::fromStdString(compact(child)).left(60) + "  ›", form_);
        open->setFlat(true);
        open->setStyleSheet("QPushButton { text-align: left; }");
        open->setToolTip(tr("Select %1").arg(cp));
        connect(open, &QPushButton::clicked, this, [this, cp] {
          if (QStandardItem* item = itemAt(cp)) tree_->expand(item->parent() ? item->parent()->index() : QModelIndex());
          select(cp);
        });
        form->addRow(label, open);
      }
    }
  }
  form_->show();  // with its rows: widgets added to a shown parent would appear only later
}

}  // namespace grapple::ui
