// OffscreenRenderer: draws an OSG scene into memory with no display — an EGL context on Mesa's
// surfaceless platform, the compatibility profile Debian's OSG needs, a framebuffer object of the
// requested size — and reads the frame back as RGB rows, top row first. For the videos and
// screenshots of grapple-cli (headless) and of the application (on a thread of their own: a thread
// holds one current context), and for the application's 3D view (ui/osg_widget).
#pragma once

#include <memory>
#include <vector>

#include "render/camera.hpp"

namespace osg {
class Node;
}
namespace osgViewer {
class Viewer;
}

namespace grapple::render {

class OffscreenRenderer {
 public:
  // width, height: pixels (1..16384); samples: multisampling (0: none; asks for it, falls back to
  // none if the driver has no such configuration). Throws std::runtime_error saying what failed
  // (no EGL, no surfaceless platform, no OpenGL context...).
  OffscreenRenderer(int width, int height, int samples = 0);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  int width() const;
  int height() const;
  int samples() const;  // what the driver gave
  // The scene drawn (held by reference count; null: nothing).
  void setScene(osg::Node* root);
  // Draws the scene seen from `pose` (vertical field of view kFieldOfViewDeg) and returns the
  // frame: width × height × 3 bytes, RGB, top row first. Valid until the next call.
  const std::vector<unsigned char>& render(const CameraPose& pose);
  // The same frame as the driver holds it, into `rgba` (resized to width × height × 4 bytes), RGBA,
  // bottom row first (no conversion on the way back: the video export converts it to YUV itself,
  // on its writer thread).
  void renderRgba(const CameraPose& pose, std::vector<unsigned char>& rgba);

  // For an interactive view (the application's 3D view, drawn into a widget from memory): the
  // viewer that draws (its camera's viewport and projection follow the size; a camera manipulator
  // and the events of its graphics window may drive it), a new size (the framebuffer made again;
  // throws as the constructor), and the frame as the viewer's camera stands, into `pixels`: 4
  // bytes a pixel (BGRA if `bgra`, Qt's QImage::Format_RGB32 on a little-endian machine; else
  // RGBA), bottom row first.
  osgViewer::Viewer& viewer();
  void resize(int width, int height);
  void renderCurrent(std::vector<unsigned char>& pixels, bool bgra);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace grapple::render
