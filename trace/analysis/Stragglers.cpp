#include "trace/analysis/Stragglers.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "trace/analysis/Saturating.h"
#include "trace/analysis/StepTable.h"

namespace ps::trace {
namespace {

bool waitsOnInput(IdleCause c) {
  return c == IdleCause::Warmup || c == IdleCause::Dependency || c == IdleCause::Imbalance ||
         c == IdleCause::Transfer;
}

// What each pipeline op is expected to take: min(its stage's median for the kind, the run's
// median per layer for the kind × the stage's layers). See Stragglers.h.
class ExpectedTimes {
 public:
  explicit ExpectedTimes(const RunTrace& run, const std::vector<bool>& present) {
    for (const StageRecord& s : run.stages)
      if (s.stage >= 0 && !layers_.contains(s.stage))
        layers_[s.stage] = std::max(1, s.last_layer - s.first_layer + 1);
    std::map<std::pair<std::int64_t, OpKind>, std::vector<double>> byPool;
    std::map<OpKind, std::vector<double>> perLayer;
    for (std::size_t r = 0; r < run.ranks.size(); ++r) {
      if (!present[r]) continue;
      const OpColumns& c = run.ranks[r].lane(Lane::Compute);
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (!isPipelineCompute(c.kind[i])) continue;
        const auto d = static_cast<double>(satSub(c.end[i], c.start[i]));
        const std::int64_t pool = poolOf(static_cast<int>(r), c.stage[i]);
        byPool[{pool, c.kind[i]}].push_back(d);
        perLayer[c.kind[i]].push_back(d / layersOf(c.stage[i]));
      }
    }
    for (auto& [key, v] : byPool)
      poolMedian_[key] = spreadOf(std::move(v)).median;
    for (auto& [kind, v] : perLayer)
      layerMedian_[kind] = spreadOf(std::move(v)).median;
  }

  double of(int rank, std::int32_t stage, OpKind kind) const {
    const auto pool = poolMedian_.find({poolOf(rank, stage), kind});
    const auto layer = layerMedian_.find(kind);
    if (pool == poolMedian_.end() || layer == layerMedian_.end()) return 0.0;
    return std::min(pool->second, layer->second * layersOf(stage));
  }

 private:
  // A stage, or (for ops without one) a pool of the rank's own: -1 - rank.
  static std::int64_t poolOf(int rank, std::int32_t stage) {
    return stage >= 0 ? stage : -1 - static_cast<std::int64_t>(rank);
  }
  double layersOf(std::int32_t stage) const {
    const auto it = stage >= 0 ? layers_.find(stage) : layers_.end();
    return it == layers_.end() ? 1.0 : static_cast<double>(it->second);
  }

  std::map<std::int32_t, int> layers_;
  std::map<std::pair<std::int64_t, OpKind>, double> poolMedian_;
  std::map<OpKind, double> layerMedian_;
};

// Per compute op: whether the chain of ops that held it (its latest input when that ended after
// the rank's previous op, else that previous op) went through a culprit of its step. Ops are
// visited in start order over all ranks, so what held an op has been visited before it.
std::vector<std::vector<char>> heldByCulprit(const StepGraph& g, const std::vector<bool>& present,
                                             const std::vector<std::vector<char>>& culprit) {
  const RunTrace& run = g.run();
  std::vector<std::vector<char>> tainted(run.ranks.size());
  std::vector<std::tuple<std::int64_t, int, std::size_t>> order;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    if (!present[r]) continue;
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    tainted[r].assign(c.size(), 0);
    for (std::size_t i = 0; i < c.size(); ++i)
      order.emplace_back(c.start[i], static_cast<int>(r), i);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [start, r, i] : order) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    const auto k = g.stepIndex(c.step[i]);
    if (k && culprit[r][*k]) {
      tainted[r][i] = 1;
      continue;
    }
    const OpRef op{r, Lane::Compute, i};
    const auto prev = g.previousOnRank(op);
    const auto wait = g.latestInput(op);
    std::optional<OpRef> holder = prev;
    if (wait && wait->producer.valid() && wait->producer.lane == Lane::Compute &&
        (!prev || wait->readyNs > c.end[prev->index]))
      holder = wait->producer;
    if (holder && static_cast<std::size_t>(holder->rank) < tainted.size() &&
        holder->index < tainted[holder->rank].size())
      tainted[r][i] = tainted[holder->rank][holder->index];
  }
  return tainted;
}

// The median of the sorted values but the one at `skip` (1 when no other is left).
double medianWithout(const std::vector<std::pair<double, std::size_t>>& sorted, std::size_t skip) {
  const std::size_t m = sorted.size() - 1;
  if (m == 0) return 1.0;
  const auto at = [&](std::size_t j) { return sorted[j < skip ? j : j + 1].first; };
  return m % 2 == 1 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2.0;
}

}  // namespace

std::vector<int> StepStragglers::culprits() const {
  std::vector<int> out;
  for (const RankStepVerdict& v : ranks)
    if (v.culprit) out.push_back(v.rank);
  return out;
}

double StragglerRow::culpritShare(int totalSteps) const {
  return totalSteps > 0 ? static_cast<double>(culpritSteps) / totalSteps : 0.0;
}

double StragglerRow::victimShare(int totalSteps) const {
  return totalSteps > 0 ? static_cast<double>(victimSteps) / totalSteps : 0.0;
}

std::vector<int> StragglerTable::flaggedRanks() const {
  std::vector<int> out;
  for (const StragglerRow& row : ranks)
    if (row.flagged) out.push_back(row.rank);
  return out;
}

