#include "trace/import/TimeBounds.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "trace/OpKind.h"

namespace ps::trace::import {
namespace {

__extension__ typedef __int128 Wide;

// A time and what it belongs to, for the message.
struct TimePoint {
  std::int64_t t = 0;
  std::string what;
};

std::string days(Wide ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g days", static_cast<double>(ns) / 86'400e9);
  return text;
}

std::string maxSpanText() {
  return "an import may span at most " + days(kMaxImportSpanNs);
}

Wide distance(std::int64_t a, std::int64_t b) {
  const Wide d = static_cast<Wide>(a) - static_cast<Wide>(b);
  return d < 0 ? -d : d;
}

std::string describeOp(const OpRecord& op) {
  return op.name ? "op \"" + *op.name + "\"" : std::string(opKindName(op.kind)) + " op";
}

}  // namespace

Status checkTimeSpan(const RawRankTrace& trace) {
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  const RawEvent* loEvent = nullptr;
  const RawEvent* hiEvent = nullptr;
  for (const auto& e : trace.events) {
    if (e.start_ns < lo) lo = e.start_ns, loEvent = &e;
    if (e.end_ns > hi) hi = e.end_ns, hiEvent = &e;
  }
  for (const auto& s : trace.steps) {
    lo = std::min(lo, s.start_ns);
    hi = std::max(hi, s.end_ns);
  }
  for (const auto& m : trace.memory) {
    lo = std::min(lo, m.t_ns);
    hi = std::max(hi, m.t_ns);
  }
  if (lo > hi || static_cast<Wide>(hi) - lo <= kMaxImportSpanNs) return {};

  // The point farthest from the middle of the file's times is the one that lies out.
  std::vector<std::int64_t> starts;
  starts.reserve(trace.events.size() + trace.steps.size() + trace.memory.size());
  for (const auto& e : trace.events)
    starts.push_back(e.start_ns);
  for (const auto& s : trace.steps)
    starts.push_back(s.start_ns);
  for (const auto& m : trace.memory)
    starts.push_back(m.t_ns);
  const auto mid = starts.begin() + static_cast<std::ptrdiff_t>(starts.size() / 2);
  std::nth_element(starts.begin(), mid, starts.end());
  const std::int64_t median = *mid;

  auto describe = [&](std::int64_t t, const RawEvent* e, bool isEnd) -> TimePoint {
    // An event that lies out as a whole is named by its start; only an absurd end by its end.
    if (e != nullptr && isEnd && e->end_ns == t &&
        distance(e->start_ns, median) > kMaxImportSpanNs) {
      t = e->start_ns;
      isEnd = false;
    }
    if (e != nullptr && (isEnd ? e->end_ns : e->start_ns) == t)
      return {t, std::string(isEnd ? "the end of event \"" : "event \"") +
                     (e->name >= 0 ? trace.nameOf(*e) : std::string(eventSourceName(e->source))) +
                     "\""};
    for (const auto& s : trace.steps)
      if ((isEnd ? s.end_ns : s.start_ns) == t)
        return {t, "step range ProfilerStep#" + std::to_string(s.number)};
    return {t, "a memory sample"};
  };
  const bool lowLiesOut = distance(median, lo) >= distance(hi, median);
  const TimePoint out = lowLiesOut ? describe(lo, loEvent, false) : describe(hi, hiEvent, true);
  return Error{trace.file + ": " + out.what + " at " + std::to_string(out.t) + " ns lies " +
               days(distance(out.t, median)) + " from the middle of the file's events (" +
               std::to_string(median) + " ns); " + maxSpanText() +
               ": a corrupt timestamp? nothing imported"};
}

namespace {

// The earliest and latest time over all ranks, and whose they are.
struct Where {
  std::size_t rank = 0;
  const OpRecord* op = nullptr;
  std::int64_t t = 0;
};

Status checkWindow(const std::vector<RankOps>& ranks, const std::vector<std::string>& files,
                   std::int64_t limit, const std::string& when, const std::string& advice) {
  std::optional<Where> lo, hi;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (const auto& op : ranks[r].ops) {
      if (!lo || op.start_ns < lo->t) lo = Where{r, &op, op.start_ns};
      if (!hi || op.end_ns > hi->t) hi = Where{r, &op, op.end_ns};
    }
    for (const auto& m : ranks[r].memory) {
      if (!lo || m.t_ns < lo->t) lo = Where{r, nullptr, m.t_ns};
      if (!hi || m.t_ns > hi->t) hi = Where{r, nullptr, m.t_ns};
    }
  }
  if (!lo || static_cast<Wide>(hi->t) - lo->t <= limit) return {};
  auto name = [&](const Where& w) {
    return files[w.rank] + "'s " + (w.op ? describeOp(*w.op) : std::string("memory sample")) +
           " at " + std::to_string(w.t) + " ns";
  };
  return Error{when + " span " + days(distance(hi->t, lo->t)) + ", from " + name(*lo) + " to " +
               name(*hi) + "; " + advice + "; nothing imported"};
}

}  // namespace

Status checkClockWindow(const std::vector<RankOps>& ranks, const std::vector<std::string>& files) {
  return checkWindow(ranks, files, kMaxClockWindowNs, "the files' times",
                     "no two clocks of one run lie that far apart: a corrupt timestamp?");
}

Status shiftByOffsets(std::vector<RankOps>& ranks, const std::vector<std::int64_t>& offsetNs,
                      const std::vector<std::string>& files) {
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::int64_t off = offsetNs[r];
    for (auto& op : ranks[r].ops)
      if (__builtin_add_overflow(op.start_ns, off, &op.start_ns) ||
          __builtin_add_overflow(op.end_ns, off, &op.end_ns))
        return Error{files[r] + ": " + describeOp(op) + " leaves the range of times with the " +
                     "clock offset " + std::to_string(off) +
                     " ns of its rank: a corrupt timestamp? nothing imported"};
    for (auto& m : ranks[r].memory)
      if (__builtin_add_overflow(m.t_ns, off, &m.t_ns))
        return Error{files[r] + ": a memory sample leaves the range of times with the clock " +
                     "offset " + std::to_string(off) +
                     " ns of its rank: a corrupt timestamp? nothing imported"};
  }
  return checkWindow(ranks, files, kMaxImportSpanNs, "after clock alignment the ranks' times",
                     maxSpanText() +
                         ": the files' clocks disagree (try another --align mode) or hold a "
                         "corrupt timestamp");
}

}  // namespace ps::trace::import
