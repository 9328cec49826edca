// Video and picture export from the application: a dialog for the video's settings, and the
// export itself on a worker thread (render::exportVideo draws through its own EGL context, which
// a thread must hold alone — the GUI thread keeps the view's) with a progress dialog and cancel.
#pragma once

#include <QDialog>
#include <QString>

#include "render/video.hpp"

class QLineEdit;
class QSpinBox;
class QDoubleSpinBox;
class QComboBox;
class QCheckBox;

namespace grapple::ui {

// The settings of a video export. The camera choice "the view's camera" leaves
// options().fixed_camera to the caller (it knows the view).
class VideoExportDialog : public QDialog {
  Q_OBJECT
 public:
  VideoExportDialog(const QString& suggested_path, double run_end, QWidget* parent = nullptr);
  QString path() const;
  render::VideoOptions options() const;
  bool useViewCamera() const;  // "As in the view" was chosen

 private:
  QLineEdit* path_ = nullptr;
  QSpinBox *width_ = nullptr, *height_ = nullptr, *crf_ = nullptr;
  QDoubleSpinBox *fps_ = nullptr, *speed_ = nullptr, *start_ = nullptr, *end_ = nullptr;
  QComboBox* camera_ = nullptr;
  QCheckBox* time_label_ = nullptr;
};

// render::exportVideo on a worker thread while the GUI keeps serving events, with a progress
// dialog (unless quiet) whose Cancel stops it (no file is left). The error's text if it failed.
struct ExportJob {
  render::VideoResult result;
  QString error;  // empty on success or cancel
};
ExportJob runVideoExport(QWidget* parent, const core::Model& model, const core::Scenario& scenario,
                         const render::Recording& recording, const render::VideoOptions& options, const QString& path,
                         bool quiet);
// The picture of the recorded instant `row` (on a worker thread as well); empty string on success.
QString runScreenshot(const core::Model& model, const core::Scenario& scenario, const render::Recording& recording,
                      int row, const render::VideoOptions& options, const QString& path);

}  // namespace grapple::ui
