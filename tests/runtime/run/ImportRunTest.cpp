// runtime::importRun (issue 33 §2): the one import of the CLI and the app, every format through
// it, explicit ranks, and a cancel at any stage leaves no run of its own in the file.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "runtime/run/ImportRun.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {
namespace {

// GPipe, p = 2, m = 2, F = 10 µs, B = 20 µs, as GPU annotations named like torch pipelining;
// `withRank`: the file says its rank (distributedInfo), else only --rank can.
std::string kinetoRank(int rank, bool withRank = true) {
  struct Op {
    const char* kind;
    int mb, start, dur;
  };
  const std::vector<Op> ops =
      rank == 0
          ? std::vector<Op>{{"F", 0, 0, 10}, {"F", 1, 10, 10}, {"B", 0, 50, 20}, {"B", 1, 70, 20}}
          : std::vector<Op>{{"F", 0, 10, 10}, {"F", 1, 20, 10}, {"B", 0, 30, 20}, {"B", 1, 50, 20}};
  std::string json = "{";
  if (withRank)
    json += "\"distributedInfo\":{\"rank\":" + std::to_string(rank) + ",\"world_size\":2},";
  json += "\"traceEvents\":[";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i) json += ',';
    json += "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"PP:" + std::to_string(rank) +
            ops[i].kind + std::to_string(ops[i].mb) +
            "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(1'000'000 + ops[i].start) +
            ",\"dur\":" + std::to_string(ops[i].dur) + "}";
  }
  return json + "]}";
}

ImportRunRequest twoKinetoRanks(const test::TempDir& dir, bool withRank = true) {
  ImportRunRequest request;
  for (int r = 0; r < 2; ++r) {
    // Names without a number: with `withRank` false nothing in the file or its name says the rank.
    const std::string path = dir.file(r == 0 ? "first.json" : "second.json");
    test::writeFile(path, kinetoRank(r, withRank));
    request.files.push_back(path);
  }
  return request;
}

std::vector<trace::RunInfo> runsIn(const std::string& path) {
  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadOnly);
  if (!store) return {};
  auto runs = store->listRuns();
  return runs ? *runs : std::vector<trace::RunInfo>{};
}

TEST(ImportRun, ProfilesOfAGuessedFormatBecomeOneRun) {
  test::TempDir dir;
  const std::string db = dir.file("out.sqlite");
  auto imported = importRun(twoKinetoRanks(dir), {db});  // no format named: guessed
  ASSERT_TRUE(imported) << imported.error();
  ASSERT_TRUE(imported->runId) << imported->failure;
  EXPECT_EQ(imported->format, "kineto");
  EXPECT_FALSE(imported->simulated);
  EXPECT_NE(imported->summary.find("2 rank(s)"), std::string::npos) << imported->summary;
  EXPECT_NE(imported->summary.find("F=4 B=4"), std::string::npos) << imported->summary;
  imported->store.reset();
  const auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].source, "kineto");
  EXPECT_EQ(runs[0].num_ranks, 2);
  EXPECT_EQ(runs[0].status, trace::RunStatus::Complete);
}

TEST(ImportRun, ATorchCsvGoesThroughTheSameEntryPoint) {
  test::TempDir dir;
  const std::string csv = dir.file("gpipe.csv"), db = dir.file("out.sqlite");
  test::writeFile(csv, "0F0,0F1,,,0B0,0B1\n,1F0,1F1,1B0,1B1\n");
  ImportRunRequest request;
  request.files = {csv};
  request.simulation.uniform.fwdUs = 100;
  std::vector<std::string> stages;
  auto imported = importRun(request, {db}, [&](std::string_view stage, double) {
    if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
  });
  ASSERT_TRUE(imported) << imported.error();
  ASSERT_TRUE(imported->runId) << imported->failure;
  EXPECT_EQ(imported->format, "torch-csv");
  EXPECT_TRUE(imported->simulated);
  EXPECT_EQ(imported->name, "torch-csv gpipe.csv");
  EXPECT_EQ(imported->summary,
            "2 rank(s), 2 stage(s), 2 micro-batches; simulated with uniform costs\n");
  EXPECT_EQ(stages, (std::vector<std::string>{"plan", "run", "write"}));
  imported->store.reset();
  const auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].source, "torch-csv");
  EXPECT_EQ(runs[0].num_ranks, 2);
}

