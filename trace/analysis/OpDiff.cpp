#include "trace/analysis/OpDiff.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::trace {
namespace {

using DiffKey =
    std::tuple<int, std::int32_t, int, std::int32_t, std::int32_t>;  // rank stage kind mb step

struct DiffSeen {
  DiffOp op;
  std::int64_t start = 0, duration = 0;
  std::size_t index = 0;  // in its rank's compute lane
};

// Every compute op of the run by key, in start order per key; starts from its step's start.
std::map<DiffKey, std::vector<DiffSeen>> opsByKey(const RunTrace& run) {
  std::map<std::int32_t, std::int64_t> stepStart;
  for (const auto& r : run.ranks) {
    const OpColumns& c = r.lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i) {
      auto [it, fresh] = stepStart.try_emplace(c.step[i], c.start[i]);
      if (!fresh) it->second = std::min(it->second, c.start[i]);
    }
  }
  std::map<DiffKey, std::vector<DiffSeen>> out;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const DiffOp op{static_cast<int>(r), c.kind[i], c.stage[i], c.microbatch[i], c.step[i]};
      out[{op.rank, op.stage, static_cast<int>(op.kind), op.microbatch, op.step}].push_back(
          {op, c.start[i] - stepStart[c.step[i]], c.end[i] - c.start[i], i});
    }
  }
  return out;
}

std::string signedDuration(std::int64_t ns) {
  return (ns > 0 ? "+" : ns < 0 ? "-" : "") + formatDuration(std::llabs(ns));
}

}  // namespace

std::int64_t OpMove::size() const {
  return std::max(std::llabs(deltaStart()), std::llabs(deltaDuration()));
}

OpDiff diffOps(const RunTrace& a, const RunExplanation* whyA, const RunTrace& b,
               const RunExplanation* whyB) {
  OpDiff diff;
  diff.deltaStartOfB.resize(b.ranks.size());
  for (std::size_t r = 0; r < b.ranks.size(); ++r)
    diff.deltaStartOfB[r].assign(b.ranks[r].lane(Lane::Compute).size(), OpDiff::kUnmatched);
  const auto opsA = opsByKey(a);
  auto opsB = opsByKey(b);
  for (const auto& [key, listA] : opsA) {
    auto it = opsB.find(key);
    const std::size_t both = it == opsB.end() ? 0 : std::min(listA.size(), it->second.size());
    for (std::size_t k = 0; k < listA.size(); ++k) {
      if (k >= both) {
        diff.onlyA.push_back(listA[k].op);
        continue;
      }
      const DiffSeen& other = it->second[k];
      diff.deltaStartOfB[static_cast<std::size_t>(other.op.rank)][other.index] =
          other.start - listA[k].start;
      diff.moves.push_back(
          {listA[k].op, listA[k].start, other.start, listA[k].duration, other.duration});
    }
    if (it != opsB.end()) it->second.erase(it->second.begin(), it->second.begin() + both);
  }
  for (const auto& [key, rest] : opsB)
    for (const DiffSeen& s : rest)
      diff.onlyB.push_back(s.op);
  std::stable_sort(diff.moves.begin(), diff.moves.end(),
                   [](const OpMove& x, const OpMove& y) { return x.size() > y.size(); });
  for (int c = 0; c < kIdleCauseCount && whyA && whyB; ++c) {
    const auto cause = static_cast<IdleCause>(c);
    const double pa = whyA->points(cause), pb = whyB->points(cause);
    diff.causePoints[c] = pb - pa;
    diff.bubblePointsA += pa;
    diff.bubblePointsB += pb;
  }
  return diff;
}

std::string diffOpLabel(const DiffOp& op) {
  std::string kind(opKindName(op.kind));
  std::string out = "r" + std::to_string(op.rank) + ":";
  out += op.stage >= 0 && op.microbatch >= 0
             ? std::to_string(op.stage) + kind + std::to_string(op.microbatch)
             : kind;
  if (op.step != 0) out += " step " + std::to_string(op.step);
  return out;
}

