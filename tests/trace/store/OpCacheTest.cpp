// The columnar op cache (OpCache.h): a large finished run read from its rows leaves a cache that
// the next open reads instead, with exactly the same run; SQL that edits or adds op rows, a
// broken cache and a running run all fall back to the rows, which stay the truth.

#include "trace/store/OpCache.h"

#include <gtest/gtest.h>

#include "tests/common/TestUtil.h"
#include "tests/trace/OpCacheTestUtil.h"

namespace ps::trace {
namespace {

using test::TempDir;
using namespace test_opcache;

TEST(OpCache, TheNextOpenReadsTheSameRunFromTheCache) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto fromRows = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(fromRows.ok()) << fromRows.error();
  EXPECT_EQ(fromRows->opCount(), 3200u);
  EXPECT_GT(cachedRows(*store, id), 0) << "the first open leaves a cache";
  auto fromCache = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(fromCache.ok()) << fromCache.error();
  expectSameOps(*fromRows, *fromCache);
  RunTrace direct;
  direct.info.id = id;
  auto range = store->db().prepare("SELECT min(rowid), max(rowid) FROM op WHERE run_id=?");
  range->bind(1, id);
  ASSERT_TRUE(*range->step());
  auto read = readOpCache(store->db(), direct, {range->int64(0), range->int64(1)});
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_TRUE(*read);
  EXPECT_EQ(direct.opCount(), 3200u);
}

TEST(OpCache, EditedOrAddedRowsWinOverTheCache) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  ASSERT_TRUE(loadRun(*store, id, cacheEverything()).ok());
  ASSERT_GT(cachedRows(*store, id), 0);
  // An UPDATE drops the run's cache (trigger); the next open shows the edit.
  ASSERT_TRUE(store->db()
                  .exec("UPDATE op SET end_ns = end_ns + 5 WHERE rank = 0 AND kind = 'F' "
                        "AND microbatch = 3")
                  .ok());
  EXPECT_EQ(cachedRows(*store, id), 0);
  auto edited = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(edited.ok());
  const OpColumns& f = edited->ranks[0].lane(Lane::Compute);
  EXPECT_EQ(f.end[3], f.start[3] + 45);
  // An INSERT moves the run's rowid range: the cache built before it is not read.
  ASSERT_TRUE(store->db()
                  .exec("INSERT INTO op(run_id, rank, kind, step, start_ns, end_ns) VALUES(" +
                        std::to_string(id) + ", 1, 'B', 0, 5, 9)")
                  .ok());
  auto added = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->opCount(), 3201u);
  // A DELETE drops it too.
  ASSERT_GT(cachedRows(*store, id), 0);
  ASSERT_TRUE(store->db()
                  .exec("DELETE FROM op WHERE kind = 'AR' AND microbatch IS NULL "
                        "AND start_ns = 60")
                  .ok());
  EXPECT_EQ(cachedRows(*store, id), 0);
  auto deleted = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->opCount(), 3200u);
}

TEST(OpCache, ABrokenCacheFallsBackToTheRows) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto good = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(good.ok());
  for (const char* damage :
       {"UPDATE op_cache SET data = x'00010203' WHERE rank = 0", "UPDATE op_cache SET format = 99",
        "UPDATE op_cache SET ops = 1 WHERE rank = 1",
        "UPDATE op_cache SET data = zeroblob(length(data)) WHERE rank = 1"}) {
    SCOPED_TRACE(damage);
    ASSERT_TRUE(loadRun(*store, id, cacheEverything()).ok());  // rebuilds it
    ASSERT_TRUE(store->db().exec(damage).ok());
    LoadOptions rowsOnly;
    rowsOnly.cacheFromOps = 1u << 30;  // read, but do not rebuild
    auto loaded = loadRun(*store, id, rowsOnly);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    expectSameOps(*good, *loaded);
  }
}

// Large opens decode lanes on several threads; forced here on a small run (one thread per op):
// the same run, and a damaged block in any thread's lane still fails the whole read.
TEST(OpCache, LanesDecodedOnSeveralThreadsGiveTheSameRun) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto good = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(good.ok());
  auto range = store->db().prepare("SELECT min(rowid), max(rowid) FROM op WHERE run_id=?");
  ASSERT_TRUE(range.ok());
  range->bind(1, id);
  ASSERT_TRUE(*range->step());
  const OpRowRange rows{range->int64(0), range->int64(1)};
  RunTrace threaded;
  threaded.info.id = id;
  auto read = readOpCache(store->db(), threaded, rows, 1);
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_TRUE(*read);
  expectSameOps(*good, threaded);

  // Rank 1's receive and collective lanes: with two threads or more, one each.
  for (const char* lane : {"2", "3"}) {
    SCOPED_TRACE(lane);
    ASSERT_TRUE(store->db()
                    .exec(std::string("UPDATE op_cache SET data = zeroblob(length(data)) WHERE "
                                      "rank = 1 AND lane = ") +
                          lane)
                    .ok());
    RunTrace damaged;
    damaged.info.id = id;
    auto again = readOpCache(store->db(), damaged, rows, 1);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_FALSE(*again);
    EXPECT_TRUE(damaged.ranks.empty());                        // untouched
    ASSERT_TRUE(loadRun(*store, id, cacheEverything()).ok());  // rebuilt for the next round
  }
}

TEST(OpCache, RunningRunsAndReadOnlyFilesAreNotCached) {
  TempDir dir;
  const std::string path = dir.file("c.sqlite");
  std::int64_t running = 0, done = 0;
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok());
    running = writeCacheTestRun(*store, RunStatus::Running);
    ASSERT_TRUE(loadRun(*store, running, cacheEverything()).ok());
    EXPECT_EQ(cachedRows(*store, running), 0) << "a running run still grows";
  }
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok());
    done = writeCacheTestRun(*store, RunStatus::Complete);
  }
  auto ro = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(ro.ok());
  ASSERT_TRUE(loadRun(*ro, done, cacheEverything()).ok());
  EXPECT_EQ(cachedRows(*ro, done), 0) << "a read-only open never writes";
}

TEST(OpCache, DroppingOnlyTheTableIsHealedOnTheNextWritableOpen) {
  TempDir dir;
  const std::string path = dir.file("c.sqlite");
  std::int64_t id = 0;
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok());
    id = writeCacheTestRun(*store, RunStatus::Complete);
    ASSERT_TRUE(loadRun(*store, id, cacheEverything()).ok());
    ASSERT_TRUE(store->db().exec("DROP TABLE op_cache").ok());
  }
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  EXPECT_TRUE(store->db().exec("UPDATE op SET end_ns = end_ns + 1 WHERE rowid = 1").ok())
      << "the triggers find their table again";
}

}  // namespace
}  // namespace ps::trace
