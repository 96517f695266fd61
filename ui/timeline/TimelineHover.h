#pragma once
// What the timeline's tooltip says at a point of a built scene: a rank label's track (host,
// device, what its marks do), the range band's length on the axis, the op or fold of ops under
// the pointer, or the idle gap there with what it waited for when the run is explained.

#include <QPoint>
#include <QString>

#include "ui/timeline/TimelineScene.h"

namespace ps::ui {

// Empty for nothing to say. `band` is the range band (none when empty).
QString hoverText(const TimelineScene& scene, const TimelineData& data, QPoint pos, TimeRange band);

}  // namespace ps::ui