StragglerTable findStragglers(const StepGraph& g, const BubbleAttribution& bubbles,
                              const std::vector<int>& steps, double margin) {
  const RunTrace& run = g.run();
  const std::size_t R = run.ranks.size(), K = g.steps().size();
  std::vector<bool> present = bubbles.present;
  present.resize(R, false);
  const ExpectedTimes expected(run, present);

  // Per present rank and step index: the verdict's numbers. First each rank's pace.
  std::vector<std::vector<RankStepVerdict>> verdicts(R);
  std::vector<std::vector<double>> took(R);
  std::vector<double> ratios;
  for (std::size_t r = 0; r < R; ++r) {
    if (!present[r]) continue;
    verdicts[r].resize(K);
    took[r].assign(K, 0.0);
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t k = 0; k < K; ++k) {
      RankStepVerdict& v = verdicts[r][k];
      v.rank = static_cast<int>(r);
      ratios.clear();
      for (std::size_t i : g.ops(static_cast<int>(r), k)) {
        if (!isPipelineCompute(c.kind[i])) continue;
        v.finishNs = v.hasWork ? std::max(v.finishNs, c.end[i]) : c.end[i];
        v.hasWork = true;
        const auto d = static_cast<double>(satSub(c.end[i], c.start[i]));
        took[r][k] += d;
        const double want = expected.of(static_cast<int>(r), c.stage[i], c.kind[i]);
        if (want > 0) ratios.push_back(d / want);
      }
      if (!ratios.empty()) v.pace = spreadOf(ratios).median;
    }
  }
  // Then each against its peers of the step: the median pace of the other ranks.
  std::vector<std::vector<char>> culprit(R);
  for (std::size_t r = 0; r < R; ++r)
    if (present[r]) culprit[r].assign(K, 0);
  std::vector<std::pair<double, std::size_t>> paces;
  for (std::size_t k = 0; k < K; ++k) {
    paces.clear();
    for (std::size_t r = 0; r < R; ++r)
      if (present[r] && verdicts[r][k].pace > 0) paces.emplace_back(verdicts[r][k].pace, r);
    std::sort(paces.begin(), paces.end());
    for (std::size_t at = 0; at < paces.size(); ++at) {
      RankStepVerdict& v = verdicts[paces[at].second][k];
      const double peers = medianWithout(paces, at);
      v.slowness = peers > 0 ? v.pace / peers : v.pace;
      v.culprit = v.slowness >= 1.0 + margin;
      if (v.culprit)
        v.excessNs =
            static_cast<std::int64_t>(took[paces[at].second][k] * (1.0 - 1.0 / v.slowness));
      culprit[paces[at].second][k] = v.culprit ? 1 : 0;
    }
  }

  const auto tainted = heldByCulprit(g, present, culprit);
  for (std::size_t r = 0; r < R && r < bubbles.parts.size(); ++r) {
    if (!present[r]) continue;
    for (const IdlePart& part : bubbles.parts[r]) {
      if (!waitsOnInput(part.cause) || !part.before.valid() || part.before.lane != Lane::Compute)
        continue;
      const auto k = g.stepIndex(part.step);
      if (!k || culprit[r][*k] || part.before.index >= tainted[r].size()) continue;
      if (!tainted[r][part.before.index]) continue;
      RankStepVerdict& v = verdicts[r][*k];
      v.victim = true;
      v.waitedNs = satAdd(v.waitedNs, satSub(part.end, part.start));
    }
  }

  StragglerTable table;
  table.margin = margin;
  for (std::size_t r = 0; r < R; ++r)
    if (present[r]) table.ranks.push_back({static_cast<int>(r)});
  for (int step : steps) {
    const auto k = g.stepIndex(step);
    if (!k) continue;
    StepStragglers s;
    s.step = step;
    std::int64_t latest = 0, next = 0;
    bool two = false;
    for (std::size_t r = 0; r < R; ++r) {
      if (!present[r]) continue;
      const RankStepVerdict& v = verdicts[r][*k];
      s.ranks.push_back(v);
      if (!v.hasWork) continue;
      if (s.lastRank < 0 || v.finishNs > latest) {
        if (s.lastRank >= 0) {
          next = latest;
          two = true;
        }
        latest = v.finishNs;
        s.lastRank = v.rank;
      } else if (!two || v.finishNs > next) {
        next = v.finishNs;
        two = true;
      }
    }
    s.lastByNs = two ? satSub(latest, next) : 0;
    for (std::size_t j = 0; j < s.ranks.size(); ++j) {
      const RankStepVerdict& v = s.ranks[j];
      StragglerRow& row = table.ranks[j];
      if (v.hasWork) ++row.steps;
      if (v.culprit) {
        ++row.culpritSteps;
        row.excessSumNs = satAdd(row.excessSumNs, v.excessNs);
        row.slownessSum += v.slowness;
      }
      if (v.victim) {
        ++row.victimSteps;
        row.waitedSumNs = satAdd(row.waitedSumNs, v.waitedNs);
      }
      if (v.rank == s.lastRank) {
        ++row.finishedLast;
        row.lastBySumNs = satAdd(row.lastBySumNs, s.lastByNs);
        if (v.culprit) ++row.lastAsCulprit;
        if (v.victim) ++row.lastAsVictim;
      }
    }
    table.steps.push_back(std::move(s));
  }
  const auto judged = static_cast<double>(table.steps.size());
  for (StragglerRow& row : table.ranks)
    row.flagged = row.culpritSteps > 0 && row.culpritSteps >= kFlagShare * judged;
  return table;
}

}  // namespace ps::trace
