#pragma once
// The timeline's context menu: collapse or pin the track under the pointer, collapse or expand
// all, zoom back / forward / to the range band, fit, flows on or off. Works the view through its
// public API only.

#include <QPoint>

namespace ps::ui {

class TimelineView;
struct Track;

// Shows the menu at `globalPos`; `track` is the track whose label was clicked, or null.
void execTimelineMenu(TimelineView& view, const Track* track, QPoint globalPos);

}  // namespace ps::ui
