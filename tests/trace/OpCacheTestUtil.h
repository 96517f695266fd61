#pragma once
// What the op cache tests share: a small run with every lane, the cache's row count, the run's
// op rowid range and a column-by-column comparison of two loaded runs.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "tests/trace/TraceBuilder.h"
#include "trace/store/OpCache.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace::test_opcache {

inline LoadOptions cacheEverything() {
  LoadOptions o;
  o.cacheFromOps = 1;
  return o;
}

// Reads the cache when it is valid, never rebuilds it.
inline LoadOptions rowsWithoutRebuild() {
  LoadOptions o;
  o.cacheFromOps = std::size_t{1} << 40;
  return o;
}

// Two ranks, every lane, names (interned and unknown-kind text), 3200 ops in one step.
inline std::int64_t writeCacheTestRun(TraceStore& store, RunStatus status) {
  auto writer = TraceWriter::begin(store, test::simpleHeader(2));
  EXPECT_TRUE(writer.ok()) << writer.error();
  TraceBatch b;
  for (int m = 0; m < 800; ++m) {
    const std::int64_t t = m * 100;
    b.ops.push_back({0, OpKind::F, 0, m, m / 100, t, t + 40, std::nullopt, std::nullopt,
                     m % 7 == 0 ? std::optional<std::string>("gemm") : std::nullopt});
    b.ops.push_back({0, OpKind::SEND_F, 0, m, m / 100, t + 40, t + 60, 1, 4096, std::nullopt});
    b.ops.push_back({1, OpKind::RECV_F, 1, m, m / 100, t + 40, t + 60, 0, 4096, std::nullopt});
    b.ops.push_back({1, OpKind::AR, std::nullopt, std::nullopt, m / 100, t + 60, t + 90, 0, 1 << 20,
                     std::optional<std::string>("all-reduce")});
  }
  EXPECT_TRUE(writer->write(b).ok());
  if (status != RunStatus::Running) {
    EXPECT_TRUE(writer->finish(status).ok());
  }
  return writer->runId();
}

inline std::int64_t cachedRows(TraceStore& store, std::int64_t runId) {
  auto q = store.db().prepare("SELECT count(*) FROM sqlite_master WHERE name='op_cache'");
  if (!q.ok() || !*q->step() || q->int64(0) == 0) return 0;
  auto n = store.db().prepare("SELECT count(*) FROM op_cache WHERE run_id=?");
  n->bind(1, runId);
  EXPECT_TRUE(*n->step());
  return n->int64(0);
}

inline OpRowRange opRows(TraceStore& store, std::int64_t runId) {
  auto range = store.db().prepare("SELECT min(rowid), max(rowid) FROM op WHERE run_id=?");
  EXPECT_TRUE(range.ok());
  range->bind(1, runId);
  EXPECT_TRUE(*range->step());
  return {range->int64(0), range->int64(1)};
}

inline void expectSameOps(const RunTrace& a, const RunTrace& b) {
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  EXPECT_EQ(a.names, b.names);
  for (std::size_t r = 0; r < a.ranks.size(); ++r)
    for (int l = 0; l < kLaneCount; ++l) {
      const OpColumns& x = a.ranks[r].lanes[static_cast<std::size_t>(l)];
      const OpColumns& y = b.ranks[r].lanes[static_cast<std::size_t>(l)];
      EXPECT_EQ(x.start, y.start) << "rank " << r << " lane " << l;
      EXPECT_EQ(x.end, y.end);
      EXPECT_EQ(x.bytes, y.bytes);
      EXPECT_EQ(x.stage, y.stage);
      EXPECT_EQ(x.microbatch, y.microbatch);
      EXPECT_EQ(x.step, y.step);
      EXPECT_EQ(x.peer, y.peer);
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.kind, y.kind);
    }
}

}  // namespace ps::trace::test_opcache
