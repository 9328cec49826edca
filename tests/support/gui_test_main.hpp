// main() of the tests that drive the real main window: skipped (with the SKIP line CTest looks
// for) without an X display; the surface format of app/grapple (fixed-function OSG needs a
// compatibility profile); QSettings in test mode, away from the user's.
#pragma once

#include <cstdio>

#include <QApplication>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QtTest>

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
