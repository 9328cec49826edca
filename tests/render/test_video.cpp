// Off-screen frames, screenshots and videos, with no display (DISPLAY is unset for this test):
// the EGL renderer draws the capture scene (not blank, the debris' gold, deterministic); the PNG
// writer's file decodes (a decoder here, zlib's own inflate) back to the frame; the time label is
// drawn; the frames piped to the encoder are BT.601 YUV 4:2:0 (the equations, and ffmpeg reading
// them back); the MP4 has the frame count, size and codec ffprobe reads, and its frames show what
// the renderer drew at those instants; cancel leaves no file; bad options, a missing folder or a
// missing ffmpeg are refused with the reason; an encoder killed in the middle of a video, a full
// file system and a read-only folder leave the previous file as it was and no partial file, and
// say why; `grapple-cli video` works headless.
#include <QtTest>

#include <QProcess>

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/dynamics/configuration.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/urdf.hpp"
#include <osg/Group>

#include "render/offscreen.hpp"
#include "render/video.hpp"
#include "tests/support/fault_places.hpp"

using namespace grapple;
namespace fs = std::filesystem;

namespace {

const std::string kScenarios = GRAPPLE_SOURCE_DIR "/scenarios/";

struct Run {
  core::LoadedScenario loaded;
  std::unique_ptr<core::Simulation> sim;
  std::unique_ptr<render::Recording> recording;
};

// capture_rigid from t = 40 s (the plan, the approach), `seconds` long, recorded whole.
std::unique_ptr<Run> simulate(double seconds) {
  auto run = std::make_unique<Run>();
  run->loaded = core::loadScenario(kScenarios + "capture_rigid.yaml", {{"run.duration", std::to_string(seconds)}});
  run->sim = std::make_unique<core::Simulation>(run->loaded.scenario, run->loaded.model);
  run->recording = std::make_unique<render::Recording>(*run->sim);
  run->recording->append(*run->sim);
  while (!run->sim->finished()) {
    run->sim->step();
    run->recording->append(*run->sim);
  }
  return run;
}

// Runs a program, returns (exit code, standard output).
std::pair<int, QString> execute(const QString& program, const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(program, args);
  if (!p.waitForFinished(300000)) return {-1, {}};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromLocal8Bit(p.readAllStandardOutput()) + QString::fromLocal8Bit(p.readAllStandardError())};
}

// ffprobe's "codec,width,height,pix_fmt,frames" of the first video stream.
QString probe(const std::string& path) {
  return execute("ffprobe", {"-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                             "stream=codec_name,width,height,pix_fmt,nb_read_frames", "-of", "csv=p=0",
                             QString::fromStdString(path)})
      .second.trimmed();
}

// Frame k of a video as RGB bytes (decoded by ffmpeg).
std::vector<unsigned char> decodeFrame(const std::string& path, int k, int w, int h) {
  QProcess p;
  p.start("ffmpeg", {"-v", "error", "-i", QString::fromStdString(path), "-vf", QString("select=eq(n\\,%1)").arg(k),
                     "-vframes", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"});
  p.waitForFinished(60000);
  const QByteArray b = p.readAllStandardOutput();
  if (b.size() != w * h * 3) return {};
  return std::vector<unsigned char>(b.begin(), b.end());
}

double meanAbsDifference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::abs(int(a[i]) - int(b[i]));
  return s / a.size();
}

// Fraction of pixels away from the background, and of gold (debris) ones.
std::pair<double, double> census(const std::vector<unsigned char>& rgb) {
  std::size_t lit = 0, gold = 0, n = rgb.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    const int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    if (r + g + b > 60) ++lit;
    if (r > 120 && g > 70 && b < 0.5 * g && r > g) ++gold;
  }
  return {double(lit) / n, double(gold) / n};
}

}  // namespace

class TestVideo : public QObject {
  Q_OBJECT
  std::unique_ptr<Run> run_;
  QTemporaryDir dir_;

  std::string file(const char* name) const { return (fs::path(dir_.path().toStdString()) / name).string(); }

