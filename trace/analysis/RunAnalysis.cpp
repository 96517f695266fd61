#include "trace/analysis/RunAnalysis.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "trace/analysis/ConfigJson.h"
#include "trace/analysis/PresentRanks.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {
namespace {

// Streams intervals sorted by start and accumulates the length of their union.
struct UnionAccumulator {
  std::int64_t curStart = 0, curEnd = 0, total = 0;
  bool open = false;
  void add(std::int64_t s, std::int64_t e) {
    if (!open) {
      curStart = s;
      curEnd = e;
      open = true;
    } else if (s > curEnd) {
      total = satAdd(total, satSub(curEnd, curStart));
      curStart = s;
      curEnd = e;
    } else {
      curEnd = std::max(curEnd, e);
    }
  }
  std::int64_t finish() const { return open ? satAdd(total, satSub(curEnd, curStart)) : total; }
};

// Mean of int64 values held as a double, back to int64 without the UB of an out-of-range cast.
std::int64_t roundToInt64(double v) {
  constexpr double kMax = 9.2233720368547748e18;  // largest double below 2^63
  if (!(v < kMax)) return std::numeric_limits<std::int64_t>::max();
  if (!(v > -kMax)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v + 0.5);
}

std::vector<StepStats> computeSteps(const RunTrace& run, const std::vector<int>& steps,
                                    const std::vector<bool>& present) {
  const std::size_t R = run.ranks.size();
  const auto presentCount = static_cast<double>(std::count(present.begin(), present.end(), true));
  std::unordered_map<int, std::size_t> index;
  std::vector<StepStats> out(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    index[steps[i]] = i;
    out[i].step = steps[i];
    out[i].start_ns = std::numeric_limits<std::int64_t>::max();
    out[i].end_ns = std::numeric_limits<std::int64_t>::min();
    out[i].rank_busy_ns.assign(R, 0);
  }
  // Per rank, only the steps it has ops in are touched: linear in ops, not ranks x steps.
  std::vector<UnionAccumulator> acc(steps.size());
  std::vector<std::size_t> touched;
  for (std::size_t r = 0; r < R; ++r) {
    const auto& lane = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const auto found = index.find(lane.step[i]);
      if (found == index.end()) continue;  // a step left out (incomplete_last_step)
      const std::size_t k = found->second;
      if (!acc[k].open) touched.push_back(k);
      acc[k].add(lane.start[i], lane.end[i]);
      out[k].start_ns = std::min(out[k].start_ns, lane.start[i]);
      out[k].end_ns = std::max(out[k].end_ns, lane.end[i]);
    }
    for (std::size_t k : touched) {
      out[k].rank_busy_ns[r] = acc[k].finish();
      acc[k] = UnionAccumulator{};
    }
    touched.clear();
  }
  for (auto& s : out) {
    const double span = static_cast<double>(s.span_ns());
    s.rank_bubble.assign(R, 0.0);
    double sum = 0;
    for (std::size_t r = 0; r < R; ++r) {
      s.rank_bubble[r] = span > 0 ? 1.0 - static_cast<double>(s.rank_busy_ns[r]) / span : 0.0;
      if (present[r]) sum += s.rank_bubble[r];
    }
    // The mean over the ranks present (PresentRanks.h), not over every number below the largest.
    s.bubble_ratio = presentCount > 0 ? sum / presentCount : 0.0;
  }
  return out;
}

// Every send, plus activation moves (BPipe), which their owner's rank records: an OFFLOAD goes
// from it to the holder (peer), a RELOAD from the holder back to it; and all-to-all shares
// (Piper, NestPipe), each recorded by its sender with the receiver as peer.
std::vector<LinkSummary> computeLinks(const RunTrace& run) {
  std::map<std::pair<int, int>, std::pair<LinkSummary, UnionAccumulator>> byPair;
  const auto add = [&](int src, int dst, const OpColumns& lane, std::size_t i) {
    auto& [link, acc] = byPair[{src, dst}];
    link.src = src;
    link.dst = dst;
    if (lane.bytes[i] > 0) link.bytes = satAdd(link.bytes, lane.bytes[i]);
    ++link.ops;
    acc.add(lane.start[i], lane.end[i]);
  };
  for (const auto& r : run.ranks) {
    const auto& sends = r.lane(Lane::Send);
    for (std::size_t i = 0; i < sends.size(); ++i)
      if (sends.peer[i] != kNoValue) add(r.info.rank, sends.peer[i], sends, i);
    const auto& moves = r.lane(Lane::Collective);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (moves.peer[i] == kNoValue) continue;
      if (moves.kind[i] == OpKind::OFFLOAD) add(r.info.rank, moves.peer[i], moves, i);
      if (moves.kind[i] == OpKind::RELOAD) add(moves.peer[i], r.info.rank, moves, i);
      if (moves.kind[i] == OpKind::A2A) add(r.info.rank, moves.peer[i], moves, i);
    }
  }
  std::vector<LinkSummary> links;
  links.reserve(byPair.size());
  for (auto& [pair, entry] : byPair) {
    entry.first.busy_ns = entry.second.finish();
    links.push_back(entry.first);
  }
  return links;
}

}  // namespace

