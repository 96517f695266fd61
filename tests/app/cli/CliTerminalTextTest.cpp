// Control characters never reach the terminal (issue 12, case 14): a run named with an ESC
// sequence that clears the screen, a carriage return and 100k characters is printed escaped and
// capped (trace/TerminalText.h) by every command that prints it: sim, run, compare, export's
// errors, and error messages in general.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

// ESC [2J (clear screen), CR, then 100k letters: 100005 characters.
const std::string kHostileName = "\x1b[2J\r" + std::string(100000, 'n');
// What is printed instead: the first 200 characters escaped, then what was left out.
const std::string kShownName =
    "\\x1b[2J\\r" + std::string(195, 'n') + "\xE2\x80\xA6 (+99805 chars)";

void expectNoControls(const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "ESC reached the terminal";
  EXPECT_EQ(text.find('\r'), std::string::npos) << "CR reached the terminal";
  EXPECT_LT(text.size(), 20000u) << "a 100k-character name was printed whole";
}

TEST(CliTerminalText, SimPrintsTheRunNameEscapedAndCapped) {
  TempDir dir;
  const auto r = cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--name",
                      kHostileName, "--db", dir.file("t.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
  EXPECT_THAT(r.out, HasSubstr("run 1: " + kShownName + ": step "));
  expectNoControls(r.out);
  expectNoControls(r.err);
  // The file keeps the name as given.
  const auto runs = test::runsIn(dir.file("t.sqlite"));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, kHostileName);
}

TEST(CliTerminalText, RunPrintsTheRunNameEscapedAndCapped) {
  TempDir dir;
  const auto r =
      cli({"run", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--hidden", "8",
           "--seq", "2", "--mb-size", "1", "--name", kHostileName, "--db", dir.file("t.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
  EXPECT_THAT(r.out, HasSubstr("run 1: " + kShownName + ": step "));
  expectNoControls(r.out);
  expectNoControls(r.err);
}

TEST(CliTerminalText, CompareTableShowsNamesEscapedAndCapped) {
  TempDir dir;
  const std::string db = dir.file("t.sqlite");
  for (const std::string& name : {kHostileName, std::string("plain")}) {
    const auto r = cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2",
                        "--name", name, "--db", db});
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
  }
  const auto r = cli({"compare", db, "1", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
  EXPECT_THAT(r.out, HasSubstr("run 1 \"" + kShownName + "\""));
  EXPECT_THAT(r.out, HasSubstr("run 2 \"plain\""));
  expectNoControls(r.out);
  // JSON is for programs: the name exact, its control characters JSON-escaped.
  const auto json = cli({"compare", db, "1", "2", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err.substr(0, 500);
  EXPECT_THAT(json.out, HasSubstr("\\u001b[2J\\r" + std::string(100000, 'n')));
  EXPECT_EQ(json.out.find('\x1b'), std::string::npos);
}

TEST(CliTerminalText, ExportErrorQuotesTheNameEscapedAndCapped) {
  TempDir dir;
  const std::string db = dir.file("t.sqlite");
  trace::TraceBatch batch;
  trace::OpRecord op = test::compute(0, trace::OpKind::OTHER, 0, 0, 10);
  op.stage.reset();
  op.microbatch.reset();
  batch.ops.push_back(op);
  test::writeRun(db, test::simpleHeader(1, kHostileName), batch);
  const auto r = cli({"export", "torch-csv", db, "--out", dir.file("out.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("run 1 \"" + kShownName + "\" has no pipeline ops"));
  expectNoControls(r.err);
}

TEST(CliTerminalText, ErrorsEscapeWhatTheyQuote) {
  // A value from the command line quoted back in an error (CLI11's and ours).
  TempDir dir;
  const auto r =
      cli({"sim", "--schedule", kHostileName, "--stages", "2", "--db", dir.file("t.sqlite")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("\\x1b[2J\\r"));
  expectNoControls(r.err);
}

}  // namespace
}  // namespace ps