 private slots:
  void initTestCase() {
    QVERIFY(qgetenv("DISPLAY").isEmpty());  // ctest unsets it: this is the headless path
    QVERIFY2(!QStandardPaths::findExecutable("ffmpeg").isEmpty() && !QStandardPaths::findExecutable("ffprobe").isEmpty(),
             "ffmpeg and ffprobe are needed (scripts/setup.sh installs the Debian package ffmpeg)");
    run_ = simulate(3.0);
    QCOMPARE(run_->recording->rows(), run_->sim->recorder().rows());
  }

  void offscreenFramesShowTheScene() {
    render::CaptureScene scene(run_->sim->model(), run_->sim->scenario());
    scene.update(run_->recording->snapshot(run_->recording->rows() - 1));
    render::OffscreenRenderer r(480, 270);
    r.setScene(scene.root());
    const render::CameraPose pose = render::presetCamera(scene, render::CameraPreset::kWholeScene, 480.0 / 270);
    const std::vector<unsigned char> a = r.render(pose);
    QCOMPARE(int(a.size()), 480 * 270 * 3);
    const auto [lit, gold] = census(a);
    qInfo("off-screen frame: %.1f %% drawn, %.1f %% gold (the debris)", 100 * lit, 100 * gold);
    QVERIFY(lit > 0.02 && lit < 0.9);
    QVERIFY(gold > 0.002);
    QVERIFY(r.render(pose) == a);  // deterministic
    // Another camera, another picture.
    QVERIFY(r.render(render::presetCamera(scene, render::CameraPreset::kFollowEndEffector, 480.0 / 270)) != a);
    // Resized (the application's view follows its widget): the frame a new renderer of that size
    // draws; its BGRA frame (what the view paints) holds the same colours, bottom row first.
    const render::CameraPose wide = render::presetCamera(scene, render::CameraPreset::kWholeScene, 320.0 / 120);
    r.resize(320, 120);
    render::OffscreenRenderer fresh(320, 120);
    fresh.setScene(scene.root());
    const std::vector<unsigned char> resized = r.render(wide);
    QCOMPARE(int(resized.size()), 320 * 120 * 3);
    QVERIFY(resized == fresh.render(wide));
    std::vector<unsigned char> bgra;
    r.renderCurrent(bgra, true);
    bool same = int(bgra.size()) == 320 * 120 * 4;
    for (int y = 0; same && y < 120; ++y) {
      for (int x = 0; x < 320; ++x) {
        const unsigned char* p = &bgra[(std::size_t(119 - y) * 320 + x) * 4];
        const unsigned char* q = &resized[(std::size_t(y) * 320 + x) * 3];
        same = same && p[2] == q[0] && p[1] == q[1] && p[0] == q[2];
      }
    }
    QVERIFY(same);
    // Multisampling where the driver has it (llvmpipe: 4 samples): the same picture, edges smoothed.
    render::OffscreenRenderer smooth(480, 270, 4);
    smooth.setScene(scene.root());
    const std::vector<unsigned char> m = smooth.render(pose);
    qInfo("multisampling: %d samples, mean |difference| from the frame without %.2f", smooth.samples(), meanAbsDifference(m, a));
    QVERIFY(smooth.samples() == 0 ? m == a : (m != a && meanAbsDifference(m, a) < 3));
  }

