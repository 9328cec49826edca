// OsgWidget: the 3D view, an osgViewer::Viewer drawing off-screen (render::OffscreenRenderer: its
// own EGL context and framebuffer object) on the GUI thread, its frame read back and painted as an
// image. A plain raster widget, not a QOpenGLWidget: with one of those in it, Qt composes the whole
// window through OpenGL for each of the view's frames (software OpenGL: ~15 ms at 1280x800);
// this way a frame costs its drawing, the read back (~0.3 ms) and the view's own rectangle.
// Mouse: left drag orbits, middle drag (or shift + left) pans, right drag and the wheel zoom;
// a left click without a drag picks a body. OSG types are forward-declared.
#pragma once

#include <QImage>
#include <QPoint>
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "core/math/spatial.hpp"
#include "render/camera.hpp"

namespace osg {
class Node;
}  // namespace osg
namespace osgViewer {
class Viewer;
class GraphicsWindow;
}  // namespace osgViewer

namespace grapple::render {
class CaptureScene;
class OffscreenRenderer;
}

namespace grapple::ui {

class OsgWidget : public QWidget {
  Q_OBJECT
 public:
  using CameraPreset = render::CameraPreset;

  explicit OsgWidget(QWidget* parent = nullptr);
  ~OsgWidget() override;

  // The scene to draw (not owned; may be null). Resets the camera to the whole scene.
  void setScene(render::CaptureScene* scene);
  void setCameraPreset(CameraPreset preset);
  CameraPreset cameraPreset() const { return preset_; }
  // Call after the scene was updated: moves a following camera, then schedules a redraw.
  void sceneChanged();

  long framesDrawn() const { return frames_; }
  // The view drawn now, at its size in device pixels.
  QImage grabFramebuffer();
  // Where the camera is now (the preset's, or wherever the user orbited it).
  render::CameraPose cameraPose() const;
  // The description of the body drawn at a widget point (empty if none); what a click shows.
  QString describeAt(const QPoint& at);

 signals:
  void picked(const QString& description);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  // Hovering a body: its description (describeAt) as tooltip.
  bool event(QEvent* e) override;

 private:
  void applyPreset(bool reset_distance);
  // Draws the frame into image_ (false if there is no renderer: why_ says why).
  bool draw();
  // Something changed: draw again at the next paint.
  void redraw();
  int osgButton(Qt::MouseButton b, Qt::KeyboardModifiers m) const;

  std::unique_ptr<render::OffscreenRenderer> renderer_;  // null if off-screen OpenGL failed (why_)
  osgViewer::Viewer* viewer_ = nullptr;                  // the renderer's
  osgViewer::GraphicsWindow* window_ = nullptr;          // the renderer's (its events drive the manipulator)
  QString why_;
  std::vector<unsigned char> pixels_;  // BGRA, bottom row first
  QImage image_;                       // the frame, top row first
  bool stale_ = true;                  // image_ is not what the scene and camera show now
  render::CaptureScene* scene_ = nullptr;
  CameraPreset preset_ = CameraPreset::kWholeScene;
  core::Vector3 followed_ = core::Vector3::Zero();
  QPoint press_at_;
  bool user_moved_ = false;  // the camera was moved by hand since the last preset
  long frames_ = 0;
};

}  // namespace grapple::ui
