#include "app/cli/CliCommon.h"

#include <iostream>
#include <string>

#include "trace/TerminalText.h"

namespace ps::cli {

int fail(std::string_view message, int code) {
  // Messages quote names and paths from files and the command line: escaped line by line (a
  // message may span lines) and capped, so that none can drive the terminal.
  std::string safe;
  for (std::size_t begin = 0;;) {
    const std::size_t end = message.find('\n', begin);
    safe += trace::terminalSafe(message.substr(begin, end - begin), kErrorLineCap);
    if (end == std::string_view::npos) break;
    safe += '\n';
    begin = end + 1;
  }
  return failPrintable(safe, code);
}

int failPrintable(std::string_view safeMessage, int code) {
  std::cerr << "pipescope-cli: error: " << safeMessage << '\n';
  return code;
}

}  // namespace ps::cli
