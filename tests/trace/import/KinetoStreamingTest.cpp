// The Kineto reader streams its input (issue 12, case 15): gzip is inflated into the parser's
// windows and what has been parsed is dropped, so a trace is never held whole. These tests cross
// the window boundaries on purpose: values larger than a window, errors far into the content
// (their byte offsets count the whole content, not the window), and a gigabyte of blanks
// between two events that must pass in bounded memory.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/KinetoFixture.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

std::string kernel(int i) {
  return R"({"ph": "X", "cat": "kernel", "name": "gemm_)" + std::to_string(i) +
         R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(10 * i) + R"(, "dur": 5})";
}

// `count` kernel events, comma-separated (about 80 bytes each).
std::string kernels(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ",\n";
    out += kernel(i);
  }
  return out;
}

std::size_t kernelCount(const RawRankTrace& trace) {
  std::size_t n = 0;
  for (const auto& e : trace.events)
    n += e.source == EventSource::Kernel ? 1 : 0;
  return n;
}

long maxRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

class KinetoStreamingTest : public ::testing::TestWithParam<bool> {
 protected:
  // Reads `json` from a file, gzipped when the parameter says so.
  Result<RawRankTrace> readFile(const std::string& json) {
    path_ = dir_.file(GetParam() ? "t.json.gz" : "t.json");
    test::writeFile(path_, GetParam() ? testing::gzipBytes(json) : json);
    return readKinetoFile(path_);
  }
  test::TempDir dir_;
  std::string path_;
};

TEST_P(KinetoStreamingTest, ManyWindowsOfEventsAllArrive) {
  const std::string json = "{\"traceEvents\": [" + kernels(60'000) + "]}";  // ~5 MB
  ASSERT_GT(json.size(), std::size_t{4} << 20);
  auto trace = readFile(json);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(kernelCount(*trace), 60'000U);
}

TEST_P(KinetoStreamingTest, ValuesLargerThanAWindowAreReadWhole) {
  // A 3 MB metadata value before the events and a 3 MB string inside an event's args.
  const std::string bigName(std::size_t{3} << 20, 'x');
  const std::string json = R"({"deviceProperties": [{"id": 0, "name": ")" + bigName +
                           R"("}], "traceEvents": [)" + kernels(10) +
                           R"(, {"ph": "X", "cat": "kernel", "name": "big", "pid": 0, "tid": 7,
                           "ts": 500, "dur": 5, "args": {"note": ")" +
                           bigName + R"("}}], "distributedInfo": {"rank": 3, "world_size": 4}})";
  auto trace = readFile(json);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(kernelCount(*trace), 11U);
  EXPECT_EQ(trace->rank, 3);
  EXPECT_EQ(trace->worldSize, 4);
}

TEST_P(KinetoStreamingTest, ErrorsFarIntoTheContentNameTheirContentByte) {
  const std::string head = "{\"traceEvents\": [" + kernels(40'000) + ",\n";
  const std::string json = head + R"({"ph": "X", "ts": 1, "dur": })" + "]}";
  auto trace = readFile(json);
  ASSERT_FALSE(trace.ok());
  const std::size_t bad = json.find('}', head.size());  // where the value is missing
  EXPECT_EQ(trace.error(),
            path_ + ": malformed JSON at byte " + std::to_string(bad) + ": expected a value");

  const std::string tail = "{\"traceEvents\": [" + kernels(40'000) + "]} x";
  auto trailing = readFile(tail);
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.error(), path_ + ": malformed JSON at byte " +
                                  std::to_string(tail.size() - 1) +
                                  ": unexpected data after the end of the trace");
}

TEST_P(KinetoStreamingTest, ATruncatedStreamSaysSo) {
  const std::string json = "{\"traceEvents\": [" + kernels(40'000);
  auto trace = readFile(json);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(), path_ + ": malformed JSON at byte " + std::to_string(json.size()) +
                               ": unexpected end of data inside the event array (truncated file?)");
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, KinetoStreamingTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return std::string(param.param ? "Gzip" : "Plain");
                         });

// 512 MiB of blanks between two events, gzipped (~0.5 MB): with the limits lifted it imports,
// and the reader's memory grows by a few windows, not by the content.
TEST(KinetoStreamingMemory, BlanksBetweenEventsPassInBoundedMemory) {
  const std::string blanks(std::size_t{64} << 20, ' ');
  const std::string blanksMember = testing::gzipBytes(blanks);
  std::string gz = testing::gzipBytes("{\"traceEvents\": [" + kernel(1) + ",");
  for (int i = 0; i < 8; ++i)
    gz += blanksMember;
  gz += testing::gzipBytes(kernel(2) + "]}");
  // The default ratio limit would refuse 1000:1 (as it should a bomb): lifted for this file.
  const char* saved = std::getenv("PIPESCOPE_GZIP_MAX_RATIO");
  const std::string savedValue = saved ? saved : "";
  setenv("PIPESCOPE_GZIP_MAX_RATIO", "0", 1);
  const long before = maxRssKb();
  auto trace = readKinetoBuffer(gz, "blanks.json.gz");
  const long grewKb = maxRssKb() - before;
  if (saved)
    setenv("PIPESCOPE_GZIP_MAX_RATIO", savedValue.c_str(), 1);
  else
    unsetenv("PIPESCOPE_GZIP_MAX_RATIO");
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(kernelCount(*trace), 2U);
  std::printf("[ measure  ] 512 MiB of gzipped blanks: peak RSS grew %ld KiB\n", grewKb);
  EXPECT_LT(grewKb, 64 * 1024) << "KiB: the blanks were held, not dropped";
}

}  // namespace
}  // namespace ps::trace::import
