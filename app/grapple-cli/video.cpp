// grapple-cli video: simulate a scenario headless and render the recorded run to an MP4 (or one
// instant to a PNG), off-screen through EGL: no display needed.
#include <unistd.h>

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

int runVideo(const VideoArgs& a) {
  const std::string& scenario = a.scenario;
  const std::string& out = a.out;
  const bool quiet = a.quiet;
  render::VideoOptions o = a.options;
  const bool picture = a.frame.has_value();
  const double frame_time = a.frame.value_or(0);
  o.time_label = a.time_label.value_or(!picture);
  if (const std::string bad = render::checkVideoOptions(o); !bad.empty() && !picture) throw UsageError("video: " + bad);
  if (picture && frame_time < 0) throw UsageError("--frame expects a time >= 0 s");

  const std::unique_ptr<core::Simulation> simulation = makeSimulation(scenario, core::loadScenario(scenario, a.overrides));
  core::Simulation& sim = *simulation;
  const bool bar = !quiet && isatty(fileno(stderr));
  render::Recording recording(sim, static_cast<int>(std::min(2e5, std::min(o.end, sim.endTime()) * sim.scenario().run.record_rate + 2)));
  recording.append(sim);
  auto reportFailure = [&] {
    if (!sim.failure().empty()) {
      std::cerr << "grapple-cli: the simulation failed at t = " << sim.time() << " s: " << sim.failure()
                << "; rendering what was recorded\n";
    }
  };
  try {
    if (picture) {  // simulated only as far as the picture needs
      while (!sim.finished() && sim.time() < frame_time - 1e-9) {
        sim.step();
        recording.append(sim);
        if (bar) std::fprintf(stderr, "\rsimulating  t = %.2f / %.2f s ", sim.time(), frame_time);
      }
      if (bar) std::fprintf(stderr, "\n");
      reportFailure();
      render::exportScreenshot(sim.model(), sim.scenario(), recording, recording.rowAt(frame_time), o, out);
      if (!quiet) std::cout << "Picture   " << out << " (" << o.width << "x" << o.height << ", t = " << frame_time << " s)\n";
      return sim.failure().empty() ? 0 : 3;
    }
    // The run simulated on a thread of its own while the frames are drawn.
    const render::VideoResult r = render::simulateAndExportVideo(sim, recording, o, out, [&](int done, int total) {
      if (bar) std::fprintf(stderr, "\rrendering   frame %d / %d ", done, total);
      return true;
    });
    if (bar) std::fprintf(stderr, "\n");
    reportFailure();
    if (!quiet) {
      std::cout << "Video     " << out << ": " << r.frames << " frames, " << o.width << "x" << o.height << " at "
                << o.fps << " fps (" << r.frames / o.fps << " s of video)\n"
                << "Wall time " << r.seconds << " s, simulating " << sim.time() << " s of the run meanwhile ("
                << r.seconds / std::max(1, r.frames) * 1000 << " ms per frame)\n";
    }
  } catch (const std::runtime_error& e) {
    throw core::LoadError(out, 0, e.what());
  }
  return sim.failure().empty() ? 0 : 3;
}

}  // namespace grapple::cli