std::string opDiffText(const OpDiff& diff, std::size_t top) {
  char buf[200];
  // The waterfall: the causes that moved, largest first, and the total.
  std::vector<int> order;
  for (int c = 0; c < kIdleCauseCount; ++c)
    if (std::abs(diff.causePoints[c]) >= 0.005) order.push_back(c);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return std::abs(diff.causePoints[x]) > std::abs(diff.causePoints[y]);
  });
  std::string out = "\nbubble change by cause (points of the step, B - A): ";
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%+.2f pts %s", i ? ", " : "", diff.causePoints[order[i]],
                  std::string(idleCauseLabel(static_cast<IdleCause>(order[i]))).c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%s %+.2f pts (%.2f -> %.2f)\n",
                order.empty() ? "no cause moved," : " =", diff.bubblePointsB - diff.bubblePointsA,
                diff.bubblePointsA, diff.bubblePointsB);
  out += buf;
  std::snprintf(buf, sizeof buf, "ops matched %zu; only in A %zu, only in B %zu\n",
                diff.moves.size(), diff.onlyA.size(), diff.onlyB.size());
  out += buf;
  if (!diff.moves.empty()) {
    out +=
        "largest moves (start from the step's start)\nop                  start A       "
        "start B       delta start   duration A    duration B    delta duration\n";
    for (std::size_t i = 0; i < diff.moves.size() && i < top; ++i) {
      const OpMove& m = diff.moves[i];
      out += padRight(diffOpLabel(m.op), 18) + "  " + padRight(formatDuration(m.startA), 12) +
             "  " + padRight(formatDuration(m.startB), 12) + "  " +
             padRight(signedDuration(m.deltaStart()), 12) + "  " +
             padRight(formatDuration(m.durationA), 12) + "  " +
             padRight(formatDuration(m.durationB), 12) + "  " + signedDuration(m.deltaDuration()) +
             "\n";
    }
  }
  for (const auto& [name, list] : {std::pair{"A", &diff.onlyA}, std::pair{"B", &diff.onlyB}}) {
    if (list->empty()) continue;
    out += std::string("only in ") + name + ":";
    for (std::size_t i = 0; i < list->size() && i < top; ++i)
      out += " " + diffOpLabel((*list)[i]);
    out += list->size() > top ? " ...\n" : "\n";
  }
  return out;
}

std::string opDiffJson(const OpDiff& diff, std::size_t top) {
  JsonWriter w;
  w.beginObject()
      .key("matched")
      .value(static_cast<std::int64_t>(diff.moves.size()))
      .key("only_a")
      .value(static_cast<std::int64_t>(diff.onlyA.size()))
      .key("only_b")
      .value(static_cast<std::int64_t>(diff.onlyB.size()));
  w.key("bubble_change_points").beginObject();
  for (int c = 0; c < kIdleCauseCount; ++c)
    w.key(idleCauseLabel(static_cast<IdleCause>(c))).value(diff.causePoints[c]);
  w.endObject().key("moves").beginArray();
  for (std::size_t i = 0; i < diff.moves.size() && i < top; ++i) {
    const OpMove& m = diff.moves[i];
    w.beginObject().key("op").value(diffOpLabel(m.op)).key("rank").value(m.op.rank);
    w.key("kind").value(opKindName(m.op.kind)).key("stage").value(m.op.stage);
    w.key("microbatch").value(m.op.microbatch).key("step").value(m.op.step);
    w.key("start_a_ns").value(m.startA).key("start_b_ns").value(m.startB);
    w.key("duration_a_ns").value(m.durationA).key("duration_b_ns").value(m.durationB);
    w.key("delta_start_ns").value(m.deltaStart()).key("delta_duration_ns").value(m.deltaDuration());
    w.endObject();
  }
  w.endArray();
  for (const auto& [name, list] :
       {std::pair{"unmatched_a", &diff.onlyA}, std::pair{"unmatched_b", &diff.onlyB}}) {
    w.key(name).beginArray();
    for (std::size_t i = 0; i < list->size() && i < top; ++i)
      w.value(diffOpLabel((*list)[i]));
    w.endArray();
  }
  w.endObject();
  return w.str();
}

}  // namespace ps::trace
