#include "trace/analysis/StepTable.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "trace/analysis/Saturating.h"

namespace ps::trace {

double StepRow::share(IdleCause cause) const {
  const double of =
      static_cast<double>(spanNs) * static_cast<double>(std::max<std::size_t>(1, ranks));
  return of > 0 ? static_cast<double>(idle[cause]) / of : 0.0;
}

Spread spreadOf(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90 = v[std::clamp<std::size_t>(rank, 1, n) - 1];
  s.max = v.back();
  return s;
}

StepTable buildStepTable(const RunAnalysis& analysis, const BubbleAttribution& bubbles) {
  StepTable t;
  std::map<int, std::size_t> rowOf;
  t.rows.reserve(analysis.steps.size());
  for (const StepStats& s : analysis.steps) {
    rowOf.emplace(s.step, t.rows.size());
    StepRow row;
    row.step = s.step;
    row.spanNs = s.span_ns();
    row.bubbleRatio = s.bubble_ratio;
    row.ranks = bubbles.rankCount;
    t.rows.push_back(row);
  }
  for (std::size_t r = 0; r < bubbles.parts.size(); ++r) {
    if (r < bubbles.present.size() && !bubbles.present[r]) continue;
    for (const IdlePart& part : bubbles.parts[r]) {
      const auto it = rowOf.find(part.step);
      if (it == rowOf.end()) continue;  // the incomplete last step
      std::int64_t& ns = t.rows[it->second].idle[part.cause];
      ns = satAdd(ns, satSub(part.end, part.start));
    }
  }
  std::vector<double> spans, ratios, shares;
  for (const StepRow& row : t.rows) {
    spans.push_back(static_cast<double>(row.spanNs));
    ratios.push_back(row.bubbleRatio);
  }
  t.spanNs = spreadOf(std::move(spans));
  t.bubble = spreadOf(std::move(ratios));
  for (int c = 0; c < kIdleCauseCount; ++c) {
    shares.clear();
    for (const StepRow& row : t.rows)
      shares.push_back(row.share(static_cast<IdleCause>(c)));
    t.causeShare[static_cast<std::size_t>(c)] = spreadOf(shares);
  }
  return t;
}

}  // namespace ps::trace
