#include "runtime/sim/ReplaySimulation.h"

#include <algorithm>
#include <string>

namespace ps::runtime::sim {
namespace {

// 1 for activations (F, and a FILL's frozen output for F of stage 0), 2 for gradients (B, I), 0
// for kinds whose output crosses no rank.
int flowOf(OpKind k) {
  return k == OpKind::F || k == OpKind::FILL ? 1 : (k == OpKind::B || k == OpKind::I) ? 2 : 0;
}

// The first rank parked on an op not placed yet (see end_), or -1.
int firstParked(std::int64_t endSlot) {
  return endSlot <= -2 ? static_cast<int>(-(endSlot + 2)) : -1;
}

}  // namespace

ReplaySimulation::ReplaySimulation(const Plan& p, const OpGraph& g, const CostModel& c,
                                   const std::atomic<bool>* cancel)
    : p_(p), cancel_(cancel), g_(g), costs_(p, c), mem_(p, c) {}

Result<SimResult> ReplaySimulation::run() {
  const auto ranks = static_cast<std::size_t>(p_.numRanks);
  head_.assign(ranks, 0);
  streamFree_.assign(ranks, 0);
  nextWaiter_.assign(ranks, -1);
  const std::size_t virtuals = g_.size() - g_.computeCount;
  virtualScan_.assign(virtuals, 0);
  virtualLatest_.assign(virtuals, 0);
  virtualEnd_.assign(virtuals, -1);
  out_.records.reserve(g_.computeCount);
  end_.assign(g_.computeCount, -1);
  recordOf_.resize(g_.computeCount);
  out_.transfers.reserve(g_.computeCount);
  shareTransfers_ = !p_.stagePreds.empty() || !p_.extraEdges.empty() ||
                    std::any_of(p_.microbatches.begin(), p_.microbatches.end(),
                                [](const MicrobatchSpec& m) { return m.sliceOf >= 0; });

  std::vector<int> work;
  work.reserve(ranks);
  for (int r = p_.numRanks - 1; r >= 0; --r)
    work.push_back(r);
  while (!work.empty()) {
    const int r = work.back();
    work.pop_back();
    advance(r, work);
    if (cancelled_) return Error{"simulation cancelled"};
    if (!overflow_.empty()) return Error{overflow_};
  }
  std::size_t placed = 0;
  for (int r = 0; r < p_.numRanks; ++r)
    placed += head_[r];
  if (mem_.overflowed()) return Error{mem_.overflowMessage()};
  if (placed != g_.computeCount)
    return Error{"simulation stalled after " + std::to_string(placed) + " of " +
                 std::to_string(g_.computeCount) + " ops (validate the plan first)"};
  mem_.finish(out_);
  costs_.finish(out_);
  return std::move(out_);
}

std::int64_t ReplaySimulation::readyTime(std::int32_t dep) {
  if (!g_.isVirtual(static_cast<std::size_t>(dep))) {
    const std::int64_t end = end_[static_cast<std::size_t>(dep)];
    if (end >= 0) return end;
    blocker_ = dep;
    return -1;
  }
  const auto v = static_cast<std::size_t>(dep) - g_.computeCount;
  if (virtualEnd_[v] >= 0) return virtualEnd_[v];
  // Its dependencies only ever become placed: scan on from where the last look stopped.
  const auto deps = g_.depsOf(static_cast<std::size_t>(dep));
  for (auto i = static_cast<std::size_t>(virtualScan_[v]); i < deps.size(); ++i) {
    const std::int64_t t = readyTime(deps[i]);
    if (t < 0) {
      virtualScan_[v] = static_cast<std::int32_t>(i);
      return -1;
    }
    virtualLatest_[v] = std::max(virtualLatest_[v], t);
  }
  virtualScan_[v] = static_cast<std::int32_t>(deps.size());
  return virtualEnd_[v] = virtualLatest_[v];
}

bool ReplaySimulation::isTransfer(std::int32_t dep, int rank, std::int32_t node) const {
  const int rd = g_.rank[dep];
  if (rd < 0 || rd == rank) return false;
  const int flow = flowOf(g_.actions[dep].kind);
  return flow != 0 && flow == flowOf(g_.actions[node].kind);
}

// Places rank r's ops while their dependencies are placed; parks the rank on the first one
// that is not.
void ReplaySimulation::advance(int r, std::vector<int>& work) {
  const std::size_t size = g_.rankSize(r);
  while (head_[r] < size) {
    const std::size_t h = head_[r];
    const std::int32_t first = g_.rankNode(r, h);
    // One action, or two when the first overlaps the next (they start together).
    const std::size_t unit = (g_.actions[first].overlapNext && h + 1 < size) ? 2 : 1;
    std::int64_t start = streamFree_[r];
    // The unit's incoming transfers, noted while checking its dependencies.
    std::int32_t from[kMaxIncoming], to[kMaxIncoming];
    int incoming = 0;
    for (std::size_t i = 0; i < unit; ++i) {
      const auto node = first + static_cast<std::int32_t>(i);
      for (const std::int32_t d : g_.depsOf(static_cast<std::size_t>(node))) {
        if (i == 1 && d == first) continue;  // the pair's own edge is satisfied inside
        std::int64_t t = readyTime(d);
        if (t < 0) {  // park on the blocker: push r on its list
          std::int64_t& list = end_[static_cast<std::size_t>(blocker_)];
          nextWaiter_[r] = firstParked(list);
          list = -(static_cast<std::int64_t>(r) + 2);
          return;
        }
        if (isTransfer(d, r, node)) {
          const std::int64_t latency = costs_.latency(g_.rank[d], r);
          if (!addNs(t, latency, t)) {
            overflow_ = timeOverflow(
                "the transfer of " + actionLabel(g_.actions[d]) + " to rank " + std::to_string(r),
                end_[static_cast<std::size_t>(d)], latency);
            return;
          }
          if (incoming < kMaxIncoming) {
            from[incoming] = d;
            to[incoming] = node;
          }
          ++incoming;  // past kMaxIncoming: noted again below
        }
        start = std::max(start, t);
      }
    }
    std::int64_t t = start;
    for (std::size_t i = 0; i < unit; ++i) {
      const auto node = first + static_cast<std::int32_t>(i);
      const Action& a = g_.actions[node];
      const std::int64_t d = costs_.placed(a, r, t);
      std::int64_t end = 0;
      if (!addNs(t, d, end)) {
        overflow_ = timeOverflow("rank " + std::to_string(r) + ", " + actionLabel(a), t, d);
        return;
      }
      out_.makespan = std::max(out_.makespan, end);
      const int parked = firstParked(end_[static_cast<std::size_t>(node)]);
      end_[static_cast<std::size_t>(node)] = end;
      recordOf_[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(out_.records.size());
      out_.records.push_back({t, end, -1, r, a.stage, a.microbatch, a.step, -1, a.kind});
      mem_.onStart(r, a, t, end);
      if (incoming <= kMaxIncoming) {
        for (int k = 0; k < incoming; ++k)
          if (to[k] == node) addTransfer(from[k], node, r);
      } else {
        for (const std::int32_t dep : g_.depsOf(static_cast<std::size_t>(node)))
          if (isTransfer(dep, r, node)) addTransfer(dep, node, r);
      }
      for (int w = parked; w >= 0; w = nextWaiter_[w])
        work.push_back(w);
      t = end;
    }
    streamFree_[r] = t;
    head_[r] = h + unit;
    // A relaxed load every 4096 units: answers Ctrl-C in well under a millisecond.
    if ((++units_ & 4095) == 0 && cancel_ && cancel_->load(std::memory_order_relaxed)) {
      cancelled_ = true;
      return;
    }
  }
}

// The transfer p → node (just placed on rank r): sent when the producer ended, arriving one link
// latency later.
void ReplaySimulation::addTransfer(std::int32_t p, std::int32_t node, int r) {
  const Action& ca = g_.actions[node];
  const Action& pa = g_.actions[p];
  const OpKind kind =
      pa.kind == OpKind::F || pa.kind == OpKind::FILL ? OpKind::SEND_F : OpKind::SEND_B;
  const std::int64_t sent = end_[static_cast<std::size_t>(p)];
  const std::int64_t bytes = costs_.transferBytes(kind, pa.stage, ca.stage, pa.microbatch);
  if (shareTransfers_) {
    const auto key = (static_cast<std::uint64_t>(p) << 32) | static_cast<std::uint32_t>(r);
    const auto [it, fresh] = shared_.try_emplace(key, out_.transfers.size(), node);
    if (!fresh) {
      // EventSimulation names the consumer with the lowest node id.
      if (node < it->second.second) {
        SimTransfer& t = out_.transfers[it->second.first];
        t.consumer_stage = ca.stage;
        t.bytes = bytes;
        it->second.second = node;
      }
      return;
    }
  }
  out_.transfers.push_back({sent, sent, sent + costs_.latency(g_.rank[p], r), bytes,
                            recordOf_[static_cast<std::size_t>(p)], ca.stage, r, kind});
}

}  // namespace ps::runtime::sim
