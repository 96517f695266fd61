#pragma once
// "Save as": a copy of a trace file made through SQLite, not by copying bytes. A byte copy misses
// the runs committed but still in the -wal, and removing the target first destroys the source
// when both name the same file.

#include <string>

#include "trace/Result.h"

namespace ps::trace {

// Writes a consistent copy of the PipeScope trace `from` (committed runs still in its -wal
// included) to a temporary file in `to`'s folder (VACUUM INTO), then renames it over `to`: `to`
// is replaced only once the copy is whole, and a failure leaves it as it was. Refused, with a
// message and nothing changed: `to` naming `from` itself (by any path), `from` not a PipeScope
// trace, `to` with a -wal beside it (open in another program, or its writer was killed).
[[nodiscard]] Status saveTraceCopy(const std::string& from, const std::string& to);

}  // namespace ps::trace
