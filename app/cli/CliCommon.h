#pragma once
// Shared pieces of the pipescope-cli subcommands: exit codes and error printing (DESIGN §5).

#include <string_view>

namespace ps::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;  // a run that failed
inline constexpr int kExitBadInput = 2;   // usage errors and bad input

// Prints "pipescope-cli: error: <message>" on stderr and returns `code`.
int fail(std::string_view message, int code = kExitBadInput);

}  // namespace ps::cli
