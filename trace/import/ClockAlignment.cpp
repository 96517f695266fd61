#include "trace/import/ClockAlignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "trace/Units.h"
#include "trace/import/ClockCausality.h"

namespace ps::trace::import {
namespace {

std::int64_t median(std::vector<std::int64_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

bool isCollective(OpKind k) {
  return k == OpKind::AR || k == OpKind::A2A;
}

// Per rank, the indexes of ops matching `pred`, in start order.
template <typename Pred>
std::vector<std::size_t> opsInStartOrder(const RankOps& rank, Pred pred) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rank.ops.size(); ++i)
    if (pred(rank.ops[i])) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return rank.ops[a].start_ns < rank.ops[b].start_ns;
  });
  return out;
}

Result<ClockAlignment> alignWall(std::size_t n,
                                 const std::vector<std::optional<std::int64_t>>& wall,
                                 bool required) {
  ClockAlignment out;
  out.used = AlignMode::Wall;
  out.offsetNs.assign(n, 0);
  for (std::size_t r = 1; r < n; ++r) {  // rank 0 is the reference clock
    if (wall[r] && wall[0]) {
      if (__builtin_sub_overflow(*wall[r], *wall[0], &out.offsetNs[r]))
        return Error{"clock alignment (wall): rank " + std::to_string(r) + "'s wall-clock base (" +
                     std::to_string(*wall[r]) + " ns) and rank 0's (" + std::to_string(*wall[0]) +
                     " ns) lie too far apart: a corrupt baseTimeNanoseconds or session start?"};
    } else if (n > 1) {
      if (required)
        return Error{"--align wall: rank " + std::to_string(r) +
                     "'s file has no wall-clock base (nsys session start / Kineto "
                     "baseTimeNanoseconds); use --align collective or p2p"};
      out.notes.push_back("rank " + std::to_string(r) +
                          " has no wall-clock base: its clock is taken as rank 0's");
    }
  }
  return out;
}

Result<ClockAlignment> alignCollective(const std::vector<RankOps>& ranks) {
  ClockAlignment out;
  out.used = AlignMode::Collective;
  out.offsetNs.assign(ranks.size(), 0);
  std::vector<std::vector<std::size_t>> coll;
  for (const auto& r : ranks)
    coll.push_back(opsInStartOrder(r, [](const OpRecord& op) { return isCollective(op.kind); }));
  std::size_t k = SIZE_MAX;
  for (const auto& c : coll)
    k = std::min(k, c.size());
  if (k == 0 || k == SIZE_MAX)
    return Error{"--align collective: " +
                 std::string(ranks.empty() ? "no ranks"
                                           : "some rank has no collective (all-reduce, "
                                             "all-gather, ...) to align on")};
  for (std::size_t r = 1; r < ranks.size(); ++r)
    if (coll[r].size() != coll[0].size())
      out.notes.push_back("rank " + std::to_string(r) + " has " + std::to_string(coll[r].size()) +
                          " collectives, rank 0 has " + std::to_string(coll[0].size()) +
                          ": the first " + std::to_string(k) + " are matched in order");
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    std::vector<std::int64_t> d;
    for (std::size_t i = 0; i < k; ++i)
      d.push_back(ranks[0].ops[coll[0][i]].end_ns - ranks[r].ops[coll[r][i]].end_ns);
    out.offsetNs[r] = median(d);
    for (std::size_t i = 0; i < k; ++i)
      out.residualNs = std::max(out.residualNs, std::abs(d[i] - out.offsetNs[r]));
  }
  out.matchedEvents = static_cast<std::int64_t>(k);
  return out;
}

// Host-side transfers: replaces the "ends together" offsets in `out` (kept as the estimate
// where causality bounds a rank on one side only) by the causality fit and says how well it
// knows each; false, with a note, when causality cannot be met (the estimate then stays).
bool fitCausally(const std::vector<RankOps>& ranks, const std::vector<P2pPair>& pairs,
                 ClockAlignment& out) {
  const CausalFit fit = fitByCausality(ranks, pairs, out.offsetNs);
  if (fit.outcome != CausalFit::Outcome::Fitted) {
    out.notes.push_back(
        fit.outcome == CausalFit::Outcome::Infeasible
            ? "the transfers are host-side, but no clock offsets let every receive end after "
              "its send starts (pairs mismatched?): offsets fitted on send and receive ends"
            : "the transfers are host-side, but their causality constraints are too many to "
              "solve: offsets fitted on send and receive ends");
    return false;
  }
  out.offsetNs = fit.offsetNs;
  out.offsetLowNs = fit.lowNs;
  out.offsetHighNs = fit.highNs;
  out.notes.push_back(
      "p2p on host-side transfers (CPU ranges: a send may be a post that ends "
      "long before its receive): offsets fitted by causality over " +
      std::to_string(pairs.size()) +
      " pairs, each in the middle of what keeps every receive ending after its "
      "send starts");
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    const std::int64_t lo = fit.lowNs[r], hi = fit.highNs[r];
    const std::string rank = "rank " + std::to_string(r) + ": offset ";
    if (lo != kUnboundedBelow && hi != kUnboundedAbove) {
      out.residualNs = std::max(out.residualNs, (hi - lo) / 2);
      out.notes.push_back(rank + "known within ±" + formatDuration((hi - lo) / 2) + " (" +
                          formatDuration(lo) + " to " + formatDuration(hi) + ")");
    } else if (lo != kUnboundedBelow || hi != kUnboundedAbove) {
      out.notes.push_back(rank +
                          (lo != kUnboundedBelow ? "at least " + formatDuration(lo)
                                                 : "at most " + formatDuration(hi)) +
                          ": no transfer the other way bounds it; " +
                          formatDuration(fit.offsetNs[r]) + " taken");
    }
  }
  return true;
}

