#include "runtime/fit/MemoryFit.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "runtime/fit/CostFit.h"

namespace ps::runtime::fit {
namespace {

using trace::OpKind;

// +1 when a micro-batch's forward on the rank ends, -1 when its last backward op there ends.
std::vector<std::pair<std::int64_t, int>> inFlightChanges(const trace::OpColumns& lane) {
  std::map<std::tuple<int, int, int>, std::pair<std::int64_t, std::int64_t>> spans;
  for (std::size_t i = 0; i < lane.size(); ++i) {
    const OpKind k = lane.kind[i];
    if (lane.stage[i] < 0 || lane.microbatch[i] < 0) continue;
    if (k != OpKind::F && k != OpKind::B && k != OpKind::I && k != OpKind::W) continue;
    auto& [fwdEnd, lastBwdEnd] =
        spans.try_emplace({lane.step[i], lane.stage[i], lane.microbatch[i]}, INT64_MIN, INT64_MIN)
            .first->second;
    if (k == OpKind::F)
      fwdEnd = lane.end[i];
    else
      lastBwdEnd = std::max(lastBwdEnd, lane.end[i]);
  }
  std::vector<std::pair<std::int64_t, int>> changes;
  for (const auto& [key, span] : spans) {
    if (span.first == INT64_MIN) continue;
    changes.emplace_back(span.first, +1);
    if (span.second != INT64_MIN) changes.emplace_back(span.second, -1);
  }
  std::sort(changes.begin(), changes.end());
  return changes;
}

}  // namespace

bool MemoryFit::fitted() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const auto& r) { return r.samples > 0; });
}

MemoryFit fitMemory(const trace::RunTrace& run, const RecordedProgram& p) {
  MemoryFit fit;
  fit.ranks.resize(static_cast<std::size_t>(p.ranks));
  for (int r = 0; r < p.ranks && r < static_cast<int>(run.ranks.size()); ++r) {
    const trace::RankTrace& rank = run.ranks[static_cast<std::size_t>(r)];
    const trace::OpColumns& lane = rank.lane(trace::Lane::Compute);
    // The fit steps' window on this rank: first to last compute op of those steps.
    std::int64_t from = INT64_MAX, to = INT64_MIN;
    for (std::size_t i = 0; i < lane.size(); ++i)
      if (std::binary_search(p.fitSteps.begin(), p.fitSteps.end(), lane.step[i])) {
        from = std::min(from, lane.start[i]);
        to = std::max(to, lane.end[i]);
      }
    if (from >= to || rank.memory.size() == 0) continue;
    const auto changes = inFlightChanges(lane);
    std::vector<double> inFlight, bytes;
    std::size_t c = 0;
    int count = 0;
    for (std::size_t m = 0; m < rank.memory.size(); ++m) {
      const std::int64_t t = rank.memory.t[m];
      while (c < changes.size() && changes[c].first <= t)
        count += changes[c++].second;
      if (t < from || t > to) continue;
      inFlight.push_back(count);
      bytes.push_back(static_cast<double>(rank.memory.bytes[m]));
    }
    if (bytes.empty()) continue;
    const LineFit line = fitLine(inFlight, bytes);
    RankMemoryFit& out = fit.ranks[static_cast<std::size_t>(r)];
    out.samples = bytes.size();
    out.perMicrobatchBytes = std::max(0.0, line.slope);
    out.fixedBytes = std::max(
        0.0, line.slope > 0 ? line.intercept : *std::min_element(bytes.begin(), bytes.end()));
  }
  if (!fit.fitted()) fit.notes.push_back("no memory samples: memory not fitted");
  return fit;
}

}  // namespace ps::runtime::fit
