// Op search: the query syntax (words, fields, ranges, quotes), errors that name the term, and
// matches in time order across ranks.

#include "trace/analysis/OpSearch.h"

#include <gtest/gtest.h>

#include "tests/trace/OpRefPrinter.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"

namespace ps::trace {

namespace {

// GPipe p=4 m=8 with sends, two steps, plus a few imported-looking ops with names on rank 1.
RunTrace sampleRun() {
  SyntheticGpipe g;
  TraceBatch batch = syntheticGpipeStep(g, 0);
  TraceBatch second = syntheticGpipeStep(g, 1);
  batch.ops.insert(batch.ops.end(), second.ops.begin(), second.ops.end());
  batch.ops.push_back({1, OpKind::OTHER, {}, {}, 0, 5, 9, {}, {}, "ncclKernel_AllReduce"});
  batch.ops.push_back({1, OpKind::OTHER, {}, {}, 0, 10, 12, {}, {}, "aten::mm"});
  batch.ops.push_back({2, OpKind::OTHER, {}, {}, 0, 11, 13, {}, {}, "nccl:send"});
  return test::roundTrip(syntheticGpipeHeader(g), batch);
}

const OpColumns& cols(const RunTrace& run, const OpRef& o) {
  return run.ranks[o.rank].lane(o.lane);
}

std::vector<OpRef> search(const RunTrace& run, std::string_view q) {
  auto r = searchOps(run, q);
  EXPECT_TRUE(r.ok()) << q << ": " << (r.ok() ? "" : r.error());
  return r.ok() ? *r : std::vector<OpRef>{};
}

std::string errorOf(std::string_view q) {
  auto r = parseOpQuery(q);
  return r.ok() ? "(parsed)" : r.error();
}

void expectTimeOrder(const RunTrace& run, const std::vector<OpRef>& hits) {
  for (std::size_t k = 1; k < hits.size(); ++k) {
    const auto a = cols(run, hits[k - 1]).start[hits[k - 1].index];
    const auto b = cols(run, hits[k]).start[hits[k].index];
    ASSERT_LE(a, b) << "match " << k << " starts before the one listed ahead of it";
    if (a == b) {
      ASSERT_LE(hits[k - 1].rank, hits[k].rank) << "ties are in rank order";
    }
  }
}

TEST(OpSearch, ErrorsNameTheTerm) {
  EXPECT_EQ(errorOf("kind:F mb:x"), "mb:x: not a number");
  EXPECT_EQ(errorOf("rank:-1"), "rank:-1: not a number");
  EXPECT_EQ(errorOf("mb:5-2"), "mb:5-2: empty range (5 > 2)");
  EXPECT_EQ(errorOf("step:"), "step:: no value");
  EXPECT_EQ(errorOf("mb:2-"), "mb:2-: not a number");
  EXPECT_EQ(errorOf("stage:99999999999"), "stage:99999999999: number too large");
  EXPECT_NE(errorOf("kind:FWD").find("kind:FWD: unknown kind 'FWD' (one of F B I W"),
            std::string::npos)
      << errorOf("kind:FWD");
  EXPECT_NE(errorOf("stge:1").find("stge:1: unknown field 'stge'"), std::string::npos);
  EXPECT_EQ(errorOf("\"nccl send"), "\"nccl send: missing closing quote");
}

TEST(OpSearch, EmptyQueryMatchesEveryOpInTimeOrder) {
  const RunTrace run = sampleRun();
  auto q = parseOpQuery("   ");
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->empty());
  const auto all = findOps(run, *q);
  EXPECT_EQ(all.size(), run.opCount());
  expectTimeOrder(run, all);
}

TEST(OpSearch, KindFieldIsExactAndCaseInsensitive) {
  const RunTrace run = sampleRun();
  const auto f = search(run, "kind:F");
  EXPECT_EQ(f.size(), 4u * 8 * 2);  // ranks × micro-batches × steps
  for (const auto& o : f)
    EXPECT_EQ(cols(run, o).kind[o.index], OpKind::F);
  expectTimeOrder(run, f);
  EXPECT_EQ(search(run, "kind:send_f").size(), 3u * 8 * 2);
  EXPECT_EQ(search(run, "kind:F,B").size(), 2u * 4 * 8 * 2);
  EXPECT_TRUE(search(run, "kind:F kind:B").empty()) << "terms combine with AND";
}

TEST(OpSearch, WordsMatchKindOrNameAsSubstrings) {
  const RunTrace run = sampleRun();
  // "send" is in SEND_F and SEND_B, and in the name "nccl:send".
  EXPECT_EQ(search(run, "SEND").size(), 2u * 3 * 8 * 2 + 1);
  const auto nccl = search(run, "NCCL");
  ASSERT_EQ(nccl.size(), 2u);
  EXPECT_EQ(nccl[0].rank, 1);
  EXPECT_EQ(nccl[1].rank, 2);
  EXPECT_EQ(search(run, "aten::mm").size(), 1u) << "a colon pair is part of a name";
  EXPECT_EQ(search(run, "\"nccl:send\"").size(), 1u);
  EXPECT_EQ(search(run, "name:nccl").size(), 2u);
  EXPECT_TRUE(search(run, "name:send_f").empty()) << "name: looks at names only";
  // Every kind name containing "f": F, FILL, SEND_F, RECV_F, OFFLOAD; only F and the sends occur.
  EXPECT_EQ(search(run, "f").size(), 4u * 8 * 2 + 2u * 3 * 8 * 2);
}

TEST(OpSearch, FieldsAndRangesCombineWithAnd) {
  const RunTrace run = sampleRun();
  const auto hits = search(run, "kind:F rank:2 mb:2-5 step:1");
  ASSERT_EQ(hits.size(), 4u);
  for (const auto& o : hits) {
    const auto& c = cols(run, o);
    EXPECT_EQ(o.rank, 2);
    EXPECT_EQ(c.step[o.index], 1);
    EXPECT_GE(c.microbatch[o.index], 2);
    EXPECT_LE(c.microbatch[o.index], 5);
  }
  EXPECT_EQ(search(run, "microbatch:3 kind:B stage:0,3").size(), 2u * 2);
  EXPECT_EQ(search(run, "rank:0,3 kind:OPT").size(), 0u);
  EXPECT_EQ(search(run, "mb:2-5 mb:5-7 kind:F").size(), 4u * 2) << "only mb 5 is in both";
  // Ops without a micro-batch never match a micro-batch term.
  EXPECT_TRUE(search(run, "kind:OTHER mb:0-100").empty());
}

TEST(OpSearch, ManyOpsOnePassInTimeOrder) {
  SyntheticGpipe g;
  g.ranks = 8;
  g.microbatches = 64;
  g.steps = 1;
  TraceBatch batch;
  for (int s = 0; s < 6; ++s) {
    TraceBatch b = syntheticGpipeStep(g, s);
    batch.ops.insert(batch.ops.end(), b.ops.begin(), b.ops.end());
  }
  const RunTrace run = test::roundTrip(syntheticGpipeHeader(g), batch);
  const auto hits = search(run, "mb:7 b");  // B, SEND_B, RECV_B of micro-batch 7
  EXPECT_EQ(hits.size(), 6u * (8 + 2 * 7));
  expectTimeOrder(run, hits);
}

}  // namespace
}  // namespace ps::trace
