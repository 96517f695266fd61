#include "trace/import/ClockCausality.h"

#include <algorithm>
#include <deque>
#include <map>

namespace ps::trace::import {
namespace {

__extension__ typedef __int128 Wide;

// Offsets past +-2^62 ns only come from corrupt times, which the import then refuses
// (TimeBounds); sums are kept inside so that they never wrap.
constexpr std::int64_t kLimit = std::int64_t{1} << 62;
constexpr std::int64_t kUnreached = kUnboundedAbove;

std::int64_t clampWide(Wide v) {
  return static_cast<std::int64_t>(std::clamp<Wide>(v, -kLimit, kLimit));
}

// adjacency[u]: (v, w) for the constraint x_v <= x_u + w.
using Adjacency = std::vector<std::vector<std::pair<int, std::int64_t>>>;

enum class Relaxed { Ok, NegativeCycle, TooLarge };

// Lowers each finite x[v] to min over constraints x[u] + w until every constraint holds
// (queue-based Bellman-Ford: from {0, unreached...} it is the shortest paths from rank 0).
// Linear in the edges for a chain of ranks; capped for pathological graphs.
Relaxed relax(const Adjacency& adjacency, std::vector<std::int64_t>& x) {
  const std::size_t n = x.size();
  std::size_t edges = 0;
  for (const auto& out : adjacency)
    edges += out.size();
  std::deque<int> queue;
  std::vector<bool> queued(n, false);
  std::vector<std::size_t> visits(n, 0);
  for (std::size_t r = 0; r < n; ++r)
    if (x[r] != kUnreached) {
      queue.push_back(static_cast<int>(r));
      queued[r] = true;
    }
  std::size_t work = 0;
  const std::size_t cap = 64 * (n + edges) + 1'000'000;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    queued[u] = false;
    if (++visits[u] > n) return Relaxed::NegativeCycle;
    for (const auto& [v, w] : adjacency[u]) {
      if (++work > cap) return Relaxed::TooLarge;
      const std::int64_t candidate = clampWide(Wide{x[u]} + w);
      if (candidate >= x[v]) continue;
      x[v] = candidate;
      if (!queued[v]) {
        queue.push_back(v);
        queued[v] = true;
      }
    }
  }
  return Relaxed::Ok;
}

}  // namespace

bool hostSideTransfers(const std::vector<RankOps>& ranks, const std::vector<P2pPair>& pairs) {
  auto host = [&](int rank, std::size_t op) {
    const auto& timed = ranks[static_cast<std::size_t>(rank)].hostTimed;
    return op < timed.size() && timed[op];
  };
  return !pairs.empty() && std::all_of(pairs.begin(), pairs.end(), [&](const P2pPair& p) {
    return host(p.sendRank, p.sendOp) || host(p.recvRank, p.recvOp);
  });
}

CausalFit fitByCausality(const std::vector<RankOps>& ranks, const std::vector<P2pPair>& pairs,
                         const std::vector<std::int64_t>& estimateNs) {
  const std::size_t n = ranks.size();
  CausalFit fit;
  // The tightest constraint per (sending rank, receiving rank): o_a - o_b <= W.
  std::map<std::pair<int, int>, std::int64_t> tightest;
  for (const auto& p : pairs) {
    const auto& send = ranks[static_cast<std::size_t>(p.sendRank)].ops[p.sendOp];
    const auto& recv = ranks[static_cast<std::size_t>(p.recvRank)].ops[p.recvOp];
    const std::int64_t w = clampWide(Wide{recv.end_ns} - send.start_ns);
    auto [it, fresh] = tightest.try_emplace({p.sendRank, p.recvRank}, w);
    if (!fresh) it->second = std::min(it->second, w);
  }
  Adjacency upper(n), lower(n);  // x_a <= x_b + W, and the same read as -x_b <= -x_a + W
  for (const auto& [key, w] : tightest) {
    upper[static_cast<std::size_t>(key.second)].emplace_back(key.first, w);
    lower[static_cast<std::size_t>(key.first)].emplace_back(key.second, w);
  }

  auto fromRank0 = [&](const Adjacency& adjacency, std::vector<std::int64_t>& x) {
    x.assign(n, kUnreached);
    if (n > 0) x[0] = 0;
    return relax(adjacency, x);
  };
  std::vector<std::int64_t> high, negLow;
  for (const Relaxed r : {fromRank0(upper, high), fromRank0(lower, negLow)}) {
    if (r == Relaxed::NegativeCycle) fit.outcome = CausalFit::Outcome::Infeasible;
    if (r == Relaxed::TooLarge && fit.outcome == CausalFit::Outcome::Fitted)
      fit.outcome = CausalFit::Outcome::TooLarge;
  }
  if (fit.outcome != CausalFit::Outcome::Fitted) return fit;
  fit.highNs = high;
  fit.lowNs.resize(n);
  for (std::size_t r = 0; r < n; ++r)
    fit.lowNs[r] = negLow[r] == kUnreached ? kUnboundedBelow : -negLow[r];

  // The middle where both sides are bounded (the lows and the highs are each feasible, so is
  // their middle); the estimate moved into the half-line where one side is; then raised where a
  // constraint still asks for it (one-sided ranks next to each other).
  std::vector<std::int64_t> negX(n);
  for (std::size_t r = 0; r < n; ++r) {
    const std::int64_t lo = fit.lowNs[r], hi = fit.highNs[r];
    std::int64_t x = r < estimateNs.size() ? estimateNs[r] : 0;
    if (lo != kUnboundedBelow && hi != kUnboundedAbove)
      x = clampWide((Wide{lo} + hi) / 2);
    else if (lo != kUnboundedBelow)
      x = std::max(x, lo);
    else if (hi != kUnboundedAbove)
      x = std::min(x, hi);
    negX[r] = -std::clamp(x, -kLimit, kLimit);
  }
  if (const Relaxed r = relax(lower, negX); r != Relaxed::Ok) {
    fit.outcome =
        r == Relaxed::NegativeCycle ? CausalFit::Outcome::Infeasible : CausalFit::Outcome::TooLarge;
    return fit;
  }
  fit.offsetNs.resize(n);
  const std::int64_t anchor = n > 0 ? -negX[0] : 0;  // rank 0 stays the reference clock
  for (std::size_t r = 0; r < n; ++r)
    fit.offsetNs[r] = clampWide(Wide{-negX[r]} - anchor);
  return fit;
}

}  // namespace ps::trace::import
