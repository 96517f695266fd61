// pipescope-cli run --procs: one MPI process per rank under mpirun, on loopback (DESIGN §3). The
// result must be one complete run in one file, with every rank's ops, and the same loss as the
// threaded run of the same flags.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "tests/app/CliMpiUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps {
namespace {

using test::findOnPath;
using test::MpiEnvironment;
using test::TempDir;
using ::testing::HasSubstr;

const std::vector<std::string> kPlan = {"--schedule",     "1f1b", "--stages", "4",
                                        "--microbatches", "8",    "--steps",  "3"};

std::vector<std::string> runArgs(const std::string& db, bool procs,
                                 const std::vector<std::string>& plan = kPlan) {
  std::vector<std::string> args = {test::cliPath(), "run"};
  args.insert(args.end(), plan.begin(), plan.end());
  if (procs) args.push_back("--procs");
  args.insert(args.end(), {"--db", db});
  return args;
}

// The last value of the loss metric, from `report --json`.
double reportedLoss(const std::string& db, std::string* status = nullptr) {
  const auto report = test::runCommand({test::cliPath(), "report", db, "--json"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(report.out).get(doc), simdjson::SUCCESS) << report.out;
  double loss = std::nan("");
  EXPECT_EQ(doc["metrics"]["loss"].get(loss), simdjson::SUCCESS) << report.out;
  std::string_view s;
  if (status && doc["run"]["status"].get(s) == simdjson::SUCCESS) *status = std::string(s);
  return loss;
}

test::CommandResult underMpirun(const std::string& mpirun, int np,
                                const std::vector<std::string>& command) {
  std::vector<std::string> args = {mpirun, "--allow-run-as-root", "--oversubscribe", "-np",
                                   std::to_string(np)};
  args.insert(args.end(), command.begin(), command.end());
  MpiEnvironment env;
  return test::runCommand(args);
}

TEST(CliMpi, FourProcessesGiveOneCompleteRunWithTheThreadedLoss) {
  const auto mpirun = findOnPath("mpirun");
  if (!mpirun) GTEST_SKIP() << "mpirun is not installed";
  TempDir dir;

  const std::string threadsDb = dir.file("threads.sqlite");
  const auto threads = test::runCommand(runArgs(threadsDb, false));
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  const double threadsLoss = reportedLoss(threadsDb);

  const std::string procsDb = dir.file("procs.sqlite");
  const auto procs = underMpirun(*mpirun, 4, runArgs(procsDb, true));
  if (procs.exit_code != 0 && procs.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "pipescope-cli was built without MPI";
  ASSERT_EQ(procs.exit_code, 0) << procs.out << procs.err;
  EXPECT_THAT(procs.out, HasSubstr("run 1: 1f1b p=4 m=8 steps=3 cpu mlp"));

  std::string status;
  const double procsLoss = reportedLoss(procsDb, &status);
  EXPECT_EQ(status, "complete");
  EXPECT_LE(std::abs(procsLoss - threadsLoss), 1e-5 * std::abs(threadsLoss))
      << "procs " << procsLoss << " threads " << threadsLoss;

  // One run, four ranks, each with its own ops (gathered by rank 0) on one clock axis.
  auto trace = trace::loadRunFromFile(procsDb, std::nullopt);
  ASSERT_TRUE(trace) << trace.error();
  EXPECT_EQ(trace->info.id, 1);
  EXPECT_EQ(trace->info.num_ranks, 4);
  ASSERT_EQ(trace->ranks.size(), 4u);
  const auto threadsTrace = trace::loadRunFromFile(threadsDb, std::nullopt);
  ASSERT_TRUE(threadsTrace) << threadsTrace.error();
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    // Same program, same ops: 8 F + 8 B + OPT per step, plus the sends and receives.
    EXPECT_GT(trace->ranks[r].opCount(), 0u);
    EXPECT_EQ(trace->ranks[r].opCount(), threadsTrace->ranks[r].opCount());
    EXPECT_TRUE(trace->ranks[r].info.host.has_value());
  }
  EXPECT_EQ(trace->ranks[0].info.clock_offset_ns, 0);
  const auto [start, end] = trace->timeExtent();
  EXPECT_GT(end, start);
}

// DAPPLE's replicas over processes: --dp 2 exchanges the twins' gradients and lands on the
// threads' loss; --dp 3 is refused on every process before any file is written.
TEST(CliMpi, TwoReplicasOverProcessesGiveTheThreadedLossAndThreeAreRefused) {
  const auto mpirun = findOnPath("mpirun");
  if (!mpirun) GTEST_SKIP() << "mpirun is not installed";
  TempDir dir;
  const std::vector<std::string> plan = {"--schedule",     "1f1b", "--stages", "2", "--dp", "2",
                                         "--microbatches", "4",    "--steps",  "2"};
  const std::string threadsDb = dir.file("threads.sqlite");
  const auto threads = test::runCommand(runArgs(threadsDb, false, plan));
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  const std::string procsDb = dir.file("procs.sqlite");
  const auto procs = underMpirun(*mpirun, 4, runArgs(procsDb, true, plan));
  if (procs.exit_code != 0 && procs.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "pipescope-cli was built without MPI";
  ASSERT_EQ(procs.exit_code, 0) << procs.out << procs.err;
  EXPECT_THAT(procs.out, HasSubstr("1f1b p=2 m=4 dp=2 steps=2 cpu mlp"));
  const double threadsLoss = reportedLoss(threadsDb);
  EXPECT_LE(std::abs(reportedLoss(procsDb) - threadsLoss), 1e-5 * std::abs(threadsLoss));

  const std::string refusedDb = dir.file("three.sqlite");
  const auto three = underMpirun(
      *mpirun, 6,
      runArgs(refusedDb, true,
              {"--schedule", "gpipe", "--stages", "2", "--dp", "3", "--microbatches", "6"}));
  EXPECT_NE(three.exit_code, 0);
  EXPECT_THAT(three.err, HasSubstr("--dp 3: MPI processes all-reduce between two replicas"));
  EXPECT_FALSE(std::filesystem::exists(refusedDb));
}

// Issue 35's systems that train over processes as over threads, each run both ways with the
// same plan: the processes land on the threads' losses.
struct ProcsCase {
  std::string name;
  std::vector<std::string> plan;
};

class CliMpiSystems : public ::testing::TestWithParam<ProcsCase> {};

TEST_P(CliMpiSystems, OverProcessesTheyGiveTheThreadedLoss) {
  const auto mpirun = findOnPath("mpirun");
  if (!mpirun) GTEST_SKIP() << "mpirun is not installed";
  TempDir dir;
  const std::vector<std::string>& plan = GetParam().plan;
  const std::string threadsDb = dir.file("threads.sqlite");
  const auto threads = test::runCommand(runArgs(threadsDb, false, plan));
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  const std::string procsDb = dir.file("procs.sqlite");
  const auto procs = underMpirun(*mpirun, 4, runArgs(procsDb, true, plan));
  if (procs.exit_code != 0 && procs.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "pipescope-cli was built without MPI";
  ASSERT_EQ(procs.exit_code, 0) << procs.out << procs.err;
  const double threadsLoss = reportedLoss(threadsDb);
  EXPECT_LE(std::abs(reportedLoss(procsDb) - threadsLoss), 1e-5 * std::abs(threadsLoss));
}

INSTANTIATE_TEST_SUITE_P(
    Issue35, CliMpiSystems,
    ::testing::Values(
        // HetPipe's virtual workers cut their own way: each run of layers two stage copies
        // share is exchanged.
        ProcsCase{"OwnCuts",
                  {"--schedule", "1f1b", "--stages", "2", "--dp", "2", "--microbatches", "4",
                   "--steps", "2", "--layers", "8", "--rank-speed", "1,3,3,1", "--own-cuts"}},
        // Piper's experts shared out over the replicas: the tokens cross between processes.
        ProcsCase{
            "ShardedExperts",
            {"--schedule", "gpipe", "--stages", "2", "--dp", "2", "--microbatches", "4", "--steps",
             "2", "--layers", "4", "--a2a-mb", "1", "--link-gbps", "100", "--model", "moe"}},
        // Overlapped: each process runs its program on two threads that both call MPI, one
        // micro-batch's tokens in flight over a slow link while the next computes.
        ProcsCase{"OverlappedExperts", {"--schedule",
                                        "gpipe",
                                        "--stages",
                                        "2",
                                        "--dp",
                                        "2",
                                        "--microbatches",
                                        "4",
                                        "--steps",
                                        "2",
                                        "--layers",
                                        "4",
                                        "--a2a-mb",
                                        "1",
                                        "--link-gbps",
                                        "100",
                                        "--link-latency-us",
                                        "2000",
                                        "--model",
                                        "moe"}},
        // NestPipe's embedding table: the rows reach stage 0 and their gradients go back.
        ProcsCase{"EmbeddingTable",
                  {"--schedule", "1f1b", "--stages", "4", "--microbatches", "4", "--steps", "2",
                   "--fetch-mb", "1", "--link-gbps", "100"}},
        // Its key-centric clustering: every process regroups the step's samples alike.
        ProcsCase{"ClusteredKeys",
                  {"--schedule", "1f1b", "--stages", "4", "--microbatches", "4", "--steps", "2",
                   "--fetch-mb", "1", "--link-gbps", "100", "--cluster-keys", "--mb-size", "8"}},
        // GNNPipe's graph model: every process builds the same graph from the seed.
        ProcsCase{"GraphModel",
                  {"--schedule", "1f1b", "--stages", "4", "--microbatches", "4", "--layers", "8",
                   "--steps", "2", "--model", "gnn"}},
        // Its staleness bound: the whole graph's history refreshed down the stages each step,
        // each process holding two of them.
        ProcsCase{
            "GraphHistoryRefresh",
            {"--schedule", "interleaved-1f1b", "--stages", "4", "--chunks", "2", "--microbatches",
             "4", "--layers", "8", "--steps", "2", "--model", "gnn", "--history-refresh", "1"}},
        // I-TiMePReSt: PipeDream's stash blended with the live weights at each backward.
        ProcsCase{"StashBlend",
                  {"--preset", "timeprest", "--steps", "4", "--weight-versions", "blend"}},
        // Its nF1B order: whole mini-batches forwarded before the oldest one's backward.
        ProcsCase{"NF1B", {"--preset", "timeprest", "--schedule", "nf1b", "--steps", "4"}}),
    [](const auto& named) { return named.param.name; });

TEST(CliMpi, ProcsOutsideMpirunNamesBothSizes) {
  if (!findOnPath("mpirun")) GTEST_SKIP() << "mpirun is not installed";
  MpiEnvironment env;
  TempDir dir;
  const std::string db = dir.file("none.sqlite");
  const auto r = test::runCommand(runArgs(db, true));
  if (r.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "pipescope-cli was built without MPI";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("MPI world size 1 differs from the plan's 4 ranks"));
  EXPECT_THAT(r.err, HasSubstr("mpirun -np 4"));
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(CliMpi, CudaProcsWithoutADeviceRefuseOnEveryProcessAndWriteNothing) {
  const auto mpirun = findOnPath("mpirun");
  if (!mpirun) GTEST_SKIP() << "mpirun is not installed";
  TempDir dir;
  const std::string db = dir.file("cuda.sqlite");
  std::vector<std::string> args = {*mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "4"};
  auto run = runArgs(db, true);
  run.insert(run.end(), {"--backend", "cuda"});
  args.insert(args.end(), run.begin(), run.end());
  const auto r = [&] {
    MpiEnvironment env;
    return test::runCommand(args);
  }();
  if (r.err.find("built without MPI") != std::string::npos)
    GTEST_SKIP() << "pipescope-cli was built without MPI";
  if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no CUDA device"));
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace ps
