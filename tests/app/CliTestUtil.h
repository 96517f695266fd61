#pragma once
// Runs the pipescope-cli under test (PIPESCOPE_CLI, set by tests/app/CMakeLists.txt).

#include <string>
#include <vector>

#include "tests/common/TestUtil.h"

namespace ps::test {

inline CommandResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), PIPESCOPE_CLI);
  return runCommand(args);
}

}  // namespace ps::test
