// grapple: the desktop application. grapple [SCENARIO] [options]
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
#include <string>

#include <QApplication>
#include <QElapsedTimer>
#include <QSurfaceFormat>
#include <QTimer>

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

int usage(const char* why) {
  std::fprintf(stderr, "grapple: %s\nusage: grapple [SCENARIO] [--run] [--speed X|max] [--set key=value]... "
                       "[--size WxH] [--screenshot FILE [--at T]] [--benchmark SECONDS] [--replay --at T]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
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
  int width = 1280, height = 800;
  std::vector<std::pair<std::string, std::string>> overrides;
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
      } else if (a == "--set") {
        const QString kv = next();
        const int eq = kv.indexOf('=');
        if (eq <= 0) return usage("--set expects key=value");
        overrides.emplace_back(kv.left(eq).toStdString(), kv.mid(eq + 1).toStdString());
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
  if (!screenshot.isEmpty() || benchmark > 0) window.resize(width, height);
  window.show();
  if (!window.openScenario(scenario.isEmpty() ? grapple::ui::MainWindow::defaultScenario() : scenario) &&
      !scenario.isEmpty()) {
    window.openScenario(grapple::ui::MainWindow::defaultScenario());
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
