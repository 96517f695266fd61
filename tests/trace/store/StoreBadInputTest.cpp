// Every bad input of the foundation issue gets one clear error naming the file; reading never
// modifies a file.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

using test::TempDir;
using ::testing::HasSubstr;

std::string openError(const std::string& path) {
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  if (store.ok()) {
    auto run = loadRunFromFile(path, std::nullopt);
    return run.ok() ? std::string() : run.error();
  }
  return store.error();
}

using test::rawSql;

// A realistic trace large enough to span many pages, so damage lands inside table data.
std::string writeBigTrace(const TempDir& dir) {
  const std::string path = dir.file("big.sqlite");
  SyntheticGpipe g;
  g.ranks = 8;
  g.microbatches = 64;
  g.steps = 6;
  trace::TraceBatch all;
  for (int s = 0; s < g.steps; ++s) {
    auto b = syntheticGpipeStep(g, s);
    all.ops.insert(all.ops.end(), b.ops.begin(), b.ops.end());
  }
  test::writeRun(path, syntheticGpipeHeader(g), all);
  return path;
}

TEST(StoreBadInput, MissingFile) {
  TempDir dir;
  const std::string path = dir.file("nope.sqlite");
  EXPECT_EQ(openError(path), path + ": no such file");
  EXPECT_FALSE(std::filesystem::exists(path)) << "a read must not create the file";
}

TEST(StoreBadInput, Directory) {
  TempDir dir;
  EXPECT_THAT(openError(dir.path().string()), HasSubstr("is a directory"));
}

TEST(StoreBadInput, NotSqlite) {
  TempDir dir;
  const std::string path = dir.file("notes.sqlite");
  test::writeFile(path, "this is a text file, not a database\n" + std::string(4096, 'x'));
  EXPECT_EQ(openError(path), path + ": not a SQLite database");
}

TEST(StoreBadInput, EmptyFileIsNotOurs) {
  TempDir dir;
  const std::string path = dir.file("empty.sqlite");
  test::writeFile(path, "");
  EXPECT_THAT(openError(path), HasSubstr(path + ": not a PipeScope trace"));
}

TEST(StoreBadInput, SqliteWithoutOurTables) {
  TempDir dir;
  const std::string path = dir.file("foreign.sqlite");
  rawSql(path, "CREATE TABLE cars(id INTEGER, name TEXT); INSERT INTO cars VALUES(1,'a');");
  EXPECT_EQ(openError(path), path + ": not a PipeScope trace (no 'meta' table)");
  auto rw = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_FALSE(rw.ok());
  EXPECT_THAT(rw.error(), HasSubstr("refusing to write into it"));
}

TEST(StoreBadInput, MissingTables) {
  TempDir dir;
  const std::string path = dir.file("partial.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "DROP TABLE memory; DROP TABLE layer;");
  EXPECT_THAT(openError(path), HasSubstr("missing tables: memory, layer"));
}

TEST(StoreBadInput, NewerSchemaVersion) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "UPDATE meta SET value='7' WHERE key='schema_version'");
  EXPECT_EQ(openError(path), path +
                                 ": schema version 7 is newer than this PipeScope supports (1); "
                                 "update PipeScope to read it");
  EXPECT_FALSE(TraceStore::open(path, TraceStore::Mode::ReadWrite).ok());
}

TEST(StoreBadInput, GarbageSchemaVersion) {
  TempDir dir;
  const std::string path = dir.file("garbage.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "UPDATE meta SET value='one' WHERE key='schema_version'");
  EXPECT_THAT(openError(path), HasSubstr("schema_version 'one' is not a version number"));
}

TEST(StoreBadInput, TruncatedFile) {
  TempDir dir;
  const std::string path = writeBigTrace(dir);
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 64u * 1024u);
  std::filesystem::resize_file(path, size / 2);
  const std::string err = openError(path);
  EXPECT_THAT(err, HasSubstr(path + ": "));
  EXPECT_THAT(err, HasSubstr("corrupt or truncated"));
}

TEST(StoreBadInput, CorruptPages) {
  TempDir dir;
  const std::string path = writeBigTrace(dir);
  std::string bytes = test::readFile(path);
  // Overwrite a stretch of b-tree pages in the middle (past the schema page) with noise.
  for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 16384 && i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 7919) & 0xff);
  test::writeFile(path, bytes);
  const std::string err = openError(path);
  EXPECT_THAT(err, HasSubstr(path + ": "));
  EXPECT_THAT(err, HasSubstr("corrupt"));
}

TEST(StoreBadInput, RunIdThatDoesNotExist) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  test::writeRun(path, test::simpleHeader(1), {});
  auto run = loadRunFromFile(path, 9);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), path + ": no run with id 9 (it holds runs 1, 2)");
}

TEST(StoreBadInput, FileWithoutRuns) {
  TempDir dir;
  const std::string path = dir.file("none.sqlite");
  { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::ReadWrite).ok()); }
  auto run = loadRunFromFile(path, std::nullopt);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), path + ": the trace holds no runs");
}

TEST(StoreBadInput, ReadingNeverModifiesTheFile) {
  TempDir dir;
  const std::string path = dir.file("ro.sqlite");
  SyntheticGpipe g;
  test::writeRun(path, syntheticGpipeHeader(g), syntheticGpipeStep(g, 0));
  const std::string before = test::readFile(path);
  const auto mtime = std::filesystem::last_write_time(path);
  auto run = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(test::readFile(path), before);
  EXPECT_EQ(std::filesystem::last_write_time(path), mtime);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

}  // namespace
}  // namespace ps::trace
