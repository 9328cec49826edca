// Whether a panel is on screen. A dock tabbed behind another stays "visible" to Qt (isVisible()
// is true) with nothing of it showing: what it would compute or draw then is wasted, and each of
// its redraws composes the whole window once more (software OpenGL: 15-20 ms at 1280x800).
// Panels that skip the work while off screen catch up when their dock's visibilityChanged says
// they are shown.
#pragma once

#include <QRegion>
#include <QWidget>

namespace grapple::ui {

inline bool onScreen(const QWidget* w) { return w->isVisible() && !w->visibleRegion().isEmpty(); }

}  // namespace grapple::ui
