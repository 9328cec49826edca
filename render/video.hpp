// Video export: a recorded run drawn off-screen frame by frame (render/offscreen), converted to
// YUV 4:2:0 here and encoded to MP4 (H.264, yuv420p) by piping the raw frames into ffmpeg (a
// separate process: no codec linked in). A writer thread converts and feeds ffmpeg while the next
// frame is drawn; simulateAndExportVideo also simulates the run on a third thread meanwhile. The file is written under a temporary name and renamed when ffmpeg has
// finished, so a cancelled or failed export never leaves half a video. Used by
// `grapple-cli video` and by the application's File > Export video (on a worker thread).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <osg/ref_ptr>

#include "render/camera.hpp"
#include "render/recording.hpp"
#include "render/scene.hpp"

namespace osg {
class Camera;
class Geometry;
class Node;
}  // namespace osg
namespace osgText {
class Text;
}

namespace grapple::render {

struct VideoOptions {
  int width = 1280, height = 720;  // pixels, even (H.264 in yuv420p)
  double fps = 30;                  // frames per second of video
  double speed = 1;                 // simulated seconds per second of video
  double start = 0;                 // [s] simulated time of the first frame
  double end = std::numeric_limits<double>::infinity();  // [s] (clamped to the recording's end)
  CameraPreset camera = CameraPreset::kWholeScene;
  // A fixed camera (e.g. the application's view as the user left it) instead of the preset.
  std::optional<CameraPose> fixed_camera;
  SceneOptions scene;               // what is drawn (paths, frames, ...)
  double exaggeration = 1;          // of the flexible deformation
  int samples = 0;                  // multisampling (costs ~4x the frame time on llvmpipe)
  int crf = 20;                     // x264 quality (0 lossless .. 51; 18-23 is visually good; preset ultrafast)
  bool time_label = true;           // "t = 12.34 s" in the bottom-left corner of every frame
  std::string ffmpeg = "ffmpeg";    // the program (looked up on PATH)
};

// What is wrong with the options (empty if they are valid), e.g. "the width must be even".
std::string checkVideoOptions(const VideoOptions& options);

// The frames of the video: frame k shows simulated time start + k·speed/fps, k = 0 .. n-1, with
// n = floor((end - start)·fps/speed + 1e-9) (so 20 s at 30 fps is 600 frames); at least one.
int videoFrameCount(const VideoOptions& options, double recording_end);

struct VideoResult {
  int frames = 0;          // frames encoded
  bool cancelled = false;  // progress() returned false: no file was written
  double seconds = 0;      // wall time
};

// Renders the recording (of a run of model and scenario) to `path`. progress(done, total) is
// called after every frame; returning false cancels. Throws std::runtime_error with the reason
// (bad options, no off-screen OpenGL, ffmpeg missing or failing — its own message —, the file
// not writable).
VideoResult exportVideo(const core::Model& model, const core::Scenario& scenario, const Recording& recording,
                        const VideoOptions& options, const std::string& path,
                        const std::function<bool(int done, int total)>& progress = {});

// As exportVideo, the run simulated meanwhile: `sim` is stepped on a thread of its own up to the
// options' end (or the run's end, or a failure), each step appended to `recording` (the record of
// `sim`'s run; its first row is appended here if it has none), and each frame is drawn as soon as
// the run has reached its instant. The simulation runs as far ahead as it can: the recording keeps
// the whole run anyway (as the application's does), so running ahead costs no memory the run would
// not take. The recording is not to be read elsewhere until this returns. A run that fails gives
// the video of what it recorded (sim.failure() says why).
VideoResult simulateAndExportVideo(core::Simulation& sim, Recording& recording, const VideoOptions& options,
                                   const std::string& path, const std::function<bool(int done, int total)>& progress = {});

// One picture of the recorded instant `row` at any size up to 16384 x 16384 (the options' size,
// camera, overlays and exaggeration), as PNG (written atomically); throws as exportVideo.
void exportScreenshot(const core::Model& model, const core::Scenario& scenario, const Recording& recording, int row,
                      const VideoOptions& options, const std::string& path);

// The time label of the frames: "t = <seconds> s" (two decimals) in the bottom-left corner,
// white osgText (DejaVu Sans Mono Bold; OSG's own font where it is missing) over a box that halves the
// brightness behind it, on a HUD camera drawn after the scene. Sizes follow the frame's height.
inline constexpr const char* kTimeLabelFont = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf";
class TimeLabel {
 public:
  TimeLabel(int width, int height);
  ~TimeLabel();
  TimeLabel(const TimeLabel&) = delete;
  TimeLabel& operator=(const TimeLabel&) = delete;
  osg::Node* node() const;  // add it to the root drawn
  void setTime(double t);

 private:
  osg::ref_ptr<osg::Camera> hud_;
  osg::ref_ptr<osgText::Text> text_;
  osg::ref_ptr<osg::Geometry> box_;
  double size_ = 0, margin_ = 0;
};

// A frame read back from OpenGL (RGBA, bottom row first: OffscreenRenderer::renderRgba) as the
// encoder takes it: planar YUV 4:2:0 (Y rows top first, then the Cb and the Cr planes at half
// width and height), by ITU-R BT.601's encoding equations (Y = 0.299 R + 0.587 G + 0.114 B,
// Cb and Cr the scaled B - Y and R - Y, quantized to 219 and 224 levels: Y 16-235, Cb and Cr
// 16-240) — what ffmpeg's own conversion from RGB produces by default. Each chroma sample is that of the mean colour of its 2×2 pixels. Width and height even;
// `yuv` holds width·height·3/2 bytes.
void rgbaToYuv420(const unsigned char* rgba, int width, int height, unsigned char* yuv);

// Writes an RGB image (top row first) as PNG (libpng), atomically; throws on failure.
void writePng(const std::string& path, const unsigned char* rgb, int width, int height);

}  // namespace grapple::render
