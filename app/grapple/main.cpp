// grapple: the desktop application. grapple [SCENARIO] [options]
//   --help, --version   print and quit (no display needed)
//   --compare key=value run the scenario to its end, then again with the value changed (repeatable),
//                       the first run kept as the plots' ghost (as Tuning's "Apply and rerun")
//   --raise PANEL       bring a docked panel to the front (its object name, e.g. dock:editor)
//   --run               start the simulation at once
//   --speed X|max       simulation speed (simulated s per wall s), or as fast as possible
//   --set key=value     override a scenario value, as grapple-cli run --set (repeatable)
//   --size WxH          window size
//   --screenshot FILE   once the simulated time reaches --at (default 10 s): grab the window to
//                       FILE (PNG) and quit
//   --benchmark S       run S s of wall time, then print figures (start-up time, view frame rate,
//                       real-time factor, resident memory every 10 s) and quit
//   --replay            with --at T: simulate to T as fast as possible, then replay the recording
//                       [0, T] in a loop at --speed (the view redraws, nothing new is recorded)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSurfaceFormat>
#include <QTimer>

#include "core/io/scenario_yaml.hpp"
#include "ui/main_window.hpp"
#include "ui/osg_widget.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

namespace {

double residentMiB() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

constexpr const char* kUsage =
    "usage: grapple [SCENARIO] [--run] [--speed X|max] [--set key=value]... [--size WxH]\n"
    "               [--screenshot FILE [--at T]] [--benchmark SECONDS] [--replay --at T]\n"
    "               [--compare key=value]... [--raise PANEL]... [--help] [--version]\n";

int usage(const char* why) {
  std::fprintf(stderr, "grapple: %s\n%s", why, kUsage);
  return 2;
}

constexpr const char* kHelp =
    "grapple: the desktop application of Grapple (the capture in 3D, live plots, the timeline with the\n"
    "run's events, the mission's requirements, tuning, the scenario editor, exports).\n"
    "  SCENARIO            a scenario file (default: the built-in capture_flexible.yaml)\n"
    "  --run               start the simulation at once\n"
    "  --speed X|max       simulated seconds per wall second, or as fast as possible\n"
    "  --set key=value     override a scenario value, as grapple-cli run --set (repeatable)\n"
    "  --size WxH          window size (default: most of the screen)\n"
    "  --screenshot FILE   grab the window to FILE (PNG) once the simulated time reaches --at T\n"
    "                      (default 10 s), then quit\n"
    "  --benchmark S       run S s of wall time, print start-up time, frame rate, real-time factor and\n"
    "                      memory, then quit\n"
    "  --replay --at T     simulate to T as fast as possible, then replay [0, T] in a loop\n"
    "  --compare key=value run to the end, then rerun with the value changed (repeatable), the\n"
    "                      first run kept as the plots' dashed ghost\n"
    "  --raise PANEL       bring a docked panel to the front (dock:mission, dock:events,\n"
    "                      dock:editor, dock:tuning, plot:Energy, ...)\n"
    "It needs a display (X11 or Wayland). Without one: grapple-cli run SCENARIO runs the mission\n"
    "headless, and grapple-cli video SCENARIO --out run.mp4 films it.\n";

// Whether Qt can open a window: a display, or a platform that needs none (offscreen, ...).
bool haveDisplay() {
  const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
  if (!platform.isEmpty() && !platform.startsWith("xcb") && !platform.startsWith("wayland")) return true;
  if (platform.startsWith("wayland")) return !qgetenv("WAYLAND_DISPLAY").isEmpty();
  if (platform.startsWith("xcb")) return !qgetenv("DISPLAY").isEmpty();
  return !qgetenv("DISPLAY").isEmpty() || !qgetenv("WAYLAND_DISPLAY").isEmpty();
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  // What needs no window, before Qt looks for a display.
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--help" || a == "-h") {
      std::printf("%s%s", kUsage, kHelp);
      return 0;
    }
    if (a == "--version") {
      std::printf("grapple %s\n", GRAPPLE_VERSION);
      return 0;
    }
  }
  if (!haveDisplay()) {
    std::fprintf(stderr,
                 "grapple: no display (neither DISPLAY nor WAYLAND_DISPLAY is set): the desktop application needs "
                 "one.\n  Headless: grapple-cli run SCENARIO (the mission, its channels and summary), then\n"
                 "  grapple-cli video SCENARIO --out run.mp4 to see it; or run grapple under xvfb-run.\n");
    return 2;
  }
  // Debian's OSG is fixed-function GL: a compatibility profile.
  QSurfaceFormat format;
  format.setProfile(QSurfaceFormat::CompatibilityProfile);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(8);
  if (qEnvironmentVariableIsSet("GRAPPLE_MSAA")) format.setSamples(qEnvironmentVariableIntValue("GRAPPLE_MSAA"));
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("Grapple");
  QCoreApplication::setApplicationName("grapple");

  QString scenario, screenshot;
  bool run = false, replay = false;
  double speed = 1, at = 10, benchmark = 0;
  int width = 0, height = 0;  // --size; default: most of the screen
  std::vector<std::pair<std::string, std::string>> overrides, compare;
  QStringList raise;
  const QStringList args = app.arguments();
  for (int k = 1; k < args.size(); ++k) {
    const QString& a = args[k];
    auto next = [&]() -> QString {
      if (k + 1 >= args.size()) throw std::runtime_error(a.toStdString() + " needs a value");
      return args[++k];
    };
    try {
      if (a == "--run") {
        run = true;
      } else if (a == "--speed") {
        const QString v = next();
        speed = v == "max" ? 0.0 : v.toDouble();
      } else if (a == "--set" || a == "--compare") {
        try {
          (a == "--set" ? overrides : compare).push_back(grapple::core::parseOverride(next().toStdString()));
        } catch (const std::invalid_argument& e) {
          return usage((a.toStdString() + " " + e.what()).c_str());
        }
      } else if (a == "--raise") {
        raise << next();
      } else if (a == "--size") {
        const QStringList wh = next().split('x');
        if (wh.size() != 2) return usage("--size expects WxH");
        width = wh[0].toInt();
        height = wh[1].toInt();
      } else if (a == "--screenshot") {
        screenshot = next();
      } else if (a == "--at") {
        at = next().toDouble();
      } else if (a == "--replay") {
        replay = true;
      } else if (a == "--benchmark") {
        benchmark = next().toDouble();
      } else if (!a.startsWith("--") && scenario.isEmpty()) {
        scenario = a;
      } else {
        return usage(("unknown argument " + a.toStdString()).c_str());
      }
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }

  grapple::ui::MainWindow window;
  window.setOverrides(overrides);
  if (width > 0 && height > 0) {
    window.resize(width, height);
  } else if (!screenshot.isEmpty() || benchmark > 0) {
    window.resize(1280, 800);  // figures comparable from run to run
  } else {
    window.fitToScreen();
  }
  window.show();
  if (!window.openScenario(scenario.isEmpty() ? grapple::ui::MainWindow::defaultScenario() : scenario) &&
      !scenario.isEmpty()) {
    window.openScenario(grapple::ui::MainWindow::defaultScenario());
  }
  if (!compare.empty() && window.runner()) {
    // The first run to its end as fast as possible, then the changed one beside it.
    window.runner()->setSpeed(0);
    window.runner()->setRunning(true);
    window.runner()->waitUntil(std::numeric_limits<double>::infinity(), 3600);
    window.tick();
    auto changed = overrides;
    changed.insert(changed.end(), compare.begin(), compare.end());
    try {
      if (!window.rerunKeepingGhost(grapple::core::loadScenario(window.scenarioPath().toStdString(), changed))) return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "grapple: --compare: %s\n", e.what());
      return 2;
    }
  }
  for (const QString& name : raise) {
    auto* dock = window.findChild<QDockWidget*>(name);
    if (!dock) return usage(("no panel " + name.toStdString()).c_str());
    QTimer::singleShot(10, dock, [dock] {
      dock->show();
      dock->raise();
    });
  }
  // Unsaved edits a previous session left (killed, crashed): offered back, in interactive use.
  if (screenshot.isEmpty() && benchmark <= 0 && !replay) QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
  window.setSpeed(replay ? 0.0 : speed);
  if ((!screenshot.isEmpty() || replay) && window.runner()) {
    window.runner()->runUntil(at);
  } else if (run || benchmark > 0) {
    window.setRunning(true);
  }
  if (replay) {
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, at, speed, poll] {
      const auto st = window.runner()->status();
      if (st.time < at && !st.finished) return;
      poll->stop();
      window.tick();
      window.setSpeed(speed);
      window.timeline()->setLoop(true, 0, at);
      window.timeline()->setRow(0);
      window.timeline()->setReplaying(true);
      std::printf("replaying [0, %.1f] s in a loop at x%g\n", at, speed);
      std::fflush(stdout);
    });
    poll->start(50);
  }

  if (!screenshot.isEmpty()) {
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, screenshot, at, poll] {
      if (!window.runner()) return;
      const auto st = window.runner()->status();
      if (st.time < at && !st.finished) return;
      window.setRunning(false);
      poll->stop();
      // The instant asked for, from the recording (the run may have gone a little further).
      window.tick();
      const auto& times = window.history().columns[0];
      int row = 0;
      while (row + 1 < int(times.size()) && times[row] < at - 1e-9) ++row;
      window.timeline()->setRow(row);
      // Let the view and the plots catch up with the last rows, then grab.
      QTimer::singleShot(600, &window, [&window, screenshot] {
        window.tick();
        const bool ok = window.grab().save(screenshot);
        std::printf("screenshot %s: %s\n", ok ? "written" : "FAILED", screenshot.toLocal8Bit().constData());
        QApplication::exit(ok ? 0 : 1);
      });
    });
    poll->start(50);
  }

  if (benchmark > 0) {
    // Start-up: process start to the first frame of the 3D view.
    auto* first = new QTimer(&window);
    QObject::connect(first, &QTimer::timeout, &window, [&window, started, first] {
      if (window.view()->framesDrawn() == 0) return;
      first->stop();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      std::printf("startup_to_first_frame_ms %.0f\n", ms);
      std::fflush(stdout);
    });
    first->start(5);
    auto* clock = new QElapsedTimer;
    clock->start();
    auto* sample = new QTimer(&window);
    struct Last {
      long frames = 0;
      qint64 ms = 0;
    };
    auto* last = new Last;
    QObject::connect(sample, &QTimer::timeout, &window, [&window, clock, last, benchmark, sample] {
      const qint64 ms = clock->elapsed();
      const long frames = window.view()->framesDrawn();
      const auto st = window.runner()->status();
      const double fps = (frames - last->frames) * 1000.0 / std::max<qint64>(1, ms - last->ms);
      std::printf("wall_s %.1f sim_s %.2f rows %d view_fps %.1f real_time_factor %.2f rss_MiB %.1f\n", ms / 1000.0,
                  st.time, st.rows, fps, st.real_time_factor, residentMiB());
      std::fflush(stdout);
      last->frames = frames;
      last->ms = ms;
      if (ms >= benchmark * 1000) {
        sample->stop();
        QApplication::exit(0);
      }
    });
    sample->start(benchmark >= 60 ? 10000 : 2000);
  }
  return app.exec();
}
