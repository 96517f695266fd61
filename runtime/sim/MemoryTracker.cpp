#include "runtime/sim/MemoryTracker.h"

#include <algorithm>

#include "runtime/sim/Simulator.h"

namespace ps::runtime {

MemoryTracker::MemoryTracker(const Plan& plan, const CostModel& cost)
    : plan_(plan), cost_(cost), base_(plan.numRanks, 0), deltas_(plan.numRanks) {
  for (const auto& replica : plan.placement)
    for (int s = 0; s < static_cast<int>(replica.size()); ++s) {
      const auto params = static_cast<double>(stageParams(s));
      std::int64_t bytes = static_cast<std::int64_t>(params * cost.stateBytesPerParamByte);
      if (plan.versioning == WeightVersioning::DoubleBuffered) bytes += stageParams(s);
      base_[replica[s].rank] += bytes;
    }
  for (int r = 0; r < plan.numRanks; ++r)
    deltas_[r].reserve(2 * plan.programs[r].size() + 1);
  act_.resize(plan.numStages);
  for (int s = 0; s < plan.numStages; ++s)
    act_[s] = activationBytes(plan, cost, s);
}

std::int64_t MemoryTracker::stageParams(int stage) const {
  const StagePlacement& st = plan_.placement[0][stage];
  std::int64_t bytes = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l)
    bytes += cost_.layers[l].paramBytes;
  return bytes;
}

std::int64_t MemoryTracker::stageInput(int stage) const {
  return cost_.layers[plan_.placement[0][stage].firstLayer].actBytes;
}

void MemoryTracker::onStart(int rank, const Action& a, std::int64_t start, std::int64_t end) {
  if (a.stage < 0 || a.microbatch < 0) return;
  const double scale = plan_.microbatches[a.microbatch].costScale;
  const auto scaled = [scale](std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<double>(b) * scale);
  };
  const std::int64_t stash =
      plan_.versioning == WeightVersioning::Stashed ? stageParams(a.stage) : 0;
  auto& d = deltas_[rank];
  const bool releases = plan_.splitBackward ? a.kind == OpKind::W : a.kind == OpKind::B;
  if (a.kind == OpKind::F) {
    const std::int64_t kept = plan_.recompute ? scaled(stageInput(a.stage)) : scaled(act_[a.stage]);
    d.push_back({start, kept + stash, kept});
  } else if (a.kind == OpKind::R) {
    d.push_back({start, scaled(act_[a.stage]), scaled(act_[a.stage])});
  } else if (releases || (a.kind == OpKind::B && plan_.splitBackward)) {
    std::int64_t freed = scaled(act_[a.stage]);
    if (plan_.recompute) freed += scaled(stageInput(a.stage));
    d.push_back({end, -(freed + stash), -freed});
  }
}

void MemoryTracker::finish(SimResult& out) {
  out.peakMemory.assign(plan_.numRanks, 0);
  std::size_t samples = 0;
  for (const auto& d : deltas_)
    samples += d.size() + 1;
  out.memory.reserve(samples);
  out.peakActivationBytes.assign(plan_.numRanks, 0);
  for (int r = 0; r < plan_.numRanks; ++r) {
    auto& d = deltas_[r];
    // Frees before allocations at the same instant: an op ending at t frees before the next
    // op starting at t allocates, as a caching allocator would reuse the block.
    std::sort(d.begin(), d.end(), [](const Delta& a, const Delta& b) {
      return a.t != b.t ? a.t < b.t : a.bytes < b.bytes;
    });
    std::int64_t total = base_[r], act = 0;
    out.memory.push_back({r, 0, total});
    out.peakMemory[r] = total;
    for (std::size_t i = 0; i < d.size(); ++i) {
      total += d[i].bytes;
      act += d[i].actBytes;
      out.peakMemory[r] = std::max(out.peakMemory[r], total);
      out.peakActivationBytes[r] = std::max(out.peakActivationBytes[r], act);
      if (i + 1 < d.size() && d[i + 1].t == d[i].t) continue;  // one sample per instant
      out.memory.push_back({r, d[i].t, total});
    }
  }
}

}  // namespace ps::runtime
