// The small tables around the data: export schema version, devices, session start, host name.

#include <charconv>

#include "trace/import/nsys/NsysScans.h"

namespace ps::trace::import::nsys {

namespace {

// The major version this reader knows; a higher one may have moved or renamed what we read.
constexpr int kMaxSchemaMajor = 3;

std::optional<int> leadingNumber(std::string_view text) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  return value;
}

std::optional<int> optInt(const SqliteStatement& row, int col) {
  if (row.isNull(col)) return std::nullopt;
  return static_cast<int>(row.int64(col));
}

}  // namespace

std::string NsysDevice::describe() const {
  if (!computeMajor || !computeMinor) return name;
  return name + " (sm_" + std::to_string(*computeMajor) + std::to_string(*computeMinor) + ")";
}

Status checkSchemaVersion(NsysContext& ctx) {
  std::string_view T = table::kMetaData;
  if (!ctx.schema.hasTable(T)) T = table::kMetaDataOld;
  if (!ctx.schema.hasTable(T) || !ctx.schema.hasColumn(T, "name") ||
      !ctx.schema.hasColumn(T, "value")) {
    ctx.warnings.emplace_back(
        "no META_DATA_EXPORT table: export schema version unknown, read as 3.x");
    return {};
  }
  std::optional<std::string> version;
  PS_TRY(ctx.scan(
      T, "SELECT value FROM " + quoteIdentifier(T) + " WHERE name = 'EXPORT_SCHEMA_VERSION'",
      [&](const SqliteStatement& row) { version = std::string(row.text(0)); }));
  if (!version) {
    ctx.warnings.emplace_back("no EXPORT_SCHEMA_VERSION in " + std::string(T) +
                              ": export schema version unknown, read as 3.x");
    return {};
  }
  const auto major = leadingNumber(*version);
  if (!major) {
    ctx.warnings.push_back("unreadable export schema version '" + *version + "': read as 3.x");
    return {};
  }
  if (*major > kMaxSchemaMajor)
    return Error{ctx.path + ": Nsight Systems export schema version " + *version +
                 " is newer than this reader knows (up to " + std::to_string(kMaxSchemaMajor) +
                 ".x); export with an older nsys or update PipeScope"};
  return {};
}

Result<std::map<std::int64_t, NsysDevice>> readDevices(NsysContext& ctx) {
  std::map<std::int64_t, NsysDevice> devices;
  const NsysSchema& s = ctx.schema;
  // Recent exports: TARGET_INFO_GPU(id, name, totalMemory, computeMajor...). Trimmed ones have a
  // thin TARGET_INFO_GPU(deviceId, name) and the details in TARGET_INFO_CUDA_GPU.
  if (s.hasTable(table::kGpuInfo)) {
    const auto T = table::kGpuInfo;
    const std::string_view idColumn = s.pick(T, {"id", "deviceId", "cuDevice"});
    if (!idColumn.empty()) {
      PS_TRY(ctx.scan(T,
                      "SELECT " + quoteIdentifier(idColumn) + ", " + s.columnOrNull(T, "name") +
                          ", " + s.columnOrNull(T, "totalMemory") + ", " +
                          s.columnOrNull(T, "computeMajor") + ", " +
                          s.columnOrNull(T, "computeMinor") + " FROM " + quoteIdentifier(T),
                      [&](const SqliteStatement& row) {
                        if (row.isNull(0)) return;
                        NsysDevice& d = devices[row.int64(0)];
                        if (d.name.empty()) d.name = std::string(row.text(1));
                        if (!d.totalMemory) d.totalMemory = row.optInt64(2);
                        if (!d.computeMajor) d.computeMajor = optInt(row, 3);
                        if (!d.computeMinor) d.computeMinor = optInt(row, 4);
                      }));
    }
  }
  if (s.hasTable(table::kCudaGpuInfo) && s.hasColumn(table::kCudaGpuInfo, "deviceId")) {
    const auto T = table::kCudaGpuInfo;
    PS_TRY(ctx.scan(T,
                    "SELECT deviceId, " + s.columnOrNull(T, "name") + ", " +
                        s.columnOrNull(T, "globalMemorySize") + ", " +
                        s.columnOrNull(T, "computeCapabilityMajor") + ", " +
                        s.columnOrNull(T, "computeCapabilityMinor") + " FROM " + quoteIdentifier(T),
                    [&](const SqliteStatement& row) {
                      if (row.isNull(0)) return;
                      NsysDevice& d = devices[row.int64(0)];
                      if (d.name.empty()) d.name = std::string(row.text(1));
                      if (!d.totalMemory) d.totalMemory = row.optInt64(2);
                      if (!d.computeMajor) d.computeMajor = optInt(row, 3);
                      if (!d.computeMinor) d.computeMinor = optInt(row, 4);
                    }));
  }
  if (devices.empty())
    ctx.warnings.emplace_back(
        "no TARGET_INFO_GPU or TARGET_INFO_CUDA_GPU table: device name and memory unknown");
  return devices;
}

Result<std::optional<std::int64_t>> readSessionStart(NsysContext& ctx) {
  const auto T = table::kSessionStart;
  std::optional<std::int64_t> utc;
  if (ctx.schema.hasColumn(T, "utcEpochNs")) {
    PS_TRY(ctx.scan(T, "SELECT utcEpochNs FROM " + quoteIdentifier(T),
                    [&](const SqliteStatement& row) {
                      if (!utc) utc = row.optInt64(0);
                    }));
  }
  if (!utc)
    ctx.warnings.emplace_back(
        "no TARGET_INFO_SESSION_START_TIME.utcEpochNs: wall-clock time of the capture unknown");
  return utc;
}

Result<std::optional<std::string>> readHostName(NsysContext& ctx) {
  const auto T = table::kSystemEnv;
  std::optional<std::string> host;
  if (!ctx.schema.hasColumn(T, "name") || !ctx.schema.hasColumn(T, "value")) return host;
  PS_TRY(ctx.scan(T, "SELECT value FROM " + quoteIdentifier(T) + " WHERE name = 'Hostname'",
                  [&](const SqliteStatement& row) {
                    if (!host && !row.isNull(0)) host = std::string(row.text(0));
                  }));
  return host;
}

Result<std::vector<std::int64_t>> readRuntimeProcesses(NsysContext& ctx) {
  const auto T = table::kRuntime;
  std::vector<std::int64_t> processes;
  if (!ctx.schema.hasColumn(T, "globalTid")) return processes;
  PS_TRY(ctx.scan(
      T,
      "SELECT DISTINCT globalTid >> 24 FROM " + quoteIdentifier(T) + " WHERE globalTid IS NOT NULL",
      [&](const SqliteStatement& row) {
        processes.push_back(
            static_cast<std::int64_t>(static_cast<std::uint64_t>(row.int64(0)) << 24));
      }));
  return processes;
}

}  // namespace ps::trace::import::nsys