  // The PNG decoded here from the specification (chunks and their CRCs, the IDATs inflated by
  // zlib, each row's filter undone: None, Sub, Up, Average, Paeth) gives back every byte of the
  // frame, for a pattern and a smooth gradient (which the encoder filters).
  void pngDecodesBackToTheFrame() {
    auto decode = [](const std::vector<unsigned char>& png, int& w, int& h) {
      std::vector<unsigned char> pixels;
      if (png.size() < 8 || !std::equal(png.begin(), png.begin() + 8,
                                        std::vector<unsigned char>{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}.begin())) {
        return pixels;
      }
      auto be32 = [&](std::size_t at) {
        return (uint32_t(png[at]) << 24) | (uint32_t(png[at + 1]) << 16) | (uint32_t(png[at + 2]) << 8) | png[at + 3];
      };
      std::vector<unsigned char> idat;
      std::string last;
      for (std::size_t at = 8; at + 12 <= png.size();) {
        const uint32_t n = be32(at);
        const std::string type(png.begin() + at + 4, png.begin() + at + 8);
        if (at + 12 + n > png.size()) return pixels;
        if (uint32_t(::crc32(0, png.data() + at + 4, n + 4)) != be32(at + 8 + n)) return pixels;  // a bad CRC
        if (type == "IHDR") {
          w = int(be32(at + 8));
          h = int(be32(at + 12));
          if (png[at + 16] != 8 || png[at + 17] != 2 || png[at + 20] != 0) return pixels;  // 8-bit RGB, no interlace
        }
        if (type == "IDAT") idat.insert(idat.end(), png.begin() + at + 8, png.begin() + at + 8 + n);
        last = type;
        at += 12 + n;
      }
      if (last != "IEND") return pixels;
      const std::size_t stride = std::size_t(w) * 3;
      std::vector<unsigned char> raw(std::size_t(h) * (stride + 1));
      uLongf raw_len = raw.size();
      if (::uncompress(raw.data(), &raw_len, idat.data(), idat.size()) != Z_OK || raw_len != raw.size()) return pixels;
      pixels.assign(std::size_t(h) * stride, 0);
      for (int y = 0; y < h; ++y) {
        const unsigned char filter = raw[y * (stride + 1)];
        const unsigned char* in = &raw[y * (stride + 1) + 1];
        unsigned char* out = &pixels[y * stride];
        const unsigned char* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
        for (std::size_t i = 0; i < stride; ++i) {
          const int a = i >= 3 ? out[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
          int predicted = 0;
          switch (filter) {
            case 0: break;
            case 1: predicted = a; break;
            case 2: predicted = b; break;
            case 3: predicted = (a + b) / 2; break;
            case 4: {
              const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
              predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
              break;
            }
            default: return std::vector<unsigned char>{};
          }
          out[i] = static_cast<unsigned char>(in[i] + predicted);
        }
      }
      return pixels;
    };
    std::size_t bytes = 0;  // of the last file
    auto roundTrip = [&](const std::vector<unsigned char>& rgb, int w, int h, const char* name) {
      const std::string path = file(name);
      render::writePng(path, rgb.data(), w, h);
      std::ifstream in(path, std::ios::binary);
      const std::vector<unsigned char> png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      int dw = 0, dh = 0;
      const std::vector<unsigned char> back = decode(png, dw, dh);
      QCOMPARE(dw, w);
      QCOMPARE(dh, h);
      bytes = png.size();
      QVERIFY(back == rgb);
    };
    std::vector<unsigned char> pattern(37 * 21 * 3);
    for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>((i * 7919) % 251);
    roundTrip(pattern, 37, 21, "pattern.png");
    std::vector<unsigned char> gradient(320 * 200 * 3);
    for (int y = 0; y < 200; ++y) {
      for (int x = 0; x < 320; ++x) {
        unsigned char* p = &gradient[(std::size_t(y) * 320 + x) * 3];
        p[0] = static_cast<unsigned char>(x * 255 / 319);
        p[1] = static_cast<unsigned char>(y * 255 / 199);
        p[2] = static_cast<unsigned char>((x + y) / 2);
      }
    }
    roundTrip(gradient, 320, 200, "gradient.png");
    qInfo("gradient 320x200: %zu bytes of PNG for %zu of pixels", bytes, gradient.size());
    QVERIFY(bytes < gradient.size() / 4);  // compressed, not stored
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, render::writePng(file("no/such/folder/x.png"), pattern.data(), 37, 21));
  }

