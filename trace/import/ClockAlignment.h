#pragma once
// Puts the ranks of a multi-file import on one time axis (issue 6 item 4). Each rank's profile
// is on its node's clock; cross-node clocks disagree by microseconds to milliseconds, more than
// a pipeline op lasts. Three ways to fit the per-rank offsets, selectable:
//   wall        trust the files' UTC bases (nsys utcEpochNs, Kineto baseTimeNanoseconds);
//   collective  the k-th collective (all-reduce, ...) ends at the same instant on every rank;
//   p2p         the k-th send from a to b and the k-th receive on b from a end together (NCCL
//               send/recv kernels complete when the data has landed); offsets are the least-
//               squares fit over all rank pairs, then checked against causality (a receive
//               cannot finish before its send starts). Host-side transfers (CPU ranges, e.g.
//               gloo with isend posts that end in microseconds) do not end together: for them
//               the offsets are fitted by causality alone, the middle of the interval that
//               keeps every receive ending after its send starts (ClockCausality.h), and that
//               interval is reported.
// Auto picks p2p when every rank has matched pairs, else collective, else wall.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/OpBuilder.h"

namespace ps::trace::import {

enum class AlignMode { Auto, Wall, Collective, P2p };
std::string_view alignModeName(AlignMode mode);
std::optional<AlignMode> parseAlignMode(std::string_view name);

struct ClockAlignment {
  AlignMode used = AlignMode::Wall;
  // Per rank (index = rank): add to the rank's own times to get rank 0's clock.
  std::vector<std::int64_t> offsetNs;
  // Largest disagreement left after the fit among the matched events (0 for wall/one rank).
  std::int64_t residualNs = 0;
  std::int64_t matchedEvents = 0;        // collectives or send/recv pairs used
  std::int64_t causalityViolations = 0;  // p2p: receives that end before their send starts
  // p2p fitted by causality (host-side transfers): per rank, the offsets causality allows,
  // offsetLowNs[r] <= offsetNs[r] <= offsetHighNs[r] (INT64_MIN / INT64_MAX where nothing bounds
  // that side). residualNs is then the largest half-width of a bounded interval. Empty otherwise.
  std::vector<std::int64_t> offsetLowNs, offsetHighNs;
  std::vector<std::string> notes;  // e.g. "rank 3 has no matched pairs: wall clock used"
};

// `wallOffsetNs[r]`: the rank's local->UTC offset when its file says. Errors name what is
// missing for an explicitly requested mode.
Result<ClockAlignment> alignClocks(const std::vector<RankOps>& ranks,
                                   const std::vector<std::optional<std::int64_t>>& wallOffsetNs,
                                   AlignMode mode);

// Matched send/recv pairs as (rank a, index in a's ops, rank b, index in b's ops): the k-th
// send from a to b with the k-th receive on b from a, each in start order.
struct P2pPair {
  int sendRank;
  std::size_t sendOp;
  int recvRank;
  std::size_t recvOp;
};
std::vector<P2pPair> matchP2pPairs(const std::vector<RankOps>& ranks);

}  // namespace ps::trace::import