TEST(ImportRun, ExplicitRanksNameFilesThatSayNothing) {
  test::TempDir dir;
  const std::string db = dir.file("out.sqlite");
  ImportRunRequest request = twoKinetoRanks(dir, false);
  request.format = "kineto";
  auto refused = importRun(request, {db});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("cannot tell which rank"), std::string::npos) << refused.error();
  EXPECT_FALSE(std::filesystem::exists(db));

  request.explicitRanks = {{request.files[0], 0}, {"other.json", 1}};
  refused = importRun(request, {db});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "--rank other.json=1: other.json is not one of the files to import");

  request.explicitRanks = {{request.files[0], 0}, {request.files[1], 1}};
  auto imported = importRun(request, {db});
  ASSERT_TRUE(imported) << imported.error();
  ASSERT_TRUE(imported->runId) << imported->failure;
  EXPECT_NE(imported->summary.find("rank 1 <- " + request.files[1]), std::string::npos)
      << imported->summary;
}

TEST(ImportRun, ASchedulesRanksAreItsFiles) {
  test::TempDir dir;
  const std::string csv = dir.file("s.csv");
  test::writeFile(csv, "0F0,0B0\n");
  ImportRunRequest request;
  request.format = "torch-csv";
  request.files = {csv};
  request.explicitRanks = {{csv, 0}};
  auto refused = importRun(request, {dir.file("out.sqlite")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "--rank: torch-csv is a schedule, its ranks are the file's; --rank is for profiles");
  request.format = "pipescope";
  refused = importRun(request, {dir.file("out.sqlite")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "unknown import format \"pipescope\" (valid: nsys, kineto, torch-csv)");
}

TEST(ImportRun, AGuessNeedsFilesOfOneKnownFormat) {
  test::TempDir dir;
  const std::string json = dir.file("rank0.json"), csv = dir.file("s.csv"), txt = dir.file("x.txt");
  test::writeFile(json, kinetoRank(0));
  test::writeFile(csv, "0F0,0B0\n");
  test::writeFile(txt, "hello");
  ImportRunRequest request;
  request.files = {json, csv};
  auto refused = importRun(request, {dir.file("out.sqlite")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), csv +
                                 ": looks like torch-csv, the files before it kineto; one import "
                                 "takes one format");
  request.files = {txt};
  refused = importRun(request, {dir.file("out.sqlite")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            txt + ": cannot tell its import format; name one of nsys, kineto, torch-csv");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.sqlite")));
}

// A cancel at each stage of each kind: the file keeps the one run it had, nothing half-written.
TEST(ImportRun, CancelAtAnyStageLeavesNoRunOfItsOwn) {
  test::TempDir dir;
  const std::string db = dir.file("out.sqlite"), csv = dir.file("s.csv");
  test::writeFile(csv, "0F0,0F1,,,0B0,0B1\n,1F0,1F1,1B0,1B1\n");
  {
    auto first = importRun(twoKinetoRanks(dir), {db});
    ASSERT_TRUE(first && first->runId);
  }
  ImportRunRequest schedule;
  schedule.files = {csv};
  const std::vector<std::pair<ImportRunRequest, std::string>> cases{{twoKinetoRanks(dir), "read"},
                                                                    {twoKinetoRanks(dir), "align"},
                                                                    {twoKinetoRanks(dir), "write"},
                                                                    {schedule, "plan"},
                                                                    {schedule, "run"},
                                                                    {schedule, "write"}};
  for (const auto& [request, at] : cases) {
    std::atomic<bool> cancel{false};
    auto imported = importRun(
        request, {db},
        [&, at = at](std::string_view stage, double) { cancel = cancel || stage == at; }, &cancel);
    ASSERT_TRUE(cancel) << at;
    const std::string message = imported ? imported->failure : imported.error();
    EXPECT_TRUE(!imported || !imported->runId) << at;
    EXPECT_EQ(message, "import cancelled") << at;
    const auto runs = runsIn(db);
    ASSERT_EQ(runs.size(), 1u) << at;
    EXPECT_EQ(runs[0].source, "kineto") << at;
  }
}

// A cancelled import into a file it created takes the file back too.
TEST(ImportRun, ACancelledImportRemovesTheFileItCreated) {
  test::TempDir dir;
  const std::string db = dir.file("new.sqlite");
  std::atomic<bool> cancel{false};
  auto imported = importRun(
      twoKinetoRanks(dir), {db},
      [&](std::string_view stage, double) { cancel = cancel || stage == "write"; }, &cancel);
  ASSERT_TRUE(imported);
  EXPECT_FALSE(imported->runId);
  EXPECT_EQ(imported->failure, "import cancelled");
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace ps::runtime
