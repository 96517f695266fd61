#include "trace/analysis/ReportFormat.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "trace/JsonWriter.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/analysis/FigureCoverage.h"
#include "trace/analysis/OrderFormat.h"

namespace ps::trace {

namespace {

void writeBreakdown(JsonWriter& w, const BubbleBreakdown& b) {
  w.beginObject();
  for (int c = 0; c < kIdleCauseCount; ++c)
    w.key(std::string(idleCauseJsonKey(static_cast<IdleCause>(c)))).value(b.ns[c]);
  w.endObject();
}

// The time the path covers: its last op's end back by its length (the step's start at the
// earliest, CriticalPath.h).
std::pair<std::int64_t, std::int64_t> pathWindow(const RunExplanation::Path& path) {
  std::int64_t end = 0;
  for (const PathOp& op : path.ops)
    end = std::max(end, op.end);
  return {satSub(end, path.lengthNs), end};
}

void writeCriticalPath(JsonWriter& w, const RunExplanation::Path& path) {
  const auto [from, to] = pathWindow(path);
  w.beginObject();
  w.key("step").value(path.step);
  w.key("length_ns").value(path.lengthNs);
  w.key("ops").beginArray();
  for (const PathOp& op : path.ops) {
    w.beginObject();
    w.key("rank").value(op.rank);
    w.key("kind").value(std::string(opKindName(op.kind)));
    w.key("stage").value(op.stage < 0 ? std::nullopt : std::optional<int>(op.stage));
    w.key("microbatch").value(op.microbatch < 0 ? std::nullopt : std::optional<int>(op.microbatch));
    w.key("start_ns").value(op.start);
    w.key("end_ns").value(op.end);
    const std::int64_t within =
        std::max<std::int64_t>(0, satSub(std::min(op.end, to), std::max(op.start, from)));
    w.key("share").value(
        path.lengthNs > 0 ? static_cast<double>(within) / static_cast<double>(path.lengthNs) : 0.0);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

// Whether the steps begin further apart than they last (by more than 10 %): the step time and
// the steady bubble then measure different windows, and the report says which is which.
bool stepsApart(const RunAnalysis& a) {
  return a.step_cadence_ns && a.step_time_ns &&
         static_cast<double>(*a.step_cadence_ns) > 1.1 * static_cast<double>(*a.step_time_ns);
}

// Whether a step starts before the previous one ends (asynchronous schedules: FPDeep's steps
// span 4.5 ms and start every 2.4 ms): the rate is the cadence's, the span a second figure.
bool stepsOverlap(const RunAnalysis& a) {
  return a.step_cadence_ns && a.step_time_ns && *a.step_cadence_ns > 0 &&
         static_cast<double>(*a.step_cadence_ns) < 0.9 * static_cast<double>(*a.step_time_ns);
}

// Samples (micro-batches) per second: of the mean step, or of the cadence where steps overlap
// (one step's micro-batches finish every cadence). An inference pipeline's figure of merit.
std::optional<double> throughputPerSecond(const RunAnalysis& a) {
  if (!a.step_time_ns || *a.step_time_ns <= 0 || !a.run.num_microbatches) return std::nullopt;
  const std::int64_t per = stepsOverlap(a) ? *a.step_cadence_ns : *a.step_time_ns;
  return static_cast<double>(*a.run.num_microbatches) * 1e9 / static_cast<double>(per);
}

}  // namespace

std::string reportJson(const RunAnalysis& a, const RunExplanation* why,
                       const std::vector<StepSpeedup>* sensitivity) {
  JsonWriter w(true);
  w.beginObject();
  w.key("run").beginObject();
  w.key("id").value(a.run.id);
  w.key("name").value(a.run.name);
  w.key("source").value(a.run.source);
  w.key("schedule").value(a.run.schedule);
  w.key("status").value(runStatusName(a.run.status));
  w.key("ranks").value(a.run.num_ranks);
  w.key("stages").value(a.run.num_stages);
  w.key("microbatches").value(a.run.num_microbatches);
  w.key("chunks").value(a.chunks);
  w.endObject();
  w.key("step_time_ns").value(a.step_time_ns);
  w.key("step_cadence_ns").value(a.step_cadence_ns);
  w.key("throughput_samples_per_s").value(throughputPerSecond(a));
  w.key("bubble_ratio").value(a.bubble_ratio);
  const auto coverage = importedBusyCoverage(a.run);
  w.key("compute_coverage").value(coverage ? coverage->ratio() : std::nullopt);
  w.key("steady_bubble_ratio").value(a.steady_bubble_ratio);
  if (const auto& cut = a.incomplete_last_step) {  // only then: the usual report stays as it was
    w.key("incomplete_last_step").beginObject();
    w.key("step").value(cut->step);
    w.key("compute_ops").value(cut->compute_ops);
    w.key("fewest_compute_ops_before").value(cut->fewest_before);
    w.endObject();
  }
  w.key("steps").beginArray();
  for (const auto& s : a.steps) {
    w.beginObject();
    w.key("step").value(s.step);
    w.key("start_ns").value(s.start_ns);
    w.key("span_ns").value(s.span_ns());
    w.key("bubble_ratio").value(s.bubble_ratio);
    w.endObject();
  }
  w.endArray();
  w.key("ranks").beginArray();
  for (const auto& r : a.ranks) {
    w.beginObject();
    w.key("rank").value(r.rank);
    w.key("busy_ns").value(r.busy_ns);
    w.key("bubble_ratio").value(r.bubble_ratio);
    w.key("peak_memory_bytes").value(r.peak_memory_bytes);
    w.key("memory_capacity_bytes").value(r.memory_capacity_bytes);
    if (why != nullptr && static_cast<std::size_t>(r.rank) < why->bubbles.ranks.size()) {
      w.key("bubble_breakdown");
      writeBreakdown(w, why->bubbles.ranks[r.rank]);
    }
    w.endObject();
  }
  w.endArray();
  std::int64_t linkBytes = 0;
  for (const auto& l : a.links)
    linkBytes = l.bytes > INT64_MAX - linkBytes ? INT64_MAX : linkBytes + l.bytes;
  w.key("link_bytes").value(linkBytes);
  w.key("links").beginArray();
  for (const auto& l : a.links) {
    w.beginObject();
    w.key("src").value(l.src);
    w.key("dst").value(l.dst);
    w.key("bytes").value(l.bytes);
    w.key("busy_ns").value(l.busy_ns);
    w.endObject();
  }
  w.endArray();
  w.key("metrics").beginObject();
  for (const auto& [name, value] : a.metrics)
    w.key(name).value(value);
  w.endObject();
  if (why != nullptr) {
    w.key("bubble_breakdown");
    writeBreakdown(w, why->bubbles.run);
    w.key("critical_path");
    if (why->criticalPath)
      writeCriticalPath(w, *why->criticalPath);
    else
      w.null();
    writeOrderFixes(w, *why);
  }
  if (sensitivity != nullptr) {
    w.key("sensitivity").beginArray();
    for (const StepSpeedup& row : *sensitivity) {
      w.beginObject();
      w.key("kind").value(std::string(opKindName(row.kind)));
      w.key("stage").value(row.stage);
      w.key("rank").value(row.rank);
      w.key("step_ns").value(row.stepNs);
      w.key("saved_ns").value(row.savedNs);
      w.key("least_slack_ns").value(row.leastSlackNs);
      w.endObject();
    }
    w.endArray();
  }
  w.endObject();
  return w.str() + "\n";
}

namespace {
std::string opt(const std::optional<int>& v) {
  return v ? std::to_string(*v) : "-";
}
std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}
}  // namespace

namespace {

std::string shareOf(std::int64_t ns, std::int64_t of) {
  return of > 0 ? formatPercent(static_cast<double>(ns) / static_cast<double>(of)) : "-";
}

std::string breakdownText(const RunExplanation& why) {
  std::string out = "\nidle by cause (share of the step time)\nrank  ";
  // Padded columns, the last one not (no trailing blanks).
  auto cell = [](std::string text, int c) {
    return c + 1 < kIdleCauseCount ? padRight(std::move(text), 11) : text;
  };
  for (int c = 0; c < kIdleCauseCount; ++c)
    out += cell(std::string(idleCauseLabel(static_cast<IdleCause>(c))), c);
  out += "\n";
  auto row = [&](std::string head, const BubbleBreakdown& b, std::int64_t of) {
    out += padRight(std::move(head), 6);
    for (int c = 0; c < kIdleCauseCount; ++c)
      out += cell(shareOf(b.ns[c], of), c);
    out += "\n";
  };
  const BubbleAttribution& b = why.bubbles;
  for (std::size_t r = 0; r < b.ranks.size(); ++r)
    if (r < b.present.size() && b.present[r]) row(line("%4zu", r), b.ranks[r], b.spanSumNs);
  const auto ranks = static_cast<std::int64_t>(b.rankCount);
  row(" all", b.run, ranks > 0 && b.spanSumNs <= INT64_MAX / ranks ? b.spanSumNs * ranks : 0);
  return out;
}

// Length of the union of the path ops' intervals of one lane kind (a send and its receive cover
// the same time), within the path: an all-reduce that began before the step's first compute op
// counts only from the step's start (a DDP trace read "collectives 238 % of it").
std::int64_t pathShareNs(const RunExplanation::Path& path, bool collectives) {
  const auto [from, to] = pathWindow(path);
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const PathOp& op : path.ops)
    if (!isCompute(op.kind) && (laneOf(op.kind) == Lane::Collective) == collectives &&
        std::min(op.end, to) > std::max(op.start, from))
      spans.emplace_back(std::max(op.start, from), std::min(op.end, to));
  std::sort(spans.begin(), spans.end());
  std::vector<std::int64_t> starts, ends;
  for (const auto& [s, e] : spans) {
    starts.push_back(s);
    ends.push_back(e);
  }
  return unionLength(starts, ends);
}

std::string criticalPathText(const RunExplanation::Path& path) {
  constexpr std::size_t kHead = 12, kTail = 6;  // the start, and the end that sets the step
  const std::int64_t collectiveNs = pathShareNs(path, true);
  std::string out = "\ncritical path  step " + std::to_string(path.step) + ", " +
                    formatDuration(path.lengthNs) + " over " + std::to_string(path.ops.size()) +
                    " ops, transfers " + shareOf(pathShareNs(path, false), path.lengthNs);
  if (collectiveNs > 0) out += ", collectives " + shareOf(collectiveNs, path.lengthNs);
  out += " of it\n  ";
  const std::size_t n = path.ops.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > kHead + kTail && i == kHead) {
      out += " ... " + std::to_string(n - kHead - kTail) + " more ...";
      i = n - kTail;
    }
    out += (i ? " > " : "") + std::string("r") + std::to_string(path.ops[i].rank) + ":" +
           pathOpLabel(path.ops[i]);
  }
  return out + "\n";
}

}  // namespace

