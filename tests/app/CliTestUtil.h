#pragma once
// Runs the pipescope-cli under test (test::cliPath()).

#include <string>
#include <vector>

#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps::test {

inline CommandResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), test::cliPath());
  return runCommand(args);
}

}  // namespace ps::test
