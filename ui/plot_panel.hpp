// PlotPanel: one live plot (QCustomPlot) of recorded channels against time, with a channel chooser,
// zoom and pan (wheel, drag), a "follow" mode that keeps the whole run in view while it grows, and
// the timeline's cursor. One physical unit per value axis (the first unit on the left, the second
// on the right, more as further axes); the legend under the plot, never over the data (a click on
// an entry hides or shows its curve); the values at the mouse's instant as tooltip; the run's
// events as vertical lines in their kind's colour and the intervals where an actuator is at its
// limit shaded; an error with a 3σ bound inside its shaded band. QCustomPlot is forward-declared:
// its header is heavy.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/sim/recorder.hpp"
#include "ui/timeline.hpp"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPAbstractItem;
class QCPAxis;
class QToolButton;
class QMenu;

namespace grapple::ui {

// Every channel recorded so far, column by column (column 0 is time), as the GUI holds it.
struct RunHistory {
  std::vector<core::ChannelInfo> channels;
  std::vector<std::vector<double>> columns;
  int rows() const { return columns.empty() ? 0 : static_cast<int>(columns[0].size()); }
  int find(std::string_view name) const;
};

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  // defaults(name): whether a channel is shown when a scenario is opened (unless the user chose
  // otherwise for this panel before: the choice is remembered in QSettings under the title).
  PlotPanel(const QString& title, std::function<bool(const std::string&)> defaults, QWidget* parent = nullptr);
  ~PlotPanel() override;

  const QString& title() const { return title_; }
  // A new run: drops the graphs and shows the chosen channels of `history` (held, not owned).
  void reset(const RunHistory* history);
  // Rows [from, history.rows()) were appended.
  void appendRows(int from);
  void setCursorTime(double t);
  // Redraws if something changed and the panel is visible: on the next pass of the event loop
  // (several changes, one redraw), or `now` (the main window's tick: the plot is then repainted
  // with the 3D view's frame, in the same composition of the window, not in one of its own).
  void refresh(bool now = false);

  // The previous run (held, not owned; nullptr: none), drawn light and dashed behind the live
  // graphs for the channels shown, under one legend entry "previous run". In PNG/PDF exports,
  // never in the CSV (the current run's).
  void setGhost(const RunHistory* ghost);
  const RunHistory* ghost() const { return ghost_; }
  void setGhostVisible(bool visible);
  bool ghostVisible() const { return ghost_visible_; }
  // The ghost graph of a channel (nullptr if none is drawn).
  QCPGraph* ghostGraph(const std::string& channel) const;

  // An error channel with a 3σ bound (core::channel::kErrorBounds) is drawn with its bound as a
  // shaded band in its colour: ±3σ around zero for a component, [0, 3σ] for a magnitude. The
  // band's upper and lower graphs of a shown channel ({nullptr, nullptr} if it has none); the
  // option (also in the context menu) hides every band.
  std::pair<QCPGraph*, QCPGraph*> band(const std::string& channel) const;
  void setBandsVisible(bool visible);
  bool bandsVisible() const { return bands_visible_; }

  // The run's events (vertical lines) and the intervals [from, to] [s] where some actuator is at
  // its limit (shaded), replacing the previous ones.
  void setEvents(const std::vector<TimelineMarker>& events, const std::vector<std::pair<double, double>>& saturated);
  int eventLineCount() const { return event_lines_; }
  int shadedCount() const { return shaded_; }
  // The hover text at time t: the instant and each visible curve's value there, with its unit.
  QString valuesAt(double t) const;
  // The value axis a channel is drawn against (nullptr if not shown); each shows one unit.
  QCPAxis* axisOf(const std::string& channel) const;
  // Hides or shows a channel's curve (as a click on its legend entry).
  void setCurveVisible(const std::string& channel, bool visible);

  std::vector<std::string> shownChannels() const;
  void showChannels(const std::vector<std::string>& names);
  int pointCount() const;  // data points held by the live graphs (the ghost's not counted)

  // Exports (also in the plot's context menu): the plot as PNG (width x height pixels) or PDF
  // (vector, width x height points), or the shown channels as CSV (time first, `name [unit]`
  // header, every recorded row, full precision). Return false with the reason if it cannot write.
  bool exportPng(const QString& path, int width, int height, QString* error = nullptr);
  bool exportPdf(const QString& path, int width, int height, QString* error = nullptr);
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  QCustomPlot* plot() const { return plot_; }

 signals:
  // The context menu's "previous run" items (the window applies them to every panel).
  void ghostVisibilityRequested(bool visible);
  void ghostClearRequested();

 private:
  void rebuildGraphs();
  void rebuildMenu();
  void saveChoice() const;
  void setFollow(bool follow);
  void contextMenu(const QPoint& at);
  void layoutLegend();
  void resizeEvent(QResizeEvent* e) override;

  QString title_;
  std::function<bool(const std::string&)> defaults_;
  const RunHistory* history_ = nullptr;
  const RunHistory* ghost_ = nullptr;
  bool ghost_visible_ = true;
  std::vector<int> shown_;  // channel indices
  std::vector<QCPGraph*> live_;                                 // one per shown channel
  std::vector<std::pair<std::string, QCPGraph*>> ghost_graphs_;  // (channel, graph)
  struct Band {
    std::size_t shown;      // index in shown_
    int sigma3;             // the bound's column
    bool magnitude;         // [0, 3σ], else [-3σ, 3σ]
    QCPGraph *upper, *lower;
  };
  std::vector<Band> bands_;
  bool bands_visible_ = true;
  void addBandRows(const Band& b, int from, int to);
  QCustomPlot* plot_ = nullptr;
  QCPItemStraightLine* cursor_ = nullptr;
  std::vector<QCPAxis*> value_axes_;      // one per unit shown, in the order of units_
  QStringList units_;
  std::vector<QCPAbstractItem*> marks_;
  std::set<std::string> hidden_;          // channels whose curve the user hid (legend)   // event lines and shaded intervals
  int event_lines_ = 0, shaded_ = 0;
  QToolButton* chooser_ = nullptr;
  QToolButton* follow_button_ = nullptr;
  QMenu* menu_ = nullptr;
  bool follow_ = true, dirty_ = false;
  double cursor_t_ = 0;
};

// The built-in panels: title and which channels they show by default.
struct PlotPreset {
  QString title;
  std::function<bool(const std::string&)> defaults;
};
std::vector<PlotPreset> plotPresets();

}  // namespace grapple::ui
