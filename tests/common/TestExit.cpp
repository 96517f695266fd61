#include "tests/common/TestExit.h"

#include <gtest/gtest.h>

namespace ps::test {

int exitCodeForCtest(int runAllTestsResult) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const bool onlySkips = unit.successful_test_count() == 0 && unit.failed_test_count() == 0 &&
                         unit.skipped_test_count() > 0;
  if (runAllTestsResult == 0 && onlySkips) return kSkippedExitCode;
  return runAllTestsResult;
}

}  // namespace ps::test
