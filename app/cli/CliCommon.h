#pragma once
// Shared pieces of the pipescope-cli subcommands: exit codes and error printing (DESIGN §5).

#include <cstddef>
#include <functional>
#include <string_view>

namespace ps::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;  // a run that failed
inline constexpr int kExitBadInput = 2;   // usage errors and bad input

// Characters of one line of an error kept before it is cut (trace::terminalSafe).
inline constexpr std::size_t kErrorLineCap = 1000;

// Prints "pipescope-cli: error: <message>" on stderr and returns `code`. Non-printable
// characters are escaped and each line capped (trace/TerminalText.h); line breaks are kept.
int fail(std::string_view message, int code = kExitBadInput);
// The same for a message already made safe to print (names and paths in it passed through
// trace::terminalSafe, which caps them at their own length): printed as it is.
int failPrintable(std::string_view safeMessage, int code = kExitBadInput);

// Runs `body` (main's work) and turns any exception that escapes it, std::bad_alloc included,
// into one "pipescope-cli: error: ..." line and kExitRunFailed: never an abort (issue 30,
// item 16). Also installs a terminate handler that does the same for an exception escaping a
// thread, which no catch in main can see.
int runGuarded(const std::function<int()>& body);

}  // namespace ps::cli