std::int64_t unionLength(const std::vector<std::int64_t>& start,
                         const std::vector<std::int64_t>& end) {
  UnionAccumulator acc;
  for (std::size_t i = 0; i < start.size(); ++i)
    acc.add(start[i], end[i]);
  return acc.finish();
}

std::optional<double> steadyStateBubble(const RunTrace& run, const std::vector<int>& steps) {
  if (steps.size() < 3) return std::nullopt;
  const int firstStep = steps[1], lastStep = steps.back();
  double sum = 0;
  int counted = 0;
  for (const auto& r : run.ranks) {
    const auto& lane = r.lane(Lane::Compute);
    std::int64_t from = std::numeric_limits<std::int64_t>::max();
    std::int64_t to = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < lane.size(); ++i) {
      if (lane.step[i] == firstStep) from = std::min(from, lane.start[i]);
      if (lane.step[i] == lastStep) to = std::min(to, lane.start[i]);
    }
    if (from == std::numeric_limits<std::int64_t>::max() ||
        to == std::numeric_limits<std::int64_t>::max() || to <= from)
      continue;
    UnionAccumulator acc;
    for (std::size_t i = lane.lowerBoundStart(from); i < lane.size() && lane.start[i] < to; ++i)
      acc.add(lane.start[i], std::min(lane.end[i], to));
    sum += 1.0 - static_cast<double>(acc.finish()) / static_cast<double>(satSub(to, from));
    ++counted;
  }
  if (!counted) return std::nullopt;
  return sum / counted;
}

RunAnalysis analyzeRun(const RunTrace& run) {
  RunAnalysis a;
  a.run = run.info;
  a.chunks = chunksOf(run.info);
  std::vector<int> steps = distinctComputeSteps(run);
  a.incomplete_last_step = incompleteLastStep(run, steps);
  if (a.incomplete_last_step) steps.pop_back();
  const std::vector<bool> present = presentRankMask(run);
  a.run.num_ranks = static_cast<int>(std::count(present.begin(), present.end(), true));
  a.steps = computeSteps(run, steps, present);
  if (!a.steps.empty()) {
    double spanSum = 0, bubbleSum = 0;
    for (const auto& s : a.steps) {
      spanSum += static_cast<double>(s.span_ns());
      bubbleSum += s.bubble_ratio;
    }
    a.step_time_ns = roundToInt64(spanSum / static_cast<double>(a.steps.size()));
    a.bubble_ratio = bubbleSum / static_cast<double>(a.steps.size());
  }
  if (a.steps.size() >= 2) {
    std::vector<std::int64_t> gaps;
    for (std::size_t k = 1; k < a.steps.size(); ++k)
      gaps.push_back(satSub(a.steps[k].start_ns, a.steps[k - 1].start_ns));
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                     gaps.end());
    a.step_cadence_ns = gaps[gaps.size() / 2];
  }
  a.steady_bubble_ratio = steadyStateBubble(run, steps);
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    if (!present[r]) continue;
    const RankTrace& rt = run.ranks[r];
    RankSummary s;
    s.rank = rt.info.rank;
    const auto& lane = rt.lane(Lane::Compute);
    s.busy_ns = unionLength(lane.start, lane.end);
    if (!a.steps.empty()) {
      double sum = 0;
      for (const auto& st : a.steps)
        sum += st.rank_bubble[r];
      s.bubble_ratio = sum / static_cast<double>(a.steps.size());
    }
    if (rt.memory.size())
      s.peak_memory_bytes = *std::max_element(rt.memory.bytes.begin(), rt.memory.bytes.end());
    s.memory_capacity_bytes = rt.info.memory_capacity_bytes;
    a.ranks.push_back(s);
  }
  a.links = computeLinks(run);
  // Metrics arrive ordered by (name, step, file order): the last row per name wins.
  for (const auto& m : run.metrics)
    a.metrics[m.name] = m.value;
  return a;
}

}  // namespace ps::trace
