#include <gtest/gtest.h>

#include <QPlainTextEdit>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

TEST(MainWindow, OpensATraceAndShowsItsReport) {
  test::TempDir dir;
  const std::string path = dir.file("ok.sqlite");
  trace::SyntheticGpipe g;
  test::writeRun(path, trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0));
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* view = w.findChild<QPlainTextEdit*>("reportView");
  ASSERT_NE(view, nullptr);
  EXPECT_TRUE(view->toPlainText().contains("27.27 %")) << view->toPlainText().toStdString();
}

TEST(MainWindow, CorruptFileGivesTheStoresError) {
  test::TempDir dir;
  const std::string path = dir.file("bad.sqlite");
  test::writeFile(path, std::string(4096, 'q'));
  MainWindow w;
  EXPECT_FALSE(w.openTrace(QString::fromStdString(path), false));
  EXPECT_EQ(w.lastError().toStdString(), path + ": not a SQLite database");
}

}  // namespace
}  // namespace ps::ui
