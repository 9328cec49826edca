// The pictures of docs/tutorial.md that show clicks and dialogs, made from the real window under a
// (virtual) X display at 1280x800: the scenario editor's clicks (the debris' initial state chosen
// in the tree, its rate typed in its field; each target framed in red), and the export dialogs
// (a plot's context menu, File > Export figure set's folder dialog, File > Export video's
// settings, File > Save 3D view as image's size) — each driven as a user would, checked (the edit
// changes the scenario and restarts the run, the dialogs offer what the tutorial says), grabbed
// and closed. The pictures go to $GRAPPLE_TUTORIAL_DIR (scripts/tutorial.sh: docs/tutorial),
// else to tutorial/ in the build directory. With no X display the whole test is skipped.
#include "tests/support/gui_test_main.hpp"
#include <QtTest>

#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <functional>
#include <memory>
#include <qcustomplot.h>

#include "ui/main_window.hpp"
#include "ui/plot_panel.hpp"
#include "ui/scenario_editor.hpp"
#include "ui/sim_runner.hpp"
#include "ui/video_export.hpp"

using namespace grapple;

namespace {

const QString kScenario = GRAPPLE_SOURCE_DIR "/scenarios/capture_flexible.yaml";

QString outputDir() {
  const QString dir = qEnvironmentVariableIsEmpty("GRAPPLE_TUTORIAL_DIR") ? QString(GRAPPLE_BINARY_DIR "/tutorial")
                                                                          : qEnvironmentVariable("GRAPPLE_TUTORIAL_DIR");
  QDir().mkpath(dir);
  return dir;
}

// The window's picture with the click targets framed in red (rectangles in window coordinates).
QImage framed(QWidget* window, const std::vector<QRect>& targets) {
  QImage img = window->grab().toImage().convertToFormat(QImage::Format_RGB32);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(QColor(230, 30, 30), 3));
  for (const QRect& r : targets) p.drawRoundedRect(r.adjusted(-4, -3, 4, 3), 4, 4);
  return img;
}

QRect inWindow(QWidget* window, QWidget* w, const QRect& r) { return QRect(w->mapTo(window, r.topLeft()), r.size()); }

// The tree's index whose first column reads `text`, under `parent`.
QModelIndex child(const QAbstractItemModel* m, const QModelIndex& parent, const QString& text) {
  for (int r = 0; r < m->rowCount(parent); ++r) {
    const QModelIndex i = m->index(r, 0, parent);
    if (i.data().toString() == text) return i;
  }
  return {};
}

// Runs `inside` on the modal dialog or popup that `open` brings up (open blocks in its exec()),
// then closes it; false if none came up.
bool whileOpen(const std::function<void()>& open, const std::function<void(QWidget*)>& inside) {
  bool seen = false;
  QTimer poll;
  poll.setInterval(50);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    QWidget* w = QApplication::activePopupWidget();
    if (w == nullptr) w = QApplication::activeModalWidget();
    if (w == nullptr || !w->isVisible() || seen) return;
    seen = true;
    poll.stop();
    QTest::qWait(150);  // laid out and painted
    inside(w);
  });
  poll.start();
  open();
  poll.stop();
  return seen;
}

void closeIt(QWidget* w) {
  if (auto* d = qobject_cast<QDialog*>(w)) {
    d->reject();
  } else {
    w->close();
  }
}

}  // namespace

class TestTutorial : public QObject {
  Q_OBJECT
  std::unique_ptr<ui::MainWindow> window_;
  QString out_;

  QAction* fileAction(const QString& starts) {
    for (QAction* m : window_->menuBar()->actions()) {
      if (m->text() != "&File" || m->menu() == nullptr) continue;
      for (QAction* a : m->menu()->actions()) {
        if (a->text().remove('&').startsWith(starts)) return a;
      }
    }
    return nullptr;
  }

