#include "render/video.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "core/io/atomic_file.hpp"
#include "render/offscreen.hpp"

extern char** environ;

namespace grapple::render {

namespace fs = std::filesystem;

namespace {

void checkFolder(const std::string& path) {
  const fs::path parent = fs::absolute(fs::path(path)).parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) throw std::runtime_error("cannot write " + path + ": no folder " + parent.string());
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// ffmpeg reading raw RGB frames on its standard input, its messages into a log file in the
// system's temporary folder (not beside the video: where the video cannot be written, ffmpeg's
// explanation still can).
class FfmpegPipe {
 public:
  FfmpegPipe(const VideoOptions& o, const std::string& out)
      : log_(core::temporaryBeside((fs::temp_directory_path() / fs::path(out).filename()).string(), "log")) {
    static std::once_flag ignore_sigpipe;  // a dying ffmpeg makes write() fail with EPIPE instead
    std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
    char size[32], rate[32], crf[16];
    std::snprintf(size, sizeof size, "%dx%d", o.width, o.height);
    std::snprintf(rate, sizeof rate, "%.10g", o.fps);
    std::snprintf(crf, sizeof crf, "%d", o.crf);
    std::vector<std::string> args = {o.ffmpeg, "-y", "-hide_banner", "-loglevel", "error", "-f", "rawvideo",
                                     "-pix_fmt", "rgb24", "-s", size, "-framerate", rate, "-i", "-", "-an",
                                     "-c:v", "libx264", "-preset", "veryfast", "-crf", crf, "-pix_fmt", "yuv420p",
                                     "-movflags", "+faststart", "-f", "mp4", out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("cannot start ffmpeg: pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::posix_spawnp(&pid_, o.ffmpeg.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (err != 0) {
      ::close(fds[1]);
      std::remove(log_.c_str());
      throw std::runtime_error("cannot start " + o.ffmpeg + ": " + std::strerror(err) +
                               (err == ENOENT ? " (install the Debian package ffmpeg)" : ""));
    }
    fd_ = fds[1];
  }
  ~FfmpegPipe() {
    if (pid_ > 0) {  // not finished: stop it
      if (fd_ >= 0) ::close(fd_);
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::remove(log_.c_str());
  }

  // False if ffmpeg stopped reading (it failed: finish() says why).
  bool write(const unsigned char* data, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  // Closes the input and waits; throws with ffmpeg's own message if it failed.
  void finish() {
    ::close(fd_);
    fd_ = -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::string msg = readText(log_);
      if (WIFSIGNALED(status)) {
        msg = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")" +
              (msg.empty() ? "" : "; " + msg);
      }
      throw std::runtime_error("ffmpeg failed" + (msg.empty() ? std::string() : ": " + msg));
    }
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

// The drawing side shared by the video and the screenshot: a scene of its own, posed from the
// recording, and the off-screen renderer.
struct FrameMaker {
  FrameMaker(const core::Model& model, const core::Scenario& scenario, const Recording& rec, const VideoOptions& o)
      : recording(rec), options(o), scene(model, scenario), renderer(o.width, o.height, o.samples) {
    scene.setExaggeration(o.exaggeration);
    scene.setOptions(o.scene);
    renderer.setScene(scene.root());
  }
  const std::vector<unsigned char>& draw(int row) {
    scene.update(recording.snapshot(row));
    recording.pathsAt(row, actual, planned);
    scene.setPaths(actual, planned);
    scene.setPlan(recording.planAt(row));
    recording.basePoses(row, options.scene.trail_seconds, trail);
    scene.setBaseTrail(trail);
    // The camera of the first frame stays (as in the application's view); following the hand, it
    // moves with it at the same distance.
    if (!first) {
      first = options.fixed_camera ? *options.fixed_camera
                                   : presetCamera(scene, options.camera, double(options.width) / options.height);
      first_hand = scene.endEffectorPosition();
    }
    CameraPose pose = *first;
    if (!options.fixed_camera && options.camera == CameraPreset::kFollowEndEffector) {
      const core::Vector3 d = scene.endEffectorPosition() - first_hand;
      pose.eye += d;
      pose.center += d;
    }
    frame = renderer.render(pose);
    if (options.time_label) stampTime(frame.data(), options.width, options.height, recording.time(row));
    return frame;
  }

  const Recording& recording;
  const VideoOptions& options;
  CaptureScene scene;
  OffscreenRenderer renderer;
  std::vector<core::Vector3> actual, planned;
  std::vector<core::Transform> trail;
  std::vector<unsigned char> frame;
  std::optional<CameraPose> first;
  core::Vector3 first_hand = core::Vector3::Zero();
};

}  // namespace

std::string checkVideoOptions(const VideoOptions& o) {
  if (o.width < 16 || o.height < 16 || o.width > 7680 || o.height > 4320) {
    return "the size must be 16x16 to 7680x4320 pixels, got " + std::to_string(o.width) + "x" + std::to_string(o.height);
  }
  if (o.width % 2 != 0 || o.height % 2 != 0) {
    return "the width and height must be even (H.264 in yuv420p), got " + std::to_string(o.width) + "x" +
           std::to_string(o.height);
  }
  if (!(o.fps > 0 && o.fps <= 240)) return "the frame rate must be in (0, 240] frames per second";
  if (!(o.speed > 0 && std::isfinite(o.speed))) return "the speed must be a positive number of simulated seconds per second";
  if (!(o.start >= 0) || !std::isfinite(o.start)) return "the start time must be a finite time >= 0 s";
  if (!(o.end > o.start)) return "the end time must be after the start time";
  if (o.crf < 0 || o.crf > 51) return "the quality (crf) must be 0..51";
  if (o.samples < 0 || o.samples > 16) return "multisampling must be 0..16 samples";
  if (!(o.exaggeration >= 0) || !std::isfinite(o.exaggeration)) return "the exaggeration must be a number >= 0";
  return {};
}

int videoFrameCount(const VideoOptions& o, double recording_end) {
  const double end = std::min(o.end, recording_end);
  if (!(end > o.start)) return 1;
  return std::max(1, static_cast<int>(std::floor((end - o.start) * o.fps / o.speed + 1e-9)));
}

VideoResult exportVideo(const core::Model& model, const core::Scenario& scenario, const Recording& recording,
                        const VideoOptions& options, const std::string& path,
                        const std::function<bool(int, int)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const std::string bad = checkVideoOptions(options); !bad.empty()) throw std::runtime_error("video: " + bad);
  if (recording.rows() == 0) throw std::runtime_error("video: the run has recorded nothing yet");
  if (options.start > recording.times().back()) {
    throw std::runtime_error("video: the start time is after the end of the recorded run (" +
                             std::to_string(recording.times().back()) + " s)");
  }
  checkFolder(path);
  FrameMaker maker(model, scenario, recording, options);
  const int n = videoFrameCount(options, recording.times().back());
  const std::string tmp = core::temporaryBeside(path, "part");
  VideoResult result;
  {
    FfmpegPipe ffmpeg(options, tmp);
    for (int k = 0; k < n; ++k) {
      const double t = options.start + k * options.speed / options.fps;
      const std::vector<unsigned char>& frame = maker.draw(recording.rowAt(t));
      if (!ffmpeg.write(frame.data(), frame.size())) break;  // finish() reports ffmpeg's error
      result.frames = k + 1;
      if (progress && !progress(k + 1, n)) {
        result.cancelled = true;
        break;
      }
    }
    if (result.cancelled) {
      std::remove(tmp.c_str());  // ~FfmpegPipe stops ffmpeg
    } else {
      try {
        ffmpeg.finish();
      } catch (...) {
        std::remove(tmp.c_str());
        throw;
      }
    }
  }
  if (!result.cancelled) {
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + path + ": " + ec.message());
    }
  } else {
    result.frames = 0;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

void exportScreenshot(const core::Model& model, const core::Scenario& scenario, const Recording& recording, int row,
                      const VideoOptions& options, const std::string& path) {
  const VideoOptions& o = options;
  if (o.width < 1 || o.height < 1 || o.width > 16384 || o.height > 16384) {
    throw std::runtime_error("screenshot: the size must be 1x1 to 16384x16384 pixels, got " + std::to_string(o.width) +
                             "x" + std::to_string(o.height));
  }
  if (!(o.exaggeration >= 0) || !std::isfinite(o.exaggeration)) throw std::runtime_error("screenshot: the exaggeration must be a number >= 0");
  if (recording.rows() == 0) throw std::runtime_error("screenshot: the run has recorded nothing yet");
  checkFolder(path);
  FrameMaker maker(model, scenario, recording, o);
  const std::vector<unsigned char>& frame = maker.draw(row);
  writePng(path, frame.data(), o.width, o.height);
}

namespace {

// 5x7 glyphs, one byte per row (bit 4 = leftmost column).
struct Glyph {
  char c;
  unsigned char rows[7];
};
constexpr Glyph kGlyphs[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}}, {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {' ', {0, 0, 0, 0, 0, 0, 0}},
};

void putBig32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<unsigned char>(v >> s));
}

void chunk(std::vector<unsigned char>& out, const char* type, const unsigned char* data, std::size_t n) {
  putBig32(out, static_cast<std::uint32_t>(n));
  const std::size_t at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data, data + n);
  putBig32(out, static_cast<std::uint32_t>(::crc32(0, out.data() + at, static_cast<uInt>(n + 4))));
}

}  // namespace

