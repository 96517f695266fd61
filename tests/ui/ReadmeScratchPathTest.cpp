// The README names the scratch session's file (issue 34, item 20): it said
// ~/.local/share/PipeScope/scratch-session.sqlite while the app, named PipeScope by the
// organisation PipeScope, keeps it one folder deeper. The path is derived here the way the app
// derives it, so a README that names another file fails.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QStandardPaths>

#include <fstream>
#include <sstream>

#include "tests/common/TestPaths.h"
#include "ui/SessionFiles.h"

namespace ps::ui {
namespace {

// The scratch file below the data folder, under the names app/gui/main.cpp gives the app.
QString readmeScratchRelativePath() {
  const QString org = QApplication::organizationName();
  const QString app = QApplication::applicationName();
  QApplication::setOrganizationName("PipeScope");
  QApplication::setApplicationName("PipeScope");
  const QString dataHome = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
  const QString relative = QDir(dataHome).relativeFilePath(scratchSessionPath());
  QApplication::setOrganizationName(org);
  QApplication::setApplicationName(app);
  return relative;
}

TEST(ReadmeScratchPath, NamesTheFileTheAppUses) {
  std::ifstream readme(test::sourcePath("README.md"));
  ASSERT_TRUE(readme) << "README.md not found";
  std::stringstream text;
  text << readme.rdbuf();
  const std::string expected = "~/.local/share/" + readmeScratchRelativePath().toStdString();
  EXPECT_EQ(expected, "~/.local/share/PipeScope/PipeScope/scratch-session.sqlite");
  EXPECT_THAT(text.str(), ::testing::HasSubstr("`" + expected + "`"));
}

}  // namespace
}  // namespace ps::ui
