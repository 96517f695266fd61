// The import format registry (ImportFormats.h) and the reader dispatch (ImportReaders.h): what
// the CLI, the import dialog and the main window iterate.

#include <gtest/gtest.h>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/KinetoFixture.h"
#include "trace/import/ImportFormats.h"
#include "trace/import/ImportReaders.h"

namespace ps::trace::import {
namespace {

TEST(ImportReadersTest, RegistryListsEveryFormatOnceInDisplayOrder) {
  EXPECT_EQ(importFormatNames(), "nsys, kineto, torch-csv");
  EXPECT_EQ(importFormatNames(" | "), "nsys | kineto | torch-csv");
  for (const auto& f : importFormats()) {
    EXPECT_EQ(findImportFormat(f.name), &f) << f.name;
    EXPECT_FALSE(f.label.empty()) << f.name;
    EXPECT_FALSE(f.noun.empty()) << f.name;
    EXPECT_NE(f.guess, nullptr) << f.name;
    // A profile format reads; a schedule is simulated above trace/.
    EXPECT_EQ(f.read != nullptr, f.kind == ImportKind::Profiles) << f.name;
  }
  EXPECT_EQ(findImportFormat("chrome"), nullptr);
  EXPECT_EQ(findImportFormat("torch-csv")->kind, ImportKind::Schedule);
  EXPECT_EQ(traceFormats(), "nsys, kineto");
}

TEST(ImportReadersTest, FileFilterCombinesEveryFormatsPatterns) {
  EXPECT_EQ(importFileFilter(),
            "Profiles (*.sqlite *.json *.json.gz *.csv);;Nsight Systems (*.sqlite);;PyTorch "
            "profiler (*.json *.json.gz);;torch CSV (*.csv);;All files (*)");
}

TEST(ImportReadersTest, GuessesFromFirstBytesAndSuffix) {
  test::TempDir dir;
  auto guess = [&](const std::string& name, const std::string& bytes) -> std::string {
    const std::string path = dir.file(name);
    test::writeFile(path, bytes);
    const auto* f = guessImportFormat(path);
    return f ? std::string(f->name) : "";
  };
  EXPECT_EQ(guess("a.sqlite", std::string("SQLite format 3\0rest", 20)), "nsys");
  EXPECT_EQ(guess("a.json", "  \n{\"traceEvents\": []}"), "kineto");
  EXPECT_EQ(guess("a.json", "[{}]"), "kineto");
  EXPECT_EQ(guess("any.name", testing::gzipBytes("{}")), "kineto");  // by the magic, not the name
  EXPECT_EQ(guess("s.CSV", "0F0,0B0\n"), "torch-csv");
  EXPECT_EQ(guess("notes.txt", "hello"), "");
  EXPECT_EQ(guess("empty.json", ""), "");
  // Unreadable: the name alone still says CSV.
  EXPECT_EQ(guessImportFormat(dir.file("missing.csv"))->name, "torch-csv");
  EXPECT_EQ(guessImportFormat(dir.file("missing.json")), nullptr);
}

TEST(ImportReadersTest, ReadTraceFilesRefusesUnknownFormatsAndSchedules) {
  auto r = readTraceFiles("chrome", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unknown trace format \"chrome\" (valid: nsys, kineto)");
  r = readTraceFiles("torch-csv", {"s.csv"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "torch-csv is a schedule to simulate, not a profile to read");
}

TEST(ImportReadersTest, ACancelledImportReadsNoFile) {
  test::TempDir dir;
  const std::string path = dir.file("t.json");
  test::writeFile(path, "{\"traceEvents\": []}");
  std::atomic<bool> cancel{true};
  ReadControl control;
  control.cancel = &cancel;
  auto r = readTraceFiles("kineto", {path}, control);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), path + ": import cancelled");
}

}  // namespace
}  // namespace ps::trace::import
