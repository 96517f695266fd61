// pipescope-cli import hardening (issue 12): Ctrl-C during an import writes no run (case 4),
// --threads-as-ranks (case 11), text from the files printed terminal-safe, and the torch-csv
// golden diff test (the schedule is simulated, so it runs through the CLI; the profile formats'
// goldens are in tests/trace/import/ImportGoldenTest.cpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/app/CliSignalUtil.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/import/RunDump.h"
#include "trace/store/TraceReader.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

using test::kSanitized;

constexpr long kLimitMs = test::kSignalLimitMs;

// One process, `threads` threads each running one stage's forwards of `microbatches` micro-
// batches as user annotations ("PP:<stage>F<mb>"), in Kineto's JSON. Big enough (`events`) that
// reading it takes seconds.
void writeThreadedKineto(const std::string& path, int threads, int microbatches) {
  std::ofstream out(path, std::ios::binary);
  out << "{\"traceEvents\": [\n";
  bool first = true;
  for (int t = 0; t < threads; ++t)
    for (int mb = 0; mb < microbatches; ++mb) {
      const long start = 1'000'000 + (t + mb) * 100;
      out << (first ? "" : ",\n")
          << "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"PP:" << t << "F" << mb
          << "\", \"pid\": 7, \"tid\": " << (100 + t) << ", \"ts\": " << start << ", \"dur\": 90}";
      first = false;
    }
  out << "\n]}\n";
}

TEST(CliImportHardening, CtrlCStopsAnImportAndWritesNothing) {
  TempDir dir;
  const std::string trace = dir.file("big.json");
  writeThreadedKineto(trace, 4, 400'000);  // 1.6M events, ~150 MB
  // The signal must come once the import runs, not while the process still starts: a sanitized
  // binary's start-up (relocations, page faults) takes over a second on some machines.
  const auto startupBegin = Clock::now();
  ASSERT_EQ(cli({"--version"}).exit_code, 0);
  const auto startup = Clock::now() - startupBegin;
  for (const bool existing : {false, true}) {
    const std::string db = dir.file(existing ? "keep.sqlite" : "new.sqlite");
    if (existing) {
      ASSERT_EQ(
          cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--db", db})
              .exit_code,
          0);
    }
    const std::string before = existing ? test::readFile(db) : "";
    test::ChildProcess child({test::cliPath(), "import", "kineto", trace, "--db", db});
    std::this_thread::sleep_for(startup + std::chrono::milliseconds(kSanitized ? 600 : 200));
    ASSERT_FALSE(child.waitFor(std::chrono::milliseconds(0)))
        << "the import ended before the signal: make the trace bigger\n"
        << child.err();
    const auto sent = Clock::now();
    child.signal(SIGINT);
    const auto code = child.waitFor(std::chrono::seconds(20));
    ASSERT_TRUE(code.has_value()) << "still running 20 s after SIGINT";
    const long ms = static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count());
    std::printf("[ measure  ] import: SIGINT to exit: %ld ms%s\n", ms,
                kSanitized ? " (ASan+UBSan build)" : "");
    EXPECT_LT(ms, kLimitMs);
    EXPECT_EQ(*code, 1) << child.err();
    EXPECT_EQ(child.err(), "pipescope-cli: error: " + db + ": no run written: import cancelled\n");
    EXPECT_EQ(child.out(), "");
    if (existing) {
      EXPECT_EQ(test::readFile(db), before) << "the file changed";
    } else {
      EXPECT_FALSE(std::filesystem::exists(db)) << "a file was created";
    }
    EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(db + "-journal"));
  }
}

TEST(CliImportHardening, ThreadsAsRanksSplitsOneProcessIntoRanks) {
  TempDir dir;
  const std::string trace = dir.file("pippy.json"), db = dir.file("out.sqlite");
  writeThreadedKineto(trace, 4, 4);
  auto r = cli({"import", "kineto", trace, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 rank(s)"));
  r = cli({"import", "kineto", trace, "--db", db, "--threads-as-ranks"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("4 rank(s)"));
  EXPECT_THAT(r.out, HasSubstr("rank 0 <- " + trace + " (rank 0 from thread 100)"));

  const std::string csv = dir.file("s.csv");
  test::writeFile(csv, "0F0,0B0\n");
  r = cli({"import", "torch-csv", csv, "--db", db, "--threads-as-ranks"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "pipescope-cli: error: --threads-as-ranks: torch-csv is a schedule, its ranks are the "
            "file's; the flag is for profiles\n");
}

TEST(CliImportHardening, NamesFromTheFilesArePrintedTerminalSafe) {
  TempDir dir;
  // A file name with an escape sequence becomes the default run name.
  const std::string trace = dir.file("evil\x1b[2J.json"), db = dir.file("out.sqlite");
  writeThreadedKineto(trace, 1, 2);
  const auto r = cli({"import", "kineto", trace, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run 1: kineto evil\\x1b[2J.json: "));
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
}

TEST(CliImportHardening, FormatHelpComesFromTheRegistry) {
  const auto r = cli({"import", "--help"});
  EXPECT_THAT(r.out, HasSubstr("nsys: Nsight Systems SQLite export"));
  EXPECT_THAT(r.out, HasSubstr("torch-csv: torch pipelining schedule CSV (simulated)"));
  const auto bad = cli({"import", "chrome", "x.json", "--db", "out.sqlite"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("chrome not in {nsys,kineto,torch-csv}"));
}

// Golden diff test of the torch-csv import: schedule file -> simulated run -> text dump.
TEST(CliImportHardening, TorchCsvGolden) {
  TempDir dir;
  const std::string csv = dir.file("gpipe.csv"), db = dir.file("out.sqlite");
  test::writeFile(csv, "0F0,0F1,0B0,0B1\n,1F0,1B0,1F1,1B1\n");
  const auto r = cli({"import", "torch-csv", csv, "--db", db, "--fwd-us", "10", "--bwd-us", "20",
                      "--wgrad-us", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = trace::loadRunFromFile(db, std::nullopt);
  ASSERT_TRUE(run.ok()) << run.error();
  test::expectGolden(test::sourcePath("tests/trace/import/golden/torch_csv_gpipe.txt"),
                     test::dumpRun(*run, dir.path().string()));
}

}  // namespace
}  // namespace ps
