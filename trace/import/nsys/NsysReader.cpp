#include "trace/import/nsys/NsysReader.h"

#include <algorithm>

#include "trace/import/nsys/NsysProjection.h"
#include "trace/import/nsys/NsysScans.h"

namespace ps::trace::import {

namespace {

using namespace nsys;

// The rows the scans will read, for progress.
std::int64_t estimateRows(const NsysSchema& schema) {
  std::int64_t total = 0;
  for (std::string_view t : {table::kNvtx, table::kRuntime, table::kKernel, table::kMemcpy,
                             table::kMemset, table::kMemoryUsage})
    total += std::min(schema.estimatedRows(t), std::int64_t{1} << 56);  // a damaged max(rowid)
  return total;
}

Status readTables(NsysContext& ctx) {
  PS_TRY(checkSchemaVersion(ctx));
  PS_TRY(readNvtxRanges(ctx));
  PS_TRY(readRuntimeLaunches(ctx));
  PS_TRY(readKernels(ctx));
  PS_TRY(readMemcpys(ctx));
  PS_TRY(readMemsets(ctx));
  for (NsysProcess* p : ctx.processes.ordered()) {
    assignAnnotationDepths(p->trace);  // CPU nesting first: projection copies it as a hint
    projectRangesToGpu(*p);
    if (ctx.control.cancelled()) return ctx.cancelledError();
  }
  PS_TRY(readMemoryUsage(ctx));
  return {};
}

// The processes that become traces: those with GPU work or NVTX ranges. An export with neither
// (CUDA runtime calls only) still yields one empty trace per process that called CUDA, so the
// warnings reach the user; an export with nothing at all yields one empty trace.
Result<std::vector<NsysProcess*>> selectProcesses(NsysContext& ctx) {
  std::vector<NsysProcess*> chosen;
  for (NsysProcess* p : ctx.processes.ordered())
    if (p->hasGpuWork || p->hasRanges) chosen.push_back(p);
  if (!chosen.empty()) return chosen;
  auto callers = readRuntimeProcesses(ctx);
  if (!callers) return std::move(callers).takeError();
  for (std::int64_t globalPid : *callers)
    ctx.processes.get(globalPid);
  if (callers->empty()) ctx.processes.get(0);
  ctx.warnings.emplace_back(callers->empty()
                                ? "no GPU work, NVTX ranges or CUDA calls in the file"
                                : "no GPU work or NVTX ranges in the file: one empty trace per "
                                  "process that called CUDA");
  return ctx.processes.ordered();
}

void finishTrace(NsysProcess& p, const std::map<std::int64_t, NsysDevice>& devices,
                 const std::optional<std::int64_t>& sessionStart,
                 const std::optional<std::string>& host, const std::string& path,
                 const std::vector<std::string>& fileWarnings) {
  RawRankTrace& t = p.trace;
  t.file = path;
  t.format = "nsys";
  t.rank = p.rankHint;
  t.wallClockOffsetNs = sessionStart;
  t.host = host;
  std::optional<std::int64_t> device = p.tracks.busiestDevice();
  if (!device && devices.size() == 1) device = devices.begin()->first;
  if (device) {
    auto it = devices.find(*device);
    if (it != devices.end()) {
      if (!it->second.name.empty()) t.device = it->second.describe();
      t.memoryCapacityBytes = it->second.totalMemory;
    }
  }
  buildMemorySeries(p, device);
  assignAnnotationDepths(t);
  std::sort(t.steps.begin(), t.steps.end(),
            [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  // File-wide warnings first, then this process's own.
  std::vector<std::string> warnings = fileWarnings;
  warnings.insert(warnings.end(), t.warnings.begin(), t.warnings.end());
  t.warnings = std::move(warnings);
}

}  // namespace

Result<std::vector<RawRankTrace>> readNsysFile(const std::string& path,
                                               const ReadControl& control) {
  auto db = SqliteDb::open(path, SqliteDb::Mode::ReadOnly);
  if (!db) return std::move(db).takeError();
  auto schema = NsysSchema::discover(*db);
  if (!schema) return std::move(schema).takeError();
  if (!schema->looksLikeNsys())
    return Error{path + ": not an Nsight Systems export (no StringIds table)"};

  std::vector<std::string> enumWarnings;
  auto enums = readNsysEnums(*db, *schema, enumWarnings);
  if (!enums) return std::move(enums).takeError();
  auto strings = NsysStrings::open(*db, *schema);
  if (!strings) return std::move(strings).takeError();
  NsysProgress progress(control, estimateRows(*schema));
  NsysContext ctx{path, *db, *schema, *enums, *strings, control, progress, {}, {}};
  if (!schema->hasTable(table::kStringIds))
    ctx.warnings.emplace_back("no StringIds table: kernel and NVTX names unknown");

  PS_TRY(readTables(ctx));
  auto devices = readDevices(ctx);
  if (!devices) return std::move(devices).takeError();
  auto sessionStart = readSessionStart(ctx);
  if (!sessionStart) return std::move(sessionStart).takeError();
  auto host = readHostName(ctx);
  if (!host) return std::move(host).takeError();
  auto chosen = selectProcesses(ctx);
  if (!chosen) return std::move(chosen).takeError();

  ctx.warnings.insert(ctx.warnings.end(), enumWarnings.begin(), enumWarnings.end());
  if (strings->missing() > 0)
    ctx.warnings.push_back(std::to_string(strings->missing()) +
                           " string ids missing from StringIds: those names read <string N>");

  std::vector<RawRankTrace> traces;
  traces.reserve(chosen->size());
  for (NsysProcess* p : *chosen) {
    finishTrace(*p, *devices, *sessionStart, *host, path, ctx.warnings);
    traces.push_back(std::move(p->trace));
  }
  progress.finish();
  return traces;
}

}  // namespace ps::trace::import
