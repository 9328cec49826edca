// The application's 3D view during playback (the real main window under an X display, Xvfb and
// Mesa llvmpipe in scripts/bench.sh): the flexible capture simulated to t = 66 s (the plan made at
// ~59 s, its path, window and the bus trail drawn), then replayed instant by instant — each
// iteration moves the timeline one recorded instant on (wrapping over the last 20 s), lets the
// window pose the scene (state, paths, plan, trail) and waits for the view's frame to be drawn.
// Counter frames_per_s: frames drawn per second of wall time, all overlays shown (the default), and
// with the plan, window and trail hidden (their cost).
#include <benchmark/benchmark.h>

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <cstdio>
#include <memory>

#include "render/scene.hpp"
#include "ui/main_window.hpp"
#include "ui/osg_widget.hpp"
#include "ui/sim_runner.hpp"
#include "ui/timeline.hpp"

using namespace grapple;

namespace {

ui::MainWindow* window = nullptr;

void openRecorded() {
  if (window != nullptr) return;
  QSettings().clear();
  window = new ui::MainWindow;
  window->resize(1280, 800);
  window->show();
  window->setOverrides({{"run.duration", "66"}});
  window->setSpeed(0);
  window->openScenario(GRAPPLE_SOURCE_DIR "/scenarios/capture_flexible.yaml");
  window->runner()->setRunning(true);
  window->runner()->waitUntil(66, 1200);
  while (window->runner()->status().running) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  window->tick();
}

// One frame of playback: the next instant, posed and drawn.
void playback(benchmark::State& state, bool overlays) {
  openRecorded();
  render::SceneOptions o = window->scene()->options();
  o.plan = o.window = o.trail = overlays;
  window->scene()->setOptions(o);
  const int rows = window->runner()->rows();
  const int first = std::max(0, rows - 1000);  // the last 20 s at 50 Hz
  int row = first;
  long frames = 0;
  for (auto _ : state) {
    row = row + 1 < rows ? row + 1 : first;
    const long before = window->view()->framesDrawn();
    window->timeline()->setRow(row);
    window->tick();
    while (window->view()->framesDrawn() == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    ++frames;
  }
  state.counters["frames_per_s"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
  o.plan = o.window = o.trail = true;
  window->scene()->setOptions(o);
}

void GuiPlayback_FlexibleCapture(benchmark::State& state) { playback(state, true); }
void GuiPlayback_FlexibleCaptureWithoutPlanOverlays(benchmark::State& state) { playback(state, false); }
BENCHMARK(GuiPlayback_FlexibleCapture)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);
BENCHMARK(GuiPlayback_FlexibleCaptureWithoutPlanOverlays)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("DISPLAY")) {
    std::fprintf(stderr, "grapple_gui_bench: no X display (run it under xvfb-run, as scripts/bench.sh does)\n");
    return 2;
  }
  QSurfaceFormat format;
  format.setProfile(QSurfaceFormat::CompatibilityProfile);
  format.setDepthBufferSize(24);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("GrappleBench");
  QCoreApplication::setApplicationName("grapple_gui_bench");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  delete window;
  return 0;
}
