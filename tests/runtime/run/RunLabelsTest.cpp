// Defect 6 of issue 11: three runs all named "1f1b p=4 m=8" could not be told apart in the run
// history, and imported runs showed a full path. historyLabels names what differs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "runtime/run/RunLabels.h"
#include "trace/import/ImportName.h"

namespace ps::trace {
namespace {

// The compare table and run labels live in runtime (they read the plan knob table).
using namespace ::ps::runtime;

using ::testing::HasSubstr;

// A sim run's config_json as configJsonOf writes it (costs left out).
std::string simConfig(int layers, const std::string& boundaries, const std::string& link) {
  return R"({"schedule":"1f1b","stages":4,"microbatches":8,"chunks":1,"layers":)" +
         std::to_string(layers) + R"(,"boundaries":[)" + boundaries +
         R"(],"steps":1,"optimizer_sync":"barrier","recompute":false,"fwd_us":100,)"
         R"("bwd_us":200,"wgrad_us":100,"act_mb":1,"param_mb":0,"link_gbps":)" +
         link + R"(,"link_latency_us":0})";
}

RunInfo run(std::int64_t id, std::string name, std::string config, std::string source = "sim") {
  RunInfo r;
  r.id = id;
  r.name = std::move(name);
  r.config_json = std::move(config);
  r.source = std::move(source);
  r.status = RunStatus::Complete;
  return r;
}

TEST(RunLabels, RunsSharingANameAreToldApartByTheKnobsThatDiffer) {
  const std::vector<RunInfo> runs = {
      run(1, "1f1b p=4 m=8", simConfig(4, "1,2,3", "null")),
      run(2, "1f1b p=4 m=8", simConfig(4, "1,2,3", "10")),
      run(3, "1f1b p=4 m=8", simConfig(16, "4,8,12", "null")),
      run(4, "1f1b p=4 m=8", simConfig(16, "2,5,7", "null")),
  };
  const auto labels = historyLabels(runs);
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0], "1f1b p=4 m=8 · layers 4 · boundaries 1,2,3 · link free");
  EXPECT_EQ(labels[1], "1f1b p=4 m=8 · layers 4 · boundaries 1,2,3 · link 10 Gb/s");
  EXPECT_EQ(labels[2], "1f1b p=4 m=8 · layers 16 · boundaries 4,8,12 · link free");
  EXPECT_EQ(labels[3], "1f1b p=4 m=8 · layers 16 · boundaries 2,5,7 · link free");
}

TEST(RunLabels, OnlyTheDifferingKnobIsNamed) {
  const std::vector<RunInfo> runs = {
      run(1, "1f1b p=4 m=8", simConfig(4, "1,2,3", "null")),
      run(2, "1f1b p=4 m=8", simConfig(4, "1,2,3", "10")),
      run(3, "1f1b p=4 m=8", simConfig(4, "1,2,3", "25")),
  };
  const auto labels = historyLabels(runs);
  EXPECT_EQ(labels[0], "1f1b p=4 m=8 · link free");
  EXPECT_EQ(labels[1], "1f1b p=4 m=8 · link 10 Gb/s");
  EXPECT_EQ(labels[2], "1f1b p=4 m=8 · link 25 Gb/s");
}

TEST(RunLabels, ModelRunsNameTheModelSize) {
  auto model = [](int hidden) {
    return R"({"plan":{"schedule":"1f1b","stages":4,"layers":4},"backend":"cpu",)"
           R"("model":"mlp","hidden":)" +
           std::to_string(hidden) + "}";
  };
  const auto labels = historyLabels({run(1, "1f1b p=4 m=8 cpu mlp", model(64), "cpu"),
                                     run(2, "1f1b p=4 m=8 cpu mlp", model(128), "cpu")});
  EXPECT_EQ(labels[0], "1f1b p=4 m=8 cpu mlp · hidden 64");
  EXPECT_EQ(labels[1], "1f1b p=4 m=8 cpu mlp · hidden 128");
}

TEST(RunLabels, AKnobOnlyNewerRunsRecordIsNotNamedWhenOthersTellThemApart) {
  std::string older = simConfig(4, "1,2,3", "null");
  older.replace(older.find(R"("param_mb":0,)"), 13, "");  // before param_mb was recorded
  const auto labels = historyLabels(
      {run(1, "1f1b p=4 m=8", older), run(2, "1f1b p=4 m=8", simConfig(4, "1,2,3", "10"))});
  EXPECT_EQ(labels[0], "1f1b p=4 m=8 · link free");
  EXPECT_EQ(labels[1], "1f1b p=4 m=8 · link 10 Gb/s");
}

TEST(RunLabels, UniqueNamesStayAsTheyAre) {
  const auto labels = historyLabels({run(1, "1f1b p=4 m=8", simConfig(4, "1,2,3", "null")),
                                     run(2, "gpipe p=4 m=8", simConfig(16, "4,8,12", "10")),
                                     run(3, "my run", "{}")});
  EXPECT_EQ(labels, (std::vector<std::string>{"1f1b p=4 m=8", "gpipe p=4 m=8", "my run"}));
}

