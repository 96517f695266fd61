// The issue-14 flags and command from the command line: explore's table and JSON, the rank,
// split-backward and forward-only flags, and their bad values refused with the flag named.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using ::testing::HasSubstr;

TEST(CliExplore, PrintsARankedTableAndJsonBestFirst) {
  const auto table = cli({"explore", "--stages", "4", "--schedules", "gpipe,1f1b,zb-h1",
                          "--microbatches", "8,16", "--act-mb", "1"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("candidates ranked by throughput"));
  EXPECT_THAT(table.out, HasSubstr("  1  zb-h1"));
  const auto json = cli({"explore", "--stages", "4", "--schedules", "gpipe,1f1b,zb-h1",
                         "--microbatches", "8,16", "--act-mb", "1", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  simdjson::dom::array list;
  ASSERT_EQ(doc.get_array().get(list), simdjson::SUCCESS);
  ASSERT_GE(list.size(), 3u);
  double previous = 1e300;
  for (simdjson::dom::element c : list) {
    for (const char* key :
         {"schedule", "microbatches", "chunks", "boundaries", "step_time_ns", "peak_memory_bytes"})
      EXPECT_FALSE(c[key].error()) << key;
    const double rate = c["throughput_samples_per_s"].get_double().value();
    EXPECT_LE(rate, previous);
    previous = rate;
  }
}

TEST(CliExplore, ACapThatRefusesEveryCandidateSaysWhy) {
  const auto r = cli({"explore", "--stages", "2", "--schedules", "gpipe", "--microbatches", "8",
                      "--act-mb", "64", "--rank-memory-gb", "0.1,0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("explore: no candidate fits (first refusal: gpipe m=8 balanced:"));
  const auto bad = cli({"explore", "--schedules", "gpipe,nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--schedules: unknown schedule 'nope'"));
}

TEST(CliPaperFlags, RankSplitAndForwardOnlyFlagsRunAndBadValuesNameTheFlag) {
  test::TempDir dir;
  const std::string db = dir.file("papers.sqlite");
  auto sim = cli({"sim", "--schedule", "1f1b", "--stages", "4", "--layers", "20", "--rank-speed",
                  "1,1,2,1", "--split-backward", "--db", db});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  auto inference = cli({"sim", "--schedule", "gpipe", "--stages", "4", "--microbatches", "32",
                        "--forward-only", "--db", db});
  ASSERT_EQ(inference.exit_code, 0) << inference.err;
  const auto report = cli({"report", db, "--run", "2"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("micro-batches/s"));
  const auto runs = test::runsIn(db);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"split_backward\":true"));
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"rank_speed\":[1,1,2,1]"));
  EXPECT_THAT(runs[1].config_json, HasSubstr("\"forward_only\":true"));

  const auto count = cli({"sim", "--rank-speed", "1,2", "--db", db});
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_THAT(count.err, HasSubstr("--rank-speed: 2 value(s) for 4 ranks"));
  const auto memory = cli({"sim", "--rank-memory-gb", "1,1,1,-1", "--db", db});
  EXPECT_EQ(memory.exit_code, 2);
  EXPECT_THAT(memory.err, HasSubstr("--rank-memory-gb: rank 3's -1"));
  const auto split = cli({"sim", "--schedule", "zb-h1", "--split-backward", "--db", db});
  EXPECT_EQ(split.exit_code, 2);
  EXPECT_THAT(split.err, HasSubstr("--split-backward: zb-h1 splits its backward"));
  EXPECT_EQ(test::runsIn(db).size(), 2u) << "nothing written by the refusals";
  // Inference runs on the cpu backend too: forwards only, the loss of the untouched weights.
  const auto infer = cli({"run", "--backend", "cpu", "--forward-only", "--db", db});
  ASSERT_EQ(infer.exit_code, 0) << infer.err;
  const auto inferRuns = test::runsIn(db);
  ASSERT_EQ(inferRuns.size(), 3u);
  EXPECT_THAT(inferRuns[2].config_json, HasSubstr("\"forward_only\":true"));
  const auto bpipe = cli({"sim", "--preset", "bpipe", "--recompute", "--db", db});
  EXPECT_EQ(bpipe.exit_code, 2);
  EXPECT_THAT(bpipe.err, HasSubstr("--balance-activations: BPipe moves whole activations"));
}

// Luo et al. and DAPPLE from the command line: the topology-mapping preset searches, says what it
// chose and records the list; explore sweeps replicas and mappings; bad values name the flag.
TEST(CliPaperFlags, TopologyReplicasAndMappingFromTheCommandLine) {
  test::TempDir dir;
  const std::string db = dir.file("topology.sqlite");
  const auto searched = cli({"sim", "--preset", "topology-mapping", "--db", db});
  ASSERT_EQ(searched.exit_code, 0) << searched.err;
  EXPECT_THAT(searched.out + searched.err, HasSubstr("--mapping auto: devices "));
  const auto runs = test::runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"dp\":2"));
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"topology\":\"2x4\""));
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"mapping\":\""));
  EXPECT_THAT(runs[0].config_json, ::testing::Not(HasSubstr("\"mapping\":\"auto\"")));

  const auto swept =
      cli({"explore", "--stages",     "8",   "--schedules", "1f1b",      "--microbatches",
           "16",      "--dp",         "1,2", "--mappings",  "rank,auto", "--act-mb",
           "2",       "--param-mb",   "8",   "--link-gbps", "2400",      "--topology",
           "2x4",     "--inter-gbps", "100", "--json"});
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(swept.out).get(doc), simdjson::SUCCESS) << swept.out;
  bool replicated = false, mapped = false;
  simdjson::dom::array candidates;
  ASSERT_EQ(doc.get_array().get(candidates), simdjson::SUCCESS);
  for (simdjson::dom::element c : candidates) {
    replicated |= c["dp"].get_int64().value() == 2;
    mapped |= std::string_view(c["mapping"].get_string().value()) != "rank";
  }
  EXPECT_TRUE(replicated);
  EXPECT_TRUE(mapped);

  const auto topology = cli({"sim", "--stages", "4", "--topology", "2x4", "--db", db});
  EXPECT_EQ(topology.exit_code, 2);
  EXPECT_THAT(topology.err, HasSubstr("--topology 2x4: 8 devices for 4 ranks"));
  const auto mapping = cli({"sim", "--stages", "4", "--mapping", "0,1,1,2", "--db", db});
  EXPECT_EQ(mapping.exit_code, 2);
  EXPECT_THAT(mapping.err, HasSubstr("--mapping 0,1,1,2: device 1 is named twice"));
  const auto dp = cli({"sim", "--schedule", "chimera", "--dp", "2", "--db", db});
  EXPECT_EQ(dp.exit_code, 2);
  EXPECT_THAT(dp.err, HasSubstr("--dp 2: chimera already runs 2 replicas"));
  EXPECT_EQ(test::runsIn(db).size(), 1u) << "nothing written by the refusals";
}

}  // namespace
}  // namespace ps
