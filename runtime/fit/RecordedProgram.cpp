#include "runtime/fit/RecordedProgram.h"

#include <algorithm>
#include <map>
#include <set>

namespace ps::runtime::fit {
namespace {

using trace::OpKind;

bool isProgramKind(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W;
}

std::string runLabel(const trace::RunTrace& run) {
  return "run " + std::to_string(run.info.id);
}

// Two compute ops of one rank that overlap by more than a tenth of the shorter one ran as one
// overlapped unit (DualPipe's F and B chunks); a sliver of overlap is timer noise.
bool overlapped(const trace::OpColumns& lane, std::size_t a, std::size_t b) {
  const std::int64_t overlap = std::min(lane.end[a], lane.end[b]) - lane.start[b];
  const std::int64_t shorter = std::min(lane.duration(a), lane.duration(b));
  return overlap > 0 && overlap * 10 > shorter;
}

}  // namespace

int RecordedProgram::microbatchIndex(std::size_t stepIndex, int stored) const {
  if (stepIndex >= microbatchIds.size()) return -1;
  const auto& ids = microbatchIds[stepIndex];
  const auto it = std::lower_bound(ids.begin(), ids.end(), stored);
  return it != ids.end() && *it == stored ? static_cast<int>(it - ids.begin()) : -1;
}

std::size_t RecordedProgram::stepIndexOf(int step) const {
  const auto it = std::lower_bound(steps.begin(), steps.end(), step);
  return it != steps.end() && *it == step ? static_cast<std::size_t>(it - steps.begin())
                                          : steps.size();
}

std::vector<int> fitStepsOf(const std::vector<int>& completeSteps) {
  if (completeSteps.size() < 3) return completeSteps;
  return {completeSteps.begin() + 1, completeSteps.end()};
}

Result<RecordedProgram> readRecordedProgram(const trace::RunTrace& run,
                                            const std::vector<int>& completeSteps) {
  const std::string what = runLabel(run);
  if (completeSteps.empty()) return Error{what + " has no complete step to fit a plan to"};
  RecordedProgram p;
  p.steps = completeSteps;
  std::sort(p.steps.begin(), p.steps.end());
  p.fitSteps = fitStepsOf(p.steps);
  p.referenceStep = p.fitSteps.front();

  std::vector<std::set<int>> ids(p.steps.size());
  std::map<int, int> stageRank;
  std::set<int> computeRanks;
  std::int64_t unlabelled = 0;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const trace::OpColumns& lane = run.ranks[r].lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const OpKind k = lane.kind[i];
      if (k == OpKind::R) p.recompute = true;
      if (k == OpKind::OPT) p.hasOptimizer = true;
      if (!isProgramKind(k)) continue;
      if (lane.stage[i] < 0 || lane.microbatch[i] < 0) {
        ++unlabelled;
        continue;
      }
      const std::size_t s = p.stepIndexOf(lane.step[i]);
      if (s == p.steps.size()) continue;
      if (k == OpKind::I || k == OpKind::W) p.splitBackward = true;
      const auto [it, fresh] = stageRank.emplace(lane.stage[i], static_cast<int>(r));
      if (!fresh && it->second != static_cast<int>(r))
        return Error{what + ": stage " + std::to_string(lane.stage[i]) + " runs on ranks " +
                     std::to_string(it->second) + " and " + std::to_string(r) +
                     ": replicated pipelines (Chimera, data parallelism) cannot be fitted yet"};
      ids[s].insert(lane.microbatch[i]);
      computeRanks.insert(static_cast<int>(r));
    }
  }
  if (unlabelled > 0)
    return Error{
        what + ": " + std::to_string(unlabelled) +
        " forward/backward ops have no stage or micro-batch (their labels do not say which): "
        "give them one with an import rules file (\"stage\", \"microbatch\"), then fit"};
  if (stageRank.empty()) return Error{what + " has no forward or backward ops to fit a plan to"};
  p.stages = stageRank.rbegin()->first + 1;
  for (int s = 0; s < p.stages; ++s) {
    if (!stageRank.contains(s))
      return Error{what + ": stage " + std::to_string(s) + " has no ops (stages 0.." +
                   std::to_string(p.stages - 1) + " expected)"};
    p.rankOfStage.push_back(stageRank[s]);
  }
  p.ranks = static_cast<int>(run.ranks.size());
  for (int r = 0; r < p.ranks; ++r)
    if (!computeRanks.contains(r))
      return Error{what + ": rank " + std::to_string(r) + " has no forward or backward ops"};
  if (p.stages % p.ranks != 0)
    return Error{what + ": " + std::to_string(p.stages) + " stages on " + std::to_string(p.ranks) +
                 " ranks is not a whole number of chunks per rank"};
  p.chunks = p.stages / p.ranks;
  const std::size_t ref = p.stepIndexOf(p.referenceStep);
  p.microbatches = static_cast<int>(ids[ref].size());
  for (std::size_t s = 0; s < ids.size(); ++s) {
    if (static_cast<int>(ids[s].size()) != p.microbatches)
      return Error{what + ": step " + std::to_string(p.steps[s]) + " has " +
                   std::to_string(ids[s].size()) + " micro-batches, step " +
                   std::to_string(p.referenceStep) + " " + std::to_string(p.microbatches) +
                   ": a plan has the same micro-batches every step"};
    p.microbatchIds.emplace_back(ids[s].begin(), ids[s].end());
  }

  // Programs: every complete step's order per rank; the reference step's is the plan's.
  std::vector<std::vector<std::vector<Action>>> orders(p.steps.size(),
                                                       std::vector<std::vector<Action>>(p.ranks));
  std::vector<std::int64_t> lastBackwardEnd(p.steps.size(), INT64_MIN);
  std::vector<std::int64_t> firstOptStart(p.steps.size(), INT64_MAX);
  for (int r = 0; r < p.ranks; ++r) {
    const trace::OpColumns& lane = run.ranks[r].lane(trace::Lane::Compute);
    std::vector<std::size_t> previous(p.steps.size(), SIZE_MAX);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const std::size_t s = p.stepIndexOf(lane.step[i]);
      if (s == p.steps.size()) continue;
      if (lane.kind[i] == OpKind::OPT) firstOptStart[s] = std::min(firstOptStart[s], lane.start[i]);
      if (!isProgramKind(lane.kind[i])) continue;
      if (lane.kind[i] != OpKind::F) lastBackwardEnd[s] = std::max(lastBackwardEnd[s], lane.end[i]);
      auto& order = orders[s][static_cast<std::size_t>(r)];
      Action a;
      a.kind = lane.kind[i];
      a.stage = lane.stage[i];
      a.microbatch = p.microbatchIndex(s, lane.microbatch[i]);
      const std::size_t prev = previous[s];
      const bool prevOpensUnit = order.size() >= 2 && order[order.size() - 2].overlapNext;
      if (prev != SIZE_MAX && !order.back().overlapNext && !prevOpensUnit &&
          overlapped(lane, prev, i))
        order.back().overlapNext = true;
      order.push_back(a);
      previous[s] = i;
    }
  }
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    if (firstOptStart[s] != INT64_MAX && firstOptStart[s] < lastBackwardEnd[s])
      p.optimizerBarrier = false;
  p.programs = orders[ref];
  auto sameOrder = [](const std::vector<Action>& a, const std::vector<Action>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Action& x, const Action& y) {
      return x.kind == y.kind && x.stage == y.stage && x.microbatch == y.microbatch;
    });
  };
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    if (std::equal(orders[s].begin(), orders[s].end(), p.programs.begin(), sameOrder))
      ++p.stepsLikeReference;
  if (p.stepsLikeReference < static_cast<int>(p.steps.size()))
    p.notes.push_back(std::to_string(p.steps.size() - p.stepsLikeReference) + " of " +
                      std::to_string(p.steps.size()) + " steps ran another order than step " +
                      std::to_string(p.referenceStep) + ", whose order the plan keeps");
  return p;
}

}  // namespace ps::runtime::fit