TEST(RunLabels, IdenticalConfigsEndInTheRunId) {
  const auto labels = historyLabels({run(7, "1f1b p=4 m=8", simConfig(4, "1,2,3", "null")),
                                     run(9, "1f1b p=4 m=8", simConfig(4, "1,2,3", "null")),
                                     run(11, "1f1b p=4 m=8", simConfig(4, "1,2,3", "10"))});
  EXPECT_EQ(labels[0], "1f1b p=4 m=8 · link free · #7");
  EXPECT_EQ(labels[1], "1f1b p=4 m=8 · link free · #9");
  EXPECT_EQ(labels[2], "1f1b p=4 m=8 · link 10 Gb/s");
}

TEST(RunLabels, ManyDifferencesAreCappedAndStillDistinct) {
  std::vector<RunInfo> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(run(i + 1, "x",
                       R"({"schedule":"1f1b","stages":)" + std::to_string(2 + i) +
                           R"(,"microbatches":)" + std::to_string(4 + i) + R"(,"chunks":)" +
                           std::to_string(1 + i) + R"(,"layers":)" + std::to_string(8 + i) +
                           R"(,"steps":)" + std::to_string(1 + i) + "}"));
  const auto labels = historyLabels(runs);
  EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), 3u);
  EXPECT_EQ(labels[0], "x · stages 2 · micro-batches 4 · chunks 1 · layers 8");
}

TEST(RunLabels, APathNameBecomesItsBaseName) {
  const std::string nsys =
      R"({"import":{"format":"nsys","files":[{"path":"/very/long/cluster/path/rank0.sqlite"}]}})";
  const auto labels = historyLabels(
      {run(1, "nsys import: /very/long/cluster/path/rank0.sqlite", nsys, "nsys"),
       run(2, "torch-csv: sched.csv", "{}", "torch-csv"), run(3, "/tmp/x/a.json", "{}")});
  EXPECT_EQ(labels[0], "nsys import: rank0.sqlite");
  EXPECT_EQ(labels[1], "torch-csv: sched.csv");
  EXPECT_EQ(labels[2], "a.json");
}

TEST(RunLabels, ImportsOfTheSameFileNameDifferInTheirFiles) {
  auto nsys = [](const std::string& dir) {
    return R"({"import":{"format":"nsys","align":"p2p","files":[{"path":")" + dir +
           R"(/rank0.sqlite"},{"path":")" + dir + R"(/rank1.sqlite"}]}})";
  };
  const auto labels = historyLabels({run(1, "nsys rank0.sqlite +1", nsys("/a"), "nsys"),
                                     run(2, "nsys rank0.sqlite +1", nsys("/b"), "nsys")});
  // Same base names, same knobs: told apart by id.
  EXPECT_EQ(labels[0], "nsys rank0.sqlite +1 · #1");
  EXPECT_EQ(labels[1], "nsys rank0.sqlite +1 · #2");
}

TEST(RunLabels, ConfigSummaryHasEveryKnobSourceAndStatus) {
  RunInfo r = run(3, "1f1b p=4 m=8", simConfig(16, "2,5,7", "10"));
  r.status = RunStatus::Failed;
  r.status_message = "rank 1 needs 2.00 GiB";
  const std::string summary = configSummary(r);
  EXPECT_THAT(summary, HasSubstr("backend: sim\n"));
  EXPECT_THAT(summary, HasSubstr("\nlayers: 16\n"));
  EXPECT_THAT(summary, HasSubstr("\nboundaries: 2,5,7\n"));
  EXPECT_THAT(summary, HasSubstr("\nlink: 10 Gb/s\n"));
  EXPECT_THAT(summary, HasSubstr("\nact: 1 MiB\n"));
  EXPECT_THAT(summary, HasSubstr("\nsource: sim\nstatus: failed\nmessage: rank 1 needs 2.00 GiB"));
  EXPECT_EQ(summary.back(), 'B');  // no trailing newline
  // No config at all: still source and status.
  EXPECT_EQ(configSummary(run(1, "n", "not json")), "source: sim\nstatus: complete");
}

TEST(ImportName, BaseNamesOfTheFiles) {
  using import::defaultImportName;
  EXPECT_EQ(defaultImportName("nsys", {"/data/run/rank0.sqlite", "/data/run/rank1.sqlite",
                                       "/data/run/rank2.sqlite", "/data/run/rank3.sqlite"}),
            "nsys rank0.sqlite +3");
  EXPECT_EQ(defaultImportName("kineto", {"/x/trace.json.gz"}), "kineto trace.json.gz");
  EXPECT_EQ(defaultImportName("torch-csv", {"sched.csv"}), "torch-csv sched.csv");
  EXPECT_EQ(defaultImportName("nsys", {}), "nsys import");
}

}  // namespace
}  // namespace ps::trace
