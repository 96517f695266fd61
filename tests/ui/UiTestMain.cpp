// gtest main for widget tests: one QApplication for the process, offscreen platform, and a
// private home for settings and the scratch session, so tests never read or write the user's.

#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include "tests/common/TestExit.h"

namespace {

// Each test starts as a first start: a window shown and closed by an earlier test in the same
// process saved its layout, which the next window would restore (ctest runs suites apart, a
// whole-binary run does not).
class FreshSettings : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { QSettings().clear(); }
};

}  // namespace

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
  ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSettings);
  return ps::test::exitCodeForCtest(RUN_ALL_TESTS());
}
