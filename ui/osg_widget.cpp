#include "ui/osg_widget.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <osg/Camera>
#include <osgGA/OrbitManipulator>
#include <osgUtil/LineSegmentIntersector>
#include <osgViewer/GraphicsWindow>
#include <osg/GraphicsContext>
#include <osgViewer/Viewer>

#include "render/offscreen.hpp"
#include "render/scene.hpp"

namespace grapple::ui {

namespace {
osg::Vec3d toOsg(const core::Vector3& x) { return osg::Vec3d(x.x(), x.y(), x.z()); }
}  // namespace

OsgWidget::OsgWidget(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);  // the image covers the widget: nothing to clear first
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setMinimumSize(320, 240);
  const double dpr = devicePixelRatioF();
  try {
    // Multisampling as the environment asks (GRAPPLE_MSAA=4), none by default.
    renderer_ = std::make_unique<render::OffscreenRenderer>(std::max(1, int(width() * dpr)), std::max(1, int(height() * dpr)),
                                                            qEnvironmentVariableIntValue("GRAPPLE_MSAA"));
  } catch (const std::runtime_error& e) {
    why_ = QString::fromStdString(e.what());
    return;
  }
  viewer_ = &renderer_->viewer();
  window_ = dynamic_cast<osgViewer::GraphicsWindow*>(viewer_->getCamera()->getGraphicsContext());
  auto* manipulator = new osgGA::OrbitManipulator;
  manipulator->setAllowThrow(false);
  viewer_->setCameraManipulator(manipulator, false);
}

OsgWidget::~OsgWidget() {
  if (renderer_) renderer_->setScene(nullptr);
}

void OsgWidget::setScene(render::CaptureScene* scene) {
  scene_ = scene;
  if (!renderer_) return;
  renderer_->setScene(scene ? scene->root() : nullptr);
  user_moved_ = false;
  applyPreset(true);
  redraw();
}

void OsgWidget::setCameraPreset(CameraPreset preset) {
  preset_ = preset;
  user_moved_ = false;
  applyPreset(true);
  redraw();
}

// Places the orbit manipulator for the preset. reset_distance: also the distance and direction.
void OsgWidget::applyPreset(bool reset_distance) {
  if (!renderer_) return;
  auto* m = static_cast<osgGA::OrbitManipulator*>(viewer_->getCameraManipulator());
  if (!scene_) return;
  const double aspect = double(std::max(1, width())) / std::max(1, height());
  const render::CameraPose pose = render::presetCamera(*scene_, preset_, aspect);
  if (preset_ == CameraPreset::kFollowEndEffector) followed_ = pose.center;
  if (reset_distance) m->setTransformation(toOsg(pose.eye), toOsg(pose.center), toOsg(pose.up));
}

render::CameraPose OsgWidget::cameraPose() const {
  if (!renderer_) return {};
  osg::Vec3d eye, center, up;
  viewer_->getCameraManipulator()->getInverseMatrix().getLookAt(eye, center, up);
  render::CameraPose pose;
  pose.eye = core::Vector3(eye.x(), eye.y(), eye.z());
  pose.center = core::Vector3(center.x(), center.y(), center.z());
  pose.up = core::Vector3(up.x(), up.y(), up.z());
  return pose;
}

void OsgWidget::sceneChanged() {
  if (renderer_ && scene_ && preset_ == CameraPreset::kFollowEndEffector) {
    // Keep the user's orbit and distance; move the centre with the hand.
    auto* m = static_cast<osgGA::OrbitManipulator*>(viewer_->getCameraManipulator());
    const core::Vector3 ee = scene_->endEffectorPosition();
    m->setCenter(m->getCenter() + toOsg(ee - followed_));
    followed_ = ee;
  }
  redraw();
}

void OsgWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (!renderer_) return;
  const double dpr = devicePixelRatioF();
  const int pw = std::max(1, int(width() * dpr)), ph = std::max(1, int(height() * dpr));
  try {
    renderer_->resize(pw, ph);
  } catch (const std::runtime_error& error) {
    why_ = QString::fromStdString(error.what());
    renderer_.reset();
    viewer_ = nullptr;
    window_ = nullptr;
    return;
  }
  window_->getEventQueue()->windowResize(0, 0, pw, ph);
  if (!user_moved_) applyPreset(true);  // the preset frames the scene for the new shape
  stale_ = true;
}

bool OsgWidget::draw() {
  if (!renderer_) return false;
  renderer_->renderCurrent(pixels_, true);
  const int w = renderer_->width(), h = renderer_->height();
  if (image_.width() != w || image_.height() != h) image_ = QImage(w, h, QImage::Format_RGB32);
  // OpenGL's rows run bottom-up, QImage's top-down.
  for (int y = 0; y < h; ++y) {
    std::memcpy(image_.scanLine(y), pixels_.data() + std::size_t(h - 1 - y) * w * 4, std::size_t(w) * 4);
  }
  image_.setDevicePixelRatio(devicePixelRatioF());
  ++frames_;
  return true;
}

void OsgWidget::redraw() {
  stale_ = true;
  update();
}

void OsgWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  // Drawn again only if something changed; uncovered (a menu closed over it), the last frame.
  bool drawn = renderer_ && !image_.isNull();
  if (renderer_ && (stale_ || image_.isNull())) drawn = draw();
  stale_ = false;
  if (!drawn) {
    painter.fillRect(rect(), Qt::black);
    painter.setPen(Qt::white);
    painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, tr("No 3D view: %1").arg(why_));
    return;
  }
  painter.drawImage(QPointF(0, 0), image_);
}

QImage OsgWidget::grabFramebuffer() {
  if (!draw()) return {};
  return image_.copy();
}

int OsgWidget::osgButton(Qt::MouseButton b, Qt::KeyboardModifiers mods) const {
  if (b == Qt::LeftButton) return (mods & Qt::ShiftModifier) ? 2 : 1;
  if (b == Qt::MiddleButton) return 2;
  if (b == Qt::RightButton) return 3;
  return 0;
}

void OsgWidget::mousePressEvent(QMouseEvent* e) {
  if (!renderer_) return;
  const double dpr = devicePixelRatioF();
  press_at_ = e->position().toPoint();
  user_moved_ = true;
  window_->getEventQueue()->mouseButtonPress(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                             osgButton(e->button(), e->modifiers()));
  redraw();
}

void OsgWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (!renderer_) return;
  const double dpr = devicePixelRatioF();
  window_->getEventQueue()->mouseButtonRelease(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                               osgButton(e->button(), e->modifiers()));
  if (e->button() == Qt::LeftButton && (e->position().toPoint() - press_at_).manhattanLength() < 4) {
    emit picked(describeAt(e->position().toPoint()));
  }
  redraw();
}

void OsgWidget::mouseMoveEvent(QMouseEvent* e) {
  if (!renderer_) return;
  const double dpr = devicePixelRatioF();
  window_->getEventQueue()->mouseMotion(float(e->position().x() * dpr), float(e->position().y() * dpr));
  redraw();
}

void OsgWidget::wheelEvent(QWheelEvent* e) {
  if (!renderer_) return;
  user_moved_ = true;
  window_->getEventQueue()->mouseScroll(e->angleDelta().y() > 0 ? osgGA::GUIEventAdapter::SCROLL_UP
                                                                : osgGA::GUIEventAdapter::SCROLL_DOWN);
  redraw();
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
  return QWidget::event(e);
}

QString OsgWidget::describeAt(const QPoint& at) {
  if (!scene_ || !renderer_) return {};
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
