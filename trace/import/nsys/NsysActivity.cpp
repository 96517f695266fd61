// CUPTI activity tables: the CUDA runtime calls (only what projection needs) and the GPU work
// itself: kernels, copies, memsets. These are the big tables (a million kernels is an ordinary
// training profile), so each row costs a few column reads and cached lookups, nothing more.

#include <limits>

#include "trace/import/nsys/NsysScans.h"

namespace ps::trace::import::nsys {

namespace {

bool hasStartEnd(NsysContext& ctx, std::string_view table, std::string_view what) {
  if (!ctx.schema.hasTable(table)) {
    ctx.warnings.push_back("no " + std::string(table) + " table: " + std::string(what) +
                           " not imported");
    return false;
  }
  if (!ctx.schema.hasColumn(table, "start") || !ctx.schema.hasColumn(table, "end")) {
    ctx.warnings.push_back(std::string(table) + " has no start/end columns: " + std::string(what) +
                           " not imported");
    return false;
  }
  return true;
}

// The columns every GPU activity table shares, at indexes 0..5, then `extra`.
std::string activitySelect(const NsysSchema& s, std::string_view table, const std::string& extra) {
  return "SELECT start, \"end\", " + s.columnOrNull(table, "deviceId") + ", " +
         s.columnOrNull(table, "streamId") + ", " + s.columnOrNull(table, "correlationId") + ", " +
         s.columnOrNull(table, "globalPid") + extra + " FROM " + quoteIdentifier(table);
}

void warnMissingProcess(NsysContext& ctx, std::string_view table) {
  if (!ctx.schema.hasColumn(table, "globalPid"))
    ctx.warnings.push_back(std::string(table) +
                           " has no globalPid column: its rows are given to process 0");
}

void warnBackwards(NsysContext& ctx, std::int64_t count, std::string_view what) {
  if (count > 0)
    ctx.warnings.push_back(std::to_string(count) + " " + std::string(what) +
                           " end before they start: not imported");
}

// Fills the fields shared by all GPU activity rows; returns false for a row that ends before it
// starts.
bool readActivity(const SqliteStatement& row, NsysContext& ctx, RawEvent& event,
                  NsysProcess*& process) {
  event.start_ns = row.int64(0);
  event.end_ns = row.int64(1);
  if (event.end_ns < event.start_ns) return false;
  process = &ctx.processes.get(processOf(row.int64Or(5, 0)));
  process->hasGpuWork = true;
  event.track = process->tracks.gpuTrack(row.int64Or(2, 0), row.int64Or(3, 0));
  if (process->hasRanges && !row.isNull(4))
    process->projection.gpuWork.push_back(
        {row.int64(4), event.start_ns, event.end_ns, event.track});
  return true;
}

}  // namespace

Status readRuntimeLaunches(NsysContext& ctx) {
  const auto T = table::kRuntime;
  bool anyRanges = false;
  for (NsysProcess* p : ctx.processes.ordered())
    anyRanges = anyRanges || p->hasRanges;
  if (!anyRanges) return {};
  if (!ctx.schema.hasTable(T) || !ctx.schema.hasColumn(T, "globalTid") ||
      !ctx.schema.hasColumn(T, "correlationId") || !ctx.schema.hasColumn(T, "start")) {
    ctx.warnings.emplace_back(
        "no CUPTI_ACTIVITY_KIND_RUNTIME table (or no globalTid/correlationId in it): NVTX ranges "
        "not projected onto the GPU");
    return {};
  }
  std::int64_t lastTid = -1;
  std::vector<Launch>* launches = nullptr;
  return ctx.scan(T, "SELECT globalTid, start, correlationId FROM " + quoteIdentifier(T),
                  [&](const SqliteStatement& row) {
                    if (row.isNull(0) || row.isNull(2)) return;
                    const std::int64_t tid = row.int64(0);
                    if (tid != lastTid) {
                      lastTid = tid;
                      launches = nullptr;
                      if (NsysProcess* p = ctx.processes.find(processOf(tid))) {
                        auto it = p->projection.launches.find(tid);
                        if (it != p->projection.launches.end()) launches = &it->second;
                      }
                    }
                    if (launches) launches->push_back({row.int64(1), row.int64(2)});
                  });
}

Status readKernels(NsysContext& ctx) {
  const auto T = table::kKernel;
  if (!hasStartEnd(ctx, T, "kernels")) return {};
  warnMissingProcess(ctx, T);
  // demangledName carries the template arguments and signature (what Kineto shows too);
  // older or trimmed exports may only have the short name.
  const std::string_view nameColumn =
      ctx.schema.pick(T, {"demangledName", "shortName", "mangledName"});
  const std::string sql = activitySelect(
      ctx.schema, T,
      ", " + (nameColumn.empty() ? std::string("NULL") : quoteIdentifier(nameColumn)));
  std::int64_t backwards = 0;
  Status status = ctx.scan(T, sql, [&](const SqliteStatement& row) {
    RawEvent event;
    NsysProcess* p = nullptr;
    if (!readActivity(row, ctx, event, p)) {
      ++backwards;
      return;
    }
    const auto [name, comm] = p->kernelName(row.int64Or(6, -1), ctx.strings);
    event.name = name;
    event.comm = comm;
    event.source = comm == CommOp::None ? EventSource::Kernel : EventSource::NcclKernel;
    p->trace.events.push_back(event);
  });
  if (!status) return status;
  warnBackwards(ctx, backwards, "kernels");
  return {};
}

Status readMemcpys(NsysContext& ctx) {
  const auto T = table::kMemcpy;
  if (!hasStartEnd(ctx, T, "memory copies")) return {};
  warnMissingProcess(ctx, T);
  const NsysSchema& s = ctx.schema;
  const std::string sql = activitySelect(
      s, T,
      ", " + s.columnOrNull(T, "bytes") + ", " + s.columnOrNull(T, "copyKind") + ", " +
          s.columnOrNull(T, "srcDeviceId") + ", " + s.columnOrNull(T, "dstDeviceId"));
  std::int64_t backwards = 0;
  Status status = ctx.scan(T, sql, [&](const SqliteStatement& row) {
    RawEvent event;
    NsysProcess* p = nullptr;
    if (!readActivity(row, ctx, event, p)) {
      ++backwards;
      return;
    }
    event.source = EventSource::Memcpy;
    event.bytes = row.int64Or(6, -1);
    const std::int64_t kind = row.int64Or(7, -1);
    event.name = p->copyName(kind, ctx.enums.copyKindName(kind));
    // Peer-to-peer: the other device, by device id (nsys knows devices, not ranks). A
    // device-to-device copy between two devices is one too, whatever its kind says.
    const std::int64_t device = row.int64Or(2, 0);
    const std::int64_t src = row.int64Or(8, -1), dst = row.int64Or(9, -1);
    const bool crossDevice = src >= 0 && dst >= 0 && src != dst;
    if (ctx.enums.isPeerToPeer(kind) || crossDevice) {
      const std::int64_t other =
          src == device ? dst : (dst == device ? src : (dst >= 0 ? dst : src));
      if (other >= 0 && other <= std::numeric_limits<std::int32_t>::max())
        event.peer = static_cast<std::int32_t>(other);
    }
    p->trace.events.push_back(event);
  });
  if (!status) return status;
  warnBackwards(ctx, backwards, "memory copies");
  return {};
}

Status readMemsets(NsysContext& ctx) {
  const auto T = table::kMemset;
  // Memsets are minor: a missing table is normal for old exports and is not worth a warning.
  if (!ctx.schema.hasTable(T) || !ctx.schema.hasColumn(T, "start") ||
      !ctx.schema.hasColumn(T, "end"))
    return {};
  warnMissingProcess(ctx, T);
  const std::string sql = activitySelect(ctx.schema, T, ", " + ctx.schema.columnOrNull(T, "bytes"));
  std::int64_t backwards = 0;
  std::int32_t name = -1;
  NsysProcess* named = nullptr;
  Status status = ctx.scan(T, sql, [&](const SqliteStatement& row) {
    RawEvent event;
    NsysProcess* p = nullptr;
    if (!readActivity(row, ctx, event, p)) {
      ++backwards;
      return;
    }
    if (p != named) {
      named = p;
      name = p->trace.intern("Memset");
    }
    event.name = name;
    event.source = EventSource::Memset;
    event.bytes = row.int64Or(6, -1);
    p->trace.events.push_back(event);
  });
  if (!status) return status;
  warnBackwards(ctx, backwards, "memsets");
  return {};
}

}  // namespace ps::trace::import::nsys
