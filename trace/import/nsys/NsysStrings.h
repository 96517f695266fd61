#pragma once
// StringIds lookups, on demand: an export can hold hundreds of thousands of strings (every
// function and kernel name nsys saw) of which a trace uses a few hundred, so each id is fetched
// once by primary key and cached. A table without a primary key or index on id (a rewritten
// export) is read whole once instead, since each lookup there would scan it.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "trace/store/Sqlite.h"

namespace ps::trace::import::nsys {

class NsysSchema;

class NsysStrings {
 public:
  NsysStrings() = default;
  // Prepares the lookup when the file has a StringIds table; without one every id reads as
  // "<string N>".
  static Result<NsysStrings> open(SqliteDb& db, const NsysSchema& schema);

  // The string with this id; "<string N>" when the id is unknown. The reference stays valid for
  // the lifetime of this object.
  const std::string& get(std::int64_t id);
  // Ids that were missing from StringIds (a trimmed or damaged export).
  std::int64_t missing() const { return missing_; }

 private:
  SqliteStatement lookup_;
  bool haveTable_ = false;
  bool preloaded_ = false;  // cache_ holds the whole table
  std::unordered_map<std::int64_t, std::string> cache_;
  std::unordered_set<std::int64_t> nullIds_;  // preloaded ids whose first value is NULL
  std::int64_t missing_ = 0;
};

}  // namespace ps::trace::import::nsys
