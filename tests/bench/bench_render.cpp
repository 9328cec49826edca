// Off-screen drawing and video export (no display: EGL surfaceless, llvmpipe): one frame of the
// flexible capture at 1280x720 (pose the scene, draw, read back), and a whole 2 s video at
// 1280x720, 30 fps through ffmpeg (counter frames_per_s). The aim: a 20 s video
// (600 frames) in < 30 s, i.e. >= 20 frames per second. Also a 50-DOF URDF robot with its own
// geometry and meshes: read, scene built and one 1280x720 frame drawn, from the file each time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "core/dynamics/configuration.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/urdf.hpp"
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

// One 1280x720 frame read back from OpenGL (RGBA, bottom row first) converted to the encoder's
// YUV 4:2:0, as every frame of a video is.
void Render_RgbaToYuv420_720p(benchmark::State& state) {
  const int w = 1280, h = 720;
  std::vector<unsigned char> rgba(std::size_t(w) * h * 4), yuv(std::size_t(w) * h * 3 / 2);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<unsigned char>((i * 7919) % 251);
  for (auto _ : state) {
    render::rgbaToYuv420(rgba.data(), w, h, yuv.data());
    benchmark::DoNotOptimize(yuv.data());
  }
}

// A 50-DOF URDF robot (a base and five branches of ten revolute joints) whose 51 links each carry
// a box, a cylinder and the corpus' STL mesh: read the file (geometry, mesh paths), build its
// scene (Assimp reads each mesh once) and draw one 1280x720 frame, from nothing each iteration.
const std::string& robot50() {
  static const std::string path = [] {
    const std::string mesh = std::string("file://") + GRAPPLE_SOURCE_DIR "/tests/data/urdf/grapple_test_meshes/meshes/finger.stl";
    std::string x = "<robot name='bench50'>\n";
    auto link = [&](const std::string& name) {
      x += "<link name='" + name + "'><inertial><origin xyz='0 0 0.1'/><mass value='1'/>"
           "<inertia ixx='0.01' iyy='0.01' izz='0.005' ixy='0' ixz='0' iyz='0'/></inertial>"
           "<visual><origin xyz='0 0 0.1'/><geometry><box size='0.05 0.05 0.2'/></geometry></visual>"
           "<visual><geometry><cylinder radius='0.04' length='0.06'/></geometry></visual>"
           "<visual><origin xyz='0 0 0.2'/><geometry><mesh filename='" + mesh + "'/></geometry></visual>"
           "<collision><origin xyz='0 0 0.1'/><geometry><box size='0.05 0.05 0.2'/></geometry></collision></link>\n";
    };
    link("base");
    for (int b = 0; b < 5; ++b) {
      std::string parent = "base";
      for (int k = 0; k < 10; ++k) {
        const std::string name = "b" + std::to_string(b) + "_" + std::to_string(k);
        link(name);
        x += "<joint name='" + name + "_j' type='revolute'><parent link='" + parent + "'/><child link='" + name + "'/>"
             "<origin xyz='0 0 " + (k == 0 ? "0.05" : "0.2") + "' rpy='" + (k == 0 ? std::to_string(0.6 * b) + " 0.5 0" : "0 0 0") +
             "'/><axis xyz='" + (k % 2 ? "0 1 0" : "1 0 0") + "'/><limit lower='-2' upper='2' effort='10' velocity='1'/></joint>\n";
        parent = name;
      }
    }
    x += "</robot>\n";
    const std::string p = "/tmp/grapple_bench_robot50.urdf";
    std::ofstream(p) << x;
    return p;
  }();
  return path;
}

void Render_UrdfRobot50DofLoadAndDraw(benchmark::State& state) {
  const Recorded& r = recorded();
  core::Scenario scenario = r.sim.scenario();
  scenario.debris.enabled = false;
  render::OffscreenRenderer renderer(1280, 720);
  int nv = 0;
  for (auto _ : state) {
    const core::Model model = core::loadUrdf(robot50()).model;
    render::CaptureScene scene(model, scenario);
    render::Snapshot s;
    s.q = core::neutralConfiguration(model);
    s.v = Eigen::VectorXd::Zero(model.nv);
    scene.update(s);
    renderer.setScene(scene.root());
    const render::CameraPose pose = render::presetCamera(scene, render::CameraPreset::kWholeScene, 1280.0 / 720);
    benchmark::DoNotOptimize(renderer.render(pose).data());
    renderer.setScene(nullptr);
    nv = model.nv;
  }
  state.counters["dof"] = nv;
}

// The load alone (URDF text to Model, geometry and mesh paths included).
void Core_UrdfRobot50DofLoad(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(core::loadUrdf(robot50()).model.nv);
}

}  // namespace

BENCHMARK(Render_Frame720p)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Render_RgbaToYuv420_720p)->Unit(benchmark::kMillisecond);
BENCHMARK(Render_Video720p30fps)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(Render_UrdfRobot50DofLoadAndDraw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Core_UrdfRobot50DofLoad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
