// gtest main for widget tests: one QApplication for the process, offscreen platform, and a
// private home for settings and the scratch session, so tests never read or write the user's.

#include <gtest/gtest.h>

#include <QApplication>

#include <QTemporaryDir>
#include "tests/common/TestExit.h"

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QTemporaryDir home;
  if (!home.isValid()) return 1;
  qputenv("XDG_CONFIG_HOME", (home.path() + "/config").toLocal8Bit());
  qputenv("XDG_DATA_HOME", (home.path() + "/data").toLocal8Bit());
  QApplication app(argc, argv);
  QApplication::setOrganizationName("PipeScopeTests");
  QApplication::setApplicationName("PipeScopeTests");
  ::testing::InitGoogleTest(&argc, argv);
  return ps::test::exitCodeForCtest(RUN_ALL_TESTS());
}
