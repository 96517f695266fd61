#include "ui/timeline/TimelineHover.h"

#include "trace/Units.h"
#include "ui/timeline/RankGutter.h"
#include "ui/timeline/TimelineTooltips.h"

namespace ps::ui {

using trace::Lane;

QString hoverText(const TimelineScene& scene, const TimelineData& data, QPoint pos,
                  TimeRange band) {
  const trace::RunTrace* run = data.run();
  if (!run) return {};
  if (pos.x() < TimelineScene::kGutter) {
    const Track* t = scene.trackAt(pos.y());
    return t ? RankGutter::tooltip(*run, *t) : QString();
  }
  if (pos.y() < TimelineScene::kAxis) {
    if (band.end <= band.start) return {};
    return QString("Δ %1 selected: double-click or Enter zooms to it, Esc clears it")
        .arg(QString::fromStdString(trace::formatDuration(band.length())));
  }
  if (const SceneBox* b = scene.boxAt(pos)) {
    if (b->count > 1) return foldTooltip(*b->cols, b->first, b->count);
    if (b->lane == Lane::Send || b->lane == Lane::Recv || b->lane == Lane::Collective)
      return commTooltip(*run, b->rank, b->lane, b->op);
    QString text = opTooltip(*run, b->rank, b->lane, b->op, data.chunks());
    if (data.explanation() && b->lane == Lane::Compute) {
      const auto& slack = data.explanation()->slack.compute;
      const auto r = static_cast<std::size_t>(b->rank);
      if (r < slack.size() && b->op < slack[r].size() && slack[r][b->op] >= 0)
        text +=
            slack[r][b->op] == 0
                ? QString("\nslack 0: on the critical path (any longer and its step ends later)")
                : QString(
                      "\nslack %1: it could take that much longer before its step ends "
                      "later")
                      .arg(QString::fromStdString(trace::formatDuration(slack[r][b->op])));
    }
    return text;
  }
  const Track* t = scene.trackAt(pos.y());
  if (!t || pos.y() < t->computeTop || pos.y() >= t->computeBottom()) return {};
  const std::int64_t at =
      pxToTime(scene.frame().range, scene.plotWidth(), pos.x() - TimelineScene::kGutter);
  const auto gap = idleGapAt(*run, t->rank, data.steps(), at);
  if (!gap) return {};
  QString text = gapTooltip(*run, *gap, data.chunks());
  if (data.explanation()) {
    const QString why = idleCauseLines(*run, data.causes(), gap->rank, gap->from, gap->to);
    if (!why.isEmpty()) text += "\n" + why;
  }
  return text;
}

}  // namespace ps::ui
