#pragma once
// The simulator's memory model per rank: a static base (parameters, gradients and optimizer
// state, plus a second weight version under PipeDream-2BW) and activations allocated when F
// starts and released when the last backward op of that stage and micro-batch ends (B, or W for
// split backward). Under recompute only the stage input is kept after F; R brings the rest back.
// PipeDream's weight stashing keeps one weight version per in-flight micro-batch.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/TraceRecords.h"

namespace ps::runtime {

struct SimResult;

class MemoryTracker {
 public:
  MemoryTracker(const Plan& plan, const CostModel& cost);

  // Called when an op is placed on rank `rank` over [start, end) (inline: once per op).
  void onStart(int rank, const Action& a, std::int64_t start, std::int64_t end) {
    if (a.stage < 0 || a.microbatch < 0 || static_cast<int>(a.kind) >= kKinds) return;
    const Change c =
        plan_.microbatches[a.microbatch].costScale == 1.0
            ? perOp_[static_cast<std::size_t>(a.stage) * kKinds + static_cast<std::size_t>(a.kind)]
            : changeOf(a.stage, a.kind, plan_.microbatches[a.microbatch].costScale);
    if (c.any) changeAt(rank, c.atEnd ? end : start, c.bytes, c.act);
  }
  // BPipe: `bytes` (negative: freed) on `rank` at t, for activations moving between ranks. These
  // come out of time order, so a plan with moves buffers every change and sorts them at finish.
  void moved(int rank, std::int64_t t, std::int64_t bytes) { changeAt(rank, t, bytes, bytes); }
  // The activation bytes F(stage, m) keeps (what an OFFLOAD moves).
  std::int64_t keptAfterForward(int stage, int microbatch) const {
    const double scale = plan_.microbatches[microbatch].costScale;
    return scale == 1.0 ? act_[stage] : toBytes(static_cast<double>(act_[stage]) * scale);
  }
  // Hands over the memory samples and per-rank peaks.
  void finish(SimResult& out);

  std::int64_t baseBytes(int rank) const { return base_[rank]; }
  // A byte count that did not fit in int64 (the simulation's error instead of a wrapped total).
  bool overflowed() const { return overflowed_; }
  std::string overflowMessage() const;

 private:
  // Samples are written as the simulation goes: a rank's ops run one after the other and each
  // changes memory once (at its start or its end), so a rank's changes come in time order. The
  // changes of one instant are summed into one sample; frees count before allocations at the
  // same instant (an op ending at t frees before the next op starting at t allocates, as a
  // caching allocator would reuse the block), so the peak is the larger of the totals before and
  // after the instant. Samples go out in one stream as instants close (each rank's in time
  // order, ranks interleaved): one sequential write instead of one region per rank.
  struct RankMemory {
    std::int64_t instant = 0;         // time of the changes being summed (open == true)
    std::int64_t total = 0, act = 0;  // bytes in use, and the activation part
    std::int64_t peak = 0, peakAct = 0;
    bool open = false;
  };
  // What an op of `kind` on `stage` does to memory at the given micro-batch cost scale.
  struct Change {
    std::int64_t bytes = 0, act = 0;
    bool atEnd = false;  // at the op's end (frees) rather than its start (allocations)
    bool any = false;
  };
  static constexpr int kKinds = static_cast<int>(OpKind::FILL) + 1;
  Change changeOf(int stage, OpKind kind, double scale) const;

  struct Buffered {
    std::int64_t t, bytes, act;
    std::int32_t rank;
  };
  void changeAt(int rank, std::int64_t t, std::int64_t bytes, std::int64_t actBytes) {
    if (buffered_)
      pending_.push_back({t, bytes, actBytes, rank});
    else
      change(rank, t, bytes, actBytes);
  }
  void change(int rank, std::int64_t t, std::int64_t bytes, std::int64_t actBytes) {
    RankMemory& m = ranks_[rank];
    // t < instant cannot happen (see RankMemory); summing it into the open instant keeps the
    // totals right regardless.
    if (m.open && t > m.instant) closeInstant(rank);
    if (!m.open) {
      m.open = true;
      m.instant = t;
    }
    // Checked: a wrapped total would be a wrong peak, not an error.
    overflowed_ |= __builtin_add_overflow(m.total, bytes, &m.total);
    overflowed_ |= __builtin_add_overflow(m.act, actBytes, &m.act);
  }
  // b as int64, noting an overflow for a value past it.
  std::int64_t toBytes(double b) const;
  void closeInstant(int rank);
  std::int64_t stageParams(int stage) const;
  std::int64_t stageInput(int stage) const;

  const Plan& plan_;
  const CostModel& cost_;
  std::vector<std::int64_t> base_;
  std::vector<std::int64_t> act_;     // per stage, one micro-batch at cost scale 1
  std::vector<std::int64_t> params_;  // per stage
  std::vector<Change> perOp_;         // [stage · kKinds + kind] at cost scale 1
  std::vector<RankMemory> ranks_;
  std::vector<trace::MemorySample> samples_;
  bool buffered_ = false;          // the plan moves activations: changes sorted at finish
  std::vector<Buffered> pending_;  // buffered_ only
  mutable bool overflowed_ = false;
};

}  // namespace ps::runtime