 private slots:
  void initTestCase() {
    QSettings().clear();
    for (const auto& r : ui::ScenarioEditor::pendingRecoveries()) ui::ScenarioEditor::discardRecovery(r.autosave);
    out_ = outputDir();
    QVERIFY(grapple::test::showMainWindow(window_));
    window_->setSpeed(0);
    QVERIFY(window_->openScenario(kScenario));
    window_->runner()->runUntil(2.0);  // a little of the run in the plots
    QTRY_VERIFY_WITH_TIMEOUT(window_->runner()->status().time >= 2.0 && !window_->runner()->status().running, 120000);
    window_->tick();
  }

  // The editor's clicks: the panel, debris > initial in the tree, the rate typed in its field;
  // Enter restarts the run from the edited scenario.
  void editorClicks() {
    auto* dock = window_->findChild<QDockWidget*>("dock:editor");
    QVERIFY(dock != nullptr);
    dock->show();
    dock->raise();
    // Room for the editor in the pictures: the Events panel closed, the column wider.
    if (auto* events = window_->findChild<QDockWidget*>("dock:events")) events->hide();
    window_->resizeDocks({dock}, {440}, Qt::Horizontal);
    QTest::qWait(100);
    ui::ScenarioEditor* editor = window_->editor();
    QTreeView* tree = editor->tree();
    const QAbstractItemModel* m = tree->model();
    const QModelIndex debris = child(m, {}, "debris");
    QVERIFY(debris.isValid());
    tree->expand(debris);
    const QModelIndex initial = child(m, debris, "initial");
    QVERIFY(initial.isValid());
    tree->scrollTo(initial);
    QTest::qWait(100);
    const QRect item = tree->visualRect(initial);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, item.center());
    QTest::qWait(150);
    QLineEdit* rate = editor->findChild<QLineEdit*>("edit:debris.initial.rate_deg_s");
    QVERIFY(rate != nullptr && rate->isVisible());
    QCOMPARE(rate->text(), QString("[0, 4, 0]"));
    for (QWidget* w = rate->parentWidget(); w != nullptr; w = w->parentWidget()) {
      if (auto* area = qobject_cast<QScrollArea*>(w)) area->ensureWidgetVisible(rate);
    }
    QTest::qWait(100);
    QImage shot = framed(window_.get(), {inWindow(window_.get(), tree->viewport(), item)});
    QVERIFY(shot.save(out_ + "/editor_select.png"));

