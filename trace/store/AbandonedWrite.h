#pragma once
// What a writer that did not finish its run (failed, cancelled) takes back: only what it wrote.
// Other processes may append to the same file at any moment, each in its own run, so a writer
// that created the file cannot simply delete it again: a run appended meanwhile would go too.

#include <cstdint>
#include <optional>

#include "trace/Result.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {

struct AbandonedWrite {
  bool runDeleted = false;   // the writer's run and every row of it are gone
  bool fileRemoved = false;  // and so is the file it created (with its -wal, -shm, -journal)
};

// Deletes run `runId` (when given) and its rows in one transaction. Then, when `createdFile`
// (this writer created the file), removes the file, but only while it provably holds nothing of
// anyone else: under SQLite's exclusive lock, taken without waiting, the file holds no run and
// no other connection has it open (one opened to append a run holds WAL's shared lock, and a
// writable TraceStore::open that finds its file removed under it opens the path again).
// Otherwise the file stays, with the others' runs. Closes `store` in every case.
// Whether the file `db` opened is no longer at its path (removed, as abandonWrite may, or
// replaced): the check a writable open makes so that it never appends to a removed file.
bool openedFileMoved(SqliteDb& db);

Result<AbandonedWrite> abandonWrite(TraceStore store, std::optional<std::int64_t> runId,
                                    bool createdFile);

}  // namespace ps::trace
