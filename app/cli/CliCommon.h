#pragma once
// Shared pieces of the pipescope-cli subcommands: exit codes and error printing (DESIGN §5).

#include <cstddef>
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

}  // namespace ps::cli
