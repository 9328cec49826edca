#include "ui/video_export.hpp"

#include <atomic>
#include <thread>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>

namespace grapple::ui {

VideoExportDialog::VideoExportDialog(const QString& suggested_path, double run_end, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export video"));
  setObjectName("videoExportDialog");
  auto* form = new QFormLayout(this);
  auto* file_row = new QHBoxLayout;
  path_ = new QLineEdit(suggested_path);
  auto* browse = new QPushButton(tr("Browse..."));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, tr("Export video"), path_->text(), tr("MP4 video (*.mp4)"));
    if (!p.isEmpty()) path_->setText(p);
  });
  file_row->addWidget(path_);
  file_row->addWidget(browse);
  form->addRow(tr("File"), file_row);
  auto* size_row = new QHBoxLayout;
  width_ = new QSpinBox;
  height_ = new QSpinBox;
  for (QSpinBox* s : {width_, height_}) {
    s->setRange(16, 7680);
    s->setSingleStep(2);
    s->setSuffix(" px");
    size_row->addWidget(s);
  }
  height_->setMaximum(4320);
  width_->setValue(1280);
  height_->setValue(720);
  form->addRow(tr("Size (even)"), size_row);
  fps_ = new QDoubleSpinBox;
  fps_->setRange(1, 240);
  fps_->setValue(30);
  fps_->setSuffix(" fps");
  form->addRow(tr("Frame rate"), fps_);
  speed_ = new QDoubleSpinBox;
  speed_->setRange(0.01, 1000);
  speed_->setDecimals(2);
  speed_->setValue(1);
  speed_->setSuffix(tr(" s simulated per s"));
  form->addRow(tr("Speed"), speed_);
  start_ = new QDoubleSpinBox;
  end_ = new QDoubleSpinBox;
  for (QDoubleSpinBox* s : {start_, end_}) {
    s->setRange(0, std::max(0.0, run_end));
    s->setDecimals(2);
    s->setSuffix(" s");
  }
  end_->setValue(run_end);
  form->addRow(tr("From"), start_);
  form->addRow(tr("To"), end_);
  camera_ = new QComboBox;
  camera_->addItem(tr("As in the view"), -1);
  camera_->addItem(tr("Whole scene"), int(render::CameraPreset::kWholeScene));
  camera_->addItem(tr("Follow the end effector"), int(render::CameraPreset::kFollowEndEffector));
  camera_->addItem(tr("From the base"), int(render::CameraPreset::kFromBase));
  camera_->addItem(tr("From the debris"), int(render::CameraPreset::kFromDebris));
  form->addRow(tr("Camera"), camera_);
  crf_ = new QSpinBox;
  crf_->setRange(0, 51);
  crf_->setValue(20);
  crf_->setToolTip(tr("x264 constant rate factor: 0 lossless, 18-23 visually good, 51 worst"));
  form->addRow(tr("Quality (crf)"), crf_);
  time_label_ = new QCheckBox(tr("Simulated time in the corner"));
  time_label_->setChecked(true);
  form->addRow(QString(), time_label_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

QString VideoExportDialog::path() const { return path_->text(); }

bool VideoExportDialog::useViewCamera() const { return camera_->currentData().toInt() < 0; }

render::VideoOptions VideoExportDialog::options() const {
  render::VideoOptions o;
  o.width = width_->value();
  o.height = height_->value();
  o.fps = fps_->value();
  o.speed = speed_->value();
  o.start = start_->value();
  o.end = end_->value();
  o.crf = crf_->value();
  o.time_label = time_label_->isChecked();
  if (!useViewCamera()) o.camera = static_cast<render::CameraPreset>(camera_->currentData().toInt());
  return o;
}

ExportJob runVideoExport(QWidget* parent, const core::Model& model, const core::Scenario& scenario,
                         const render::Recording& recording, const render::VideoOptions& options, const QString& path,
                         bool quiet) {
  std::atomic<int> done{0}, total{videoFrameCount(options, recording.rows() ? recording.times().back() : 0.0)};
  std::atomic<bool> cancel{false}, finished{false};
  ExportJob job;
  const std::string file = path.toStdString();
  // The worker reads only what it was given (the caller's copies outlive it: we join below).
  std::thread worker([&] {
    try {
      job.result = render::exportVideo(model, scenario, recording, options, file, [&](int d, int n) {
        done = d;
        total = n;
        return !cancel.load();
      });
    } catch (const std::exception& e) {
      job.error = QString::fromStdString(e.what());
    }
    finished = true;
  });
  QProgressDialog progress(QObject::tr("Rendering %1...").arg(path), QObject::tr("Cancel"), 0, total, parent);
  progress.setObjectName("videoProgress");
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(quiet ? 1000000000 : 300);
  while (!finished) {
    progress.setMaximum(total);
    progress.setValue(done);
    if (progress.wasCanceled()) cancel = true;
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(10);
  }
  worker.join();
  progress.setValue(progress.maximum());
  return job;
}

QString runScreenshot(const core::Model& model, const core::Scenario& scenario, const render::Recording& recording,
                      int row, const render::VideoOptions& options, const QString& path) {
  QString error;
  std::thread worker([&] {
    try {
      render::exportScreenshot(model, scenario, recording, row, options, path.toStdString());
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
  });
  worker.join();
  return error;
}

}  // namespace grapple::ui
