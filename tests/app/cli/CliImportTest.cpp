// pipescope-cli import / export chrome end to end: the real binary on files the fixture writers
// produce, on bad input, and on the third-party corpus when PIPESCOPE_EXTERNAL_TRACES is set.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/KinetoFixture.h"
#include "tests/trace/import/NsysFixture.h"
#include "trace/Synthetic.h"

namespace ps {
namespace {

using test::runCommand;
using test::TempDir;
using ::testing::HasSubstr;
using trace::import::testing::FixtureEventKind;
using trace::import::testing::FixtureRank;

using test::cli;

// GPipe p = 2, m = 4 with torch-pipelining labels and NCCL send/recv kernels; rank 1's clock
// is 80 µs ahead. Bubble (p-1)/(m+p-1) = 1/5.
std::vector<FixtureRank> gpipe() {
  trace::SyntheticGpipe g;
  g.ranks = 2;
  g.microbatches = 4;
  g.fwd_ns = 50'000;
  std::vector<FixtureRank> ranks(2);
  for (int r = 0; r < 2; ++r) {
    ranks[r].rank = r;
    ranks[r].worldSize = 2;
  }
  ranks[1].clockSkewNs = 80'000;
  for (const auto& op : trace::syntheticGpipeStep(g, 0).ops) {
    const bool comm = !trace::isCompute(op.kind);
    const std::int64_t end = comm ? op.start_ns + 1000 : op.end_ns;
    auto& events = ranks[op.rank].events;
    events.push_back({FixtureEventKind::Annotation,
                      "PP:" + std::to_string(*op.stage) + std::string(trace::opKindName(op.kind)) +
                          std::to_string(*op.microbatch),
                      op.start_ns, end, -1, -1, 0});
    events.push_back({comm ? FixtureEventKind::Nccl : FixtureEventKind::Kernel,
                      comm ? "ncclDevKernel_SendRecv(args)" : "gemm", op.start_ns, end,
                      comm ? *op.peer_rank : -1, op.bytes.value_or(-1), 0});
  }
  return ranks;
}

double bubbleOf(const std::string& db) {
  const auto r = cli({"report", db, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.out).get(doc) != simdjson::SUCCESS) return -1;
  return double(doc["bubble_ratio"]);
}

TEST(CliImport, NsysExportImportsAlignsAndReports) {
  TempDir dir;
  const std::string in = dir.file("gpipe.sqlite"), db = dir.file("out.sqlite");
  ASSERT_TRUE(trace::import::testing::writeNsysFixture(in, gpipe()).ok());
  const auto r = cli({"import", "nsys", in, "--db", db, "--name", "cluster run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run 1: cluster run"));
  EXPECT_THAT(r.out, HasSubstr("2 rank(s), 1 step(s)"));
  EXPECT_THAT(r.out, HasSubstr("F=8 B=8"));
  EXPECT_THAT(r.out, HasSubstr("clock alignment: p2p"));
  EXPECT_NEAR(bubbleOf(db), 1.0 / 5.0, 1e-4);
}

TEST(CliImport, KinetoFilesWithRankMappingAndChromeExport) {
  TempDir dir;
  std::vector<std::string> args{"import", "kineto"};
  for (auto rank : gpipe()) {
    rank.writeRankMetadata = false;
    const std::string path = dir.file("host" + std::to_string(rank.rank) + ".json.gz");
    ASSERT_TRUE(trace::import::testing::writeKinetoFixture(path, rank, true).ok());
    args.push_back(path);
  }
  const std::string db = dir.file("out.sqlite");
  // No rank in the files' metadata or names: the error says how to give it.
  auto r = cli({"import", "kineto", args[2], args[3], "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(args[2] + ": cannot tell which rank this file is"));
  EXPECT_FALSE(std::filesystem::exists(db));

  args.insert(args.end(),
              {"--db", db, "--rank", args[2] + "=0", "--rank", args[3] + "=1", "--align", "p2p"});
  r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rank 1 <- " + args[3] + " (rank 1 from --rank)"));
  EXPECT_NEAR(bubbleOf(db), 1.0 / 5.0, 1e-4);

  const std::string json = dir.file("run.json");
  r = cli({"export", "chrome", db, "--out", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("send->receive flows on 2 ranks"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(json).get(doc), simdjson::SUCCESS);
  EXPECT_GT(doc["traceEvents"].get_array().size(), 32U);
}

TEST(CliImport, BadInputNamesTheFileAndWritesNothing) {
  TempDir dir;
  const std::string db = dir.file("keep.sqlite");
  // A file with one run already: it must come out byte for byte the same.
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--db", db})
                .exit_code,
            0);
  const std::string before = test::readFile(db);

  const std::string gz = dir.file("rank0.json.gz");
  ASSERT_TRUE(trace::import::testing::writeKinetoFixture(gz, gpipe()[0], true).ok());
  const std::string whole = test::readFile(gz);
  test::writeFile(gz, whole.substr(0, whole.size() / 2));
  auto r = cli({"import", "kineto", gz, "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(gz));
  EXPECT_THAT(r.err, HasSubstr("gzip"));

  const std::string notNsys = dir.file("other.sqlite");
  ASSERT_EQ(
      cli({"sim", "--schedule", "gpipe", "--stages", "2", "--microbatches", "2", "--db", notNsys})
          .exit_code,
      0);
  r = cli({"import", "nsys", notNsys, "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(notNsys + ": not an Nsight Systems export"));

  const std::string json = dir.file("rank1.json");
  test::writeFile(json, "{\"traceEvents\": [ {\"ph\": \"X\", ]}");
  r = cli({"import", "kineto", json, "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(json + ": malformed JSON at byte"));

  r = cli({"import", "kineto", json, "--db", db, "--align", "sideways"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--align"));
  EXPECT_EQ(test::readFile(db), before);
}

TEST(CliImport, TorchCsvBecomesASimulatedRun) {
  TempDir dir;
  const std::string csv = dir.file("s.csv"), db = dir.file("out.sqlite");
  test::writeFile(csv, "0F0,0F1,0B0,0B1\n,1F0,1B0,1F1,1B1\n");
  const auto r = cli({"import", "torch-csv", csv, "--db", db, "--fwd-us", "10", "--bwd-us", "20",
                      "--wgrad-us", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = cli({"report", db, "--json"});
  EXPECT_THAT(report.out, HasSubstr("\"source\": \"torch-csv\""));
  // The file is GPipe-ordered 2 x 2 with F = 10 µs, B = 20 µs: bubble (p-1)/(m+p-1) = 1/3.
  EXPECT_NEAR(bubbleOf(db), 1.0 / 3.0, 1e-9);
}

// Every third-party file imports with ops, or fails with the one expected message.
TEST(CliImport, ExternalCorpusImportsOrSaysWhyNot) {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (!root || !*root) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES is not set";
  TempDir dir;
  int files = 0, imported = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = entry.path().string();
    std::string format;
    if (path.find("/kineto/") != std::string::npos) format = "kineto";
    if (path.find("/nsys/") != std::string::npos) format = "nsys";
    if (path.find("/torch-csv/") != std::string::npos) format = "torch-csv";
    if (format.empty()) continue;
    ++files;
    const std::string db = dir.file("corpus" + std::to_string(files) + ".sqlite");
    const auto r = cli({"import", format, path, "--db", db});
    std::cout << format << " " << entry.path().filename().string() << ": exit " << r.exit_code
              << "\n"
              << r.out << r.err;
    if (r.exit_code == 0) {
      EXPECT_THAT(r.out, ::testing::ContainsRegex("run 1: .*: [1-9][0-9]* ops")) << path;
      ++imported;
    } else {
      EXPECT_EQ(r.exit_code, 2) << path;
      EXPECT_THAT(r.err, HasSubstr("nothing to import")) << path;
      EXPECT_FALSE(std::filesystem::exists(db)) << path;
    }
  }
  EXPECT_GE(files, 15);
  EXPECT_GE(imported, files - 2);  // only the runtime-only nsys file has nothing to import
}

TEST(CliImport, ExternalDlrmRanksMergeIntoOneRun) {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (!root || !*root) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES is not set";
  const std::filesystem::path dlrm = std::filesystem::path(root) / "kineto" / "param_dlrm_8rank";
  if (!std::filesystem::exists(dlrm)) GTEST_SKIP() << dlrm << " is missing";
  std::vector<std::string> args{"import", "kineto"};
  for (const auto& e : std::filesystem::directory_iterator(dlrm))
    args.push_back(e.path().string());
  TempDir dir;
  args.insert(args.end(), {"--db", dir.file("dlrm.sqlite")});
  const auto r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::cout << r.out;
  EXPECT_THAT(r.out, HasSubstr("8 rank(s)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("clock alignment: (p2p|collective)"));
}

}  // namespace
}  // namespace ps
