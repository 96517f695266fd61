#pragma once
// Where tests find the repository's files and the programs under test. Only TestPaths.cpp is
// compiled with the build's absolute paths: every other test source's compile command stays the
// same in any checkout, so ccache reuses its object in a fresh clone elsewhere (CMakeLists.txt).

#include <string>
#include <string_view>

namespace ps::test {

// `relative` (e.g. "tests/runtime/golden/deadlock_p2.csv") under the repository's root.
std::string sourcePath(std::string_view relative);

// The pipescope-cli built with the tests; empty in a build without it.
const char* cliPath();

}  // namespace ps::test
