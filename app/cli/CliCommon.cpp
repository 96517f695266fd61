#include "app/cli/CliCommon.h"

#include <iostream>

namespace ps::cli {

int fail(std::string_view message, int code) {
  std::cerr << "pipescope-cli: error: " << message << '\n';
  return code;
}

}  // namespace ps::cli
