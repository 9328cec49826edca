// main() of the tests that drive the real main window: skipped (with the SKIP line CTest looks
// for) without an X display; the surface format of app/grapple (fixed-function OSG needs a
// compatibility profile); QSettings in test mode, away from the user's. And the window itself.
#pragma once

#include <cstdio>
#include <memory>

#include <QApplication>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QtTest>

#include "ui/main_window.hpp"

namespace grapple::test {

// A new main window of the given size, shown; false if it was not exposed in time.
inline bool showMainWindow(std::unique_ptr<ui::MainWindow>& window, int width = 1280, int height = 800) {
  window = std::make_unique<ui::MainWindow>();
  window->resize(width, height);
  window->show();
  return QTest::qWaitForWindowExposed(window.get());
}

}  // namespace grapple::test

#define GRAPPLE_GUI_TEST_MAIN(TestClass, name)                                                       \
  int main(int argc, char** argv) {                                                                  \
    if (qEnvironmentVariableIsEmpty("DISPLAY")) {                                                    \
      std::printf("SKIP   : " #TestClass "::initTestCase() no X display (run under xvfb-run)\n");    \
      return 0;                                                                                      \
    }                                                                                                \
    QSurfaceFormat format;                                                                           \
    format.setProfile(QSurfaceFormat::CompatibilityProfile);                                         \
    format.setDepthBufferSize(24);                                                                   \
    QSurfaceFormat::setDefaultFormat(format);                                                        \
    QApplication app(argc, argv);                                                                    \
    QStandardPaths::setTestModeEnabled(true);                                                        \
    QCoreApplication::setOrganizationName("GrappleTest");                                            \
    QCoreApplication::setApplicationName(name);                                                      \
    TestClass test;                                                                                  \
    return QTest::qExec(&test, argc, argv);                                                          \
  }
