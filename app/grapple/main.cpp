// grapple: the desktop application. grapple [SCENARIO] [options] (grapple --help lists them).
// The command line is read by QCommandLineParser twice: once before Qt looks for a display, so
// that --help and --version (and the message on a machine without one) need none, then from the
// arguments QApplication leaves after taking its own (-platform, ...). Besides interactive use, the
// options drive the harness modes of the scripts: --screenshot (scripts/screenshot.sh,
// scripts/tutorial.sh), --benchmark (scripts/gui_benchmark.sh), --replay and --compare.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTimer>

#include "core/io/scenario_yaml.hpp"
#include "ui/main_window.hpp"
#include "ui/osg_widget.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

namespace {

using grapple::ui::MainWindow;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: grapple [SCENARIO] [--run] [--speed X|max] [--set key=value]... [--size WxH]\n"
    "               [--screenshot FILE [--at T]] [--benchmark SECONDS] [--replay --at T]\n"
    "               [--compare key=value]... [--raise PANEL]... [--help] [--version]\n";

constexpr const char* kNoDisplay =
    "grapple: no display (neither DISPLAY nor WAYLAND_DISPLAY is set): the desktop application needs one.\n"
    "  Headless: grapple-cli run SCENARIO (the mission, its channels and summary), then\n"
    "  grapple-cli video SCENARIO --out run.mp4 to see it; or run grapple under xvfb-run.\n";

int usage(const std::string& why) {
  std::fprintf(stderr, "grapple: %s\n%s", why.c_str(), kUsage);
  return 2;
}

// What the command line asks for.
struct Options {
  QString scenario, screenshot;
  bool run = false, replay = false;
  double speed = 1, at = 10, benchmark = 0;
  int width = 0, height = 0;  // --size; 0: most of the screen
  grapple::core::Overrides overrides, compare;
  QStringList raise;
};

// The options, declared once for both readings of the command line.
class CommandLine {
 public:
  CommandLine() {
    parser_.setApplicationDescription(
        "grapple: the desktop application of Grapple (the capture in 3D, live plots, the timeline with the\n"
        "run's events, the mission's requirements, tuning, the scenario editor, exports).\n"
        "It needs a display (X11 or Wayland). Without one: grapple-cli run SCENARIO runs the mission\n"
        "headless, and grapple-cli video SCENARIO --out run.mp4 films it.");
    parser_.addPositionalArgument("SCENARIO", "a scenario file (default: the built-in capture_flexible.yaml)",
                                  "[SCENARIO]");
    parser_.addOptions({help_, version_, run_, speed_, set_, size_, screenshot_, at_, benchmark_, replay_, compare_,
                        raise_});
  }

  // Reads `arguments` (the program's name first); false with the reason in error().
  bool parse(const QStringList& arguments) { return parser_.parse(arguments); }
  QString error() const { return parser_.errorText(); }
  bool help() const { return parser_.isSet(help_); }
  bool version() const { return parser_.isSet(version_); }
  // The help: the usage line, then Qt's list of the options (without its own first line, which
  // names the program by its path).
  std::string helpText() const {
    const QString text = parser_.helpText();
    return kUsage + text.mid(text.indexOf('\n') + 1).toStdString();
  }

  // The options' values; a usage error (its message) if one does not read.
  std::optional<std::string> read(Options& o) const {
    const QStringList positional = parser_.positionalArguments();
    if (positional.size() > 1) return "unknown argument " + positional[1].toStdString();
    if (!positional.isEmpty()) o.scenario = positional.front();
    o.run = parser_.isSet(run_);
    o.replay = parser_.isSet(replay_);
    if (parser_.isSet(speed_)) {
      const QString v = parser_.value(speed_);
      o.speed = v == "max" ? 0.0 : v.toDouble();
    }
    for (const auto& [option, list] : {std::pair{&set_, &o.overrides}, std::pair{&compare_, &o.compare}}) {
      for (const QString& v : parser_.values(*option)) {
        try {
          list->push_back(grapple::core::parseOverride(v.toStdString()));
        } catch (const std::invalid_argument& e) {
          return "--" + option->names().front().toStdString() + " " + e.what();
        }
      }
    }
    o.raise = parser_.values(raise_);
    if (parser_.isSet(size_)) {
      const QStringList wh = parser_.value(size_).split('x');
      if (wh.size() != 2) return std::string("--size expects WxH");
      o.width = wh[0].toInt();
      o.height = wh[1].toInt();
    }
    o.screenshot = parser_.value(screenshot_);
    if (parser_.isSet(at_)) o.at = parser_.value(at_).toDouble();
    if (parser_.isSet(benchmark_)) o.benchmark = parser_.value(benchmark_).toDouble();
    return std::nullopt;
  }

