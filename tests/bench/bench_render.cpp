// Off-screen drawing and video export (no display: EGL surfaceless, llvmpipe): one frame of the
// flexible capture at 1280x720 (pose the scene, draw, read back), and a whole 2 s video at
// 1280x720, 30 fps through ffmpeg (counter frames_per_s). Issue 8 asks for a 20 s video
// (600 frames) in < 30 s, i.e. >= 20 frames per second.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "core/io/scenario_yaml.hpp"
#include "core/sim/simulation.hpp"
#include "render/offscreen.hpp"
#include "render/video.hpp"

using namespace grapple;

namespace {

// The flexible capture, simulated once to t = 42 s (the plan made, the hand on its way).
struct Recorded {
  core::LoadedScenario loaded = core::loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/capture_flexible.yaml",
                                                   {{"run.duration", "42"}});
  core::Simulation sim{loaded.scenario, loaded.model};
  render::Recording recording{sim};
  Recorded() {
    recording.append(sim);
    while (!sim.finished()) {
      sim.step();
      recording.append(sim);
    }
  }
};

const Recorded& recorded() {
  static const Recorded r;
  return r;
}

void Render_Frame720p(benchmark::State& state) {
  const Recorded& r = recorded();
  render::CaptureScene scene(r.sim.model(), r.sim.scenario());
  render::OffscreenRenderer renderer(1280, 720);
  renderer.setScene(scene.root());
  scene.update(r.recording.snapshot(0));
  const render::CameraPose pose = render::presetCamera(scene, render::CameraPreset::kWholeScene, 1280.0 / 720);
  int row = 0;
  for (auto _ : state) {
    row = (row + 7) % r.recording.rows();
    scene.update(r.recording.snapshot(row));
    benchmark::DoNotOptimize(renderer.render(pose).data());
  }
}

void Render_Video720p30fps(benchmark::State& state) {
  const Recorded& r = recorded();
  render::VideoOptions o;
  o.start = 40;
  o.end = 42;
  const std::string path = "/tmp/grapple_bench_video.mp4";
  double frames = 0;
  for (auto _ : state) frames += render::exportVideo(r.sim.model(), r.sim.scenario(), r.recording, o, path).frames;
  std::remove(path.c_str());
  state.counters["frames_per_s"] = benchmark::Counter(frames, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(Render_Frame720p)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Render_Video720p30fps)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK_MAIN();
