// Gzip input limits (issue 12, case 15): bombs written here with zlib are refused with the stated
// message, in bounded time and memory, and the cancel flag works while inflating. Before: 9.4 MB
// of gzipped zeros inflated whole (GBs, seconds) before the reader saw byte 0 was no JSON.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "tests/common/TestUtil.h"
#include "trace/Units.h"
#include "trace/import/GzipInput.h"
#include "trace/import/GzipLimits.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

using Clock = std::chrono::steady_clock;

// One gzip member holding `bytes`.
std::string gzipMember(const std::string& bytes) {
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&s, bytes.size()), '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  s.avail_in = static_cast<uInt>(bytes.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

// `prefix`, then `copies` × 64 MiB of `fill`, as concatenated gzip members (what gzip(1) reads as
// one stream): a ~1000:1 bomb without compressing gigabytes here.
std::string gzipBomb(const std::string& prefix, char fill, int copies) {
  static const std::size_t kBlock = std::size_t{64} << 20;
  const std::string block = gzipMember(std::string(kBlock, fill));
  std::string out = prefix.empty() ? std::string() : gzipMember(prefix);
  for (int i = 0; i < copies; ++i)
    out += block;
  return out;
}

long maxRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Unsets a variable for the test's duration (a developer's own override must not change the
// messages), or sets it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct DefaultLimits {
  ScopedEnv ratio{"PIPESCOPE_GZIP_MAX_RATIO", nullptr};
  ScopedEnv bytes{"PIPESCOPE_GZIP_MAX_BYTES", nullptr};
};

TEST(GzipInputTest, GzippedZerosAreRefusedAtTheirFirstBytes) {
  DefaultLimits defaults;
  test::TempDir dir;
  const std::string path = dir.file("zeros.json.gz");
  test::writeFile(path, gzipBomb("", '\0', 150));  // ~9.8 MB inflating to 9.4 GiB
  const long rssBefore = maxRssKb();
  const auto start = Clock::now();
  auto trace = readKinetoFile(path);
  const auto elapsed = Clock::now() - start;
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(), path +
                               ": not a Kineto trace: expected a JSON object with \"traceEvents\" "
                               "or an array of events, found byte 0x00 at byte 0");
  EXPECT_LT(elapsed, std::chrono::seconds(1));
  EXPECT_LT(maxRssKb() - rssBefore, 64 * 1024);  // KB: it stopped after a few MB
}

TEST(GzipInputTest, GzippedWhitespaceIsRefusedAtItsFirstBytes) {
  DefaultLimits defaults;
  test::TempDir dir;
  const std::string path = dir.file("blank.json.gz");
  test::writeFile(path, gzipBomb("", ' ', 32));  // ~2 MB inflating to 2 GiB
  const auto start = Clock::now();
  auto trace = readKinetoFile(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(), path + ": not a Kineto trace: the first 65536 bytes are whitespace");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

TEST(GzipInputTest, AnObjectOfWhitespaceStopsAtTheRatioLimit) {
  DefaultLimits defaults;
  test::TempDir dir;
  const std::string path = dir.file("padded.json.gz");
  const std::string bomb = gzipBomb("{\"traceEvents\":[", ' ', 32);
  test::writeFile(path, bomb);
  const std::uint64_t limit = std::max<std::uint64_t>(bomb.size() * 100, 64 << 20);
  const long rssBefore = maxRssKb();
  const auto start = Clock::now();
  auto trace = readKinetoFile(path);
  const auto elapsed = Clock::now() - start;
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(),
            path + ": gzip expands beyond " + formatBytes(static_cast<std::int64_t>(limit)) +
                " (ratio 100:1 to its " + formatBytes(static_cast<std::int64_t>(bomb.size())) +
                "): refusing; profiler traces compress about 10:1, so this is likely not one "
                "(PIPESCOPE_GZIP_MAX_RATIO=N raises the limit, or gunzip the file first)");
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  // What it holds is the limit (plus one growth step), not the 2 GiB the file claims.
  EXPECT_LT(maxRssKb() - rssBefore, static_cast<long>(2 * limit / 1024));
}

