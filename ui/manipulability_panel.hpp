// ManipulabilityPanel: Yoshikawa's manipulability of the arm over a grid of two joints (the others
// at the configuration shown, modes at zero), as a colour map (QCPColorMap) with the current
// configuration marked (thesis §8.1.2; core/analysis/manipulability). The map is computed on a
// background thread and recomputed when the other joints have moved; the marker follows the
// timeline. QCustomPlot is forward-declared: its header is heavy.
#pragma once

#include <future>
#include <memory>

#include <Eigen/Core>
#include <QWidget>

#include "core/analysis/manipulability.hpp"

class QCustomPlot;
class QCPColorMap;
class QCPGraph;
class QComboBox;
class QTimer;

namespace grapple::ui {

class ManipulabilityPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ManipulabilityPanel(QWidget* parent = nullptr);
  ~ManipulabilityPanel() override;

  // A new model (a copy is kept, the map is computed from it in the background); ee_frame: the
  // hand. Chooses the thesis' joints (the second and third 1-DOF joints) and, for a floating
  // base, the generalized Jacobian.
  void setModel(const core::Model& model, int ee_frame);
  // The configuration shown: moves the marker; recomputes the map when the other joints moved.
  void setConfiguration(const Eigen::VectorXd& q);

  // For tests: waits for the map in progress (if any) and shows it.
  void finishPending();
  const core::ManipulabilityMap* map() const { return shown_ ? &shown_map_ : nullptr; }
  Eigen::Vector2d marker() const { return marker_xy_; }
  int jointA() const;  // velocity indices of the two joints of the map
  int jointB() const;
  core::ManipulabilityOptions options() const;
  static constexpr int kGrid = 80;

 private:
  void fillJointChoices();
  void startMap();
  void poll();
  void showMap(core::ManipulabilityMap map);

  QCustomPlot* plot_ = nullptr;
  QCPColorMap* color_ = nullptr;
  QCPGraph* marker_ = nullptr;
  QComboBox *joint_a_ = nullptr, *joint_b_ = nullptr, *jacobian_ = nullptr;
  QTimer* poll_ = nullptr;
  std::shared_ptr<const core::Model> model_;
  int ee_frame_ = -1;
  std::vector<int> joint_v_, joint_q_;     // the 1-DOF joints: v and q indices
  Eigen::VectorXd q_;                      // the configuration shown
  Eigen::VectorXd map_q_;                  // the one the map (shown or pending) was made at
  std::future<core::ManipulabilityMap> pending_;
  core::ManipulabilityMap shown_map_;
  bool shown_ = false, dirty_ = false;
  Eigen::Vector2d marker_xy_ = Eigen::Vector2d::Zero();
};

}  // namespace grapple::ui
