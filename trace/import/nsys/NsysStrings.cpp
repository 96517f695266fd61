#include "trace/import/nsys/NsysStrings.h"

#include <utility>

#include "trace/import/nsys/NsysSchema.h"

namespace ps::trace::import::nsys {
namespace {

// Whether SQLite finds one id by a search (a primary key or an index on id), not a scan of the
// whole table: EXPLAIN QUERY PLAN says "SEARCH StringIds USING ..." or "SCAN StringIds".
bool lookupSearches(SqliteDb& db) {
  auto plan = db.prepare("EXPLAIN QUERY PLAN SELECT value FROM StringIds WHERE id = ?1");
  if (!plan) return true;  // cannot tell: look up on demand, as before
  bool search = false;
  for (;;) {
    auto row = plan->step();
    if (!row || !*row) break;
    const std::string_view detail = plan->text(3);
    if (detail.starts_with("SCAN")) return false;
    if (detail.starts_with("SEARCH")) search = true;
  }
  return search;
}

}  // namespace

Result<NsysStrings> NsysStrings::open(SqliteDb& db, const NsysSchema& schema) {
  NsysStrings strings;
  if (!schema.hasColumn(table::kStringIds, "id") || !schema.hasColumn(table::kStringIds, "value"))
    return strings;
  auto stmt = db.prepare("SELECT value FROM StringIds WHERE id = ?1");
  if (!stmt) return std::move(stmt).takeError();
  strings.haveTable_ = true;
  if (lookupSearches(db)) {
    strings.lookup_ = std::move(*stmt);
    return strings;
  }
  // No index on id (issue 30, item 18): each lookup would scan the table, 50k NVTX labels took
  // 30 s. Read it once instead; the first row of an id wins, as the lookup would find it.
  auto all = db.prepare("SELECT id, value FROM StringIds");
  if (!all) return std::move(all).takeError();
  for (;;) {
    auto row = all->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    if (all->isNull(0)) continue;
    const std::int64_t id = all->int64(0);
    if (all->isNull(1)) {
      strings.nullIds_.insert(id);
      continue;
    }
    if (!strings.nullIds_.count(id)) strings.cache_.try_emplace(id, all->text(1));
  }
  strings.preloaded_ = true;
  return strings;
}

const std::string& NsysStrings::get(std::int64_t id) {
  auto it = cache_.find(id);
  if (it != cache_.end()) return it->second;
  std::string value;
  bool found = false;
  if (haveTable_ && !preloaded_) {
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
