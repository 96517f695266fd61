#pragma once
// File → Export timeline: the timeline as PNG or SVG (by the file's suffix) with a title (the
// run, its schedule, step time and bubble) above it and the kind legend and the idle-cause key
// below it, so that an exported picture explains itself on a slide or in a paper. The figure is
// drawn clean, not copied from the screen: the light palette whatever the app's, the view's time
// range, scroll and overlays (idle causes, critical path, transfers) but no selection, hover,
// range band, focus frame, pins, collapsed tracks nor the gutter's collapse and pin marks.

#include <QString>

#include "trace/Result.h"

namespace ps::ui {

struct LoadedRun;
class TimelineView;

// The title line of an exported timeline, e.g. "run 3 · 1f1b p=4 m=8 · sim · step 3.300 ms ·
// bubble 27.27 %".
QString exportTitle(const LoadedRun& run);

// Writes `run` as `view` shows it, framed by the title and the legends, to `path`; an error
// names the file.
[[nodiscard]] Status exportTimelineFile(TimelineView& view, const LoadedRun& run,
                                        const QString& path);

}  // namespace ps::ui
