#pragma once
// Schema v1 of DESIGN §4, plus the migration hook that later versions plug into.

#include <functional>
#include <string_view>
#include <vector>

#include "trace/Result.h"

namespace ps::trace {

class SqliteDb;

inline constexpr int kSchemaVersion = 1;

// The tables every PipeScope trace holds; a file missing one is not ours (or is damaged).
const std::vector<std::string_view>& requiredTables();

// Creates every table of the current version and writes meta (inside the caller's transaction).
Status createSchema(SqliteDb& db, std::string_view producer);

// Indexes are created after bulk inserts (a writer finishing a run), not at creation time.
Status createIndexes(SqliteDb& db);

// A migration upgrades a file from version `from` to `from + 1` inside one transaction.
struct Migration {
  int from = 0;
  std::function<Status(SqliteDb&)> apply;
};
// The registered migrations, ordered by `from`. Empty while v1 is the only version.
const std::vector<Migration>& migrations();
// Upgrades `db` from `version` to kSchemaVersion using `steps`; an error names the missing step.
Status migrate(SqliteDb& db, int version, const std::vector<Migration>& steps);

}  // namespace ps::trace
