// The op cache proves it stands for the rows it was built from (issue 30 items 3-5): an `op`
// table rebuilt the usual SQLite way (CREATE AS SELECT / DROP / RENAME), triggers dropped by
// hand, a writer's UPDATE between reading the rows and storing the cache, and a bit flip in a
// block that still decodes all fall back to the rows.

#include <gtest/gtest.h>

#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/OpCacheTestUtil.h"

namespace ps::trace {
namespace {

using test::TempDir;
using namespace test_opcache;

// Rank 0's compute starts, as loaded.
std::vector<std::int64_t> rank0Starts(const RunTrace& run) {
  return run.ranks.at(0).lane(Lane::Compute).start;
}

std::vector<std::int64_t> doubled(std::vector<std::int64_t> v) {
  for (auto& x : v)
    x *= 2;
  return v;
}

TEST(OpCacheProof, AnOpTableRebuiltByCreateAsSelectIsReadFromItsRows) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto before = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(before.ok()) << before.error();
  ASSERT_GT(cachedRows(*store, id), 0);
  // What DB Browser, sqlite-utils and migrations do; rowids come back equal.
  ASSERT_TRUE(store->db()
                  .exec("CREATE TABLE op_new AS SELECT run_id, rank, kind, stage, microbatch, "
                        "step, CASE WHEN rank = 0 THEN 2 * start_ns ELSE start_ns END AS start_ns, "
                        "CASE WHEN rank = 0 THEN 2 * end_ns ELSE end_ns END AS end_ns, "
                        "peer_rank, bytes, name FROM op ORDER BY rowid; DROP TABLE op; "
                        "ALTER TABLE op_new RENAME TO op; CREATE INDEX op_by_run ON op(run_id);")
                  .ok());
  auto after = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(after.ok()) << after.error();
  EXPECT_EQ(rank0Starts(*after), doubled(rank0Starts(*before)));
  // The fallback rebuilt the cache, and it holds the new times.
  EXPECT_GT(cachedRows(*store, id), 0);
  auto again = loadRun(*store, id, rowsWithoutRebuild());
  ASSERT_TRUE(again.ok()) << again.error();
  expectSameOps(*after, *again);
}

TEST(OpCacheProof, UpdatesWithTheTriggersDroppedAreNotHiddenByTheCache) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto before = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(before.ok()) << before.error();
  ASSERT_GT(cachedRows(*store, id), 0);
  ASSERT_TRUE(store->db()
                  .exec("DROP TRIGGER op_cache_stale_on_update; DROP TRIGGER "
                        "op_cache_stale_on_delete; UPDATE op SET start_ns = 2 * start_ns, "
                        "end_ns = 2 * end_ns WHERE rank = 0")
                  .ok());
  auto after = loadRun(*store, id, rowsWithoutRebuild());
  ASSERT_TRUE(after.ok()) << after.error();
  EXPECT_EQ(rank0Starts(*after), doubled(rank0Starts(*before)));
  // Another run's cache puts the triggers back: the run edited without them stays uncached.
  const std::int64_t other = writeCacheTestRun(*store, RunStatus::Complete);
  ASSERT_TRUE(loadRun(*store, other, cacheEverything()).ok());
  ASSERT_GT(cachedRows(*store, other), 0);
  auto later = loadRun(*store, id, rowsWithoutRebuild());
  ASSERT_TRUE(later.ok()) << later.error();
  EXPECT_EQ(rank0Starts(*later), doubled(rank0Starts(*before)));
}

TEST(OpCacheProof, AnUpdateBetweenReadingTheRowsAndStoringTheCacheKeepsItOut) {
  TempDir dir;
  const std::string path = dir.file("c.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto other = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(other.ok()) << other.error();
  LoadOptions racing = cacheEverything();
  racing.afterRowsRead = [&] {  // one row only: no sample of the rows would find it
    ASSERT_TRUE(other->db()
                    .exec("UPDATE op SET end_ns = end_ns + 7 WHERE rank = 1 AND kind = 'AR' "
                          "AND start_ns = 50060")
                    .ok());
  };
  auto racy = loadRun(*store, id, racing);
  ASSERT_TRUE(racy.ok()) << racy.error();
  EXPECT_EQ(cachedRows(*store, id), 0) << "a cache of rows that changed since is not stored";
  auto later = loadRun(*store, id, rowsWithoutRebuild());
  ASSERT_TRUE(later.ok()) << later.error();
  const OpColumns& ar = later->ranks.at(1).lane(Lane::Collective);
  const std::size_t i = ar.lowerBoundStart(50060);
  ASSERT_LT(i, ar.size());
  EXPECT_EQ(ar.end[i], 50060 + 30 + 7);
}

TEST(OpCacheProof, ABitFlipInABlockThatStillDecodesFallsBackToTheRows) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("c.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  const std::int64_t id = writeCacheTestRun(*store, RunStatus::Complete);
  auto good = loadRun(*store, id, cacheEverything());
  ASSERT_TRUE(good.ok()) << good.error();
  auto get = store->db().prepare("SELECT data FROM op_cache WHERE rank = 0 AND lane = 0");
  ASSERT_TRUE(get.ok());
  ASSERT_TRUE(*get->step());
  const auto [bytes, size] = get->blob(0);
  std::vector<unsigned char> data(bytes, bytes + size);
  get->reset();
  // Rank 0's compute block: 800 starts of width data[0], then the end column (durations of 40,
  // zigzag 80): 82 decodes to 41, a valid op.
  const std::size_t firstEnd = 2 + 800 * std::size_t{data.at(0)};
  ASSERT_EQ(data.at(firstEnd), 80);
  data[firstEnd] ^= 2;
  auto put = store->db().prepare("UPDATE op_cache SET data = ? WHERE rank = 0 AND lane = 0");
  ASSERT_TRUE(put.ok());
  put->bindStaticBlob(1, data.data(), data.size());
  ASSERT_TRUE(put->run().ok());
  RunTrace direct;
  direct.info.id = id;
  auto read = readOpCache(store->db(), direct, opRows(*store, id));
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_FALSE(*read);
  auto loaded = loadRun(*store, id, rowsWithoutRebuild());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  expectSameOps(*good, *loaded);
}

}  // namespace
}  // namespace ps::trace