Result<ClockAlignment> alignP2p(const std::vector<RankOps>& ranks,
                                const std::vector<std::optional<std::int64_t>>& wall,
                                bool required) {
  const std::size_t n = ranks.size();
  ClockAlignment out;
  out.used = AlignMode::P2p;
  out.offsetNs.assign(n, 0);
  const auto pairs = matchP2pPairs(ranks);
  // Per rank pair, the median of (send end - receive end): o_recv - o_send should equal it.
  std::map<std::pair<int, int>, std::vector<std::int64_t>> diffs;
  for (const auto& p : pairs)
    diffs[{p.sendRank, p.recvRank}].push_back(ranks[p.sendRank].ops[p.sendOp].end_ns -
                                              ranks[p.recvRank].ops[p.recvOp].end_ns);
  struct Edge {
    int a, b;
    double d;  // o_b - o_a
    double weight;
  };
  std::vector<Edge> edges;
  for (const auto& [key, d] : diffs)
    edges.push_back(
        {key.first, key.second, static_cast<double>(median(d)), static_cast<double>(d.size())});

  // Each rank's edges: the passes below are linear in the edges, not ranks x edges (threads as
  // ranks makes thousands of ranks).
  std::vector<std::vector<std::size_t>> edgesOf(n);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edgesOf[static_cast<std::size_t>(edges[i].a)].push_back(i);
    edgesOf[static_cast<std::size_t>(edges[i].b)].push_back(i);
  }
  // Connected component of rank 0 by breadth-first search gives the first guess.
  std::vector<bool> known(n, false);
  std::vector<double> o(n, 0.0);
  known[0] = true;
  std::vector<std::size_t> queue{0};
  for (std::size_t next = 0; next < queue.size(); ++next) {
    for (const std::size_t i : edgesOf[queue[next]]) {
      const Edge& e = edges[i];
      if (known[e.a] && !known[e.b]) {
        o[e.b] = o[e.a] + e.d;
        known[e.b] = true;
        queue.push_back(static_cast<std::size_t>(e.b));
      } else if (known[e.b] && !known[e.a]) {
        o[e.a] = o[e.b] - e.d;
        known[e.a] = true;
        queue.push_back(static_cast<std::size_t>(e.a));
      }
    }
  }
  for (std::size_t r = 1; r < n; ++r) {
    if (known[r]) continue;
    if (required && !wall[r])
      return Error{"--align p2p: rank " + std::to_string(r) +
                   " has no send/receive matched with the other ranks (peer ranks unknown?); "
                   "use --align collective or wall"};
    if (wall[r] && wall[0]) o[r] = static_cast<double>(*wall[r] - *wall[0]);
    out.notes.push_back(
        "rank " + std::to_string(r) + " has no matched send/receive pairs: " +
        (wall[r] && wall[0] ? "wall clock used" : "its clock is taken as rank 0's"));
  }
  // Least squares over a cyclic pair graph: Gauss-Seidel on the weighted Laplacian, rank 0 fixed.
  for (int iter = 0; iter < 200; ++iter) {
    for (std::size_t r = 1; r < n; ++r) {
      if (!known[r]) continue;
      double sum = 0, weight = 0;
      for (const std::size_t i : edgesOf[r]) {
        const Edge& e = edges[i];
        if (e.b == static_cast<int>(r)) {
          sum += e.weight * (o[e.a] + e.d);
          weight += e.weight;
        } else if (e.a == static_cast<int>(r)) {
          sum += e.weight * (o[e.b] - e.d);
          weight += e.weight;
        }
      }
      if (weight > 0) o[r] = sum / weight;
    }
  }
  // Clamped: offsets past +-2^62 ns only come from corrupt times, which the import then refuses
  // (TimeBounds) instead of wrapping here.
  constexpr double kMaxOffset = 4.6e18;
  for (std::size_t r = 0; r < n; ++r)
    out.offsetNs[r] = std::llround(std::clamp(o[r], -kMaxOffset, kMaxOffset));
  const bool causal = hostSideTransfers(ranks, pairs) && fitCausally(ranks, pairs, out);
  // Wide: a time plus an offset can pass 2^63 before the import refuses it (TimeBounds).
  __extension__ typedef __int128 Wide;
  for (const auto& p : pairs) {
    const auto& send = ranks[p.sendRank].ops[p.sendOp];
    const auto& recv = ranks[p.recvRank].ops[p.recvOp];
    const Wide sendEnd = Wide{send.end_ns} + out.offsetNs[p.sendRank];
    const Wide recvEnd = Wide{recv.end_ns} + out.offsetNs[p.recvRank];
    const Wide residual = sendEnd > recvEnd ? sendEnd - recvEnd : recvEnd - sendEnd;
    if (!causal)
      out.residualNs = static_cast<std::int64_t>(std::min<Wide>(
          std::max<Wide>(out.residualNs, residual), std::numeric_limits<std::int64_t>::max()));
    if (recvEnd < Wide{send.start_ns} + out.offsetNs[p.sendRank]) ++out.causalityViolations;
  }
  out.matchedEvents = static_cast<std::int64_t>(pairs.size());
  if (out.causalityViolations > 0)
    out.notes.push_back(std::to_string(out.causalityViolations) +
                        " receives still end before their send starts: the pairs may be "
                        "mismatched (check the peer ranks)");
  return out;
}

