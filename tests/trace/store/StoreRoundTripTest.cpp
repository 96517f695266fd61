// Write-then-read round trips of every table, several runs per file, status transitions.

#include <gtest/gtest.h>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/Schema.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace {
namespace {

using test::TempDir;

RunHeader fullHeader() {
  RunHeader h;
  h.info.name = "round trip";
  h.info.created_utc = "2026-11-30T01:02:03Z";
  h.info.source = "cpu";
  h.info.schedule = "1f1b";
  h.info.num_ranks = 2;
  h.info.num_stages = 4;
  h.info.num_microbatches = 3;
  h.info.config_json = R"({"schedule":"1f1b","chunks":2})";
  h.ranks = {{0, "node-a", "cpu0", 1000, -5}, {1, "node-b", std::nullopt, std::nullopt, 7}};
  h.stages = {{0, 0, 0, 1}, {1, 1, 2, 3}, {2, 0, 4, 5}, {3, 1, 6, 7}};
  h.layers = {{0, "embed", 10, 20, 5, 100, 1000},
              {1, std::nullopt, 11, 21, std::nullopt, 101, 1001}};
  return h;
}

TraceBatch fullBatch() {
  TraceBatch b;
  b.ops = {
      {0, OpKind::F, 0, 0, 0, 100, 200, std::nullopt, std::nullopt, std::nullopt},
      {0, OpKind::SEND_F, 0, 0, 0, 200, 250, 1, 4096, std::nullopt},
      {1, OpKind::RECV_F, 1, 0, 0, 200, 250, 0, 4096, std::nullopt},
      {1, OpKind::OTHER, std::nullopt, std::nullopt, 0, 260, 300, std::nullopt, std::nullopt,
       "ncclDevKernel_AllReduce"},
      {1, OpKind::F, 1, 0, 0, 250, 350, std::nullopt, std::nullopt, "PP:1F0"},
      {0, OpKind::OPT, std::nullopt, std::nullopt, 0, 400, 410, {}, {}, {}},
  };
  b.memory = {{0, 0, 1000}, {0, 100, 2000}, {1, 50, 3000}};
  b.metrics = {{0, 1, "loss", 2.5}, {0, std::nullopt, "samples_per_s", 123.0}};
  return b;
}

TEST(StoreRoundTrip, EveryTableComesBackAsWritten) {
  TempDir dir;
  const std::string path = dir.file("rt.sqlite");
  const auto header = fullHeader();
  const std::int64_t id = test::writeRun(path, header, fullBatch());

  auto run = loadRunFromFile(path, id);
  ASSERT_TRUE(run.ok()) << run.error();
  const RunInfo& info = run->info;
  EXPECT_EQ(info.id, id);
  EXPECT_EQ(info.name, "round trip");
  EXPECT_EQ(info.created_utc, "2026-11-30T01:02:03Z");
  EXPECT_EQ(info.source, "cpu");
  EXPECT_EQ(info.schedule, "1f1b");
  EXPECT_EQ(info.num_ranks, 2);
  EXPECT_EQ(info.num_stages, 4);
  EXPECT_EQ(info.num_microbatches, 3);
  EXPECT_EQ(info.config_json, header.info.config_json);
  EXPECT_EQ(info.status, RunStatus::Complete);

  ASSERT_EQ(run->ranks.size(), 2u);
  EXPECT_EQ(run->ranks[0].info.host, "node-a");
  EXPECT_EQ(run->ranks[0].info.device, "cpu0");
  EXPECT_EQ(run->ranks[0].info.memory_capacity_bytes, 1000);
  EXPECT_EQ(run->ranks[0].info.clock_offset_ns, -5);
  EXPECT_EQ(run->ranks[1].info.device, std::nullopt);
  EXPECT_EQ(run->ranks[1].info.memory_capacity_bytes, std::nullopt);
  EXPECT_EQ(run->ranks[1].info.clock_offset_ns, 7);

  const auto& c0 = run->ranks[0].lane(Lane::Compute);
  ASSERT_EQ(c0.size(), 2u);
  EXPECT_EQ(c0.kind[0], OpKind::F);
  EXPECT_EQ(c0.start[0], 100);
  EXPECT_EQ(c0.end[0], 200);
  EXPECT_EQ(c0.stage[0], 0);
  EXPECT_EQ(c0.microbatch[0], 0);
  EXPECT_EQ(c0.kind[1], OpKind::OPT);
  EXPECT_EQ(c0.stage[1], kNoValue);
  const auto& s0 = run->ranks[0].lane(Lane::Send);
  ASSERT_EQ(s0.size(), 1u);
  EXPECT_EQ(s0.peer[0], 1);
  EXPECT_EQ(s0.bytes[0], 4096);
  EXPECT_EQ(run->ranks[1].lane(Lane::Recv).peer[0], 0);
  const auto& other = run->ranks[1].lane(Lane::Other);
  ASSERT_EQ(other.size(), 1u);
  ASSERT_NE(run->nameOf(other.name[0]), nullptr);
  EXPECT_EQ(*run->nameOf(other.name[0]), "ncclDevKernel_AllReduce");
  const auto& c1 = run->ranks[1].lane(Lane::Compute);
  ASSERT_EQ(c1.size(), 1u);
  EXPECT_EQ(*run->nameOf(c1.name[0]), "PP:1F0");

  EXPECT_EQ(run->ranks[0].memory.t, (std::vector<std::int64_t>{0, 100}));
  EXPECT_EQ(run->ranks[0].memory.bytes, (std::vector<std::int64_t>{1000, 2000}));
  EXPECT_EQ(run->ranks[1].memory.bytes, (std::vector<std::int64_t>{3000}));

  ASSERT_EQ(run->stages.size(), 4u);
  EXPECT_EQ(run->stages[3].rank, 1);
  EXPECT_EQ(run->stages[3].first_layer, 6);
  EXPECT_EQ(run->stages[3].last_layer, 7);
  ASSERT_EQ(run->layers.size(), 2u);
  EXPECT_EQ(run->layers[0].name, "embed");
  EXPECT_EQ(run->layers[0].wgrad_ns, 5);
  EXPECT_EQ(run->layers[1].name, std::nullopt);
  EXPECT_EQ(run->layers[1].wgrad_ns, std::nullopt);
  EXPECT_EQ(run->layers[1].param_bytes, 1001);
  ASSERT_EQ(run->metrics.size(), 2u);
  EXPECT_EQ(run->metrics[0].name, "loss");
  EXPECT_EQ(run->metrics[0].rank, 1);
  EXPECT_DOUBLE_EQ(run->metrics[0].value, 2.5);
  EXPECT_EQ(run->metrics[1].rank, std::nullopt);
}

TEST(StoreRoundTrip, OpsLoadSortedByStartPerLane) {
  auto h = test::simpleHeader(1);
  TraceBatch b;
  b.ops = {test::compute(0, OpKind::B, 1, 50, 60), test::compute(0, OpKind::F, 0, 10, 20),
           test::compute(0, OpKind::F, 1, 30, 40)};
  const RunTrace run = test::roundTrip(h, b);
  const auto& lane = run.ranks[0].lane(Lane::Compute);
  EXPECT_EQ(lane.start, (std::vector<std::int64_t>{10, 30, 50}));
  EXPECT_EQ(lane.kind, (std::vector<OpKind>{OpKind::F, OpKind::F, OpKind::B}));
  EXPECT_EQ(lane.microbatch, (std::vector<std::int32_t>{0, 1, 1}));
}

TEST(StoreRoundTrip, SeveralRunsLiveInOneFile) {
  TempDir dir;
  const std::string path = dir.file("multi.sqlite");
  TraceBatch a, b;
  a.ops = {test::compute(0, OpKind::F, 0, 0, 10)};
  b.ops = {test::compute(0, OpKind::F, 0, 0, 10), test::compute(1, OpKind::F, 0, 10, 30)};
  const auto id1 = test::writeRun(path, test::simpleHeader(1, "first"), a);
  const auto id2 = test::writeRun(path, test::simpleHeader(2, "second"), b);
  const auto id3 = test::writeRun(path, test::simpleHeader(1, "third"), a);
  EXPECT_LT(id1, id2);
  EXPECT_LT(id2, id3);

  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(store.ok()) << store.error();
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[1].name, "second");
  auto latest = store->latestRun();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->id, id3);

  auto second = loadRun(*store, id2);
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->opCount(), 2u);
  EXPECT_EQ(second->ranks[1].lane(Lane::Compute).end[0], 30);
  auto first = loadRun(*store, id1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->opCount(), 1u);
}

