// Flags given with --preset override the preset's values (README), the cost flags included
// (issue 30, item 10): a preset with its own per-layer "costs" (bapipe) ignored --fwd-us,
// --bwd-us, --link-gbps and --costs, gave the preset's 11.311 ms, and recorded the flags in
// config_json as if used. Each case is checked against the same plan written out in flags.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using ::testing::HasSubstr;
using ::testing::Not;

// The step a sim run printed ("step 11.311 ms,").
std::string stepOf(const test::CommandResult& r) {
  const auto at = r.out.find(": step ");
  if (at == std::string::npos) return "(no step: " + r.err + ")";
  return r.out.substr(at + 7, r.out.find(',', at) - at - 7);
}

std::string configOf(const std::string& db) {
  const auto runs = test::runsIn(db);
  return runs.empty() ? std::string("(no run)") : runs.back().config_json;
}

// bapipe's own costs (resources/presets/bapipe.json) with F = 5 ms and I + W = 10 ms on every
// layer, W as the preset has it.
std::string bapipeCostsWithUniformTimes() {
  return R"({"format": "pipescope-costs", "version": 1, "layers": [
    {"name": "embed", "fwd_us": 5000, "bwd_us": 10000, "wgrad_us": 150, "act_bytes": 524288,
     "param_bytes": 67108864},
    {"name": "block", "repeat": 10, "fwd_us": 5000, "bwd_us": 10000, "wgrad_us": 100,
     "act_bytes": 1048576, "param_bytes": 16777216},
    {"name": "head", "fwd_us": 5000, "bwd_us": 10000, "wgrad_us": 210, "act_bytes": 524288,
     "param_bytes": 67108864}],
    "link": {"gbps": 100, "latency_us": 5}, "optimizer_ns_per_param_byte": 0.002})";
}

const std::vector<std::string> kBapipeInFlags = {"--schedule", "zb-h2",          "--stages",
                                                 "4",          "--microbatches", "8"};

std::vector<std::string> sim(const std::string& db, std::vector<std::string> flags) {
  std::vector<std::string> args = {"sim", "--db", db};
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

TEST(CliPresetOverrides, UniformTimesOverrideEveryLayerOfAPresetsOwnCosts) {
  test::TempDir dir;
  const std::string db = dir.file("o.sqlite");
  const auto preset = cli(sim(db, {"--preset", "bapipe"}));
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_EQ(stepOf(preset), "10.653 ms");
  const auto over = cli(sim(db, {"--preset", "bapipe", "--fwd-us", "5000", "--bwd-us", "10000"}));
  ASSERT_EQ(over.exit_code, 0) << over.err;
  const std::string costs = dir.file("bapipe-5ms.json");
  std::ofstream(costs) << bapipeCostsWithUniformTimes();
  auto flags = kBapipeInFlags;
  flags.insert(flags.end(), {"--boundaries", "2,6,10", "--costs", costs});
  const auto same = cli(sim(dir.file("same.sqlite"), flags));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(stepOf(over), stepOf(same));
  EXPECT_NE(stepOf(over), "10.653 ms");
  // config_json: the costs used (embedded), not the uniform flags as if they had made them.
  const std::string config = configOf(db);
  EXPECT_THAT(config, HasSubstr("\"costs_embedded\":true"));
  EXPECT_THAT(config, HasSubstr("\"fwd_us\": 5000"));
  for (const char* uniformKey : {"\"act_mb\"", "\"param_mb\"", "\"link_latency_us\""})
    EXPECT_THAT(config, Not(HasSubstr(uniformKey)));
}

TEST(CliPresetOverrides, LinkFlagsOverrideAPresetsOwnLink) {
  test::TempDir dir;
  const std::string db = dir.file("o.sqlite");
  const auto over =
      cli(sim(db, {"--preset", "bapipe", "--link-gbps", "1", "--link-latency-us", "50"}));
  ASSERT_EQ(over.exit_code, 0) << over.err;
  const std::string costs = dir.file("slow-link.json");
  std::ofstream(costs) << R"({"layers": [
    {"name": "embed", "fwd_us": 180, "bwd_us": 300, "wgrad_us": 150, "act_bytes": 524288,
     "param_bytes": 67108864},
    {"name": "block", "repeat": 10, "fwd_us": 100, "bwd_us": 200, "wgrad_us": 100,
     "act_bytes": 1048576, "param_bytes": 16777216},
    {"name": "head", "fwd_us": 240, "bwd_us": 420, "wgrad_us": 210, "act_bytes": 524288,
     "param_bytes": 67108864}],
    "link": {"gbps": 1, "latency_us": 50}, "optimizer_ns_per_param_byte": 0.002})";
  auto flags = kBapipeInFlags;
  flags.insert(flags.end(), {"--boundaries", "2,6,10", "--costs", costs});
  const auto same = cli(sim(dir.file("same.sqlite"), flags));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(stepOf(over), stepOf(same));
  EXPECT_NE(stepOf(over), "10.653 ms");
}

TEST(CliPresetOverrides, ACostFileReplacesAPresetsOwnCosts) {
  test::TempDir dir;
  const std::string file = test::sourcePath("resources/costs/mixed-devices.json");
  const std::string db = dir.file("o.sqlite");
  const auto over = cli(sim(db, {"--preset", "bapipe", "--costs", file, "--boundaries", "2,4,6"}));
  ASSERT_EQ(over.exit_code, 0) << over.err;
  auto flags = kBapipeInFlags;
  flags.insert(flags.end(), {"--boundaries", "2,4,6", "--costs", file});
  const auto same = cli(sim(dir.file("same.sqlite"), flags));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(stepOf(over), stepOf(same));
  EXPECT_THAT(configOf(db), HasSubstr("\"costs_file\":"));
  EXPECT_THAT(configOf(db),
              HasSubstr("\"memory_bytes\": 17179869184"));  // the file's model embedded
  // An error about the costs names the file given, with its own layer count (the preset's 12
  // layers were checked against --layers and the file blamed).
  const auto wrong =
      cli(sim(dir.file("w.sqlite"), {"--preset", "bapipe", "--costs", file, "--layers", "12"}));
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_THAT(wrong.err, HasSubstr("mixed-devices.json: describes 8 layers but --layers is 12"));
}

// A preset made of uniform costs (1f1b: F = 100 µs, B = 200 µs): each flag replaces its value,
// the others stay the preset's. (8 + 3) × (200 + 200) µs.
TEST(CliPresetOverrides, UniformFlagsOverrideAPresetsUniformCosts) {
  test::TempDir dir;
  const auto over = cli(sim(dir.file("o.sqlite"), {"--preset", "1f1b", "--fwd-us", "200"}));
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_EQ(stepOf(over), "4.400 ms");
}

// The flags are checked as the uniform flags are, and a --wgrad-us past a layer's backward says
// which layer.
TEST(CliPresetOverrides, BadOverridesAreRefusedByFlag) {
  test::TempDir dir;
  const auto negative = cli(sim(dir.file("a.sqlite"), {"--preset", "bapipe", "--fwd-us", "-1"}));
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_THAT(negative.err, HasSubstr("--fwd-us must be positive (got -1)"));
  const auto wgrad = cli(sim(dir.file("b.sqlite"), {"--preset", "bapipe", "--wgrad-us", "350"}));
  EXPECT_EQ(wgrad.exit_code, 2);
  EXPECT_THAT(wgrad.err, HasSubstr("--wgrad-us 350: more than layer 0 (embed)'s whole backward, "
                                   "300 µs; give --bwd-us too"));
}

}  // namespace
}  // namespace ps