    rate->selectAll();
    QTest::keyClicks(rate, "[0, 6, 0]");
    QTest::qWait(100);
    shot = framed(window_.get(), {inWindow(window_.get(), rate, rate->rect())});
    QVERIFY(shot.save(out_ + "/editor_type.png"));
    QSignalSpy replaced(window_.get(), &ui::MainWindow::scenarioReplaced);
    QTest::keyClick(rate, Qt::Key_Return);
    QTRY_COMPARE(replaced.count(), 1);
    QCOMPARE(window_->loaded().scenario.debris.initial.w_B.norm() * 180 / M_PI, 6.0);
    QCOMPARE(window_->runner()->rows(), 1);  // the run restarted from the edited scenario
    QVERIFY(editor->undoStack()->canUndo());
    editor->undoStack()->undo();  // back to 4 deg/s for the pictures that follow
    QTRY_VERIFY(std::abs(window_->loaded().scenario.debris.initial.w_B.norm() * 180 / M_PI - 4.0) < 1e-9);
    window_->runner()->runUntil(2.0);
    QTRY_VERIFY_WITH_TIMEOUT(window_->runner()->status().time >= 2.0 && !window_->runner()->status().running, 120000);
    window_->tick();
    if (auto* events = window_->findChild<QDockWidget*>("dock:events")) events->show();
  }

  // A plot's context menu: PNG, PDF and CSV.
  void plotExportMenu() {
    ui::PlotPanel* energy = nullptr;
    for (ui::PlotPanel* p : window_->plots()) {
      if (p->title() == "Energy") energy = p;
    }
    QVERIFY(energy != nullptr && energy->isVisible());
    QCustomPlot* plot = energy->plot();
    const QPoint at = plot->axisRect()->rect().center();
    QStringList entries;
    const bool opened = whileOpen([&] { emit plot->customContextMenuRequested(at); },
                                  [&](QWidget* w) {
                                    auto* menu = qobject_cast<QMenu*>(w);
                                    if (menu == nullptr) return closeIt(w);
                                    for (QAction* a : menu->actions()) entries << a->text();
                                    // The window with the menu where it opened (the menu is a popup of its own).
                                    QImage img = framed(window_.get(), {inWindow(window_.get(), plot, QRect(at, QSize(1, 1)))});
                                    QPainter p(&img);
                                    p.drawImage(window_->mapFromGlobal(menu->pos()), menu->grab().toImage());
                                    p.end();
                                    img.save(out_ + "/export_plot_menu.png");
                                    menu->close();
                                  });
    QVERIFY(opened);
    qInfo("plot menu: %s", qPrintable(entries.join(" | ")));
    QVERIFY(entries.contains("Export PNG...") && entries.contains("Export PDF...") && entries.contains("Export CSV..."));
  }

  // File > Export figure set: a folder to write every open plot into.
  void figureSetDialog() {
    QAction* a = fileAction("Export figure set");
    QVERIFY(a != nullptr);
    QString title;
    QVERIFY(whileOpen([&] { a->trigger(); },
                      [&](QWidget* w) {
                        title = w->windowTitle();
                        w->grab().save(out_ + "/export_figure_set.png");
                        closeIt(w);
                      }));
    QCOMPARE(title, QString("Export the open plots into"));
  }

  // File > Export video: path, size, frame rate, speed, time window, camera.
  void videoDialog() {
    QAction* a = fileAction("Export video");
    QVERIFY(a != nullptr);
    bool is_video_dialog = false;
    QVERIFY(whileOpen([&] { a->trigger(); },
                      [&](QWidget* w) {
                        is_video_dialog = qobject_cast<ui::VideoExportDialog*>(w) != nullptr;
                        w->grab().save(out_ + "/export_video.png");
                        closeIt(w);
                      }));
    QVERIFY(is_video_dialog);
  }

  // File > Save 3D view as image: the file, then the size in pixels.
  void viewImageDialogs() {
    QAction* a = fileAction("Save 3D view as image");
    QVERIFY(a != nullptr);
    QTemporaryDir dir;
    QString size_label;
    bool saw_file_dialog = false;
    QTimer poll;
    poll.setInterval(50);
    connect(&poll, &QTimer::timeout, [&] {
      QWidget* w = QApplication::activeModalWidget();
      if (w == nullptr || !w->isVisible()) return;
      if (auto* f = qobject_cast<QFileDialog*>(w); f && !saw_file_dialog) {
        saw_file_dialog = true;
        f->selectFile(dir.filePath("view.png"));
        static_cast<QDialog*>(f)->accept();
      } else if (auto* in = qobject_cast<QInputDialog*>(w)) {
        poll.stop();
        QTest::qWait(150);
        size_label = in->labelText();
        in->grab().save(out_ + "/export_view_image.png");
        in->reject();
      }
    });
    poll.start();
    a->trigger();
    poll.stop();
    QVERIFY(saw_file_dialog);
    QCOMPARE(size_label, QString("Width x height in pixels:"));
  }

  // Every picture is there, a real image of the window or its dialog.
  void picturesWritten() {
    for (const char* name : {"editor_select", "editor_type", "export_plot_menu", "export_figure_set", "export_video",
                             "export_view_image"}) {
      const QImage img(out_ + "/" + name + ".png");
      qInfo("%s.png: %dx%d", name, img.width(), img.height());
      QVERIFY2(img.width() >= 150 && img.height() >= 60, name);
    }
  }

  void cleanupTestCase() { window_.reset(); }
};

GRAPPLE_GUI_TEST_MAIN(TestTutorial, "test_tutorial")
#include "test_tutorial.moc"
