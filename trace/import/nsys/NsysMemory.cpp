// CUDA_GPU_MEMORY_USAGE_EVENTS: every cudaMalloc/cudaFree (and friends) with its size. Summed
// per device they give the memory in use over time, which is what a rank's memory lane shows.

#include <algorithm>
#include <limits>

#include "trace/import/nsys/NsysScans.h"

namespace ps::trace::import::nsys {

namespace {

// Byte counts come from the file: a damaged one must not overflow the sums.
std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

std::int64_t negated(std::int64_t v) {
  return v == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max()
                                                       : -v;
}

}  // namespace

Status readMemoryUsage(NsysContext& ctx) {
  const auto T = table::kMemoryUsage;
  const NsysSchema& s = ctx.schema;
  if (!s.hasTable(T)) {
    ctx.warnings.emplace_back(
        "no CUDA_GPU_MEMORY_USAGE_EVENTS table: device memory not imported (profile with "
        "--cuda-memory-usage=true to get it)");
    return {};
  }
  for (const char* required : {"start", "bytes", "memoryOperationType"}) {
    if (!s.hasColumn(T, required)) {
      ctx.warnings.push_back("CUDA_GPU_MEMORY_USAGE_EVENTS has no " + std::string(required) +
                             " column: device memory not imported");
      return {};
    }
  }
  const NsysEnums& e = ctx.enums;
  if (!e.allocation || !e.deallocation) return {};  // readNsysEnums has said why
  const std::string sql = "SELECT start, " + s.columnOrNull(T, "globalPid") + ", " +
                          s.columnOrNull(T, "deviceId") + ", bytes, " +
                          s.columnOrNull(T, "memKind") + ", memoryOperationType FROM " +
                          quoteIdentifier(T);
  return ctx.scan(T, sql, [&](const SqliteStatement& row) {
    // Pinned and pageable allocations are host memory, even though CUDA made them.
    if (!row.isNull(4) && e.isHostMemory(row.int64(4))) return;
    const std::int64_t op = row.int64(5), bytes = row.int64(3);
    std::int64_t delta = 0;
    if (op == *e.allocation)
      delta = bytes;
    else if (op == *e.deallocation)
      delta = negated(bytes);
    else
      return;
    NsysProcess& p = ctx.processes.get(processOf(row.int64Or(1, 0)));
    p.memoryDeltas[row.int64Or(2, 0)].emplace_back(row.int64(0), delta);
  });
}

void buildMemorySeries(NsysProcess& process, std::optional<std::int64_t> device) {
  if (process.memoryDeltas.empty()) return;
  // The rank's device is the one its kernels ran on; without kernels, the one it allocated most
  // on.
  if (!device || process.memoryDeltas.count(*device) == 0) {
    std::size_t most = 0;
    for (const auto& [d, deltas] : process.memoryDeltas) {
      if (deltas.size() > most) {
        most = deltas.size();
        device = d;
      }
    }
  }
  auto deltas = process.memoryDeltas[*device];
  std::stable_sort(deltas.begin(), deltas.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  auto& samples = process.trace.memory;
  std::int64_t total = 0, lowest = 0;
  for (const auto& [t, delta] : deltas) {
    total = saturatingAdd(total, delta);
    lowest = std::min(lowest, total);
    if (!samples.empty() && samples.back().t_ns == t)
      samples.back().bytes = total;
    else
      samples.push_back({t, total});
  }
  // Frees of memory allocated before the capture started drive the sum below zero; at least that
  // much was in use from the start, so lift the series by it.
  if (lowest < 0) {
    for (auto& sample : samples)
      sample.bytes = saturatingAdd(sample.bytes, negated(lowest));
    process.trace.warnings.push_back(
        "device memory freed that was allocated before the capture: the memory series is a lower "
        "bound lifted by " +
        std::to_string(negated(lowest)) + " bytes");
  }
  if (process.memoryDeltas.size() > 1) {
    std::string others;
    for (const auto& [d, unused] : process.memoryDeltas) {
      if (d == *device) continue;
      others += (others.empty() ? "" : ", ") + std::to_string(d);
    }
    process.trace.warnings.push_back("memory of device(s) " + others +
                                     " not imported: the memory series follows device " +
                                     std::to_string(*device));
  }
}

}  // namespace ps::trace::import::nsys
