// The Kineto reader on bad input: truncated and corrupt gzip, malformed JSON, files that are no
// traces, cancellation, progress, and mutated input that must never crash.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/KinetoFixture.h"
#include "tests/trace/import/KinetoPlanted.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;
using testing::plantedRank;
using testing::readText;

TEST(KinetoReaderTest, TruncatedAndCorruptGzipNameTheFile) {
  ps::test::TempDir dir;
  FixtureRank r = plantedRank();
  const std::string gz = testing::gzipBytes(testing::kinetoFixtureJson(r));
  const std::string half = dir.file("half.json.gz");
  ps::test::writeFile(half, gz.substr(0, gz.size() / 2));
  auto truncated = readKinetoFile(half);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error(),
            half + ": truncated gzip data after " + std::to_string(gz.size() / 2) + " bytes");

  std::string bad = gz;
  for (std::size_t i = 20; i < 60; ++i)
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  const std::string corrupt = dir.file("corrupt.json.gz");
  ps::test::writeFile(corrupt, bad);
  auto broken = readKinetoFile(corrupt);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().rfind(corrupt + ": corrupt gzip data at byte ", 0), 0U)
      << broken.error();
}

TEST(KinetoReaderTest, MalformedJsonNamesTheFileAndByte) {
  ps::test::TempDir dir;
  const std::string json = testing::kinetoFixtureJson(plantedRank());
  const std::string cut = dir.file("cut.json");
  const std::size_t cutAt = json.size() * 2 / 3;
  ps::test::writeFile(cut, json.substr(0, cutAt));
  auto truncated = readKinetoFile(cut);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().rfind(cut + ": malformed JSON at byte " + std::to_string(cutAt) +
                                        ": unexpected end of data",
                                    0),
            0U)
      << truncated.error();

  // Two events without a comma: the scanner sees it at the second '{'.
  auto noComma = readText(R"({"traceEvents": [{"ph": "X"} {"ph": "X"}]})", "nocomma.json");
  ASSERT_FALSE(noComma.ok());
  EXPECT_EQ(noComma.error(),
            "nocomma.json: malformed JSON at byte 29: expected ',' or ']' after an event");

  // A value missing inside an event: simdjson finds it.
  const std::string missing =
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": , "dur": 1}]})";
  auto noValue = readText(missing, "novalue.json");
  ASSERT_FALSE(noValue.ok());
  EXPECT_EQ(noValue.error(), "novalue.json: malformed JSON at byte " +
                                 std::to_string(missing.find(", \"dur\"")) + ": expected a value");

  // A raw control character inside a string (invalid UTF-8 is replaced instead: KinetoText).
  auto control = readText(std::string("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\x01\"}]}"),
                          "control.json");
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.error().rfind("control.json: malformed JSON at byte 39: ", 0), 0U)
      << control.error();
}

TEST(KinetoReaderTest, InputsThatAreNotTracesSayWhat) {
  ps::test::TempDir dir;
  const std::string emptyPath = dir.file("empty.json");
  ps::test::writeFile(emptyPath, "");
  auto empty = readKinetoFile(emptyPath);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error(), emptyPath + ": empty file");

  auto missingFile = readKinetoFile(dir.file("absent.json"));
  ASSERT_FALSE(missingFile.ok());
  EXPECT_NE(missingFile.error().find("absent.json: cannot open"), std::string::npos);

  auto noEvents = readText(R"({"schemaVersion": 1, "deviceProperties": []})", "x.json");
  ASSERT_FALSE(noEvents.ok());
  EXPECT_EQ(noEvents.error(), "x.json: not a Kineto trace: no \"traceEvents\" array");

  auto number = readText("  42", "n.json");
  ASSERT_FALSE(number.ok());
  EXPECT_EQ(number.error(),
            "n.json: not a Kineto trace: expected a JSON object with \"traceEvents\" or an array "
            "of events, found '4' at byte 2");

  auto notArray = readText(R"({"traceEvents": {}})", "o.json");
  ASSERT_FALSE(notArray.ok());
  EXPECT_EQ(notArray.error(),
            "o.json: not a Kineto trace: \"traceEvents\" at byte 16 is not an array");

  auto trailing = readText(R"({"traceEvents": []} x)", "t.json");
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.error(),
            "t.json: malformed JSON at byte 20: unexpected data after the end of the trace");
}

FixtureRank manyKernels(int count) {
  FixtureRank r;
  r.rank = 0;
  for (int i = 0; i < count; ++i) {
    const std::int64_t t = 1'000'000 + std::int64_t{i} * 10'000;
    r.events.push_back(ev(FixtureEventKind::Kernel, "k" + std::to_string(i % 7), t, t + 5'000));
  }
  return r;
}

TEST(KinetoReaderTest, CancelFlagIsHonoured) {
  ps::test::TempDir dir;
  const std::string path = dir.file("many.json");
  ASSERT_TRUE(testing::writeKinetoFixture(path, manyKernels(12'000), false).ok());

  std::atomic<bool> cancel{true};
  ReadControl before;
  before.cancel = &cancel;
  auto cancelled = readKinetoFile(path, before);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error(), path + ": import cancelled");

  // Cancelled from the progress callback, as the app's Cancel button does mid-import.
  cancel = false;
  ReadControl during;
  during.cancel = &cancel;
  during.progress = [&](double fraction) {
    if (fraction > 0.4) cancel = true;
  };
  auto midway = readKinetoFile(path, during);
  ASSERT_FALSE(midway.ok());
  EXPECT_EQ(midway.error(), path + ": import cancelled");
}

TEST(KinetoReaderTest, ProgressIsThrottledAndEndsAtOne) {
  ps::test::TempDir dir;
  const std::string path = dir.file("many.json.gz");
  ASSERT_TRUE(testing::writeKinetoFixture(path, manyKernels(12'000), true).ok());
  std::vector<double> reports;
  ReadControl control;
  control.progress = [&](double f) { reports.push_back(f); };
  auto trace = readKinetoFile(path, control);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace->events.size(), 12'000U);
  ASSERT_FALSE(reports.empty());
  EXPECT_LE(reports.size(), 101U);
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
  EXPECT_DOUBLE_EQ(reports.back(), 1.0);
}

TEST(KinetoReaderTest, MutatedInputNeverCrashes) {
  // A cheap in-test fuzz: flip, cut and duplicate bytes of a real-looking file; every result
  // must be a trace or a one-line error naming the source.
  const std::string json = testing::kinetoFixtureJson(plantedRank());
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::string m = json;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0:
          m[at] = "{}[]\",:0\\ "[rng() % 11];
          break;
        case 1:
          m.erase(at, 1 + rng() % 40);
          break;
        default:
          m.insert(at, m.substr(rng() % m.size(), rng() % 30));
          break;
      }
    }
    auto trace = readKinetoBuffer(m, "fuzz");
    if (!trace.ok()) {
      EXPECT_EQ(trace.error().rfind("fuzz: ", 0), 0U) << trace.error();
      EXPECT_EQ(trace.error().find('\n'), std::string::npos) << trace.error();
    }
    if (m.size() > 2) (void)readKinetoBuffer(testing::gzipBytes(m).substr(0, m.size() / 3), "fz");
  }
}

}  // namespace
}  // namespace ps::trace::import