TEST(GzipInputTest, TheAbsoluteLimitComesFromTheEnvironment) {
  ScopedEnv ratio{"PIPESCOPE_GZIP_MAX_RATIO", nullptr};
  ScopedEnv bytes{"PIPESCOPE_GZIP_MAX_BYTES", "1M"};
  test::TempDir dir;
  const std::string path = dir.file("big.json.gz");
  std::string json = "{\"traceEvents\":[";
  while (json.size() < (std::size_t{2} << 20))
    json += "{\"ph\":\"X\",\"name\":\"gemm\",\"ts\":1,\"dur\":2},";
  json += "{}]}";
  test::writeFile(path, gzipMember(json));
  auto trace = readKinetoFile(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(), path +
                               ": gzip expands beyond 1.00 MiB: refusing; that is more than this "
                               "import allows (PIPESCOPE_GZIP_MAX_BYTES=SIZE, e.g. 64G, raises "
                               "the limit)");
}

TEST(GzipInputTest, ABadOverrideIsAnErrorNamingIt) {
  ScopedEnv ratio{"PIPESCOPE_GZIP_MAX_RATIO", "lots"};
  test::TempDir dir;
  const std::string path = dir.file("t.json.gz");
  test::writeFile(path, gzipMember("{\"traceEvents\":[]}"));
  auto trace = readKinetoFile(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(),
            "PIPESCOPE_GZIP_MAX_RATIO=lots: expected a whole number (0 for no ratio limit)");
  ScopedEnv size{"PIPESCOPE_GZIP_MAX_BYTES", "12Q"};
  ScopedEnv ratioOk{"PIPESCOPE_GZIP_MAX_RATIO", nullptr};
  trace = readKinetoFile(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(),
            "PIPESCOPE_GZIP_MAX_BYTES=12Q: expected a size in bytes, or with a K, M, G or T "
            "suffix such as 64G");
}

TEST(GzipInputTest, RaisedLimitsLetALegitimateFileThrough) {
  ScopedEnv ratio{"PIPESCOPE_GZIP_MAX_RATIO", "0"};
  ScopedEnv bytes{"PIPESCOPE_GZIP_MAX_BYTES", "2G"};
  const std::string json =
      "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\","
      "\"name\":\"PP:0F0\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}";
  auto trace = readKinetoBuffer(gzipMember(json), "mem.json.gz");
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace->events.size(), 1U);
}

TEST(GzipInputTest, CancelStopsInflationWithinAFewMegabytes) {
  test::TempDir dir;
  const std::string path = dir.file("long.json.gz");
  test::writeFile(path, gzipBomb("{\"traceEvents\":[", ' ', 150));  // 9.4 GiB of JSON spaces
  std::atomic<bool> cancel{false};
  ReadControl control;
  control.cancel = &cancel;
  InputOptions options;
  options.limits = GzipLimits{.maxRatio = 0, .ratioFloorBytes = 0, .maxBytes = ~0ULL};
  std::chrono::steady_clock::time_point cancelledAt;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancelledAt = Clock::now();
    cancel = true;
  });
  auto input = readInputFile(path, control, options);
  const auto done = Clock::now();
  canceller.join();
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.error(), path + ": import cancelled");
  // One inflate step (4 MiB of output) at most after the flag: well under 250 ms, where a whole
  // compressed chunk (1 GiB of spaces) took seconds.
  EXPECT_LT(done - cancelledAt, std::chrono::milliseconds(250));
}

TEST(GzipInputTest, ByteSizesParse) {
  EXPECT_EQ(*parseByteSize("123"), 123U);
  EXPECT_EQ(*parseByteSize("4K"), 4096U);
  EXPECT_EQ(*parseByteSize("64G"), std::uint64_t{64} << 30);
  EXPECT_EQ(*parseByteSize("1t"), std::uint64_t{1} << 40);
  EXPECT_FALSE(parseByteSize("").ok());
  EXPECT_FALSE(parseByteSize("G").ok());
  EXPECT_FALSE(parseByteSize("-1").ok());
  EXPECT_FALSE(parseByteSize("99999999999999999999").ok());
  EXPECT_FALSE(parseByteSize("17179869184T").ok());
}

TEST(GzipInputTest, LimitsFollowTheRatioAboveTheFloor) {
  const GzipLimits limits;
  EXPECT_EQ(limits.limitFor(1000), GzipLimits::kDefaultRatioFloorBytes);
  EXPECT_EQ(limits.limitFor(std::uint64_t{10} << 20), std::uint64_t{1000} << 20);
  EXPECT_EQ(limits.limitFor(std::uint64_t{1} << 40), GzipLimits::kDefaultMaxBytes);
}

}  // namespace
}  // namespace ps::trace::import
