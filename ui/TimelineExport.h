#pragma once
// File → Export timeline: the timeline as PNG or SVG (by the file's suffix) with a title (the
// run, its schedule, step time and bubble) above it and the kind legend below it, so that an
// exported picture explains itself on a slide or in a paper.

#include <QString>

#include "trace/Result.h"

namespace ps::ui {

struct LoadedRun;
class TimelineView;

// The title line of an exported timeline, e.g. "run 3 · 1f1b p=4 m=8 · sim · step 3.300 ms ·
// bubble 27.27 %".
QString exportTitle(const LoadedRun& run);

// Writes `view` (as it is on screen) framed by the title and the legend to `path`; an error
// names the file.
[[nodiscard]] Status exportTimelineFile(TimelineView& view, const LoadedRun& run,
                                        const QString& path);

}  // namespace ps::ui
