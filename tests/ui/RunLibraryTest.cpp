// RunLibrary, without a window: the open file's runs listed in the history, a run another writer
// appended announced by poll() (and the same list announced as unchanged), a file that does not
// open leaving the open one as it was.

#include <gtest/gtest.h>

#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "ui/LoadedRun.h"
#include "ui/RunHistoryPanel.h"
#include "ui/RunLibrary.h"

namespace ps::ui {
namespace {

trace::TraceBatch oneStep() {
  trace::TraceBatch batch;
  batch.ops.push_back(test::compute(0, trace::OpKind::F, 0, 0, 900, 0));
  return batch;
}

TEST(RunLibrary, ListsLoadsAndAnnouncesARunAnotherWriterAppended) {
  test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  const std::int64_t first = test::writeRun(path, test::simpleHeader(1, "first"), oneStep());
  RunHistoryPanel history;
  RunLibrary library(&history);
  std::vector<std::vector<qint64>> changed;
  int unchanged = 0;
  QObject::connect(&library, &RunLibrary::runsChanged,
                   [&](const std::vector<qint64>& added) { changed.push_back(added); });
  QObject::connect(&library, &RunLibrary::runsUnchanged, [&] { ++unchanged; });

  ASSERT_TRUE(library.open(QString::fromStdString(path)));
  EXPECT_EQ(library.file(), QString::fromStdString(path));
  EXPECT_EQ(history.count(), 1);
  EXPECT_EQ(history.currentRun(), first);
  auto run = library.load(first);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ((*run)->trace->info.name, "first");

  const std::int64_t second = test::writeRun(path, test::simpleHeader(1, "second"), oneStep());
  library.poll();
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed.back(), std::vector<qint64>{second});
  EXPECT_EQ(history.count(), 2);
  ASSERT_NE(library.inFile(second), nullptr);
  EXPECT_EQ(library.inFile(second)->name, "second");
  library.poll();
  EXPECT_EQ(changed.size(), 1u);
  EXPECT_EQ(unchanged, 1);

  EXPECT_FALSE(library.open(QString::fromStdString(dir.file("missing.sqlite"))));
  EXPECT_EQ(library.file(), QString::fromStdString(path)) << "the open file stays";
}

}  // namespace
}  // namespace ps::ui
