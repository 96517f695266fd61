#pragma once
// The one way to read a small file named by a flag (a rules, costs, preset, schedule or lengths
// file; issue 30, item 16). Reading such a file whole with an ifstream let /dev/zero grow the
// process until it aborted and a FIFO hang the command forever. This reader opens without
// blocking, refuses anything but a regular file, checks the size before reading, caps the read
// (a file that grows while read is refused too), and skips a leading UTF-8 byte order mark, which
// editors on Windows write and which otherwise shows up as an invisible character in messages.

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/Result.h"

namespace ps::trace {

// Caps for the files flags name: far above any real one, far below what hurts.
inline constexpr std::uint64_t kMaxFlagFileBytes = 64ULL << 20;       // JSON, rules, lengths
inline constexpr std::uint64_t kMaxScheduleFileBytes = 256ULL << 20;  // a torch schedule CSV

// The text of the regular file `path`, at most `maxBytes` bytes, a leading UTF-8 BOM removed.
// Errors start with the path: "<path>: cannot open for reading", "<path>: is a FIFO, not a
// regular file; <what> must be a file", "<path>: 70.0 MiB, more than the 64.0 MiB a <what> may
// hold". `what` names the file's role for people, e.g. "cost file".
Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes,
                                 std::string_view what);

// Refuses a path that exists but is not a regular file (a FIFO, a device, a socket, a
// directory), naming what it is; a path that does not exist passes (it may be about to be
// created). For files handed to a library that would block or read forever on them (SQLite).
Status checkRegularOrAbsent(const std::string& path, std::string_view what);

// Writes `text` as the file `path`, whole or not at all: into a temporary file beside it, then
// renamed over it. A path that exists but is not a regular file is refused as above (opening a
// FIFO for writing blocks until a reader comes: `run --calibrate-out FIFO` hung).
Status writeTextFile(const std::string& path, std::string_view text, std::string_view what);

// `text` without a leading UTF-8 byte order mark (EF BB BF).
std::string_view withoutBom(std::string_view text);

}  // namespace ps::trace
