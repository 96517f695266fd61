#include "ui/timeline/SceneOverlays.h"

#include <algorithm>

#include "trace/analysis/OpDiff.h"

namespace ps::ui {

using trace::Lane;

namespace {

void addCauses(const TimelineScene& scene, const TimelineData& data, SceneOverlays& out) {
  const TimeRange& range = scene.frame().range;
  const double w = scene.plotWidth();
  const QRect plot = scene.plotRect();
  for (const Track& t : scene.tracks()) {
    const int top = std::max(t.computeTop, t.clipTop);
    const int bottom = std::min(t.computeBottom(), t.clipBottom);
    if (bottom <= top) continue;
    data.causes().forEachIn(t.rank, range.start, range.end, [&](const trace::IdlePart& part) {
      const int x0 = TimelineScene::kGutter + static_cast<int>(timeToPx(range, w, part.start));
      const int x1 = TimelineScene::kGutter + static_cast<int>(timeToPx(range, w, part.end));
      if (x1 <= x0) return;  // under a pixel: the shaded ground says "idle" already
      // One pixel wider each side, under the boxes painted next: the boxes' device-pixel edges
      // (a 2x screen) then never leave a sliver of plain shade beside a cause.
      const QRect r = QRect(x0 - 1, top, x1 - x0 + 2, bottom - top).intersected(plot);
      if (!r.isEmpty()) out.causes.push_back({r, part.cause});
    });
  }
}

void addSelection(const TimelineScene& scene, const TimelineData& data, const OverlayState& state,
                  SceneOverlays& out) {
  const TimelineOp& sel = state.selection;
  if (!data.run() || !sel.valid()) return;
  const auto& run = *data.run();
  const TimeRange& range = scene.frame().range;
  out.selected = scene.opRect(data, sel);
  if (sel.lane == Lane::Compute) {
    // The same micro-batch everywhere: outlined.
    const auto& lane = run.ranks[sel.rank].lane(Lane::Compute);
    const int mb = lane.microbatch[sel.index], step = lane.step[sel.index];
    if (mb >= 0)
      for (const Track& t : scene.tracks()) {
        const auto& l = run.ranks[t.rank].lane(Lane::Compute);
        const std::size_t first = l.lowerBoundStart(range.start);
        for (std::size_t k = first > 0 ? first - 1 : 0; k < l.size() && l.start[k] < range.end; ++k)
          if (l.microbatch[k] == mb && l.step[k] == step) {
            const QRect r = scene.opRect(data, {t.rank, Lane::Compute, k});
            if (!r.isEmpty()) out.microbatch.push_back(r);
          }
      }
  }
  // Arrows from the end of each producer to the start of the selected op, and from its end on to
  // the ops that wait for it.
  const QRect self = out.selected;
  if (self.isEmpty() || !state.dependencies) return;
  for (auto [r, k] : state.dependencies->in) {
    const QRect from = scene.opRect(data, {r, Lane::Compute, k});
    if (!from.isEmpty())
      out.dependencies.push_back(
          {QPointF(from.right(), from.center().y()), QPointF(self.left(), self.center().y())});
  }
  for (auto [r, k] : state.dependencies->out) {
    const QRect to = scene.opRect(data, {r, Lane::Compute, k});
    if (!to.isEmpty())
      out.dependents.push_back(
          {QPointF(self.right(), self.center().y()), QPointF(to.left(), to.center().y())});
  }
}

void addFlows(const TimelineScene& scene, TimelineData& data, SceneOverlays& out) {
  const std::vector<Flow>& flows = data.flows();
  if (flows.empty()) return;
  constexpr std::size_t kMaxFlows = 4000;  // past this the arrows are a grey wash anyway
  const TimeRange& range = scene.frame().range;
  const double w = scene.plotWidth();
  auto it =
      std::lower_bound(flows.begin(), flows.end(), trace::satSub(range.start, data.longestFlow()),
                       [](const Flow& f, std::int64_t t) { return f.start < t; });
  // The y of a lane's middle on a track on screen, kept inside the track's visible part.
  auto laneY = [&](int rank, Lane lane) -> std::optional<double> {
    const Track* t = scene.trackOf(rank);
    if (!t) return std::nullopt;
    const int comm = t->commHeight;
    const int y = t->collapsed ? t->computeTop + t->computeHeight / 2
                               : (lane == Lane::Recv ? t->commTop + comm : t->commTop) + comm / 2;
    return std::clamp(y, t->clipTop, t->clipBottom - 1);
  };
  for (; it != flows.end() && it->start < range.end && out.flows.size() < kMaxFlows; ++it) {
    if (it->end < range.start) continue;
    const auto y0 = laneY(it->fromRank, Lane::Send), y1 = laneY(it->toRank, Lane::Recv);
    if (!y0 || !y1) continue;
    out.flows.push_back(
        {QPointF(TimelineScene::kGutter + std::max(-50.0, timeToPx(range, w, it->start)), *y0),
         QPointF(TimelineScene::kGutter + std::min(w + 50, timeToPx(range, w, it->end)), *y1)});
  }
}

void addCriticalPath(const TimelineScene& scene, const TimelineData& data, SceneOverlays& out) {
  bool started = false;
  for (const trace::OpRef& op : data.explanation()->path->ops) {
    const QRect r = scene.opRect(data, {op.rank, op.lane, op.index});
    if (r.isEmpty()) {
      started = false;  // off screen: the line resumes at the next op in view
      continue;
    }
    if (!started) out.pathLines.emplace_back();
    out.pathLines.back().push_back(QRectF(r).center());
    started = true;
    out.pathOps.push_back(r);
  }
}

// A thin band along the bottom of each compute op's row from its end for as long as its slack;
// ops that start up to one view's width before it are looked at too (their band may reach in).
void addSlack(const TimelineScene& scene, const TimelineData& data, SceneOverlays& out) {
  const auto& slack = data.explanation()->slack.compute;
  const auto& run = *data.run();
  const TimeRange& range = scene.frame().range;
  const double w = scene.plotWidth();
  const QRect plot = scene.plotRect();
  const std::int64_t span = range.end - range.start;
  for (const Track& t : scene.tracks()) {
    if (t.rank < 0 || static_cast<std::size_t>(t.rank) >= slack.size()) continue;
    const int bottom = std::min(t.computeBottom(), t.clipBottom);
    if (bottom <= std::max(t.computeTop, t.clipTop)) continue;
    const trace::OpColumns& c = run.ranks[t.rank].lane(Lane::Compute);
    const auto& of = slack[t.rank];
    for (std::size_t i = c.lowerBoundStart(range.start - span); i < c.size(); ++i) {
      if (c.start[i] > range.end) break;
      if (i >= of.size() || of[i] <= 0) continue;
      const int x0 = TimelineScene::kGutter + static_cast<int>(timeToPx(range, w, c.end[i]));
      const int x1 =
          TimelineScene::kGutter + static_cast<int>(timeToPx(range, w, c.end[i] + of[i]));
      const QRect r = QRect(x0, bottom - 3, std::max(1, x1 - x0), 3).intersected(plot);
      if (!r.isEmpty()) out.slackBands.push_back(r);
    }
  }
}

// Compare: how far each op of B moved against A, as a bar along the top of its box.
void addMoves(const TimelineScene& scene, const TimelineData& data,
              const TimelineData::OpMoves& moves, SceneOverlays& out) {
  std::int64_t largest = 0;
  for (const auto& rank : moves)
    for (const std::int64_t d : rank)
      if (d != trace::OpDiff::kUnmatched) largest = std::max(largest, d < 0 ? -d : d);
  if (largest == 0) return;
  const auto& run = *data.run();
  const TimeRange& range = scene.frame().range;
  for (const Track& t : scene.tracks()) {
    if (t.rank < 0 || static_cast<std::size_t>(t.rank) >= moves.size()) continue;
    const trace::OpColumns& c = run.ranks[t.rank].lane(Lane::Compute);
    const auto& of = moves[t.rank];
    for (std::size_t i = c.lowerBoundStart(range.start - (range.end - range.start));
         i < c.size() && i < of.size() && c.start[i] <= range.end; ++i) {
      if (of[i] == trace::OpDiff::kUnmatched || of[i] == 0) continue;
      const QRect box = scene.opRect(data, {t.rank, Lane::Compute, i});
      if (box.isEmpty()) continue;
      out.moveBars.push_back({QRect(box.left(), box.top(), box.width(), 4),
                              static_cast<double>(of[i]) / static_cast<double>(largest)});
    }
  }
}

std::optional<SceneBand> band(const TimelineScene& scene, const OverlayState& state) {
  const TimeRange& range = scene.frame().range;
  const double w = scene.plotWidth();
  const int width = scene.frame().width;
  double x0, x1;
  std::int64_t length;
  if (state.dragX) {
    x0 = std::min(state.dragX->first, state.dragX->second);
    x1 = std::max(state.dragX->first, state.dragX->second);
    length = trace::satSub(pxToTime(range, w, x1 - TimelineScene::kGutter),
                           pxToTime(range, w, x0 - TimelineScene::kGutter));
  } else if (state.band.end > state.band.start) {
    x0 = scene.xOf(state.band.start);
    x1 = scene.xOf(state.band.end);
    length = state.band.length();
  } else {
    return std::nullopt;
  }
  if (x1 < TimelineScene::kGutter || x0 > width) return std::nullopt;
  x0 = std::max<double>(x0, TimelineScene::kGutter);
  x1 = std::min<double>(x1, width);
  return SceneBand{
      QRect(static_cast<int>(x0), 0, std::max(1, static_cast<int>(x1 - x0)), scene.frame().height),
      length};
}

}  // namespace

SceneOverlays buildOverlays(const TimelineScene& scene, TimelineData& data,
                            const OverlayState& state) {
  SceneOverlays out;
  if (data.run()) {
    if (data.explanation() && state.causes) addCauses(scene, data, out);
    addSelection(scene, data, state, out);
    if (state.flows) addFlows(scene, data, out);
    if (data.explanation() && data.explanation()->path && state.path)
      addCriticalPath(scene, data, out);
    if (data.explanation() && state.slack) addSlack(scene, data, out);
    if (data.opMoves()) addMoves(scene, data, *data.opMoves(), out);
  }
  out.band = band(scene, state);
  return out;
}

}  // namespace ps::ui
