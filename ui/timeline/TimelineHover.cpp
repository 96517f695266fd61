#include "ui/timeline/TimelineHover.h"

#include "trace/Units.h"
#include "trace/analysis/OpDiff.h"
#include "ui/timeline/RankGutter.h"
#include "ui/timeline/TimelineTooltips.h"

namespace ps::ui {

using trace::Lane;

namespace {

// A compute op's slack (explained runs) and, when compared, how far it moved against run A.
QString computeOpNotes(const TimelineData& data, int rank, std::size_t op) {
  QString text;
  const auto r = static_cast<std::size_t>(rank);
  auto duration = [](std::int64_t ns) { return QString::fromStdString(trace::formatDuration(ns)); };
  if (data.explanation()) {
    const auto& slack = data.explanation()->slack.compute;
    if (r < slack.size() && op < slack[r].size() && slack[r][op] >= 0)
      text += slack[r][op] == 0
                  ? QString("\nslack 0: on the critical path (any longer and its step ends later)")
                  : QString(
                        "\nslack %1: it could take that much longer before its step ends "
                        "later")
                        .arg(duration(slack[r][op]));
  }
  if (const auto* moves = data.opMoves(); moves && r < moves->size() && op < (*moves)[r].size()) {
    const std::int64_t d = (*moves)[r][op];
    if (d == trace::OpDiff::kUnmatched)
      text += "\nvs A: no such op in run A";
    else if (d == 0)
      text += "\nvs A: starts when it did in A (from its step's start)";
    else
      text += QString("\nvs A: starts %1 %2 (from its step's start)")
                  .arg(duration(d < 0 ? -d : d))
                  .arg(d > 0 ? "later" : "earlier");
  }
  return text;
}

}  // namespace

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
    if (b->lane == Lane::Compute) text += computeOpNotes(data, b->rank, b->op);
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
