#include "runtime/sim/MemoryTracker.h"

#include <algorithm>

#include "runtime/sim/Simulator.h"

namespace ps::runtime {

MemoryTracker::MemoryTracker(const Plan& plan, const CostModel& cost)
    : plan_(plan), cost_(cost), base_(plan.numRanks, 0), ranks_(plan.numRanks) {
  act_.resize(plan.numStages);
  params_.resize(plan.numStages);
  for (int s = 0; s < plan.numStages; ++s) {
    act_[s] = activationBytes(plan, cost, s);
    params_[s] = stageParams(s);
  }
  for (const auto& replica : plan.placement)
    for (int s = 0; s < static_cast<int>(replica.size()); ++s) {
      const auto params = static_cast<double>(params_[s]);
      std::int64_t bytes = toBytes(params * cost.stateBytesPerParamByte);
      // 2BW's second version; XPipe's predicted copy (made for each F, one at a time);
      // LayerPipe2's moving average and the copy rebuilt from it (for each backward, one at a
      // time).
      if (plan.versioning == WeightVersioning::DoubleBuffered ||
          plan.versioning == WeightVersioning::Predicted)
        overflowed_ |= __builtin_add_overflow(bytes, params_[s], &bytes);
      if (plan.versioning == WeightVersioning::Reconstructed)
        overflowed_ |= __builtin_add_overflow(bytes, 2 * params_[s], &bytes);
      overflowed_ |= __builtin_add_overflow(base_[replica[s].rank], bytes, &base_[replica[s].rank]);
    }
  perOp_.resize(static_cast<std::size_t>(plan.numStages) * kKinds);
  for (int s = 0; s < plan.numStages; ++s)
    for (int k = 0; k < kKinds; ++k)
      perOp_[static_cast<std::size_t>(s) * kKinds + k] = changeOf(s, static_cast<OpKind>(k), 1.0);
  buffered_ = !plan.activationMoves.empty();
  // The initial sample of every rank, then at most one sample per op.
  samples_.reserve(plan.actionCount() + static_cast<std::size_t>(plan.numRanks));
  for (int r = 0; r < plan.numRanks; ++r) {
    ranks_[r].total = ranks_[r].peak = base_[r];
    samples_.push_back({r, 0, base_[r]});
  }
}

std::int64_t MemoryTracker::stageParams(int stage) const {
  const StagePlacement& st = plan_.placement[0][stage];
  std::int64_t bytes = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l)
    overflowed_ |= __builtin_add_overflow(bytes, cost_.layers[l].paramBytes, &bytes);
  return bytes;
}

std::int64_t MemoryTracker::toBytes(double b) const {
  if (b < 9.2e18) return static_cast<std::int64_t>(b);
  overflowed_ = true;
  return 0;
}

std::string MemoryTracker::overflowMessage() const {
  return "simulated memory exceeds int64 bytes (9.2e18): shorten the activation or parameter "
         "sizes, or the micro-batches in flight";
}

std::int64_t MemoryTracker::stageInput(int stage) const {
  return cost_.layers[plan_.placement[0][stage].firstLayer].actBytes;
}

MemoryTracker::Change MemoryTracker::changeOf(int stage, OpKind kind, double scale) const {
  const auto scaled = [this, scale](std::int64_t b) {
    return scale == 1.0 ? b : toBytes(static_cast<double>(b) * scale);
  };
  const bool stashes = plan_.versioning == WeightVersioning::Stashed ||
                       plan_.versioning == WeightVersioning::Blended;
  const std::int64_t stash = stashes ? params_[stage] : 0;
  const bool releases = plan_.splitBackward ? kind == OpKind::W : kind == OpKind::B;
  Change c;
  if (plan_.forwardOnly) return c;  // inference: no activation outlives its forward
  if (kind == OpKind::F) {
    const std::int64_t kept = plan_.recompute ? scaled(stageInput(stage)) : scaled(act_[stage]);
    std::int64_t bytes = 0;
    overflowed_ |= __builtin_add_overflow(kept, stash, &bytes);
    c = {bytes, kept, false, true};
  } else if (kind == OpKind::R) {
    c = {scaled(act_[stage]), scaled(act_[stage]), false, true};
  } else if (releases || (kind == OpKind::B && plan_.splitBackward)) {
    std::int64_t freed = scaled(act_[stage]), all = 0;
    if (plan_.recompute)
      overflowed_ |= __builtin_add_overflow(freed, scaled(stageInput(stage)), &freed);
    overflowed_ |= __builtin_add_overflow(freed, stash, &all);
    c = {-all, -freed, true, true};
  }
  return c;
}

void MemoryTracker::closeInstant(int rank) {
  RankMemory& m = ranks_[rank];
  m.peak = std::max(m.peak, m.total);
  m.peakAct = std::max(m.peakAct, m.act);
  samples_.push_back({rank, m.instant, m.total});
  m.open = false;
}

void MemoryTracker::finish(SimResult& out) {
  if (buffered_) {
    // Each rank's changes in time order (ties in the order they were made), then the usual
    // instant-by-instant sums.
    std::stable_sort(pending_.begin(), pending_.end(), [](const Buffered& a, const Buffered& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.t < b.t;
    });
    for (const Buffered& b : pending_)
      change(b.rank, b.t, b.bytes, b.act);
    pending_.clear();
    buffered_ = false;
  }
  out.peakMemory.assign(plan_.numRanks, 0);
  out.peakActivationBytes.assign(plan_.numRanks, 0);
  for (int r = 0; r < plan_.numRanks; ++r) {
    if (ranks_[r].open) closeInstant(r);
    out.peakMemory[r] = ranks_[r].peak;
    out.peakActivationBytes[r] = ranks_[r].peakAct;
  }
  out.memory = std::move(samples_);
}

}  // namespace ps::runtime
