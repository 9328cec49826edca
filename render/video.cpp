#include "render/video.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <osg/BlendFunc>
#include <osg/Camera>
#include <osg/Geode>
#include <osg/Geometry>
#include <osgText/Text>

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
    // x264's preset ultrafast: half the CPU of veryfast for these frames (1.45 s against 2.8 s for
    // 600 frames at 1280x720) and, at the same crf, closer to the frames drawn (20 s of the
    // flexible capture at crf 20: PSNR 63 dB and SSIM 0.99987, against veryfast's 52 dB and
    // 0.99933); the file is larger (1.8 MB against 0.44 MB for those 20 s): drawn frames of flat
    // colours need little anyway.
    std::vector<std::string> args = {o.ffmpeg, "-y", "-hide_banner", "-loglevel", "error", "-f", "rawvideo",
                                     "-pix_fmt", "yuv420p", "-s", size, "-framerate", rate, "-i", "-", "-an",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-crf", crf, "-pix_fmt", "yuv420p",
                                     "-colorspace", "smpte170m", "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", out};
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
    // A pipe of 1 MiB (Linux's default limit for a user; 64 KiB otherwise): most of a frame
    // waits there while ffmpeg encodes the one before.
    ::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
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

// Converts the frames to YUV and feeds ffmpeg from a thread of its own, one frame at a time, so
// that the next frame is drawn while this one is converted and taken by ffmpeg (the pipe holds
// only part of a frame). The drawing side hands over a filled RGBA buffer (OffscreenRenderer::
// renderRgba) and gets back the one converted before (three buffers circulate).
class FrameWriter {
 public:
  FrameWriter(FfmpegPipe& pipe, int width, int height)
      : pipe_(pipe), width_(width), height_(height), thread_([this] { run(); }) {}
  ~FrameWriter() { close(); }
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  // Queues `rgba` (swapped with a free buffer); waits while the previous frame is still queued.
  // False once a write has failed (ffmpeg stopped reading: FfmpegPipe::finish says why).
  bool push(std::vector<unsigned char>& rgba) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !queued_ || failed_; });
    if (failed_) return false;
    queued_frame_.swap(rgba);
    queued_ = true;
    changed_.notify_all();
    return true;
  }
  // Writes what is queued and stops the thread; false if a write failed.
  bool close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    return !failed_;
  }

 private:
  void run() {
    std::vector<unsigned char> converting;
    std::vector<unsigned char> yuv(std::size_t(width_) * height_ * 3 / 2);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return queued_ || closing_; });
      if (!queued_) return;
      converting.swap(queued_frame_);
      queued_ = false;
      changed_.notify_all();
      lock.unlock();
      rgbaToYuv420(converting.data(), width_, height_, yuv.data());
      const bool ok = pipe_.write(yuv.data(), yuv.size());
      lock.lock();
      if (!ok) {
        failed_ = true;
        changed_.notify_all();
        return;
      }
    }
  }

  FfmpegPipe& pipe_;
  const int width_, height_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<unsigned char> queued_frame_;
  bool queued_ = false, closing_ = false, failed_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

// The drawing side shared by the video and the screenshot: a scene of its own, posed from the
// recording, and the off-screen renderer.
struct FrameMaker {
  FrameMaker(const core::Model& model, const core::Scenario& scenario, const Recording& rec, const VideoOptions& o)
      : recording(rec), options(o), scene(model, scenario), renderer(o.width, o.height, o.samples), label(o.width, o.height) {
    scene.setExaggeration(o.exaggeration);
    scene.setOptions(o.scene);
    if (o.time_label) {
      root->addChild(scene.root());
      root->addChild(label.node());
      renderer.setScene(root.get());
    } else {
      renderer.setScene(scene.root());
    }
  }
  // The instant `row` drawn, as RGB rows top first.
  const std::vector<unsigned char>& draw(int row) { return renderer.render(poseAt(row)); }
  // The same as RGBA rows bottom first, into `rgba` (OffscreenRenderer::renderRgba).
  void drawRgba(int row, std::vector<unsigned char>& rgba) { renderer.renderRgba(poseAt(row), rgba); }

