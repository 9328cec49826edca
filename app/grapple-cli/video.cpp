// grapple-cli video: simulate a scenario headless and render the recorded run to an MP4 (or one
// instant to a PNG), off-screen through EGL: no display needed.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "app/grapple-cli/commands.hpp"
#include "core/io/load_error.hpp"
#include "render/video.hpp"

namespace grapple::cli {

namespace {

double number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(option + " expects a number, got '" + text + "'");
}

}  // namespace

int runVideo(const std::vector<std::string>& args) {
  std::string scenario, out;
  std::vector<std::pair<std::string, std::string>> overrides;
  render::VideoOptions o;
  double frame_time = std::numeric_limits<double>::quiet_NaN();
  bool quiet = false;
  int time_label = -1;  // default: on in videos, off in pictures
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto next = [&]() -> const std::string& {
      if (k + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++k];
    };
    if (a == "--out") {
      out = next();
    } else if (a == "--set") {
      overrides.push_back(parseSet(next()));
    } else if (a == "--duration") {
      overrides.emplace_back("run.duration", next());
    } else if (a == "--size") {
      const std::string& s = next();
      int w = 0, h = 0;
      char tail = 0;
      if (std::sscanf(s.c_str(), "%dx%d%c", &w, &h, &tail) != 2) throw UsageError("--size expects WIDTHxHEIGHT, got '" + s + "'");
      o.width = w;
      o.height = h;
    } else if (a == "--fps") {
      o.fps = number(a, next());
    } else if (a == "--speed") {
      o.speed = number(a, next());
    } else if (a == "--start") {
      o.start = number(a, next());
    } else if (a == "--end") {
      o.end = number(a, next());
    } else if (a == "--frame") {
      frame_time = number(a, next());
    } else if (a == "--camera") {
      const std::string& c = next();
      const auto preset = render::cameraPresetFromName(c);
      if (!preset) throw UsageError("--camera expects scene, hand, base or debris, got '" + c + "'");
      o.camera = *preset;
    } else if (a == "--exaggeration") {
      o.exaggeration = number(a, next());
    } else if (a == "--msaa") {
      o.samples = static_cast<int>(number(a, next()));
    } else if (a == "--crf") {
      o.crf = static_cast<int>(number(a, next()));
    } else if (a == "--show") {
      // A comma-separated list of overlays; "no-X" hides X.
      std::string list = next();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        std::string item = list.substr(at, comma - at);
        at = comma + 1;
        const bool on = item.rfind("no-", 0) != 0;
        if (!on) item = item.substr(3);
        bool* flag = item == "frames" ? &o.scene.frames : item == "velocities" ? &o.scene.velocities
                   : item == "momentum" ? &o.scene.momentum : item == "com" ? &o.scene.com
                   : item == "paths" ? &o.scene.paths : item == "stars" ? &o.scene.stars
                   : item == "earth" ? &o.scene.earth : item == "ellipsoid" ? &o.scene.ellipsoid
                   : item == "workspace" ? &o.scene.workspace : item == "collision" ? &o.scene.collision
                   : nullptr;
        if (flag == nullptr) {
          throw UsageError("--show: unknown overlay '" + item + "' (frames, velocities, momentum, com, paths, "
                           "stars, earth, ellipsoid, workspace, collision; no-X hides X)");
        }
        *flag = on;
      }
    } else if (a == "--time-label") {
      const std::string& v = next();
      if (v != "on" && v != "off") throw UsageError("--time-label expects on or off, got '" + v + "'");
      time_label = v == "on" ? 1 : 0;
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (scenario.empty() && a.rfind("--", 0) != 0) {
      scenario = a;
    } else {
      throw UsageError("video: unexpected argument '" + a + "'");
    }
  }
  if (out.empty()) throw UsageError("video: --out FILE.mp4 (or FILE.png with --frame T) is required");
  if (scenario.empty()) scenario = defaultScenarioPath();
  const bool picture = !std::isnan(frame_time);
  o.time_label = time_label < 0 ? !picture : time_label == 1;
  if (const std::string bad = render::checkVideoOptions(o); !bad.empty() && !picture) throw UsageError("video: " + bad);
  if (picture && frame_time < 0) throw UsageError("--frame expects a time >= 0 s");

  const std::unique_ptr<core::Simulation> simulation = makeSimulation(scenario, core::loadScenario(scenario, overrides));
  core::Simulation& sim = *simulation;
  // Simulate only as far as the picture needs.
  const double until = picture ? frame_time : std::min(o.end, sim.endTime());
  const bool bar = !quiet && isatty(fileno(stderr));
  render::Recording recording(sim, static_cast<int>(std::min(2e5, until * sim.scenario().run.record_rate + 2)));
  recording.append(sim);
  const auto t0 = std::chrono::steady_clock::now();
  while (!sim.finished() && sim.time() < until - 1e-9) {
    sim.step();
    recording.append(sim);
    if (bar) std::fprintf(stderr, "\rsimulating  t = %.2f / %.2f s ", sim.time(), until);
  }
  if (bar) std::fprintf(stderr, "\n");
  const double simulate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!sim.failure().empty()) {
    std::cerr << "grapple-cli: the simulation failed at t = " << sim.time() << " s: " << sim.failure()
              << "; rendering what was recorded\n";
  }
  try {
    if (picture) {
      render::exportScreenshot(sim.model(), sim.scenario(), recording, recording.rowAt(frame_time), o, out);
      if (!quiet) std::cout << "Picture   " << out << " (" << o.width << "x" << o.height << ", t = " << frame_time << " s)\n";
      return sim.failure().empty() ? 0 : 3;
    }
    const render::VideoResult r = render::exportVideo(sim.model(), sim.scenario(), recording, o, out, [&](int done, int total) {
      if (bar) std::fprintf(stderr, "\rrendering   frame %d / %d ", done, total);
      return true;
    });
    if (bar) std::fprintf(stderr, "\n");
    if (!quiet) {
      std::cout << "Video     " << out << ": " << r.frames << " frames, " << o.width << "x" << o.height << " at "
                << o.fps << " fps (" << r.frames / o.fps << " s of video)\n"
                << "Wall time simulating " << simulate_s << " s, rendering and encoding " << r.seconds << " s ("
                << r.seconds / std::max(1, r.frames) * 1000 << " ms per frame)\n";
    }
  } catch (const std::runtime_error& e) {
    throw core::LoadError(out, 0, e.what());
  }
  return sim.failure().empty() ? 0 : 3;
}

}  // namespace grapple::cli