  // The frames piped to ffmpeg: RGBA rows read back bottom-up, converted here to YUV 4:2:0 by
  // BT.601 in the limited range. Checked pixel by pixel against the standard's equations in
  // floating point (Y = 0.299 R + 0.587 G + 0.114 B, Cb = (B - Y)/1.772, Cr = (R - Y)/1.402,
  // scaled to 219 and 224 levels), and converted back to RGB by ffmpeg itself: the colours come
  // back within the 4:2:0 quantization's error, top row first.
  void yuvFramesAreBt601() {
    const int w = 64, h = 32;
    // Eight blocks of 16x16 (top row of blocks: black, white, red, green; bottom: blue, grey,
    // gold, a dark blue), as RGB top row first.
    const int colours[8][3] = {{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {0, 255, 0},
                               {0, 0, 255}, {128, 128, 128}, {212, 160, 40}, {10, 20, 60}};
    std::vector<unsigned char> rgb(std::size_t(w) * h * 3), rgba(std::size_t(w) * h * 4);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const int* c = colours[(y / 16) * 4 + x / 16];
        for (int k = 0; k < 3; ++k) {
          rgb[(std::size_t(y) * w + x) * 3 + k] = static_cast<unsigned char>(c[k]);
          rgba[(std::size_t(h - 1 - y) * w + x) * 4 + k] = static_cast<unsigned char>(c[k]);  // bottom-up
        }
        rgba[(std::size_t(h - 1 - y) * w + x) * 4 + 3] = 255;
      }
    }
    std::vector<unsigned char> yuv(std::size_t(w) * h * 3 / 2);
    render::rgbaToYuv420(rgba.data(), w, h, yuv.data());
    int worst = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const int* c = colours[(y / 16) * 4 + x / 16];
        const double l = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];  // 0..255
        const double luma = 16 + 219 * l / 255, cb = 128 + 224 * (c[2] - l) / 1.772 / 255, cr = 128 + 224 * (c[0] - l) / 1.402 / 255;
        worst = std::max(worst, std::abs(yuv[std::size_t(y) * w + x] - int(std::lround(luma))));
        const std::size_t ci = std::size_t(y / 2) * (w / 2) + x / 2;  // blocks are even: one colour per 2x2
        worst = std::max(worst, std::abs(yuv[std::size_t(w) * h + ci] - int(std::lround(cb))));
        worst = std::max(worst, std::abs(yuv[std::size_t(w) * h * 5 / 4 + ci] - int(std::lround(cr))));
      }
    }
    QCOMPARE(worst, 0);  // the fixed-point coefficients round as the equations do
    // A 2x2 block of two colours: its chroma is that of the mean colour.
    std::vector<unsigned char> mixed = {255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255, 255, 0, 0, 255};  // red, blue / blue, red
    std::vector<unsigned char> out(6);
    render::rgbaToYuv420(mixed.data(), 2, 2, out.data());
    const double ml = 0.299 * 127.5 + 0.114 * 127.5;
    QVERIFY(std::abs(out[4] - (128 + 224 * (127.5 - ml) / 1.772 / 255)) <= 0.5 + 1e-9);
    QVERIFY(std::abs(out[5] - (128 + 224 * (127.5 - ml) / 1.402 / 255)) <= 0.5 + 1e-9);
    // ffmpeg reads it back (as it reads the video's frames) to the colours, top row first.
    QProcess p;
    p.start("ffmpeg", {"-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", QString("%1x%2").arg(w).arg(h), "-i", "-",
                       "-f", "rawvideo", "-pix_fmt", "rgb24", "-"});
    QVERIFY(p.waitForStarted());
    p.write(reinterpret_cast<const char*>(yuv.data()), qint64(yuv.size()));
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(60000));
    const QByteArray back = p.readAllStandardOutput();
    QCOMPARE(back.size(), qsizetype(rgb.size()));
    int far = 0;
    for (std::size_t i = 0; i < rgb.size(); ++i) far = std::max(far, std::abs(int(static_cast<unsigned char>(back[qsizetype(i)])) - int(rgb[i])));
    qInfo("YUV 4:2:0 frame read back by ffmpeg: colours within %d of 255", far);
    QVERIFY(far <= 3);
  }

  void videoHasTheFramesAskedFor() {
    render::VideoOptions o;
    o.width = 320;
    o.height = 240;
    o.fps = 10;
    o.scene.stars = false;  // the stars' single pixels are what lossy coding blurs most
    o.time_label = false;   // compared with the renderer's frames below
    const std::string path = file("run.mp4");
    int calls = 0;
    const render::VideoResult r = render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o,
                                                      path, [&](int done, int total) {
                                                        ++calls;
                                                        return done <= total;
                                                      });
    qInfo("3 s at 10 fps, 320x240: %d frames in %.2f s", r.frames, r.seconds);
    QCOMPARE(r.frames, 30);
    QCOMPARE(calls, 30);
    QVERIFY(!r.cancelled);
    QCOMPARE(probe(path), QString("h264,320,240,yuv420p,30"));
    // Frame 25 shows the instant 2.5 s, as the renderer draws it (lossy coding: close, not equal).
    const std::vector<unsigned char> decoded = decodeFrame(path, 25, 320, 240);
    QCOMPARE(int(decoded.size()), 320 * 240 * 3);
    const std::string still = file("still.png");
    render::exportScreenshot(run_->sim->model(), run_->sim->scenario(), *run_->recording, run_->recording->rowAt(2.5), o, still);
    render::CaptureScene scene(run_->sim->model(), run_->sim->scenario());
    scene.setOptions(o.scene);
    render::OffscreenRenderer renderer(320, 240);
    renderer.setScene(scene.root());
    // The video's camera is the one of its first frame (whole-scene preset at t = 0).
    scene.update(run_->recording->snapshot(0));
    const render::CameraPose pose = render::presetCamera(scene, o.camera, 320.0 / 240);
    std::vector<core::Vector3> a, p;
    auto drawAt = [&](double t) {
      const int row = run_->recording->rowAt(t);
      scene.update(run_->recording->snapshot(row));
      run_->recording->pathsAt(row, a, p);
      scene.setPaths(a, p);
      return renderer.render(pose);
    };
    // Of the instants 0, 0.5, ... 3 s drawn by the renderer, frame 25 is closest to 2.5 s.
    double best = 1e9, best_t = -1;
    QString list;
    for (double t = 0; t <= 3.0; t += 0.5) {
      const double d = meanAbsDifference(decoded, drawAt(t));
      list += QString(" %1 s: %2").arg(t).arg(d, 0, 'f', 3);
      if (d < best) best = d, best_t = t;
    }
    qInfo("frame 25 against the scene drawn at%s (mean |difference| of 0-255 values)", qPrintable(list));
    QCOMPARE(best_t, 2.5);
    // Speed and window: 2 simulated seconds per second from t = 1 s: (3 - 1) x 10 / 2 = 10 frames.
    o.speed = 2;
    o.start = 1;
    const std::string fast = file("fast.mp4");
    QCOMPARE(render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o, fast).frames, 10);
    QCOMPARE(probe(fast), QString("h264,320,240,yuv420p,10"));
    QCOMPARE(render::videoFrameCount(render::VideoOptions{}, 20.0), 600);  // 20 s at 30 fps
  }

  // The time label (osgText on a HUD over the scene, drawn off-screen): white glyphs on a
  // darkened box in the bottom-left corner, different for another time, nothing touched outside
  // the box; sizes down to 16x16 draw.
  void timeLabelIsDrawnInTheCorner() {
    const int w = 640, h = 360;
    render::OffscreenRenderer r(w, h);
    osg::ref_ptr<osg::Group> root = new osg::Group;
    render::TimeLabel label(w, h);
    const render::CameraPose pose;
    r.setScene(root.get());
    const std::vector<unsigned char> plain = r.render(pose);
    root->addChild(label.node());
    label.setTime(12.34);
    const std::vector<unsigned char> a = r.render(pose);
    label.setTime(56.78);
    const std::vector<unsigned char> b = r.render(pose);
    int white = 0, changed_outside = 0, differ = 0, darker = 0, brightest = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const std::size_t i = (std::size_t(y) * w + x) * 3;
        const bool corner = x < w / 3 && y > h - h / 8;
        if (a[i] >= 200 && a[i] == a[i + 1] && a[i] == a[i + 2]) ++white;  // white glyphs (antialiased: their cores)
        brightest = std::max<int>(brightest, a[i]);
        if (!corner && a[i] != plain[i]) ++changed_outside;
        if (corner && a[i + 2] < plain[i + 2] && a[i + 2] > 0) ++darker;  // the blue of the background halved
        if (a[i] != b[i]) ++differ;
      }
    }
    qInfo("time label: %d white pixels (the brightest %d), %d darkened, %d differ between 12.34 s and 56.78 s", white,
          brightest, darker, differ);
    QVERIFY(white > 100);
    QVERIFY(darker > 1000);
    QCOMPARE(changed_outside, 0);
    QVERIFY(differ > 20);
    render::OffscreenRenderer tiny(16, 16);
    render::TimeLabel small(16, 16);
    small.setTime(123456.78);
    tiny.setScene(small.node());
    QCOMPARE(tiny.render(pose).size(), std::size_t(16 * 16 * 3));
  }

  // A URDF robot drawn off-screen with its meshes: the fingers' STL in the material's steel, the
  // palm's dark cylinder; with the collision toggle, the collision shapes (orange) instead. The
  // frames are kept as urdf_gripper.png and urdf_gripper_collision.png in the build folder.
  void urdfRobotDrawnWithMeshes() {
    const core::Model m = core::loadUrdf(GRAPPLE_SOURCE_DIR "/tests/data/urdf/gripper_meshes.urdf").model;
    core::Scenario s = run_->sim->scenario();
    s.debris.enabled = false;
    render::CaptureScene scene(m, s);
    render::SceneOptions o = scene.options();
    o.stars = o.earth = o.com = o.paths = false;
    scene.setOptions(o);
    render::Snapshot snap;
    snap.q = core::neutralConfiguration(m);
    snap.q[0] = -0.02;  // fingers half closed
    snap.q[1] = -0.02;
    snap.v = Eigen::VectorXd::Zero(m.nv);
    scene.update(snap);
    render::OffscreenRenderer r(640, 480);
    r.setScene(scene.root());
    render::CameraPose pose;
    pose.eye = core::Vector3(0.16, -0.3, 0.2);
    pose.center = core::Vector3(0, 0, 0.06);
    auto count = [](const std::vector<unsigned char>& rgb, auto&& is) {
      int n = 0;
      for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) n += is(rgb[i], rgb[i + 1], rgb[i + 2]);
      return n;
    };
    auto steel = [](int r, int g, int b) { return r > 110 && b > r && b - r < 40 && g > 100; };
    auto orange = [](int r, int g, int b) { return r > 150 && g > 40 && g < 0.75 * r && b < 0.45 * r; };
    const std::vector<unsigned char> visual = r.render(pose);
    render::writePng(GRAPPLE_BINARY_DIR "/urdf_gripper.png", visual.data(), 640, 480);
    const int steel_visual = count(visual, steel), orange_visual = count(visual, orange);
    o.collision = true;
    scene.setOptions(o);
    const std::vector<unsigned char> collision = r.render(pose);
    render::writePng(GRAPPLE_BINARY_DIR "/urdf_gripper_collision.png", collision.data(), 640, 480);
    const int steel_collision = count(collision, steel), orange_collision = count(collision, orange);
    qInfo("URDF gripper: %d steel and %d orange pixels drawn with its visuals, %d and %d with its collision shapes",
          steel_visual, orange_visual, steel_collision, orange_collision);
    QVERIFY(steel_visual > 5000);
    QVERIFY(orange_visual < 50);
    QVERIFY(orange_collision > 5000);
    QVERIFY(steel_collision < steel_visual / 10);
  }

  void cancelLeavesNoFile() {
    render::VideoOptions o;
    o.width = 160;
    o.height = 120;
    const std::string path = file("cancelled.mp4");
    const render::VideoResult r = render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o,
                                                      path, [](int done, int) { return done < 5; });
    QVERIFY(r.cancelled);
    QCOMPARE(r.frames, 0);
    QVERIFY(!fs::exists(path));
    for (const auto& e : fs::directory_iterator(dir_.path().toStdString())) {
      QVERIFY2(e.path().filename().string().find("cancelled.mp4.") == std::string::npos, e.path().c_str());
    }
  }

  // The run simulated on its own thread while the frames are drawn (simulateAndExportVideo, what
  // grapple-cli video does) gives the video that the finished recording gives, frame for frame
  // (the decoded frames' MD5); a cancelled one leaves no file.
  void simulatedWhileDrawnGivesTheSameVideo() {
    render::VideoOptions o;
    o.width = 160;
    o.height = 120;
    o.fps = 10;
    o.start = 1;
    const std::string after = file("after.mp4"), meanwhile = file("meanwhile.mp4");
    QCOMPARE(render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o, after).frames, 20);
    core::Simulation sim(run_->loaded.scenario, run_->loaded.model);
    render::Recording recording(sim);
    QCOMPARE(render::simulateAndExportVideo(sim, recording, o, meanwhile).frames, 20);
    QCOMPARE(recording.rows(), run_->recording->rows());  // simulated to the end (3 s), not further
    auto md5 = [](const std::string& path) {
      return execute("ffmpeg", {"-v", "error", "-i", QString::fromStdString(path), "-f", "md5", "-"}).second.trimmed();
    };
    const QString a = md5(after), b = md5(meanwhile);
    qInfo("decoded frames: %s and %s", qPrintable(a), qPrintable(b));
    QVERIFY(a.startsWith("MD5="));
    QCOMPARE(b, a);
    // Cancelled after 5 frames: the simulation's thread is stopped and joined (this returns).
    core::Simulation sim2(run_->loaded.scenario, run_->loaded.model);
    render::Recording recording2(sim2);
    const std::string cancelled = file("meanwhile_cancelled.mp4");
    const render::VideoResult r =
        render::simulateAndExportVideo(sim2, recording2, o, cancelled, [](int done, int) { return done < 5; });
    QVERIFY(r.cancelled);
    QVERIFY(!fs::exists(cancelled));
  }

  void badRequestsAreRefusedWithTheReason() {
    auto message = [&](const render::VideoOptions& o, const std::string& path) -> std::string {
      try {
        render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o, path);
      } catch (const std::runtime_error& e) {
        return e.what();
      }
      return {};
    };
    render::VideoOptions odd;
    odd.width = 321;
    QVERIFY(message(odd, file("odd.mp4")).find("even") != std::string::npos);
    render::VideoOptions slow;
    slow.fps = 0;
    QVERIFY(message(slow, file("slow.mp4")).find("frame rate") != std::string::npos);
    render::VideoOptions late;
    late.start = 100;
    QVERIFY(message(late, file("late.mp4")).find("after the end") != std::string::npos);
    render::VideoOptions small;
    small.width = 64;
    small.height = 48;
    const std::string nofolder = message(small, file("no/such/folder/x.mp4"));
    QVERIFY2(nofolder.find("no folder") != std::string::npos, nofolder.c_str());
    render::VideoOptions missing = small;
    missing.ffmpeg = "grapple-no-such-ffmpeg";
    const std::string m = message(missing, file("x.mp4"));
    QVERIFY2(m.find("cannot start grapple-no-such-ffmpeg") != std::string::npos, m.c_str());
    QVERIFY(!fs::exists(file("x.mp4")));
    // ffmpeg's own complaint comes back (an encoder setting it refuses: crf 51 is fine, so break
    // the program instead: `false` exits 1 without reading).
    render::VideoOptions failing = small;
    failing.ffmpeg = "false";
    const std::string f = message(failing, file("y.mp4"));
    QVERIFY2(f.find("ffmpeg failed") != std::string::npos, f.c_str());
    QVERIFY(!fs::exists(file("y.mp4")));
  }

  // ffmpeg killed by SIGKILL in the middle of a video: a wrapper feeds it the first five frames
  // (YUV 4:2:0; it writes a partial MP4 under the temporary name), then kills itself. The export fails with
  // the signal, the previous video is kept byte for byte, and no partial file is left.
  void killedEncoderLeavesNoPartialFile() {
    const std::string path = file("kept.mp4");
    { std::ofstream(path) << "the previous video"; }
    const std::string wrapper = file("killed-ffmpeg.sh");
    {
      std::ofstream w(wrapper);
      w << "#!/bin/sh\nhead -c " << 5 * 160 * 120 * 3 / 2 << " | ffmpeg \"$@\"\nkill -KILL $$\n";
    }
    fs::permissions(wrapper, fs::perms::owner_all);
    render::VideoOptions o;
    o.width = 160;
    o.height = 120;
    o.ffmpeg = wrapper;
    std::string message;
    try {
      render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o, path);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    QVERIFY2(message.find("killed by signal 9") != std::string::npos, message.c_str());
    QCOMPARE(test::fileText(path), std::string("the previous video"));
    for (const std::string& name : test::folderEntries(dir_.path().toStdString())) {
      QVERIFY2(name.find("kept.mp4.") == std::string::npos, name.c_str());
    }
  }

  // A video and a picture saved into a full file system and into a read-only folder: refused with
  // the system's reason, the previous file intact, nothing else left in the folder.
  void fullOrReadOnlyPlaceKeepsThePreviousFile() {
    render::VideoOptions o;
    o.width = 64;
    o.height = 48;
    auto attempt = [&](test::FaultPlace& place, const std::string& name) {
      std::string message;
      try {
        if (name == "v.mp4") {
          render::exportVideo(run_->sim->model(), run_->sim->scenario(), *run_->recording, o, place.file(name));
        } else {
          render::exportScreenshot(run_->sim->model(), run_->sim->scenario(), *run_->recording, 0, o, place.file(name));
        }
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
      place.restore();
      qInfo("%s, %s: %s", place.kind().c_str(), name.c_str(), message.c_str());
      // (Under a file-size limit ffmpeg cannot write its log either: it fails without a reason.)
      const bool silent = name == "v.mp4" && place.byFileSizeLimit();
      QVERIFY2(message.find(silent ? "ffmpeg failed" : place.reason()) != std::string::npos, message.c_str());
      QCOMPARE(test::fileText(place.file(name)), std::string("previous"));
      for (const std::string& entry : test::folderEntries(place.dir())) {
        QVERIFY2(entry == name || entry == "filler", entry.c_str());
      }
    };
    for (const std::string name : {"v.mp4", "p.png"}) {
      {
        test::FullPlace full(name, "previous");
        attempt(full, name);
      }
      test::ReadOnlyFolder readonly(name, "previous");
      if (!readonly.effective()) QSKIP("root without the right to mount: no folder is read-only to this process");
      attempt(readonly, name);
    }
  }

  void cliRendersHeadless() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    const QString cli = GRAPPLE_BINARY_DIR "/app/grapple-cli";
    const QString out = QString::fromStdString(file("cli.mp4"));
    const auto [code, text] = execute(cli, {"video", QString::fromStdString(kScenarios + "capture_rigid.yaml"), "--duration", "2",
                                            "--out", out, "--size", "256x144", "--fps", "12", "--camera", "hand"}, env);
    QVERIFY2(code == 0, qPrintable(text));
    QVERIFY(text.contains("24 frames"));
    QCOMPARE(probe(out.toStdString()), QString("h264,256,144,yuv420p,24"));
    const QString png = QString::fromStdString(file("cli.png"));
    const auto [code2, text2] = execute(cli, {"video", QString::fromStdString(kScenarios + "capture_rigid.yaml"),
                                              "--frame", "1", "--out", png, "--size", "301x155"}, env);
    QVERIFY2(code2 == 0, qPrintable(text2));
    QVERIFY(fs::file_size(png.toStdString()) > 1000);
    // Bad input: exit code 2 and the reason.
    const auto [code3, text3] = execute(cli, {"video", "--out", out, "--size", "640x"}, env);
    QCOMPARE(code3, 2);
    QVERIFY(text3.contains("--size expects WIDTHxHEIGHT"));
    const auto [code4, text4] = execute(cli, {"video", "--duration", "1", "--out", "/no/such/dir/v.mp4", "--size", "64x48"}, env);
    QCOMPARE(code4, 2);
    QVERIFY2(text4.contains("/no/such/dir/v.mp4") && text4.contains("no folder"), qPrintable(text4));
  }
};

QTEST_APPLESS_MAIN(TestVideo)
#include "test_video.moc"