  // Poses the scene at `row`; returns the camera. Holds `recording_mutex` (if any) while it reads
  // the recording.
  CameraPose poseAt(int row) {
    std::unique_lock<std::mutex> lock;
    if (recording_mutex != nullptr) lock = std::unique_lock<std::mutex>(*recording_mutex);
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
    label.setTime(recording.time(row));
    return pose;
  }

  const Recording& recording;
  const VideoOptions& options;
  std::mutex* recording_mutex = nullptr;  // held by whoever appends to the recording meanwhile
  CaptureScene scene;
  OffscreenRenderer renderer;
  TimeLabel label;
  osg::ref_ptr<osg::Group> root = new osg::Group;  // the scene and the label
  std::vector<core::Vector3> actual, planned;
  std::vector<core::Transform> trail;
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

namespace {

// Draws and encodes frame k = 0 .. n-1 at the simulated instant t = start + k·speed/fps, the row
// drawn being rowFor(k, t) (-1: the run ended before t, the video ends there).
VideoResult encodeVideo(FrameMaker& maker, int n, const std::string& path,
                        const std::function<int(int, double)>& rowFor, const std::function<bool(int, int)>& progress) {
  const VideoOptions& options = maker.options;
  const std::string tmp = core::temporaryBeside(path, "part");
  VideoResult result;
  {
    FfmpegPipe ffmpeg(options, tmp);
    FrameWriter writer(ffmpeg, options.width, options.height);
    std::vector<unsigned char> rgba;
    try {
      for (int k = 0; k < n; ++k) {
        const int row = rowFor(k, options.start + k * options.speed / options.fps);
        if (row < 0) break;
        maker.drawRgba(row, rgba);
        if (!writer.push(rgba)) break;  // finish() reports ffmpeg's error
        result.frames = k + 1;
        if (progress && !progress(k + 1, n)) {
          result.cancelled = true;
          break;
        }
      }
    } catch (...) {
      writer.close();
      std::remove(tmp.c_str());  // ~FfmpegPipe stops ffmpeg
      throw;
    }
    writer.close();
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
  return result;
}

}  // namespace

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
  VideoResult result = encodeVideo(maker, n, path, [&](int, double t) { return recording.rowAt(t); }, progress);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

VideoResult simulateAndExportVideo(core::Simulation& sim, Recording& recording, const VideoOptions& options,
                                   const std::string& path, const std::function<bool(int, int)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const std::string bad = checkVideoOptions(options); !bad.empty()) throw std::runtime_error("video: " + bad);
  if (recording.rows() == 0) recording.append(sim);
  const double until = std::min(options.end, sim.endTime());
  if (options.start > until) {
    throw std::runtime_error("video: the start time is after the end of the run (" + std::to_string(sim.endTime()) + " s)");
  }
  checkFolder(path);
  // The simulation's thread: steps and appends under `mutex`, says how far it has recorded.
  std::mutex mutex;
  std::condition_variable advanced;
  double recorded = recording.times().back();
  bool stopped = false;     // the run is at `until`, finished or failed (or the export gave up)
  bool abandon = false;     // the export ends early: stop simulating
  std::exception_ptr error;
  std::thread simulator([&] {
    try {
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (abandon || sim.finished() || sim.time() >= until - 1e-9) break;
        }
        sim.step();
        std::lock_guard<std::mutex> lock(mutex);
        recording.append(sim);
        recorded = recording.times().back();
        advanced.notify_all();
      }
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    stopped = true;
    advanced.notify_all();
  });
  struct Join {  // however the drawing ends, the simulation stops with it
    std::mutex& mutex;
    bool& abandon;
    std::thread& thread;
    ~Join() {
      {
        std::lock_guard<std::mutex> lock(mutex);
        abandon = true;
      }
      thread.join();
    }
  } join{mutex, abandon, simulator};
  FrameMaker maker(sim.model(), sim.scenario(), recording, options);
  maker.recording_mutex = &mutex;
  // While the run reaches the start, one frame of what it has recorded is drawn and dropped: the
  // renderer's first frame (llvmpipe compiling its shaders, the scene's buffers made) overlaps the
  // simulation instead of following it. (The camera is the first kept frame's, as without it.)
  {
    std::unique_lock<std::mutex> lock(mutex);
    const int last = recorded < options.start && !stopped ? recording.rows() - 1 : -1;
    lock.unlock();
    if (last >= 0) {
      std::vector<unsigned char> rgba;
      maker.drawRgba(last, rgba);
      maker.first.reset();
    }
  }
  const int n = videoFrameCount(options, until);
  VideoResult result = encodeVideo(maker, n, path, [&](int k, double t) {
    std::unique_lock<std::mutex> lock(mutex);
    advanced.wait(lock, [&] { return stopped || recorded >= t; });
    if (error) std::rethrow_exception(error);
    // A run stopped early (failed): as exportVideo of what it recorded.
    if (recorded < options.start) {
      throw std::runtime_error("video: the run stopped at " + std::to_string(recorded) + " s, before the start time");
    }
    if (recorded < t && k >= videoFrameCount(options, recorded)) return -1;
    return recording.rowAt(t);
  }, progress);
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

TimeLabel::TimeLabel(int width, int height) : hud_(new osg::Camera), text_(new osgText::Text), box_(new osg::Geometry) {
  // A HUD: pixel coordinates, drawn after the scene, over it, unlit.
  hud_->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
  hud_->setProjectionMatrixAsOrtho2D(0, width, 0, height);
  hud_->setViewMatrix(osg::Matrix::identity());
  hud_->setClearMask(GL_DEPTH_BUFFER_BIT);
  hud_->setRenderOrder(osg::Camera::POST_RENDER);
  hud_->setAllowEventFocus(false);
  osg::StateSet* state = hud_->getOrCreateStateSet();
  state->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
  state->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), osg::StateAttribute::ON);
  state->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  // Sizes as the frame's: the text 1/20 of its height, in a monospaced face (the box's width
  // follows from the characters' count).
  size_ = std::max(6.0, height / 20.0);
  margin_ = size_ / 6;
  if (osg::ref_ptr<osgText::Font> font = osgText::readRefFontFile(kTimeLabelFont)) text_->setFont(font);
  text_->setCharacterSize(static_cast<float>(size_));
  const unsigned pixels = static_cast<unsigned>(std::lround(size_));  // glyphs drawn texel for pixel
  text_->setFontResolution(pixels, pixels);
  text_->setColor(osg::Vec4(1, 1, 1, 1));
  text_->setAlignment(osgText::Text::LEFT_BOTTOM_BASE_LINE);
  text_->setDataVariance(osg::Object::DYNAMIC);
  box_->setVertexArray(new osg::Vec3Array(4));
  auto* colour = new osg::Vec4Array(1);
  (*colour)[0] = osg::Vec4(0, 0, 0, 0.5f);  // halves what is behind
  box_->setColorArray(colour, osg::Array::BIND_OVERALL);
  box_->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
  box_->setDataVariance(osg::Object::DYNAMIC);
  box_->setUseDisplayList(false);
  auto* geode = new osg::Geode;
  geode->addDrawable(box_.get());
  geode->addDrawable(text_.get());
  hud_->addChild(geode);
  setTime(0);
}

