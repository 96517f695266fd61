#include "tests/common/TestPaths.h"

namespace ps::test {

std::string sourcePath(std::string_view relative) {
  return std::string(PIPESCOPE_SOURCE_DIR) + "/" + std::string(relative);
}

const char* cliPath() {
  return PIPESCOPE_CLI;
}

}  // namespace ps::test