TEST(StoreRoundTrip, StatusGoesFromRunningToFinalWithMessage) {
  TempDir dir;
  const std::string path = dir.file("status.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto writer = TraceWriter::begin(*store, test::simpleHeader(2));
  ASSERT_TRUE(writer.ok()) << writer.error();
  auto running = store->run(writer->runId());
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->status, RunStatus::Running);
  EXPECT_FALSE(running->created_utc.empty());

  TraceBatch step;
  step.ops = {test::compute(0, OpKind::F, 0, 0, 10)};
  ASSERT_TRUE(writer->write(step).ok());
  ASSERT_TRUE(writer->finish(RunStatus::Failed, "rank 1: out of memory").ok());
  auto failed = store->run(writer->runId());
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status, RunStatus::Failed);
  EXPECT_EQ(failed->status_message, "rank 1: out of memory");
}

TEST(StoreRoundTrip, BatchesAreAllOrNothing) {
  TempDir dir;
  const std::string path = dir.file("atomic.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  auto writer = TraceWriter::begin(*store, test::simpleHeader(1));
  ASSERT_TRUE(writer.ok());
  TraceBatch good;
  good.ops = {test::compute(0, OpKind::F, 0, 0, 10)};
  ASSERT_TRUE(writer->write(good).ok());
  // A metric without a name violates NOT NULL only through raw SQL; simulate a failing batch by
  // dropping the metric table under the writer, so the batch's third insert fails.
  ASSERT_TRUE(store->db().exec("DROP TABLE metric").ok());
  TraceBatch bad;
  bad.ops = {test::compute(0, OpKind::F, 1, 10, 20)};
  bad.metrics = {{0, 0, "loss", 1.0}};
  EXPECT_FALSE(writer->write(bad).ok());
  auto count = store->db().prepare("SELECT count(*) FROM op");
  ASSERT_TRUE(count.ok());
  ASSERT_TRUE(count->step().ok());
  EXPECT_EQ(count->int64(0), 1) << "the failed batch's op must have been rolled back";
}

TEST(StoreRoundTrip, DeleteRunRemovesEveryRow) {
  TempDir dir;
  const std::string path = dir.file("del.sqlite");
  auto b = fullBatch();
  const auto keep = test::writeRun(path, fullHeader(), b);
  const auto drop = test::writeRun(path, fullHeader(), b);
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->deleteRun(drop).ok());
  for (const char* sql :
       {"SELECT count(*) FROM op WHERE run_id=?", "SELECT count(*) FROM memory WHERE run_id=?",
        "SELECT count(*) FROM metric WHERE run_id=?", "SELECT count(*) FROM rank WHERE run_id=?",
        "SELECT count(*) FROM stage WHERE run_id=?", "SELECT count(*) FROM layer WHERE run_id=?",
        "SELECT count(*) FROM run WHERE id=?"}) {
    auto q = store->db().prepare(sql);
    ASSERT_TRUE(q.ok());
    q->bind(1, drop);
    ASSERT_TRUE(q->step().ok());
    EXPECT_EQ(q->int64(0), 0) << sql;
    q->reset();
    q->bind(1, keep);
    ASSERT_TRUE(q->step().ok());
    EXPECT_GT(q->int64(0), 0) << sql;
  }
}

TEST(SchemaMigration, AppliesRegisteredStepsAndNamesAMissingOne) {
  TempDir dir;
  auto db = SqliteDb::open(dir.file("m.sqlite"), SqliteDb::Mode::ReadWriteCreate);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                       "INSERT INTO meta VALUES('schema_version','0');")
                  .ok());
  bool applied = false;
  std::vector<Migration> steps = {{0, [&](SqliteDb& d) {
                                     applied = true;
                                     return d.exec("CREATE TABLE added(x)");
                                   }}};
  ASSERT_TRUE(migrate(*db, 0, steps).ok());
  EXPECT_TRUE(applied);
  auto v = db->prepare("SELECT value FROM meta WHERE key='schema_version'");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->step().ok());
  EXPECT_EQ(v->text(0), std::to_string(kSchemaVersion));

  auto missing = migrate(*db, -1, steps);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("has no migration to version 0"), std::string::npos)
      << missing.error();
}

}  // namespace
}  // namespace ps::trace
