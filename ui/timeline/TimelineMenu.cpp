#include "ui/timeline/TimelineMenu.h"

#include <QMenu>

#include "ui/timeline/TimelineView.h"

namespace ps::ui {

void execTimelineMenu(TimelineView& view, const Track* track, QPoint globalPos) {
  QMenu menu(&view);
  TimelineView* v = &view;
  if (track) {
    const int rank = track->rank;
    const bool collapsed = track->collapsed, pinned = track->pinned;
    menu.addAction(
        collapsed ? QString("Expand rank %1").arg(rank) : QString("Collapse rank %1").arg(rank), v,
        [v, rank, collapsed] { v->setTrackCollapsed(rank, !collapsed); });
    menu.addAction(
        pinned ? QString("Unpin rank %1").arg(rank) : QString("Pin rank %1 to the top").arg(rank),
        v, [v, rank, pinned] { v->setTrackPinned(rank, !pinned); });
    menu.addSeparator();
  }
  menu.addAction("Collapse all ranks", v, [v] { v->setAllTracksCollapsed(true); });
  menu.addAction("Expand all ranks", v, [v] { v->setAllTracksCollapsed(false); });
  menu.addSeparator();
  menu.addAction("Zoom back", v, &TimelineView::zoomBack)->setEnabled(v->canZoomBack());
  menu.addAction("Zoom forward", v, &TimelineView::zoomForward)->setEnabled(v->canZoomForward());
  menu.addAction("Zoom to range", v, &TimelineView::zoomToBand)->setEnabled(v->hasRangeBand());
  menu.addAction("Fit", v, &TimelineView::fit);
  QAction* flows = menu.addAction("Show send → receive flows");
  flows->setCheckable(true);
  flows->setChecked(v->flowsVisible());
  QObject::connect(flows, &QAction::toggled, v, &TimelineView::setFlowsVisible);
  menu.exec(globalPos);
}

}  // namespace ps::ui