std::string reportText(const RunAnalysis& a, const RunExplanation* why,
                       const std::vector<StepSpeedup>* sensitivity) {
  std::string out;
  // Built by concatenation, not line(): a safe name can still be longer than its buffer.
  // A run the app shows before it is saved has a placeholder id (< 0): no number to name.
  out += (a.run.id < 0 ? std::string("unsaved run") : "run " + std::to_string(a.run.id)) + "  \"" +
         terminalSafe(a.run.name) + "\"  source " + terminalSafe(a.run.source) + "  schedule " +
         terminalSafe(a.run.schedule.value_or("-")) + "  status " +
         std::string(runStatusName(a.run.status)) + "\n";
  if (!a.run.status_message.empty()) out += "  " + terminalSafe(a.run.status_message, 1000) + "\n";
  out += line("ranks %d  stages %s  micro-batches %s  chunks %s  steps %zu\n", a.run.num_ranks,
              opt(a.run.num_stages).c_str(), opt(a.run.num_microbatches).c_str(),
              opt(a.chunks).c_str(), a.steps.size());
  if (const auto& cut = a.incomplete_last_step)
    out += line(
        "  step %d left out: incomplete (%lld compute op%s of at least %lld in each step "
        "before; the run is %s)\n",
        cut->step, static_cast<long long>(cut->compute_ops), cut->compute_ops == 1 ? "" : "s",
        static_cast<long long>(cut->fewest_before),
        std::string(runStatusName(a.run.status)).c_str());
  out += line("step time      %s\n",
              a.step_time_ns ? formatDuration(*a.step_time_ns).c_str() : "- (no compute ops)");
  const bool apart = stepsApart(a);
  if (apart)
    out += "step cadence   " + formatDuration(*a.step_cadence_ns) +
           "  (steps begin this far apart; the step time is each step's span, first to last "
           "compute op, without the time between steps, as is the bubble ratio)\n";
  if (stepsOverlap(a))
    out += "step cadence   " + formatDuration(*a.step_cadence_ns) +
           "  (steps overlap: one starts this often; the step time is each step's span, first "
           "to last compute op)\n";
  if (const auto rate = throughputPerSecond(a))
    out += line("throughput     %.1f micro-batches/s%s\n", *rate,
                stepsOverlap(a) ? "  (from the cadence)" : "");
  std::string coverageNote;
  if (const auto coverage = importedBusyCoverage(a.run); coverage && coverage->low())
    coverageNote = "  (" + lowCoverageNote(*coverage) + ")";
  out += "bubble ratio   " + (a.bubble_ratio ? formatPercent(*a.bubble_ratio) : "-") +
         coverageNote + "\n";
  out += line("steady bubble  %s%s\n",
              a.steady_bubble_ratio ? formatPercent(*a.steady_bubble_ratio).c_str()
                                    : "- (needs 3 or more steps)",
              a.steady_bubble_ratio && apart ? "  (from step start to step start: the time "
                                               "between steps counts as idle)"
                                             : "");
  out += "\nrank  busy              bubble     peak memory   capacity\n";
  for (const auto& r : a.ranks) {
    out += line("%4d  ", r.rank) + padRight(formatDuration(r.busy_ns), 16) + "  " +
           padRight(r.bubble_ratio ? formatPercent(*r.bubble_ratio) : "-", 9) + "  " +
           padRight(r.peak_memory_bytes ? formatBytes(*r.peak_memory_bytes) : "-", 12) + "  " +
           (r.memory_capacity_bytes ? formatBytes(*r.memory_capacity_bytes) : "-") + "\n";
  }
  if (why != nullptr) {
    out += breakdownText(*why);
    out += orderFixesText(*why);
    if (why->criticalPath) out += criticalPathText(*why->criticalPath);
  }
  if (sensitivity != nullptr && !sensitivity->empty()) {
    constexpr std::size_t kRows = 8;
    out += "\n10 % faster   shortens the step by\n";
    for (std::size_t i = 0; i < sensitivity->size() && i < kRows; ++i) {
      const StepSpeedup& row = (*sensitivity)[i];
      const std::string what = std::string(opKindName(row.kind)) + " on stage " +
                               std::to_string(row.stage) + " (rank " + std::to_string(row.rank) +
                               ")";
      out += "  " + padRight(what, 24) + formatDuration(row.savedNs);
      if (row.savedNs == 0 && row.leastSlackNs && *row.leastSlackNs > 0)
        out += "  (speeding this up saves nothing: slack >= " + formatDuration(*row.leastSlackNs) +
               ")";
      out += "\n";
    }
  }
  if (!a.links.empty()) {
    out += "\nlink      bytes         busy              bandwidth\n";
    for (const auto& l : a.links) {
      // Achieved bandwidth while the link was busy; undefined for instantaneous transfers.
      const std::string bandwidth = l.busy_ns > 0
                                        ? line("%.2f Gb/s", static_cast<double>(l.bytes) * 8.0 /
                                                                static_cast<double>(l.busy_ns))
                                        : "-";
      out += line("%3d -> %-3d ", l.src, l.dst) + padRight(formatBytes(l.bytes), 12) + "  " +
             padRight(formatDuration(l.busy_ns), 16) + "  " + bandwidth + "\n";
    }
  }
  if (!a.metrics.empty()) {
    out += "\nmetric (last value)\n";
    for (const auto& [name, value] : a.metrics)
      out += "  " + padRight(terminalSafe(name), 20) + line(" %.6g\n", value);
  }
  return out;
}

}  // namespace ps::trace
