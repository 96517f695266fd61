#include "app/cli/CliCommon.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
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

namespace {

// The message of the exception in flight, without allocating for the common cases.
std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return "out of memory (the input asks for more than this machine can give)";
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
    return "internal error: an unknown exception";
  }
}

[[noreturn]] void terminateWithOneLine() {
  const std::exception_ptr error = std::current_exception();
  if (error) {
    const std::string message = describe(error);
    std::fprintf(stderr, "pipescope-cli: error: %s\n", message.c_str());
  } else {
    std::fputs("pipescope-cli: error: internal error: terminated\n", stderr);
  }
  std::fflush(stderr);
  std::_Exit(kExitRunFailed);
}

}  // namespace

int runGuarded(const std::function<int()>& body) {
  std::set_terminate(terminateWithOneLine);
  try {
    return body();
  } catch (...) {
    std::cout.flush();
    return fail(describe(std::current_exception()), kExitRunFailed);
  }
}

}  // namespace ps::cli
