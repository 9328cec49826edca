// ManipulabilityPanel: Yoshikawa's manipulability of the arm (thesis §8.1.2;
// core/analysis/manipulability) as a colour map (QCPColorMap), either over a grid of two joints
// (the others at the configuration shown, modes at zero) or over the arm's plane of the workspace
// (the plane the two joints move the hand in; unreachable points blank), with the current
// configuration marked and the run's paths drawn on top: in joint space the joints' recorded path
// and their references, in the plane the hand's path and the planned one (projected on the plane
// as it is at the instant shown). The map is computed on a background thread and recomputed when
// the other joints have moved; the marker follows the timeline. QCustomPlot is forward-declared:
// its header is heavy.
#pragma once

#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <QWidget>

#include "core/analysis/manipulability.hpp"
#include "core/analysis/robust.hpp"
#include "ui/plot_panel.hpp"

class QCustomPlot;
class QCPColorMap;
class QCPGraph;
class QCPCurve;
class QCPItemRect;
class QLabel;
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
  // The run's paths up to the instant shown (drawn over the map; see the header comment).
  void setPaths(const RunHistory& history, int row, const std::vector<core::Vector3>& hand_actual,
                const std::vector<core::Vector3>& hand_planned);

  // A μ-certified joint box (core::CertifiedBox::box; empty: none), from the Tuning panel: drawn
  // over the joint-space map as a rectangle for the two joints shown (when both are in it), over
  // the arm plane as the hand's positions along the rectangle's edges (the other joints as
  // shown), and
  // the run's points where any of its joints is outside its range marked red, in either space
  // (the next setPaths). leavesBoxAt(): the first recorded instant outside it (NaN: none, or no box).
  void setCertifiedBox(const std::vector<core::JointRange>& box);
  bool hasCertifiedBox() const { return !box_.empty(); }
  double leavesBoxAt() const { return leaves_at_; }
  int pointsOutsideBox() const;
  std::vector<Eigen::Vector2d> boxOutline() const;  // the box's outline drawn in the arm plane
  QString boxNote() const;

  enum class Space { kJoints, kArmPlane };
  void setSpace(Space space);
  Space space() const;
  // The plane of the map shown (plane maps), in the inertial frame at the instant shown.
  const core::ArmPlane& plane() const { return plane_now_; }
  int pathPoints(bool planned) const;  // points of the drawn paths
  // Waits for the map in progress (starting it if the configuration moved, even hidden) and shows
  // it; for tests and exports.
  void finishPending();
  const core::ManipulabilityMap* map() const { return shown_ ? &shown_map_ : nullptr; }
  Eigen::Vector2d marker() const { return marker_xy_; }
  int jointA() const;  // velocity indices of the two joints of the map
  int jointB() const;
  core::ManipulabilityOptions options() const;
  static constexpr int kGrid = 80;

  // The panel is shown again (its dock's tab chosen): the map it skipped while off screen.
  void resume();

 signals:
  // The space shown changed: the paths (setPaths) must be given again in it.
  void spaceChanged();

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void fillJointChoices();
  void startMap();
  void poll();
  void showMap(core::ManipulabilityMap map);
  void updatePlaneNow();
  Eigen::Vector2d toPlane(const core::Vector3& x) const;
  void drawBox();

  QCustomPlot* plot_ = nullptr;
  QCPColorMap* color_ = nullptr;
  QCPGraph* marker_ = nullptr;
  QCPCurve *actual_ = nullptr, *planned_ = nullptr;
  QComboBox *joint_a_ = nullptr, *joint_b_ = nullptr, *jacobian_ = nullptr, *space_ = nullptr;
  QTimer* poll_ = nullptr;
  std::chrono::steady_clock::time_point last_start_{};  // maps start at most once a second
  std::shared_ptr<const core::Model> model_;
  int ee_frame_ = -1;
  std::vector<int> joint_v_, joint_q_;     // the 1-DOF joints: v and q indices
  Eigen::VectorXd q_;                      // the configuration shown
  Eigen::VectorXd map_q_;                  // the one the map (shown or pending) was made at
  std::future<core::ManipulabilityMap> pending_;
  core::ManipulabilityMap shown_map_;
  bool shown_ = false, dirty_ = false;
  Eigen::Vector2d marker_xy_ = Eigen::Vector2d::Zero();
  // Plane maps: the plane at the map's configuration in the frame of joint a's parent body (so it
  // moves with the arm's shoulder), and in the inertial frame at the instant shown.
  core::CarriedArmPlane carried_;
  core::ArmPlane plane_now_;
  core::Vector3 hand_now_ = core::Vector3::Zero();
  std::vector<core::JointRange> box_;
  QCPItemRect* box_rect_ = nullptr;
  QCPCurve* box_curve_ = nullptr;  // the box's image in the arm plane
  QCPGraph* outside_ = nullptr;
  QLabel* box_note_ = nullptr;
  double leaves_at_ = NAN;
};

}  // namespace grapple::ui
