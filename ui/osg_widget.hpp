// OsgWidget: the 3D view, an osgViewer::Viewer inside a QOpenGLWidget (single-threaded viewer,
// Qt owns the context; the compatibility profile is requested in main().
// Mouse: left drag orbits, middle drag (or shift + left) pans, right drag and the wheel zoom;
// a left click without a drag picks a body. OSG types are forward-declared.
#pragma once

#include <QOpenGLWidget>
#include <QPoint>
#include <QString>

#include "core/math/spatial.hpp"
#include "render/camera.hpp"

namespace osg {
class Node;
}  // namespace osg
namespace osgViewer {
class Viewer;
class GraphicsWindowEmbedded;
}  // namespace osgViewer

namespace grapple::render {
class CaptureScene;
}

namespace grapple::ui {

class OsgWidget : public QOpenGLWidget {
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
  // Where the camera is now (the preset's, or wherever the user orbited it).
  render::CameraPose cameraPose() const;
  // The description of the body drawn at a widget point (empty if none); what a click shows.
  QString describeAt(const QPoint& at);

 signals:
  void picked(const QString& description);

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  // Hovering a body: its description (describeAt) as tooltip.
  bool event(QEvent* e) override;

 private:
  void applyPreset(bool reset_distance);
  int osgButton(Qt::MouseButton b, Qt::KeyboardModifiers m) const;

  osgViewer::Viewer* viewer_ = nullptr;                 // owned (ref-counted, released in dtor)
  osgViewer::GraphicsWindowEmbedded* window_ = nullptr; // owned by the viewer's camera
  render::CaptureScene* scene_ = nullptr;
  CameraPreset preset_ = CameraPreset::kWholeScene;
  core::Vector3 followed_ = core::Vector3::Zero();
  QPoint press_at_;
  bool user_moved_ = false;  // the camera was moved by hand since the last preset
  long frames_ = 0;
};

}  // namespace grapple::ui
