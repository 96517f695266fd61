// NVTX_EVENTS: the user's labelled ranges. Push/pop and start/end ranges become CpuAnnotation
// events on their host thread; marks and thread names are only read for a rank hint.

#include <charconv>
#include <limits>

#include "trace/import/nsys/NsysScans.h"

namespace ps::trace::import::nsys {

namespace {

// Digits only, to the end, fitting an int; nullopt otherwise.
std::optional<std::int64_t> parseNumber(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// "ProfilerStep#12" -> 12 (the PyTorch profiler's step marker, also emitted as NVTX).
std::optional<std::int64_t> profilerStepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  return parseNumber(name.substr(kPrefix.size()));
}

// "MPI Rank 3" (what `nsys profile --trace=mpi` names the rank's thread), "Rank 3", "rank 3".
std::optional<int> rankFromLabel(std::string_view text) {
  if (text.substr(0, 4) == "MPI ") text.remove_prefix(4);
  if (text.substr(0, 5) != "Rank " && text.substr(0, 5) != "rank ") return std::nullopt;
  auto n = parseNumber(text.substr(5));
  if (!n || *n > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*n);
}

bool is(const std::optional<std::int64_t>& code, std::int64_t value) {
  return code && *code == value;
}

// A mark or thread name that names the rank ("MPI Rank 3"): a hint for its process.
void readRankHint(NsysContext& ctx, const SqliteStatement& row) {
  if (row.isNull(3)) return;
  std::string_view label = row.text(4);
  if (label.empty() && !row.isNull(5)) label = ctx.strings.get(row.int64(5));
  if (auto rank = rankFromLabel(label)) ctx.processes.get(processOf(row.int64(3))).rankHint = rank;
}

// What NVTX rows were left out, counted for the warnings.
struct SkippedRanges {
  std::int64_t unended = 0, unnamed = 0, backwards = 0;
};

// One push/pop or start/end range as a CpuAnnotation event on its host thread.
void readRange(NsysContext& ctx, const SqliteStatement& row, SkippedRanges& skipped) {
  if (row.isNull(1)) {
    ++skipped.unended;
    return;
  }
  if (row.isNull(3)) return;  // no thread: nothing to place it on
  const std::int64_t start = row.int64(0), end = row.int64(1);
  if (end < start) {
    ++skipped.backwards;
    return;
  }
  std::string_view name = row.text(4);
  if (row.isNull(4)) {
    if (row.isNull(5)) {
      ++skipped.unnamed;
      return;
    }
    name = ctx.strings.get(row.int64(5));
  }
  const std::int64_t globalTid = row.int64(3);
  NsysProcess& p = ctx.processes.get(processOf(globalTid));
  RawEvent event;
  event.start_ns = start;
  event.end_ns = end;
  event.name = p.trace.intern(name);
  event.source = EventSource::CpuAnnotation;
  event.track = tidOf(globalTid);
  // Payload union members, most likely first: the step is an integer payload (DESIGN §6).
  for (int col = 6; col <= 9; ++col) {
    if (row.isNull(col)) continue;
    const std::int64_t v = row.int64(col);
    if (v >= 0 && v <= std::numeric_limits<std::int32_t>::max())
      event.step = static_cast<std::int32_t>(v);
    break;
  }
  if (auto n = profilerStepNumber(name)) p.trace.steps.push_back({start, end, *n});
  p.hasRanges = true;
  p.projection.ranges.push_back({globalTid, p.trace.events.size()});
  p.projection.launches[globalTid];  // marks the thread for the runtime scan
  p.trace.events.push_back(event);
}

void warnSkipped(NsysContext& ctx, const SkippedRanges& skipped) {
  if (skipped.unended > 0)
    ctx.warnings.push_back(std::to_string(skipped.unended) +
                           " NVTX ranges never ended (still open when the capture stopped): "
                           "not imported");
  if (skipped.unnamed > 0)
    ctx.warnings.push_back(std::to_string(skipped.unnamed) +
                           " NVTX ranges without a name: not imported");
  if (skipped.backwards > 0)
    ctx.warnings.push_back(std::to_string(skipped.backwards) +
                           " NVTX ranges end before they start: not imported");
}

}  // namespace

Status readNvtxRanges(NsysContext& ctx) {
  const auto T = table::kNvtx;
  const NsysSchema& s = ctx.schema;
  if (!s.hasTable(T)) {
    ctx.warnings.emplace_back("no NVTX_EVENTS table: annotations (NVTX ranges) not imported");
    return {};
  }
  for (const char* required : {"start", "end", "eventType", "globalTid"}) {
    if (!s.hasColumn(T, required)) {
      ctx.warnings.emplace_back("NVTX_EVENTS has no " + std::string(required) +
                                " column: annotations not imported");
      return {};
    }
  }
  const std::string sql =
      "SELECT start, \"end\", eventType, globalTid, " + s.columnOrNull(T, "text") + ", " +
      s.columnOrNull(T, "textId") + ", " + s.columnOrNull(T, "int64Value") + ", " +
      s.columnOrNull(T, "uint64Value") + ", " + s.columnOrNull(T, "int32Value") + ", " +
      s.columnOrNull(T, "uint32Value") + " FROM " + quoteIdentifier(T);
  const NsysEnums& e = ctx.enums;
  SkippedRanges skipped;
  PS_TRY(ctx.scan(T, sql, [&](const SqliteStatement& row) {
    const std::int64_t type = row.int64(2);
    if (is(e.pushPopRange, type) || is(e.startEndRange, type))
      readRange(ctx, row, skipped);
    else if (is(e.threadName, type) || is(e.mark, type))
      readRankHint(ctx, row);
  }));
  warnSkipped(ctx, skipped);
  return {};
}

}  // namespace ps::trace::import::nsys