TimeLabel::~TimeLabel() = default;

osg::Node* TimeLabel::node() const { return hud_.get(); }

void TimeLabel::setTime(double t) {
  char text[32];
  std::snprintf(text, sizeof text, "t = %.2f s", t);
  text_->setText(text);
  // The box: from the margin, the characters' advance (0.6 em in DejaVu Sans Mono) and the
  // face's descent and ascent around the baseline.
  const float m = static_cast<float>(margin_), em = static_cast<float>(size_);
  const float x0 = m, y0 = m, x1 = x0 + 2 * m + 0.6f * em * static_cast<float>(std::strlen(text)), y1 = y0 + 2 * m + 1.2f * em;
  // The text's origin on a pixel's centre. The glyphs are drawn texel for pixel (the font's
  // resolution is the character size); osgText's glyph quads, as drawn into the frame's
  // framebuffer object, then put the texels' centres on the pixels' centres, and every pixel takes
  // one texel of FreeType's bitmap. From a whole pixel, each pixel samples on the edge between two
  // texels and blends them: a blurred label (measured at 640x360: 30 pixels of the glyphs' full
  // white against 128).
  text_->setPosition(osg::Vec3(std::floor(x0 + m) + 0.5f, std::floor(y0 + m + 0.25f * em) + 0.5f, 0));
  auto* v = static_cast<osg::Vec3Array*>(box_->getVertexArray());
  (*v)[0].set(x0, y0, 0);
  (*v)[1].set(x1, y0, 0);
  (*v)[2].set(x1, y1, 0);
  (*v)[3].set(x0, y1, 0);
  v->dirty();
  box_->dirtyBound();
}

