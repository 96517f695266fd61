// gtest main for the test executables without their own: as gtest_main, but a process whose tests
// were all skipped says so to ctest (TestExit.h).

#include <gtest/gtest.h>

#include "tests/common/TestExit.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return ps::test::exitCodeForCtest(RUN_ALL_TESTS());
}