void stampTime(unsigned char* rgb, int width, int height, double t) {
  char text[32];
  std::snprintf(text, sizeof text, "t = %.2f s", t);
  const int scale = std::max(1, static_cast<int>(std::lround(height / 180.0)));  // glyphs 7·scale tall
  const int advance = 6 * scale, n = static_cast<int>(std::strlen(text));
  const int pad = 2 * scale;
  const int box_w = std::min(width, n * advance + 2 * pad), box_h = std::min(height, 7 * scale + 2 * pad);
  const int x0 = std::min(width - box_w, 3 * scale), y0 = std::max(0, height - box_h - 3 * scale);
  for (int y = y0; y < y0 + box_h; ++y) {  // a dark box, half transparent
    for (int x = x0; x < x0 + box_w; ++x) {
      unsigned char* p = rgb + (std::size_t(y) * width + x) * 3;
      for (int k = 0; k < 3; ++k) p[k] = static_cast<unsigned char>(p[k] / 2);
    }
  }
  for (int i = 0; i < n; ++i) {
    const Glyph* g = nullptr;
    for (const Glyph& c : kGlyphs) {
      if (c.c == text[i]) g = &c;
    }
    if (g == nullptr) continue;
    for (int r = 0; r < 7; ++r) {
      for (int col = 0; col < 5; ++col) {
        if (!(g->rows[r] & (0x10 >> col))) continue;
        for (int dy = 0; dy < scale; ++dy) {
          for (int dx = 0; dx < scale; ++dx) {
            const int x = x0 + pad + i * advance + col * scale + dx, y = y0 + pad + r * scale + dy;
            if (x < 0 || x >= width || y < 0 || y >= height) continue;
            unsigned char* p = rgb + (std::size_t(y) * width + x) * 3;
            p[0] = p[1] = p[2] = 255;
          }
        }
      }
    }
  }
}

void writePng(const std::string& path, const unsigned char* rgb, int width, int height) {
  // Rows prefixed by filter type 0, deflated whole.
  std::vector<unsigned char> raw;
  raw.reserve(std::size_t(height) * (std::size_t(width) * 3 + 1));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb + std::size_t(y) * width * 3, rgb + std::size_t(y + 1) * width * 3);
  }
  uLongf packed_size = ::compressBound(static_cast<uLong>(raw.size()));
  std::vector<unsigned char> packed(packed_size);
  if (::compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK) {
    throw std::runtime_error("cannot write " + path + ": compression failed");
  }
  std::vector<unsigned char> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<unsigned char> header;
  putBig32(header, static_cast<std::uint32_t>(width));
  putBig32(header, static_cast<std::uint32_t>(height));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, no filter choice, no interlace
  chunk(png, "IHDR", header.data(), header.size());
  chunk(png, "IDAT", packed.data(), packed_size);
  chunk(png, "IEND", nullptr, 0);
  checkFolder(path);
  core::writeFileAtomically(path, std::string(png.begin(), png.end()));
}

}  // namespace grapple::render
