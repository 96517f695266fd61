#pragma once
// What the timeline draws over its geometry on every paint, as primitives built from the scene:
// the idle parts tinted by cause (under the boxes), the selection (its micro-batch outlined on
// every rank, arrows from the ops it depends on and to those that wait for it), send → receive
// flows, the critical path (its ops outlined, joined by a line), each op's slack (a thin band
// after it: how much longer it could take before its step ends later) and the range band. Cheap:
// only what is in view. No widget.

#include <QPointF>
#include <QRect>

#include <optional>
#include <vector>

#include "ui/timeline/OpDependencies.h"
#include "ui/timeline/TimelineScene.h"

namespace ps::ui {

struct SceneArrow {
  QPointF from, to;
};

struct SceneCause {
  QRect rect;
  trace::IdleCause cause;
};

struct SceneBand {
  QRect rect;           // the band's full height
  std::int64_t length;  // ns
};

// What is on besides the ops.
struct OverlayState {
  TimelineOp selection;
  const OpDependencies* dependencies = nullptr;  // of the selection
  bool flows = false, causes = false, path = false, slack = false;
  std::optional<std::pair<int, int>> dragX;  // a band being dragged, from and to x
  TimeRange band{0, 0};                      // none when empty
};

struct SceneOverlays {
  std::vector<SceneCause> causes;
  std::vector<QRect> microbatch;  // the selected compute op's micro-batch, on every rank
  QRect selected;                 // empty when off screen
  std::vector<SceneArrow> dependencies, dependents;
  std::vector<SceneArrow> flows;
  std::vector<std::vector<QPointF>> pathLines;  // the critical path's pieces in view
  std::vector<QRect> pathOps;
  std::vector<QRect> slackBands;  // after each op in view, as long as its slack
  struct MoveBar {
    QRect rect;
    double share;  // Δstart over the largest |Δstart| of the run: -1 (earlier) .. 1 (later)
  };
  std::vector<MoveBar> moveBars;  // compare: a bar along the top of each moved op in view
  std::optional<SceneBand> band;
};

// The overlays of `data` over `scene` (built for it).
SceneOverlays buildOverlays(const TimelineScene& scene, TimelineData& data,
                            const OverlayState& state);

}  // namespace ps::ui
