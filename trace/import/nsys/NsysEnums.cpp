#include "trace/import/nsys/NsysEnums.h"

#include <algorithm>
#include <utility>

#include "trace/import/nsys/NsysSchema.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import::nsys {

namespace {

struct EnumRow {
  std::int64_t id = 0;
  std::string name;   // symbol, e.g. CUDA_MEMCPY_KIND_PTOP
  std::string label;  // human name, e.g. Peer-to-Peer
};

Result<std::vector<EnumRow>> readEnumTable(SqliteDb& db, const NsysSchema& schema,
                                           std::string_view table) {
  std::vector<EnumRow> rows;
  auto stmt = db.prepare("SELECT " + schema.columnOrNull(table, "id") + ", " +
                         schema.columnOrNull(table, "name") + ", " +
                         schema.columnOrNull(table, "label") + " FROM " + quoteIdentifier(table));
  if (!stmt) return std::move(stmt).takeError();
  for (;;) {
    auto row = stmt->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    if (stmt->isNull(0)) continue;
    rows.push_back({stmt->int64(0), std::string(stmt->text(1)), std::string(stmt->text(2))});
  }
  return rows;
}

std::optional<std::int64_t> codeOf(const std::vector<EnumRow>& rows, std::string_view name) {
  for (const auto& r : rows)
    if (r.name == name) return r.id;
  return std::nullopt;
}

// "CUDA_MEMCPY_KIND_UVM_HTOD" -> "UVM HtoD": the names Nsight Systems and Kineto show.
std::string shortCopyKind(std::string_view symbol) {
  constexpr std::string_view kPrefix = "CUDA_MEMCPY_KIND_";
  if (symbol.substr(0, kPrefix.size()) == kPrefix) symbol.remove_prefix(kPrefix.size());
  if (symbol.empty() || symbol == "UNKNOWN") return {};
  std::string out;
  while (!symbol.empty()) {
    const std::size_t cut = std::min(symbol.find('_'), symbol.size());
    std::string_view token = symbol.substr(0, cut);
    symbol.remove_prefix(cut == symbol.size() ? cut : cut + 1);
    if (!out.empty()) out += ' ';
    if (token.size() == 4 && token.substr(1, 2) == "TO") {
      out += token[0];
      out += "to";
      out += token[3];
    } else {
      out += token;
    }
  }
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Only a table whose data has rows needs its enum: an empty memory table in an old export is no
// reason for a warning.
bool needed(const NsysSchema& schema, std::string_view dataTable) {
  return schema.hasTable(dataTable) && schema.estimatedRows(dataTable) > 0;
}

Status readEventTypes(SqliteDb& db, const NsysSchema& schema, NsysEnums& e,
                      std::vector<std::string>& warnings) {
  if (!needed(schema, table::kNvtx)) return {};
  if (!schema.hasTable(table::kEventTypeEnum)) {
    warnings.emplace_back(
        "no ENUM_NSYS_EVENT_TYPE table: NVTX event types read as the documented codes "
        "(59 push/pop range, 60 start/end range)");
    return {};
  }
  auto rows = readEnumTable(db, schema, table::kEventTypeEnum);
  if (!rows) return std::move(rows).takeError();
  e.pushPopRange = codeOf(*rows, "NvtxPushPopRange");
  e.startEndRange = codeOf(*rows, "NvtxStartEndRange");
  e.mark = codeOf(*rows, "NvtxMark");
  e.threadName = codeOf(*rows, "NvtxThread");
  if (!e.pushPopRange)
    warnings.emplace_back(
        "ENUM_NSYS_EVENT_TYPE has no NvtxPushPopRange: push/pop ranges not imported");
  if (!e.startEndRange)
    warnings.emplace_back(
        "ENUM_NSYS_EVENT_TYPE has no NvtxStartEndRange: start/end ranges not imported");
  return {};
}

Status readCopyKinds(SqliteDb& db, const NsysSchema& schema, NsysEnums& e,
                     std::vector<std::string>& warnings) {
  static constexpr std::string_view kDocumented[] = {
      "CUDA_MEMCPY_KIND_UNKNOWN",  "CUDA_MEMCPY_KIND_HTOD",     "CUDA_MEMCPY_KIND_DTOH",
      "CUDA_MEMCPY_KIND_HTOA",     "CUDA_MEMCPY_KIND_ATOH",     "CUDA_MEMCPY_KIND_ATOA",
      "CUDA_MEMCPY_KIND_ATOD",     "CUDA_MEMCPY_KIND_DTOA",     "CUDA_MEMCPY_KIND_DTOD",
      "CUDA_MEMCPY_KIND_HTOH",     "CUDA_MEMCPY_KIND_PTOP",     "CUDA_MEMCPY_KIND_UVM_HTOD",
      "CUDA_MEMCPY_KIND_UVM_DTOH", "CUDA_MEMCPY_KIND_UVM_DTOD",
  };
  std::vector<EnumRow> rows;
  if (schema.hasTable(table::kMemcpyKindEnum)) {
    auto read = readEnumTable(db, schema, table::kMemcpyKindEnum);
    if (!read) return std::move(read).takeError();
    rows = std::move(*read);
    e.peerToPeerCopyKinds.clear();
    for (const auto& r : rows)
      if (contains(r.name, "PTOP") || r.label == "Peer-to-Peer")
        e.peerToPeerCopyKinds.push_back(r.id);
  } else {
    for (std::size_t i = 0; i < std::size(kDocumented); ++i)
      rows.push_back({static_cast<std::int64_t>(i), std::string(kDocumented[i]), {}});
    if (needed(schema, table::kMemcpy))
      warnings.emplace_back(
          "no ENUM_CUDA_MEMCPY_OPER table: copy kinds read as the documented codes "
          "(10 peer-to-peer)");
  }
  for (const auto& r : rows)
    e.copyKindNames[r.id] = shortCopyKind(r.name);
  return {};
}

Status readMemoryOperations(SqliteDb& db, const NsysSchema& schema, NsysEnums& e,
                            std::vector<std::string>& warnings) {
  if (!needed(schema, table::kMemoryUsage)) return {};
  if (!schema.hasTable(table::kMemOperEnum)) {
    warnings.emplace_back(
        "no ENUM_CUDA_DEV_MEM_EVENT_OPER table: memory operations read as the documented codes "
        "(0 allocation, 1 deallocation)");
  } else {
    auto rows = readEnumTable(db, schema, table::kMemOperEnum);
    if (!rows) return std::move(rows).takeError();
    e.allocation.reset();
    e.deallocation.reset();
    for (const auto& r : *rows) {
      // Test DEALLOCATION first: "ALLOCATION" is a substring of it.
      if (contains(r.name, "DEALLOCATION") || r.label == "Deallocation")
        e.deallocation = r.id;
      else if (contains(r.name, "ALLOCATION") || r.label == "Allocation")
        e.allocation = r.id;
    }
    if (!e.allocation || !e.deallocation)
      warnings.emplace_back(
          "ENUM_CUDA_DEV_MEM_EVENT_OPER lacks allocation/deallocation: memory not imported");
  }
  if (!schema.hasTable(table::kMemKindEnum)) {
    warnings.emplace_back(
        "no ENUM_CUDA_MEM_KIND table: memory kinds read as the documented codes "
        "(0 pageable, 1 pinned host memory)");
  } else {
    auto rows = readEnumTable(db, schema, table::kMemKindEnum);
    if (!rows) return std::move(rows).takeError();
    e.hostMemoryKinds.clear();
    for (const auto& r : *rows)
      if (contains(r.name, "PAGEABLE") || contains(r.name, "PINNED"))
        e.hostMemoryKinds.push_back(r.id);
  }
  return {};
}

}  // namespace

bool NsysEnums::isPeerToPeer(std::int64_t copyKind) const {
  return std::find(peerToPeerCopyKinds.begin(), peerToPeerCopyKinds.end(), copyKind) !=
         peerToPeerCopyKinds.end();
}

bool NsysEnums::isHostMemory(std::int64_t memKind) const {
  return std::find(hostMemoryKinds.begin(), hostMemoryKinds.end(), memKind) !=
         hostMemoryKinds.end();
}

std::string_view NsysEnums::copyKindName(std::int64_t copyKind) const {
  auto it = copyKindNames.find(copyKind);
  return it == copyKindNames.end() ? std::string_view() : std::string_view(it->second);
}

Result<NsysEnums> readNsysEnums(SqliteDb& db, const NsysSchema& schema,
                                std::vector<std::string>& warnings) {
  NsysEnums e;
  PS_TRY(readEventTypes(db, schema, e, warnings));
  PS_TRY(readCopyKinds(db, schema, e, warnings));
  PS_TRY(readMemoryOperations(db, schema, e, warnings));
  return e;
}

}  // namespace ps::trace::import::nsys
