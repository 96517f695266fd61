#include "trace/import/nsys/NsysSchema.h"

#include "trace/store/Sqlite.h"

namespace ps::trace::import::nsys {

namespace {

constexpr std::string_view kUsedTables[] = {
    table::kStringIds,   table::kNvtx,          table::kRuntime,        table::kKernel,
    table::kMemcpy,      table::kMemset,        table::kMemoryUsage,    table::kGpuInfo,
    table::kCudaGpuInfo, table::kSessionStart,  table::kSystemEnv,      table::kMetaData,
    table::kMetaDataOld, table::kEventTypeEnum, table::kMemcpyKindEnum, table::kMemOperEnum,
    table::kMemKindEnum,
};

// Tables only an nsys export has; any one of them (with or without StringIds) is enough to try.
constexpr std::string_view kNsysMarkers[] = {
    table::kStringIds, table::kNvtx,        table::kRuntime,      table::kKernel,
    table::kMemcpy,    table::kMemset,      table::kGpuInfo,      table::kCudaGpuInfo,
    table::kMetaData,  table::kMetaDataOld, table::kSessionStart,
};

}  // namespace

std::string quoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Result<NsysSchema> NsysSchema::discover(SqliteDb& db) {
  NsysSchema schema;
  {
    auto stmt = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!stmt) return std::move(stmt).takeError();
    for (;;) {
      auto row = stmt->step();
      if (!row) return std::move(row).takeError();
      if (!*row) break;
      schema.tables_.emplace(stmt->text(0));
    }
  }
  for (std::string_view name : kUsedTables) {
    if (!schema.hasTable(name)) continue;
    auto& columns = schema.columns_[std::string(name)];
    auto info = db.prepare("PRAGMA table_info(" + quoteIdentifier(name) + ")");
    if (!info) return std::move(info).takeError();
    for (;;) {
      auto row = info->step();
      if (!row) return std::move(row).takeError();
      if (!*row) break;
      columns.emplace(info->text(1));
    }
    // A WITHOUT ROWID table (never written by nsys) has no max(rowid): the estimate stays 0.
    auto count = db.prepare("SELECT max(rowid) FROM " + quoteIdentifier(name));
    if (count && count->step().ok()) schema.rows_[std::string(name)] = count->int64Or(0, 0);
  }
  return schema;
}

bool NsysSchema::hasTable(std::string_view table) const {
  return tables_.find(table) != tables_.end();
}

bool NsysSchema::hasColumn(std::string_view table, std::string_view column) const {
  auto it = columns_.find(table);
  return it != columns_.end() && it->second.find(column) != it->second.end();
}

std::string_view NsysSchema::pick(std::string_view table,
                                  std::initializer_list<std::string_view> candidates) const {
  for (std::string_view c : candidates)
    if (hasColumn(table, c)) return c;
  return {};
}

std::string NsysSchema::columnOrNull(std::string_view table, std::string_view column) const {
  return hasColumn(table, column) ? quoteIdentifier(column) : std::string("NULL");
}

std::int64_t NsysSchema::estimatedRows(std::string_view table) const {
  auto it = rows_.find(table);
  return it == rows_.end() ? 0 : std::max<std::int64_t>(it->second, 0);
}

bool NsysSchema::looksLikeNsys() const {
  for (std::string_view name : kNsysMarkers)
    if (hasTable(name)) return true;
  return false;
}

}  // namespace ps::trace::import::nsys
