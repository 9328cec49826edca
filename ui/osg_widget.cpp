#include "ui/osg_widget.hpp"

#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <osg/Camera>
#include <osgGA/OrbitManipulator>
#include <osgUtil/LineSegmentIntersector>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include "render/scene.hpp"

namespace grapple::ui {

namespace {
osg::Vec3d toOsg(const core::Vector3& x) { return osg::Vec3d(x.x(), x.y(), x.z()); }
}  // namespace

OsgWidget::OsgWidget(QWidget* parent) : QOpenGLWidget(parent) {
  const double dpr = devicePixelRatioF();
  window_ = new osgViewer::GraphicsWindowEmbedded(0, 0, int(width() * dpr), int(height() * dpr));
  viewer_ = new osgViewer::Viewer;
  viewer_->ref();
  viewer_->setThreadingModel(osgViewer::Viewer::SingleThreaded);
  osg::Camera* camera = viewer_->getCamera();
  camera->setGraphicsContext(window_);
  camera->setViewport(0, 0, int(width() * dpr), int(height() * dpr));
  camera->setClearColor(osg::Vec4(render::ScenePalette::kBackground[0], render::ScenePalette::kBackground[1],
                                  render::ScenePalette::kBackground[2], 1));
  camera->setProjectionMatrixAsPerspective(render::kFieldOfViewDeg, double(std::max(1, width())) / std::max(1, height()), 0.1, 2000.0);
  camera->setComputeNearFarMode(osg::CullSettings::COMPUTE_NEAR_FAR_USING_BOUNDING_VOLUMES);
  // The star sphere (hundreds of metres) sets the far plane; OSG's default near/far ratio (5e-4)
  // then puts the near plane at ~0.2 m and clips a small robot (a gripper) seen close up.
  camera->setNearFarRatio(1e-5);
  auto* manipulator = new osgGA::OrbitManipulator;
  manipulator->setAllowThrow(false);
  viewer_->setCameraManipulator(manipulator, false);
  viewer_->setLightingMode(osg::View::HEADLIGHT);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setMinimumSize(320, 240);
}

OsgWidget::~OsgWidget() {
  makeCurrent();
  viewer_->setSceneData(nullptr);
  viewer_->unref();
  viewer_ = nullptr;
  doneCurrent();
}

void OsgWidget::setScene(render::CaptureScene* scene) {
  scene_ = scene;
  viewer_->setSceneData(scene ? scene->root() : nullptr);
  user_moved_ = false;
  applyPreset(true);
  update();
}

void OsgWidget::setCameraPreset(CameraPreset preset) {
  preset_ = preset;
  user_moved_ = false;
  applyPreset(true);
  update();
}

// Places the orbit manipulator for the preset. reset_distance: also the distance and direction.
void OsgWidget::applyPreset(bool reset_distance) {
  auto* m = static_cast<osgGA::OrbitManipulator*>(viewer_->getCameraManipulator());
  if (!scene_) return;
  const double aspect = double(std::max(1, width())) / std::max(1, height());
  const render::CameraPose pose = render::presetCamera(*scene_, preset_, aspect);
  if (preset_ == CameraPreset::kFollowEndEffector) followed_ = pose.center;
  if (reset_distance) m->setTransformation(toOsg(pose.eye), toOsg(pose.center), toOsg(pose.up));
}

render::CameraPose OsgWidget::cameraPose() const {
  osg::Vec3d eye, center, up;
  viewer_->getCameraManipulator()->getInverseMatrix().getLookAt(eye, center, up);
  render::CameraPose pose;
  pose.eye = core::Vector3(eye.x(), eye.y(), eye.z());
  pose.center = core::Vector3(center.x(), center.y(), center.z());
  pose.up = core::Vector3(up.x(), up.y(), up.z());
  return pose;
}

void OsgWidget::sceneChanged() {
  if (scene_ && preset_ == CameraPreset::kFollowEndEffector) {
    // Keep the user's orbit and distance; move the centre with the hand.
    auto* m = static_cast<osgGA::OrbitManipulator*>(viewer_->getCameraManipulator());
    const core::Vector3 ee = scene_->endEffectorPosition();
    m->setCenter(m->getCenter() + toOsg(ee - followed_));
    followed_ = ee;
  }
  update();
}

void OsgWidget::initializeGL() { viewer_->realize(); }

void OsgWidget::resizeGL(int w, int h) {
  const double dpr = devicePixelRatioF();
  const int pw = int(w * dpr), ph = int(h * dpr);
  window_->getEventQueue()->windowResize(0, 0, pw, ph);
  window_->resized(0, 0, pw, ph);
  osg::Camera* camera = viewer_->getCamera();
  camera->setViewport(0, 0, pw, ph);
  camera->setProjectionMatrixAsPerspective(render::kFieldOfViewDeg, double(std::max(1, pw)) / std::max(1, ph), 0.1, 2000.0);
  if (!user_moved_) applyPreset(true);  // the preset frames the scene for the new shape
}

void OsgWidget::paintGL() {
  window_->setDefaultFboId(defaultFramebufferObject());  // QOpenGLWidget draws into its own FBO
  viewer_->frame();
  ++frames_;
}

int OsgWidget::osgButton(Qt::MouseButton b, Qt::KeyboardModifiers mods) const {
  if (b == Qt::LeftButton) return (mods & Qt::ShiftModifier) ? 2 : 1;
  if (b == Qt::MiddleButton) return 2;
  if (b == Qt::RightButton) return 3;
  return 0;
}

void OsgWidget::mousePressEvent(QMouseEvent* e) {
  const double dpr = devicePixelRatioF();
  press_at_ = e->position().toPoint();
  user_moved_ = true;
  window_->getEventQueue()->mouseButtonPress(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                             osgButton(e->button(), e->modifiers()));
  update();
}

void OsgWidget::mouseReleaseEvent(QMouseEvent* e) {
  const double dpr = devicePixelRatioF();
  window_->getEventQueue()->mouseButtonRelease(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                               osgButton(e->button(), e->modifiers()));
  if (e->button() == Qt::LeftButton && (e->position().toPoint() - press_at_).manhattanLength() < 4) {
    emit picked(describeAt(e->position().toPoint()));
  }
  update();
}

void OsgWidget::mouseMoveEvent(QMouseEvent* e) {
  const double dpr = devicePixelRatioF();
  window_->getEventQueue()->mouseMotion(float(e->position().x() * dpr), float(e->position().y() * dpr));
  update();
}

void OsgWidget::wheelEvent(QWheelEvent* e) {
  user_moved_ = true;
  window_->getEventQueue()->mouseScroll(e->angleDelta().y() > 0 ? osgGA::GUIEventAdapter::SCROLL_UP
                                                                : osgGA::GUIEventAdapter::SCROLL_DOWN);
  update();
}

bool OsgWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = describeAt(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QOpenGLWidget::event(e);
}

QString OsgWidget::describeAt(const QPoint& at) {
  if (!scene_) return {};
  const double dpr = devicePixelRatioF();
  // Window coordinates, y up.
  const double x = at.x() * dpr, y = (height() - at.y()) * dpr;
  osg::ref_ptr<osgUtil::LineSegmentIntersector> hit =
      new osgUtil::LineSegmentIntersector(osgUtil::Intersector::WINDOW, x, y);
  osgUtil::IntersectionVisitor visitor(hit.get());
  viewer_->getCamera()->accept(visitor);
  QString text;
  if (hit->containsIntersections()) {
    for (const auto& i : hit->getIntersections()) {
      const std::string d = scene_->describePick(std::vector<osg::Node*>(i.nodePath.begin(), i.nodePath.end()));
      if (!d.empty()) {
        text = QString::fromStdString(d);
        break;
      }
    }
  }
  return text;
}

}  // namespace grapple::ui
