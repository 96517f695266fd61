// The app never deletes the user's runs (issue 30, items 2 and 3a). A scratch session that does
// not open was removed and replaced by a new demo; now it is moved aside under a dated name, and a
// run the loader refuses no longer hides the file's other runs. File → Save as… removed the
// target before copying (the open file itself, when chosen) and copied the main file only.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>

#include <sqlite3.h>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/WindowTestUtil.h"
#include "trace/store/TraceStore.h"
#include "ui/MainWindow.h"
#include "ui/SessionFiles.h"

namespace ps::ui {
namespace {

using ::testing::HasSubstr;

int listed(const MainWindow& w) {
  return w.findChild<QListWidget*>("runHistory")->count();
}

runtime::RunPlanRequest simRequest(int microbatches) {
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = microbatches;
  r.backend = runtime::Backend::Sim;
  return r;
}

// A fresh scratch session holding the demo and one more run; every file set aside before is gone.
std::string scratchWithTwoRuns() {
  const QString path = scratchSessionPath();
  for (const QFileInfo& old :
       QFileInfo(path).dir().entryInfoList({"scratch-session*"}, QDir::Files))
    QFile::remove(old.filePath());
  MainWindow w;
  EXPECT_TRUE(w.openScratchSession()) << w.lastError().toStdString();
  w.runRequest(simRequest(12));
  test_window::waitForRun(w);
  EXPECT_EQ(listed(w), 2) << w.lastError().toStdString();
  return path.toStdString();
}

QStringList setAside() {
  return QFileInfo(scratchSessionPath())
      .dir()
      .entryList({"scratch-session.unreadable-*.sqlite"}, QDir::Files);
}

TEST(ScratchSessionKept, ARunTheLoaderRefusesIsSkippedAndTheOthersLoad) {
  const std::string path = scratchWithTwoRuns();
  // One op row of run 2 on a rank no run can have: the loader refuses that run.
  test::rawSql(path, "UPDATE op SET rank = -1 WHERE rowid = (SELECT max(rowid) FROM op)");
  MainWindow w;
  ASSERT_TRUE(w.openScratchSession()) << w.lastError().toStdString();
  EXPECT_EQ(listed(w), 2) << "both runs are listed";
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("run 2 not shown"));
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("rank -1"));
  EXPECT_TRUE(setAside().isEmpty()) << "a file that opens is not moved aside";
  EXPECT_EQ(test::runsIn(path).size(), 2u);
}

TEST(ScratchSessionKept, AFileOfANewerPipeScopeIsMovedAsideNotDeleted) {
  const std::string path = scratchWithTwoRuns();
  test::rawSql(path, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  const std::string bytes = test::readFile(path);
  MainWindow w;
  ASSERT_TRUE(w.openScratchSession()) << w.lastError().toStdString();
  EXPECT_EQ(listed(w), 1) << "a new session starts with the demo";
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("schema version 2 is newer"));
  const QStringList aside = setAside();
  ASSERT_EQ(aside.size(), 1) << aside.join(", ").toStdString();
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr(aside.first().toStdString()));
  const QString kept = QFileInfo(scratchSessionPath()).dir().filePath(aside.first());
  EXPECT_EQ(test::readFile(kept.toStdString()), bytes) << "the set-aside file is not the same";
}

TEST(ScratchSessionKept, AFileThatIsNoDatabaseIsMovedAsideToo) {
  const std::string path = scratchWithTwoRuns();
  test::writeFile(path, std::string(8192, 'x'));
  MainWindow w;
  ASSERT_TRUE(w.openScratchSession()) << w.lastError().toStdString();
  EXPECT_EQ(listed(w), 1);
  const QStringList aside = setAside();
  ASSERT_EQ(aside.size(), 1);
  const QString kept = QFileInfo(scratchSessionPath()).dir().filePath(aside.first());
  EXPECT_EQ(test::readFile(kept.toStdString()), std::string(8192, 'x'));
}

// A transient lock is no reason to set a file aside: another process writing the session (a long
// transaction holds SQLite's exclusive lock) would lose its file under it. Left in place, said so.
TEST(ScratchSessionKept, AFileLockedByAnotherWriterIsLeftInPlace) {
  const std::string path = scratchWithTwoRuns();
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  // Exclusive locking mode: readers are shut out in WAL mode too (the file may still be in WAL
  // mode while the session's last store closes), not only in rollback mode.
  ASSERT_EQ(sqlite3_exec(holder, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  MainWindow w;
  EXPECT_FALSE(w.openScratchSession());
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("locked by another process"));
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("left as it is"));
  EXPECT_TRUE(setAside().isEmpty()) << setAside().join(", ").toStdString();
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(test::runsIn(path).size(), 2u);  // bytes may differ: closing checkpoints a -wal
  MainWindow again;
  ASSERT_TRUE(again.openScratchSession()) << again.lastError().toStdString();
  EXPECT_EQ(listed(again), 2);
}

TEST(SaveAs, OntoTheOpenFileItselfKeepsIt) {
  test::TempDir dir;
  const QString path = QString::fromStdString(dir.file("trace.sqlite"));
  MainWindow w;
  ASSERT_TRUE(w.openDemo(path));
  EXPECT_FALSE(w.saveTraceAs(path, false));
  EXPECT_THAT(w.lastError().toStdString(), HasSubstr("saved already"));
  EXPECT_EQ(test::runsIn(path.toStdString()).size(), 1u);
  EXPECT_EQ(w.currentFile(), path);
}

TEST(SaveAs, TheCopyHoldsRunsStillInTheWal) {
  test::TempDir dir;
  const std::string from = dir.file("from.sqlite");
  trace::TraceBatch batch;
  batch.ops = {test::compute(0, trace::OpKind::F, 0, 0, 100)};
  test::writeRun(from, test::simpleHeader(1, "checkpointed"), batch);
  auto holder = trace::TraceStore::open(from, trace::TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(holder) << holder.error();
  test::writeRun(from, test::simpleHeader(1, "in the wal"), batch);
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(from), false)) << w.lastError().toStdString();
  const QString to = QString::fromStdString(dir.file("to.sqlite"));
  ASSERT_TRUE(w.saveTraceAs(to, false)) << w.lastError().toStdString();
  EXPECT_EQ(w.currentFile(), to);
  EXPECT_EQ(listed(w), 2);
  EXPECT_EQ(test::runsIn(to.toStdString()).size(), 2u);
}

}  // namespace
}  // namespace ps::ui