bool everyRankPaired(const std::vector<RankOps>& ranks) {
  std::vector<bool> paired(ranks.size(), false);
  for (const auto& p : matchP2pPairs(ranks))
    paired[p.sendRank] = paired[p.recvRank] = true;
  return std::all_of(paired.begin(), paired.end(), [](bool b) { return b; });
}

bool everyRankHasCollectives(const std::vector<RankOps>& ranks) {
  return std::all_of(ranks.begin(), ranks.end(), [](const RankOps& r) {
    return std::any_of(r.ops.begin(), r.ops.end(),
                       [](const OpRecord& op) { return isCollective(op.kind); });
  });
}

}  // namespace

std::string_view alignModeName(AlignMode mode) {
  switch (mode) {
    case AlignMode::Auto:
      return "auto";
    case AlignMode::Wall:
      return "wall";
    case AlignMode::Collective:
      return "collective";
    case AlignMode::P2p:
      return "p2p";
  }
  return "auto";
}

std::optional<AlignMode> parseAlignMode(std::string_view name) {
  for (AlignMode m : {AlignMode::Auto, AlignMode::Wall, AlignMode::Collective, AlignMode::P2p})
    if (alignModeName(m) == name) return m;
  return std::nullopt;
}

std::vector<P2pPair> matchP2pPairs(const std::vector<RankOps>& ranks) {
  const int n = static_cast<int>(ranks.size());
  // sends[a][b] / recvs[b][a]: op indexes in start order.
  std::map<std::pair<int, int>, std::vector<std::size_t>> sends, recvs;
  for (int r = 0; r < n; ++r) {
    const auto& ops = ranks[r].ops;
    for (std::size_t i : opsInStartOrder(ranks[r], [](const OpRecord& op) {
           return (isSend(op.kind) || isRecv(op.kind)) && op.peer_rank;
         })) {
      const int peer = *ops[i].peer_rank;
      if (peer < 0 || peer >= n || peer == r) continue;
      (isSend(ops[i].kind) ? sends[{r, peer}] : recvs[{peer, r}]).push_back(i);
    }
  }
  std::vector<P2pPair> out;
  for (const auto& [key, s] : sends) {
    auto it = recvs.find(key);
    if (it == recvs.end()) continue;
    const std::size_t k = std::min(s.size(), it->second.size());
    for (std::size_t i = 0; i < k; ++i)
      out.push_back({key.first, s[i], key.second, it->second[i]});
  }
  return out;
}

Result<ClockAlignment> alignClocks(const std::vector<RankOps>& ranks,
                                   const std::vector<std::optional<std::int64_t>>& wallOffsetNs,
                                   AlignMode mode) {
  const std::size_t n = ranks.size();
  if (wallOffsetNs.size() != n) return Error{"internal: one wall offset per rank expected"};
  if (n <= 1) {
    ClockAlignment one;
    one.used = mode == AlignMode::Auto ? AlignMode::Wall : mode;
    one.offsetNs.assign(n, 0);
    return one;
  }
  switch (mode) {
    case AlignMode::Wall:
      return alignWall(n, wallOffsetNs, true);
    case AlignMode::Collective:
      return alignCollective(ranks);
    case AlignMode::P2p:
      return alignP2p(ranks, wallOffsetNs, true);
    case AlignMode::Auto:
      break;
  }
  if (everyRankPaired(ranks)) return alignP2p(ranks, wallOffsetNs, false);
  if (everyRankHasCollectives(ranks)) return alignCollective(ranks);
  return alignWall(n, wallOffsetNs, false);
}

}  // namespace ps::trace::import
