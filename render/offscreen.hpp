// OffscreenRenderer: draws an OSG scene into memory with no display — an EGL context on Mesa's
// surfaceless platform, a pbuffer of the requested size, the compatibility
// profile Debian's OSG needs — and reads the frame back as RGB rows, top row first. For the
// videos and screenshots of grapple-cli (headless) and of the application (on its own thread:
// a thread holds one current context, the application's view keeps its own).
#pragma once

#include <memory>
#include <vector>

#include "render/camera.hpp"

namespace osg {
class Node;
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace grapple::render
