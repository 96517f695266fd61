// Files named by flags are read bounded (issue 30, item 16): /dev/zero grew the process until
// an uncaught std::bad_alloc aborted it, a FIFO hung the command forever. Every flag that names
// a file, and report/compare given a trace file, now refuse anything but a regular file with one
// line naming it, and exit non-zero at once. A UTF-8 byte order mark in front of a JSON or CSV
// file is skipped (item 19).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs the CLI as a child and gives it `limit` to end: a command that hangs on a FIFO fails the
// test instead of hanging the suite. Generous, for sanitized builds on a busy machine: a
// refusal takes a fraction of a second, a hang never ends.
struct Outcome {
  std::optional<int> exitCode;
  std::string err;
};
Outcome runBounded(std::vector<std::string> args,
                   std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  args.insert(args.begin(), test::cliPath());
  test::ChildProcess child(args);
  Outcome o;
  o.exitCode = child.waitFor(limit);
  o.err = child.err();
  return o;  // a child still running is killed by ChildProcess's destructor
}

// The two hostile files of every case: a FIFO nobody writes to and /dev/zero, each under a
// name with the suffix the flag expects (a preset file is told from a preset name by .json).
struct HostileFiles {
  explicit HostileFiles(const TempDir& dir, const std::string& suffix)
      : fifo(dir.file("fifo" + suffix)), zero(dir.file("zero" + suffix)) {
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::filesystem::create_symlink("/dev/zero", zero);
  }
  std::string fifo, zero;
};

void expectRefused(const std::vector<std::string>& args, const std::string& file,
                   const std::string& kind) {
  const Outcome o = runBounded(args);
  ASSERT_TRUE(o.exitCode.has_value()) << "still running after 60 s: " << args[0] << " " << file;
  EXPECT_NE(*o.exitCode, 0) << o.err;
  EXPECT_LT(*o.exitCode, 128) << "ended by a signal: " << o.err;  // never an abort
  EXPECT_THAT(o.err, HasSubstr(file + ": is " + kind + ", not a regular file")) << o.err;
  // One line.
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
}

void expectBothRefused(const HostileFiles& files, const std::vector<std::string>& before,
                       const std::vector<std::string>& after = {}, const std::string& prefix = "") {
  for (const auto& [file, kind] : {std::pair{files.fifo, std::string("a FIFO (named pipe)")},
                                   std::pair{files.zero, std::string("a character device")}}) {
    std::vector<std::string> args = before;
    args.push_back(prefix + file);
    args.insert(args.end(), after.begin(), after.end());
    SCOPED_TRACE(file);
    expectRefused(args, file, kind);
  }
}

// A small complete Kineto profile for the import cases.
std::string writeProfile(const TempDir& dir) {
  const std::string path = dir.file("one.json");
  test::writeFile(path,
                  R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "PP:0F0", )"
                  R"("pid": 1, "tid": 2, "ts": 100, "dur": 50}]})");
  return path;
}

TEST(CliFlagFiles, CostsRefusesFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".json");
  expectBothRefused(files, {"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2",
                            "--db", dir.file("o.sqlite"), "--costs"});
}

TEST(CliFlagFiles, PresetFileRefusesFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".json");
  expectBothRefused(files, {"sim", "--db", dir.file("o.sqlite"), "--preset"});
}

TEST(CliFlagFiles, SeqLengthsFileRefusesFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".txt");
  expectBothRefused(
      files,
      {"sim", "--schedule", "1f1b", "--stages", "2", "--db", dir.file("o.sqlite"), "--seq-lengths"},
      {}, "@");
}

TEST(CliFlagFiles, ScheduleFileRefusesFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".csv");
  expectBothRefused(files, {"sim", "--db", dir.file("o.sqlite"), "--schedule-file"});
  // And through import torch-csv, which reads the same way.
  expectBothRefused(files, {"import", "torch-csv"}, {"--db", dir.file("o.sqlite")});
}

TEST(CliFlagFiles, RulesRefusesFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".json");
  const std::string profile = writeProfile(dir);
  expectBothRefused(files, {"import", "kineto", profile, "--db", dir.file("o.sqlite"), "--rules"});
}

TEST(CliFlagFiles, ReportAndCompareRefuseFifoAndDevice) {
  TempDir dir;
  HostileFiles files(dir, ".sqlite");
  const std::string good = dir.file("good.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--db", good})
                .exit_code,
            0);
  expectBothRefused(files, {"report"});
  expectBothRefused(files, {"compare", good + ":1"}, {}, "");
  expectBothRefused(files, {"compare"}, {"1", "2"});
  expectBothRefused(files, {"export", "chrome"}, {"--out", dir.file("x.json")});
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.json")));
}

TEST(CliFlagFiles, AByteOrderMarkIsSkipped) {
  TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  // A torch schedule CSV saved by a Windows editor.
  const std::string csv = dir.file("bom.csv");
  test::writeFile(csv, bom + "0F0,0B0\n");
  auto r = cli({"import", "torch-csv", csv, "--db", dir.file("t.sqlite")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A preset file and a cost file from resources/, given a mark.
  const std::string preset = dir.file("bom-1f1b.json");
  test::writeFile(preset, bom + test::readFile(test::sourcePath("resources/presets/1f1b.json")));
  r = cli({"sim", "--preset", preset, "--db", dir.file("p.sqlite")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string costs = dir.file("bom-costs.json");
  test::writeFile(
      costs, bom + test::readFile(test::sourcePath("resources/costs/skewed-transformer.json")));
  r = cli({"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8", "--db",
           dir.file("c.sqlite"), "--costs", costs});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Files a command writes (found by scripts/hostile-sweep): opening a FIFO for writing blocks until
// a reader comes, so `run --calibrate-out FIFO` hung after calibrating. Refused before any work,
// the FIFO left as it was; a regular file is written whole.
TEST(CliFlagFiles, OutputFilesRefuseFifoAndFolder) {
  TempDir dir;
  const std::string fifo = dir.file("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::string> run = {"run",
                                        "--schedule",
                                        "1f1b",
                                        "--stages",
                                        "2",
                                        "--microbatches",
                                        "2",
                                        "--steps",
                                        "1",
                                        "--backend",
                                        "cpu",
                                        "--db",
                                        dir.file("r.sqlite"),
                                        "--calibrate-out"};
  for (const std::string& target : {fifo, dir.path().string()}) {
    SCOPED_TRACE(target);
    std::vector<std::string> args = run;
    args.push_back(target);
    const Outcome o = runBounded(args);
    ASSERT_TRUE(o.exitCode.has_value()) << "still running after 60 s";
    EXPECT_NE(*o.exitCode, 0) << o.err;
    EXPECT_LT(*o.exitCode, 128) << o.err;
    EXPECT_THAT(o.err, HasSubstr(target + ": is a ")) << o.err;
    EXPECT_THAT(o.err, Not(HasSubstr("calibrating"))) << "refused only after the work: " << o.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.sqlite")));

  const std::string good = dir.file("good.sqlite");
  ASSERT_EQ(cli({"demo", "--db", good}).exit_code, 0);
  const Outcome o = runBounded({"export", "torch-csv", good, "--out", fifo});
  ASSERT_TRUE(o.exitCode.has_value()) << "export still running after 60 s";
  EXPECT_NE(*o.exitCode, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr(fifo + ": is a FIFO (named pipe), not a regular file")) << o.err;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  const auto written = cli({"export", "torch-csv", good, "--out", dir.file("x.csv")});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_THAT(test::readFile(dir.file("x.csv")), HasSubstr("0F0"));
}

}  // namespace
}  // namespace ps
