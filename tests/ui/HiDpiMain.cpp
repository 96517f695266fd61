// gtest main for the high-DPI widget tests: the whole process at QT_SCALE_FACTOR=2, offscreen.

#include <gtest/gtest.h>

#include <QApplication>

#include "tests/common/TestExit.h"

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  qputenv("QT_SCALE_FACTOR", "2");
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return ps::test::exitCodeForCtest(RUN_ALL_TESTS());
}
