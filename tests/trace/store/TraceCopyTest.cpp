// saveTraceCopy, File → Save as… (issue 30, item 3a): the copy is made through SQLite, so runs
// committed but still in the -wal are in it, and saving a file onto itself keeps the file.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/TraceCopy.h"
#include "trace/store/TraceStore.h"

namespace ps {
namespace {

using test::TempDir;
using ::testing::HasSubstr;
using trace::OpKind;
using trace::TraceStore;

trace::TraceBatch ops(int count) {
  trace::TraceBatch batch;
  for (int i = 0; i < count; ++i)
    batch.ops.push_back(test::compute(0, OpKind::F, i, i * 100, i * 100 + 90));
  return batch;
}

std::vector<std::string> runNames(const std::string& path) {
  std::vector<std::string> names;
  for (const auto& run : test::runsIn(path))
    names.push_back(run.name);
  return names;
}

TEST(TraceCopy, RunsStillInTheWalAreInTheCopy) {
  TempDir dir;
  const std::string from = dir.file("open.sqlite");
  test::writeRun(from, test::simpleHeader(1, "first"), ops(10));
  // Another program (the app, a writer) keeps the file open: what is written now stays in the
  // -wal, not yet in the main file.
  auto holder = TraceStore::open(from, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(holder) << holder.error();
  test::writeRun(from, test::simpleHeader(1, "second, in the wal"), ops(10));
  ASSERT_GT(std::filesystem::file_size(from + "-wal"), 0u);
  // What the byte copy of old made of it: the main file alone lacks the second run.
  const std::string bytes = dir.file("bytes.sqlite");
  std::filesystem::copy_file(from, bytes);
  EXPECT_EQ(runNames(bytes).size(), 1u);

  const std::string to = dir.file("saved.sqlite");
  ASSERT_TRUE(trace::saveTraceCopy(from, to));
  EXPECT_THAT(runNames(to), ::testing::ElementsAre("first", "second, in the wal"));
  EXPECT_FALSE(std::filesystem::exists(to + "-wal"));
  // No temporary file left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find(".saving-"), std::string::npos) << entry.path();
}

TEST(TraceCopy, SavingAFileOntoItselfKeepsIt) {
  TempDir dir;
  const std::string from = dir.file("trace.sqlite");
  test::writeRun(from, test::simpleHeader(1, "kept"), ops(5));
  const std::string before = test::readFile(from);
  for (const std::string& to : {from, dir.path().string() + "/./trace.sqlite"}) {
    const auto saved = trace::saveTraceCopy(from, to);
    ASSERT_FALSE(saved) << to;
    EXPECT_EQ(saved.error(), to + ": is the trace file being saved; it is saved already (nothing "
                                  "to do)");
    EXPECT_EQ(test::readFile(from), before);
  }
}

TEST(TraceCopy, ReplacesAnOtherTraceAtTheTarget) {
  TempDir dir;
  const std::string from = dir.file("from.sqlite");
  const std::string to = dir.file("to.sqlite");
  test::writeRun(from, test::simpleHeader(1, "new"), ops(3));
  test::writeRun(to, test::simpleHeader(1, "old a"), ops(3));
  test::writeRun(to, test::simpleHeader(1, "old b"), ops(3));
  ASSERT_TRUE(trace::saveTraceCopy(from, to));
  EXPECT_THAT(runNames(to), ::testing::ElementsAre("new"));
}

TEST(TraceCopy, ASourceThatIsNotATraceLeavesTheTargetAsItWas) {
  TempDir dir;
  const std::string from = dir.file("notes.txt");
  const std::string to = dir.file("to.sqlite");
  test::writeFile(from, "not a database at all, just some text that is long enough\n");
  test::writeRun(to, test::simpleHeader(1, "old"), ops(3));
  const std::string before = test::readFile(to);
  const auto saved = trace::saveTraceCopy(from, to);
  ASSERT_FALSE(saved);
  EXPECT_THAT(saved.error(), HasSubstr(from));
  EXPECT_EQ(test::readFile(to), before);
}

}  // namespace
}  // namespace ps