void rgbaToYuv420(const unsigned char* rgba, int width, int height, unsigned char* yuv) {
  // BT.601's coefficients scaled to the limited range (219/255 for Y, 224/255 for Cb and Cr) in
  // 16-bit fixed point, rounded so that each chroma row sums to zero (grey has no colour):
  // Y  = 16  + ( 16829 R + 33039 G +  6416 B) / 2^16
  // Cb = 128 + ( -9714 R - 19070 G + 28784 B) / 2^16
  // Cr = 128 + ( 28784 R - 24103 G -  4681 B) / 2^16
  constexpr int kYr = 16829, kYg = 33039, kYb = 6416;
  constexpr int kUr = -9714, kUg = -19070, kUb = 28784;
  constexpr int kVr = 28784, kVg = -24103, kVb = -4681;
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  unsigned char* y_plane = yuv;
  unsigned char* u_plane = yuv + w * h;
  unsigned char* v_plane = u_plane + (w / 2) * (h / 2);
  // Simple loops over a row the compiler vectorizes: the luma of a row, the chroma of two.
  auto lumaRow = [&](const unsigned char* p, unsigned char* out) {
    for (std::size_t x = 0; x < w; ++x, p += 4) {
      out[x] = static_cast<unsigned char>((kYr * p[0] + kYg * p[1] + kYb * p[2] + (16 << 16) + (1 << 15)) >> 16);
    }
  };
  for (std::size_t y = 0; y < h; y += 2) {
    // Output rows y and y + 1 (top first) are the input's rows h - 1 - y and h - 2 - y.
    const unsigned char* top = rgba + (h - 1 - y) * w * 4;
    const unsigned char* bottom = top - w * 4;
    lumaRow(top, y_plane + y * w);
    lumaRow(bottom, y_plane + (y + 1) * w);
    unsigned char* u = u_plane + (y / 2) * (w / 2);
    unsigned char* v = v_plane + (y / 2) * (w / 2);
    for (std::size_t x = 0; x < w / 2; ++x) {
      const unsigned char* a = top + 8 * x;
      const unsigned char* b = bottom + 8 * x;
      // The sums of four pixels: divided by 2^18.
      const int r = a[0] + a[4] + b[0] + b[4], g = a[1] + a[5] + b[1] + b[5], bl = a[2] + a[6] + b[2] + b[6];
      u[x] = static_cast<unsigned char>((kUr * r + kUg * g + kUb * bl + (128 << 18) + (1 << 17)) >> 18);
      v[x] = static_cast<unsigned char>((kVr * r + kVg * g + kVb * bl + (128 << 18) + (1 << 17)) >> 18);
    }
  }
}

void writePng(const std::string& path, const unsigned char* rgb, int width, int height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;  // first the size, then the bytes
  if (png_image_write_get_memory_size(image, size, 0, rgb, 0, nullptr)) {
    std::string bytes(size, '\0');
    if (png_image_write_to_memory(&image, bytes.data(), &size, 0, rgb, 0, nullptr)) {
      bytes.resize(size);
      checkFolder(path);
      core::writeFileAtomically(path, bytes);
      return;
    }
  }
  const std::string why = image.message;
  png_image_free(&image);
  throw std::runtime_error("cannot write " + path + ": " + why);
}

}  // namespace grapple::render
