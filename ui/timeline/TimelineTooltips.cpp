#include "ui/timeline/TimelineTooltips.h"

#include <QStringList>

#include <algorithm>

#include "trace/Units.h"
#include "trace/analysis/WideTime.h"

namespace ps::ui {

using trace::Lane;

namespace {

QString dur(std::int64_t ns) {
  return QString::fromStdString(trace::formatDuration(ns));
}

QString kindName(trace::OpKind kind) {
  return QString::fromUtf8(trace::opKindName(kind).data());
}

// "F micro-batch 3 (stage 5, chunk 1, up)": what an op is, in words.
QString opWords(const trace::OpColumns& lane, std::size_t i, int rank, const StageChunks& chunks) {
  QString text = kindName(lane.kind[i]);
  if (lane.microbatch[i] >= 0) text += QString(" micro-batch %1").arg(lane.microbatch[i]);
  QStringList where;
  if (lane.stage[i] >= 0) {
    where << QString("stage %1").arg(lane.stage[i]);
    const auto info = chunks.at(rank, lane.stage[i]);
    if (chunks.marksChunks()) where << QString("chunk %1").arg(info.chunk);
    if (chunks.marksDirections())
      where << (info.replica == 0 ? QString("down pipeline") : QString("up pipeline"));
  }
  if (!where.isEmpty()) text += " (" + where.join(", ") + ")";
  return text;
}

}  // namespace

QString formatBandwidth(double bytesPerSecond) {
  static const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  int u = 0;
  while (bytesPerSecond >= 1000.0 && u < 4) {
    bytesPerSecond /= 1000.0;
    ++u;
  }
  return QString("%1 %2").arg(bytesPerSecond, 0, 'f', 2).arg(units[u]);
}

QString opTooltip(const trace::RunTrace& run, int rank, Lane laneId, std::size_t i,
                  const StageChunks& chunks) {
  const auto& lane = run.ranks[rank].lane(laneId);
  QString text = kindName(lane.kind[i]);
  if (const std::string* name = run.nameOf(lane.name[i]))
    text += "  " + QString::fromStdString(*name);
  text += QString("\nrank %1").arg(rank);
  if (lane.stage[i] >= 0) {
    text += QString("  stage %1").arg(lane.stage[i]);
    const auto info = chunks.at(rank, lane.stage[i]);
    if (chunks.marksChunks()) text += QString("  chunk %1").arg(info.chunk);
    if (chunks.marksDirections())
      text += info.replica == 0 ? QString("  down pipeline") : QString("  up pipeline");
  }
  if (lane.microbatch[i] >= 0) text += QString("  micro-batch %1").arg(lane.microbatch[i]);
  text += QString("  step %1").arg(lane.step[i]);
  text += QString("\nstart %1  duration %2")
              .arg(dur(lane.start[i]), dur(trace::satSub(lane.end[i], lane.start[i])));
  if (lane.bytes[i] >= 0)
    text += QString("\n%1").arg(QString::fromStdString(trace::formatBytes(lane.bytes[i])));
  if (lane.peer[i] >= 0) text += QString("  peer rank %1").arg(lane.peer[i]);
  return text;
}

QString foldTooltip(const trace::OpColumns& lane, std::size_t first, std::size_t count) {
  std::int64_t end = lane.end[first];
  for (std::size_t k = first; k < first + count && k < lane.size(); ++k)
    end = std::max(end, lane.end[k]);
  return QString("%1 ops folded (zoom in to see them)\n%2 … %3")
      .arg(count)
      .arg(dur(lane.start[first]), dur(end));
}

QString commTooltip(const trace::RunTrace& run, int rank, Lane laneId, std::size_t i) {
  const auto& lane = run.ranks[rank].lane(laneId);
  const trace::OpKind kind = lane.kind[i];
  QString text = kindName(kind);
  if (const std::string* name = run.nameOf(lane.name[i]))
    text += "  " + QString::fromStdString(*name);
  const int peer = lane.peer[i];
  if (trace::isSend(kind))
    text += peer >= 0 ? QString("\nrank %1 → rank %2").arg(rank).arg(peer)
                      : QString("\nfrom rank %1").arg(rank);
  else if (trace::isRecv(kind))
    text += peer >= 0 ? QString("\nrank %1 ← rank %2").arg(rank).arg(peer)
                      : QString("\non rank %1").arg(rank);
  else
    text += QString("\nrank %1").arg(rank) +
            (peer >= 0 ? QString("  peer rank %1").arg(peer) : QString());
  if (lane.microbatch[i] >= 0) text += QString("  micro-batch %1").arg(lane.microbatch[i]);
  if (lane.stage[i] >= 0) text += QString("  stage %1").arg(lane.stage[i]);
  text += QString("  step %1").arg(lane.step[i]);
  const std::int64_t d = trace::satSub(lane.end[i], lane.start[i]);
  text += QString("\nstart %1  duration %2").arg(dur(lane.start[i]), dur(d));
  if (lane.bytes[i] >= 0) {
    text += QString("\n%1").arg(QString::fromStdString(trace::formatBytes(lane.bytes[i])));
    if (d > 0)
      text += "  at " +
              formatBandwidth(static_cast<double>(lane.bytes[i]) * 1e9 / static_cast<double>(d));
  }
  return text;
}

std::optional<IdleGap> idleGapAt(const trace::RunTrace& run, int rank,
                                 const std::vector<trace::StepStats>& steps, std::int64_t t) {
  if (rank < 0 || rank >= static_cast<int>(run.ranks.size())) return std::nullopt;
  const auto step = std::find_if(steps.begin(), steps.end(), [&](const trace::StepStats& s) {
    return s.start_ns <= t && t < s.end_ns;
  });
  if (step == steps.end()) return std::nullopt;
  const auto& lane = run.ranks[rank].lane(Lane::Compute);
  // The first op starting after t; every op before it must have ended by t.
  const auto next = static_cast<std::size_t>(
      std::upper_bound(lane.start.begin(), lane.start.end(), t) - lane.start.begin());
  IdleGap gap;
  gap.rank = rank;
  gap.step = step->step;
  gap.from = step->start_ns;
  // Ops before `next` in start order; a long one may still run at t. Nested or overlapping ops
  // are rare (imports) and bounded here to keep the hover cheap.
  for (std::size_t k = next, seen = 0; k > 0 && seen < 64; --k, ++seen) {
    const std::size_t i = k - 1;
    if (lane.end[i] > t) return std::nullopt;
    gap.from = std::max(gap.from, lane.end[i]);
  }
  gap.to = step->end_ns;
  if (next < lane.size() && lane.start[next] < step->end_ns) {
    gap.to = lane.start[next];
    gap.next = next;
  }
  if (gap.to <= gap.from) return std::nullopt;
  return gap;
}

QString gapTooltip(const trace::RunTrace& run, const IdleGap& gap, const StageChunks& chunks) {
  QString text = QString("idle (bubble)  rank %1  step %2\n%3 – %4  (%5)")
                     .arg(gap.rank)
                     .arg(gap.step)
                     .arg(dur(gap.from), dur(gap.to), dur(trace::satSub(gap.to, gap.from)));
  if (!gap.next) return text + "\nnothing more to do in this step";
  const auto& lane = run.ranks[gap.rank].lane(Lane::Compute);
  text += "\nwaits for " + opWords(lane, *gap.next, gap.rank, chunks);
  // Its input, when a receive on this rank lands just before it starts.
  const auto& recv = run.ranks[gap.rank].lane(Lane::Recv);
  const std::int64_t start = lane.start[*gap.next];
  for (std::size_t k = recv.lowerBoundStart(trace::satAdd(start, 1)), seen = 0; k > 0 && seen < 64;
       --k, ++seen) {
    const std::size_t i = k - 1;
    if (recv.end[i] <= gap.from || recv.end[i] > start) continue;
    if (recv.microbatch[i] == lane.microbatch[*gap.next] && recv.peer[i] >= 0)
      return text + QString("\n  after %1 from rank %2 (arrived %3)")
                        .arg(kindName(recv.kind[i]))
                        .arg(recv.peer[i])
                        .arg(dur(recv.end[i]));
  }
  return text;
}

}  // namespace ps::ui
