#pragma once
// The timeline's hover texts, as pure functions of the run (unit-tested without a widget): an
// op, a fold of ops too small to see, a send or receive (bytes, peer, achieved bandwidth), and an
// idle gap inside a step (the bubble: from, to, how long, and what the rank waits for next).

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/RunAnalysis.h"
#include "ui/timeline/StageChunks.h"

namespace ps::ui {

QString opTooltip(const trace::RunTrace& run, int rank, trace::Lane lane, std::size_t index,
                  const StageChunks& chunks);
// `count` ops of `lane` from `first` folded into one box.
QString foldTooltip(const trace::OpColumns& lane, std::size_t first, std::size_t count);
// A send, receive or collective: kind, bytes, peer rank, duration, achieved bandwidth.
QString commTooltip(const trace::RunTrace& run, int rank, trace::Lane lane, std::size_t index);

// Bytes per second as "12.50 GB/s" (decimal units, as link speeds are quoted).
QString formatBandwidth(double bytesPerSecond);

// Idle time on one rank's compute lane inside a step.
struct IdleGap {
  int rank = 0;
  int step = 0;
  std::int64_t from = 0, to = 0;
  std::optional<std::size_t> next;  // the compute op that ends it, when inside the step
};
// The gap at time t on `rank`, or none when t is in no step or an op runs at t.
std::optional<IdleGap> idleGapAt(const trace::RunTrace& run, int rank,
                                 const std::vector<trace::StepStats>& steps, std::int64_t t);
QString gapTooltip(const trace::RunTrace& run, const IdleGap& gap, const StageChunks& chunks);

}  // namespace ps::ui
