#pragma once
// The dependencies of one recorded op, read back from the trace by the kind rules of DESIGN §2:
//   F(s,m)    after F(s-1,m), through the RECV_F that brought it when one was recorded
//   R(s,m)    after F(s,m)
//   B/I(s,m)  after F(s,m), R(s,m) if any, and B/I(s+1,m) (through its RECV_B when recorded)
//   W(s,m)    after I(s,m)
//   OPT       after every B and W of its step (of its own rank when the run's optimizer_sync is
//             "none")
//   SEND      after the op that produced what it sends (F for SEND_F, B/I for SEND_B)
//   RECV      after its matching SEND on the peer (same kind, micro-batch and step, the adjacent
//             stage; the k-th such send pairs with the k-th such receive, the two parts of an
//             imported transfer split at its peer's start counting as one)
// All at the same step. A stage's ops are looked for on the ranks the run's stages table gives
// it (every rank when it gives none). Kinds without a rule (FILL, AR, A2A, OFFLOAD, RELOAD,
// OTHER) have no relations. Outputs are exactly the ops whose inputs hold the op.

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

struct OpRelations {
  std::vector<OpRef> in;   // what the op waited for
  std::vector<OpRef> out;  // what waits for it
};

// Both directions for `op` (an invalid or out-of-range ref has none). Scans the lanes of the ranks
// involved: a few passes over one rank's columns, fine for a click on a 10M-op run.
OpRelations opRelations(const RunTrace& run, const OpRef& op);
// Only the inputs.
std::vector<OpRef> opInputs(const RunTrace& run, const OpRef& op);

// The RECV a SEND delivered to, or the SEND a RECV came from; nullopt when not recorded.
std::optional<OpRef> matchingTransfer(const RunTrace& run, const OpRef& op);

// The same relations for analyses that ask them of every op (attribution, critical path): the
// functions above scan lanes, fine for one click but quadratic over a run. Built once, O(n log n),
// over (step, stage, micro-batch) per rank and lane; the run must outlive it unchanged.
class RelationIndex {
 public:
  static constexpr std::int32_t kAnyValue = INT_MIN;  // wildcard stage / micro-batch

  explicit RelationIndex(const RunTrace& run);
  const RunTrace& run() const { return run_; }
  bool optimizerPerRank() const { return optimizerPerRank_; }

  std::vector<OpRef> inputs(const OpRef& op) const;
  std::optional<OpRef> matchingTransfer(const OpRef& op) const;

  // Calls fn(index) for each op of the lane with this step and, unless kAnyValue, this stage and
  // micro-batch; lane order within one (stage, micro-batch). A known micro-batch with any stage
  // is not indexed (callers scan).
  template <class Fn>
  void forEach(int rank, Lane lane, std::int32_t step, std::int32_t stage, std::int32_t mb,
               Fn&& fn) const {
    if (stage != kAnyValue && mb == kAnyValue) {
      // Stage known, micro-batch any: the step range, filtered.
      const auto [first, last] = range(rank, lane, step, kAnyValue, kAnyValue);
      for (const Entry* e = first; e != last; ++e)
        if (e->stage == stage) fn(e->index);
      return;
    }
    const auto [first, last] = range(rank, lane, step, stage, mb);
    for (const Entry* e = first; e != last; ++e)
      fn(e->index);
  }

 private:
  struct Entry {
    std::int32_t step, stage, mb;
    std::size_t index;
  };
  // Entries of (rank, lane) with this step and, unless both are kAnyValue, stage and mb.
  std::pair<const Entry*, const Entry*> range(int rank, Lane lane, std::int32_t step,
                                              std::int32_t stage, std::int32_t mb) const;

  const RunTrace& run_;
  bool optimizerPerRank_ = false;    // the run's optimizer_sync is "none"
  std::vector<int> everyRank_;       // the ranks present (PresentRanks.h)
  std::vector<bool> peerWaitNames_;  // per interned name: a split transfer's waiting part
  std::vector<std::array<std::vector<Entry>, kLaneCount>> lanes_;  // sorted by (step, stage, mb)
};

}  // namespace ps::trace
