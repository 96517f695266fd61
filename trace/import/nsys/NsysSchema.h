#pragma once
// What tables and columns an Nsight Systems SQLite export actually has. nsys creates tables
// lazily and its schema changed across releases (2.x: EXPORT_META_DATA, no ENUM_* tables; trimmed
// exports: TARGET_INFO_CUDA_GPU; 3.x: META_DATA_EXPORT, greenContextId, payload columns...), so the
// reader asks here instead of assuming, and builds every SELECT from what is present.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "trace/Result.h"

namespace ps::trace {
class SqliteDb;
}

namespace ps::trace::import::nsys {

// The tables the reader uses, as nsys names them.
namespace table {
inline constexpr std::string_view kStringIds = "StringIds";
inline constexpr std::string_view kNvtx = "NVTX_EVENTS";
inline constexpr std::string_view kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kMemoryUsage = "CUDA_GPU_MEMORY_USAGE_EVENTS";
inline constexpr std::string_view kGpuInfo = "TARGET_INFO_GPU";
inline constexpr std::string_view kCudaGpuInfo = "TARGET_INFO_CUDA_GPU";  // trimmed/older exports
inline constexpr std::string_view kSessionStart = "TARGET_INFO_SESSION_START_TIME";
inline constexpr std::string_view kSystemEnv = "TARGET_INFO_SYSTEM_ENV";
inline constexpr std::string_view kMetaData = "META_DATA_EXPORT";
inline constexpr std::string_view kMetaDataOld = "EXPORT_META_DATA";  // schema 2.x
inline constexpr std::string_view kEventTypeEnum = "ENUM_NSYS_EVENT_TYPE";
inline constexpr std::string_view kMemcpyKindEnum = "ENUM_CUDA_MEMCPY_OPER";
inline constexpr std::string_view kMemOperEnum = "ENUM_CUDA_DEV_MEM_EVENT_OPER";
inline constexpr std::string_view kMemKindEnum = "ENUM_CUDA_MEM_KIND";
}  // namespace table

class NsysSchema {
 public:
  // Lists the tables (sqlite_master) and the columns of the tables the reader uses (PRAGMA
  // table_info). The first read of a file that is not SQLite fails here, naming the file.
  static Result<NsysSchema> discover(SqliteDb& db);

  bool hasTable(std::string_view table) const;
  bool hasColumn(std::string_view table, std::string_view column) const;
  // The first of `candidates` that `table` has; empty when none.
  std::string_view pick(std::string_view table,
                        std::initializer_list<std::string_view> candidates) const;
  // `column` quoted for a SELECT list when the table has it, else "NULL": keeps result column
  // indexes fixed whatever the schema.
  std::string columnOrNull(std::string_view table, std::string_view column) const;
  // max(rowid): an upper bound on the rows, in O(log n); 0 for an empty or missing table.
  std::int64_t estimatedRows(std::string_view table) const;
  // Any of the tables nsys always writes: tells an nsys export from some other SQLite file.
  bool looksLikeNsys() const;

 private:
  std::set<std::string, std::less<>> tables_;
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> columns_;
  std::map<std::string, std::int64_t, std::less<>> rows_;
};

// Double-quotes an identifier for SQL ("end" is a keyword).
std::string quoteIdentifier(std::string_view name);

}  // namespace ps::trace::import::nsys
