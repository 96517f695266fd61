#pragma once
// Text from a file (run names, op labels, paths inside traces) made safe to print on a terminal:
// a name holding ESC sequences could otherwise recolour, move the cursor or rewrite earlier
// lines, and a 100k-character label would flood the screen.

#include <cstddef>
#include <string>
#include <string_view>

namespace ps::trace {

// Default cap of terminalSafe, in characters (code points) kept before the ellipsis.
inline constexpr std::size_t kTerminalTextCap = 200;

// `text` with every non-printable escaped, C style: \n \r \t \\ stay two characters, other C0
// controls, DEL and invalid UTF-8 bytes become \xNN, C1 controls (U+0080..U+009F) \u00NN. Valid
// printable UTF-8 is kept. Longer than `maxChars` characters: cut there and "… (+N chars)" added,
// N counting the characters of `text` that were left out.
std::string terminalSafe(std::string_view text, std::size_t maxChars = kTerminalTextCap);

}  // namespace ps::trace
