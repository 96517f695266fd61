#include "trace/import/nsys/NsysStrings.h"

#include <utility>

#include "trace/import/nsys/NsysSchema.h"

namespace ps::trace::import::nsys {

Result<NsysStrings> NsysStrings::open(SqliteDb& db, const NsysSchema& schema) {
  NsysStrings strings;
  if (!schema.hasColumn(table::kStringIds, "id") || !schema.hasColumn(table::kStringIds, "value"))
    return strings;
  auto stmt = db.prepare("SELECT value FROM StringIds WHERE id = ?1");
  if (!stmt) return std::move(stmt).takeError();
  strings.lookup_ = std::move(*stmt);
  strings.haveTable_ = true;
  return strings;
}

const std::string& NsysStrings::get(std::int64_t id) {
  auto it = cache_.find(id);
  if (it != cache_.end()) return it->second;
  std::string value;
  bool found = false;
  if (haveTable_) {
    lookup_.reset();
    lookup_.bind(1, id);
    // A read error here (a damaged page) counts as a missing string; the table scans that
    // called us report real I/O errors themselves.
    if (lookup_.stepFast() == 1 && !lookup_.isNull(0)) {
      value = std::string(lookup_.text(0));
      found = true;
    }
    lookup_.reset();
  }
  if (!found) {
    ++missing_;
    value = "<string " + std::to_string(id) + ">";
  }
  return cache_.emplace(id, std::move(value)).first->second;
}

}  // namespace ps::trace::import::nsys