 private:
  QCommandLineParser parser_;
  QCommandLineOption help_{{"h", "help"}, "print this help and quit (no display needed)"};
  QCommandLineOption version_{"version", "print the version and quit (no display needed)"};
  QCommandLineOption run_{"run", "start the simulation at once"};
  QCommandLineOption speed_{"speed", "simulated seconds per wall second, or as fast as possible", "X|max"};
  QCommandLineOption set_{"set", "override a scenario value, as grapple-cli run --set (repeatable)", "key=value"};
  QCommandLineOption size_{"size", "window size (default: most of the screen)", "WxH"};
  QCommandLineOption screenshot_{"screenshot", "grab the window to FILE (PNG) once the simulated time reaches --at, then quit",
                                 "FILE"};
  QCommandLineOption at_{"at", "the simulated time of --screenshot and --replay (default 10 s)", "T"};
  QCommandLineOption benchmark_{
      "benchmark", "run S s of wall time, print start-up time, frame rate, real-time factor and memory, then quit", "S"};
  QCommandLineOption replay_{"replay", "with --at T: simulate to T as fast as possible, then replay [0, T] in a loop"};
  QCommandLineOption compare_{"compare",
                              "run to the end, then rerun with the value changed (repeatable), the first run kept as "
                              "the plots' dashed ghost",
                              "key=value"};
  QCommandLineOption raise_{"raise",
                            "bring a docked panel to the front (dock:mission, dock:events, dock:editor, dock:tuning, "
                            "plot:Energy, ...)",
                            "PANEL"};
};

// Whether Qt can open a window: a display, or a platform that needs none (offscreen, ...).
bool haveDisplay() {
  const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
  if (!platform.isEmpty() && !platform.startsWith("xcb") && !platform.startsWith("wayland")) return true;
  if (platform.startsWith("wayland")) return !qgetenv("WAYLAND_DISPLAY").isEmpty();
  if (platform.startsWith("xcb")) return !qgetenv("DISPLAY").isEmpty();
  return !qgetenv("DISPLAY").isEmpty() || !qgetenv("WAYLAND_DISPLAY").isEmpty();
}

double residentMiB() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Calls `done` once on the window's thread when the run has reached simulated time `at` (or
// finished); polled every 50 ms.
template <class F>
void whenReached(MainWindow& window, double at, F done) {
  auto* poll = new QTimer(&window);
  QObject::connect(poll, &QTimer::timeout, &window, [&window, at, poll, done] {
    if (!window.runner()) return;
    const auto st = window.runner()->status();
    if (st.time < at && !st.finished) return;
    poll->stop();
    poll->deleteLater();
    done();
  });
  poll->start(50);
}

// --compare: the first run to its end as fast as possible, then the changed one beside it.
// Returns the exit code when it fails.
std::optional<int> compareRuns(MainWindow& window, const Options& o) {
  window.runner()->setSpeed(0);
  window.runner()->setRunning(true);
  window.runner()->waitUntil(std::numeric_limits<double>::infinity(), 3600);
  window.tick();
  auto changed = o.overrides;
  changed.insert(changed.end(), o.compare.begin(), o.compare.end());
  try {
    if (!window.rerunKeepingGhost(grapple::core::loadScenario(window.scenarioPath().toStdString(), changed))) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grapple: --compare: %s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

// --replay: once the run reaches `at`, replay [0, at] in a loop at `speed`.
void startReplay(MainWindow& window, double at, double speed) {
  whenReached(window, at, [&window, at, speed] {
    window.tick();
    window.setSpeed(speed);
    window.timeline()->setLoop(true, 0, at);
    window.timeline()->setRow(0);
    window.timeline()->setReplaying(true);
    std::printf("replaying [0, %.1f] s in a loop at x%g\n", at, speed);
    std::fflush(stdout);
  });
}

// --screenshot: once the run reaches `at`, show that recorded instant, grab the window and quit.
void startScreenshot(MainWindow& window, const QString& file, double at) {
  whenReached(window, at, [&window, file, at] {
    window.setRunning(false);
    // The instant asked for, from the recording (the run may have gone a little further).
    window.tick();
    const auto& times = window.history().columns[0];
    int row = 0;
    while (row + 1 < int(times.size()) && times[row] < at - 1e-9) ++row;
    window.timeline()->setRow(row);
    // Let the view and the plots catch up with the last rows, then grab.
    QTimer::singleShot(600, &window, [&window, file] {
      window.tick();
      const bool ok = window.grab().save(file);
      std::printf("screenshot %s: %s\n", ok ? "written" : "FAILED", file.toLocal8Bit().constData());
      QApplication::exit(ok ? 0 : 1);
    });
  });
}

// Counts the window's repaints (each composes the whole window through OpenGL: the widgets'
// backing store and the 3D view's texture; at best one per frame of the view).
class RepaintCounter : public QObject {
 public:
  using QObject::QObject;
  long count = 0;
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() == QEvent::UpdateRequest) ++count;
    return QObject::eventFilter(o, e);
  }
};

// --benchmark: the start-up time (process start to the first frame of the 3D view), then every
// sample the view's frame rate, the window's repaints, the real-time factor and the resident
// memory; quits after `seconds` of wall time.
void startBenchmark(MainWindow& window, double seconds, Clock::time_point started) {
  auto* repaints = new RepaintCounter(&window);
  window.installEventFilter(repaints);
  auto* first = new QTimer(&window);
  QObject::connect(first, &QTimer::timeout, &window, [&window, started, first] {
    if (window.view()->framesDrawn() == 0) return;
    first->stop();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    std::printf("startup_to_first_frame_ms %.0f\n", ms);
    std::fflush(stdout);
  });
  first->start(5);
  auto* sample = new QTimer(&window);
  QElapsedTimer clock;
  clock.start();
  QObject::connect(sample, &QTimer::timeout, &window,
                   [&window, clock, seconds, sample, repaints, last_frames = 0L, last_repaints = 0L, last_ms = qint64(0)]() mutable {
                     const qint64 ms = clock.elapsed();
                     const long frames = window.view()->framesDrawn();
                     const auto st = window.runner()->status();
                     const double fps = (frames - last_frames) * 1000.0 / std::max<qint64>(1, ms - last_ms);
                     const double rps = (repaints->count - last_repaints) * 1000.0 / std::max<qint64>(1, ms - last_ms);
                     std::printf("wall_s %.1f sim_s %.2f rows %d view_fps %.1f window_repaints_per_s %.1f real_time_factor %.2f rss_MiB %.1f\n",
                                 ms / 1000.0, st.time, st.rows, fps, rps, st.real_time_factor, residentMiB());
                     std::fflush(stdout);
                     last_frames = frames;
                     last_repaints = repaints->count;
                     last_ms = ms;
                     if (ms >= seconds * 1000) {
                       sample->stop();
                       QApplication::exit(0);
                     }
                   });
  sample->start(seconds >= 60 ? 10000 : 2000);
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = Clock::now();
  CommandLine command_line;
  {  // What needs no window, before Qt looks for a display.
    QStringList arguments;
    for (int k = 0; k < argc; ++k) arguments << QString::fromLocal8Bit(argv[k]);
    command_line.parse(arguments);
    if (command_line.help()) {
      const QCoreApplication core(argc, argv);  // (Qt's help text names the program from it; no display)
      std::printf("%s", command_line.helpText().c_str());
      return 0;
    }
    if (command_line.version()) {
      std::printf("grapple %s\n", GRAPPLE_VERSION);
      return 0;
    }
  }
  if (!haveDisplay()) {
    std::fprintf(stderr, "%s", kNoDisplay);
    return 2;
  }
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("Grapple");
  QCoreApplication::setApplicationName("grapple");
  Options o;
  if (!command_line.parse(app.arguments())) return usage(command_line.error().toStdString());
  if (const auto error = command_line.read(o)) return usage(*error);

  MainWindow window;
  window.setOverrides(o.overrides);
  if (o.width > 0 && o.height > 0) {
    window.resize(o.width, o.height);
  } else if (!o.screenshot.isEmpty() || o.benchmark > 0) {
    window.resize(1280, 800);  // figures comparable from run to run
  } else {
    window.fitToScreen();
  }
  window.show();
  if (!window.openScenario(o.scenario.isEmpty() ? MainWindow::defaultScenario() : o.scenario) && !o.scenario.isEmpty()) {
    window.openScenario(MainWindow::defaultScenario());
  }
  if (!o.compare.empty() && window.runner()) {
    if (const auto code = compareRuns(window, o)) return *code;
  }
  for (const QString& name : o.raise) {
    auto* dock = window.findChild<QDockWidget*>(name);
    if (!dock) return usage("no panel " + name.toStdString());
    QTimer::singleShot(10, dock, [dock] {
      dock->show();
      dock->raise();
    });
  }
  // Unsaved edits a previous session left (killed, crashed): offered back, in interactive use.
  if (o.screenshot.isEmpty() && o.benchmark <= 0 && !o.replay) {
    QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
  }
  window.setSpeed(o.replay ? 0.0 : o.speed);
  if ((!o.screenshot.isEmpty() || o.replay) && window.runner()) {
    window.runner()->runUntil(o.at);
  } else if (o.run || o.benchmark > 0) {
    window.setRunning(true);
  }
  if (o.replay) startReplay(window, o.at, o.speed);
  if (!o.screenshot.isEmpty()) startScreenshot(window, o.screenshot, o.at);
  if (o.benchmark > 0) startBenchmark(window, o.benchmark, started);
  return app.exec();
}
