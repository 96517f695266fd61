#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/run/ConfigKnobs.h"
#include "trace/analysis/ConfigJson.h"

namespace ps::trace {
namespace {

// The compare table and run labels live in runtime (they read the plan knob table).
using namespace ::ps::runtime;

// A sim run's config_json as runtime's configJsonOf writes it (costs cut short).
const char* kSimConfig =
    R"({"schedule":"1f1b","stages":4,"microbatches":8,"chunks":1,"layers":16,)"
    R"("boundaries":[2,5,7],"steps":1,"optimizer_sync":"barrier","recompute":false,)"
    R"("fwd_us":100,"bwd_us":200,"wgrad_us":100,"act_mb":1,"link_gbps":10,)"
    R"("link_latency_us":0,"costs":{"format":"pipescope-costs","layers":[]}})";

std::string valueOf(const std::vector<ConfigKnob>& knobs, const std::string& key) {
  for (const auto& k : knobs)
    if (k.key == key) return k.value;
  return "<absent>";
}

std::vector<std::string> keysOf(const std::vector<ConfigKnob>& knobs) {
  std::vector<std::string> keys;
  for (const auto& k : knobs)
    keys.push_back(k.key);
  return keys;
}

TEST(ConfigKnobs, SimRunKnobsInReadingOrderWithShortValues) {
  const auto knobs = configKnobs(kSimConfig);
  const std::vector<std::string> expected = {
      "backend",    "schedule", "stages",         "microbatches",   "chunks", "layers",
      "boundaries", "steps",    "optimizer_sync", "recompute",      "fwd_us", "bwd_us",
      "wgrad_us",   "act_mb",   "link_gbps",      "link_latency_us"};
  EXPECT_EQ(keysOf(knobs), expected);
  EXPECT_EQ(valueOf(knobs, "backend"), "sim");
  EXPECT_EQ(valueOf(knobs, "boundaries"), "2,5,7");
  EXPECT_EQ(valueOf(knobs, "link_gbps"), "10 Gb/s");
  EXPECT_EQ(valueOf(knobs, "act_mb"), "1 MiB");
  EXPECT_EQ(valueOf(knobs, "fwd_us"), "100 µs");
  EXPECT_EQ(valueOf(knobs, "recompute"), "off");
  EXPECT_EQ(knobs[1].label, "schedule");
  EXPECT_EQ(knobs[14].label, "link");
}

// The placement knobs of issue 14 read with labels and units, after the shape.
TEST(ConfigKnobs, PlacementKnobsReadWithTheirLabels) {
  const auto knobs = configKnobs(R"({"schedule":"1f1b","stages":4,"dp":2,"topology":"2x4",)"
                                 R"("inter_gbps":100,"inter_latency_us":5,)"
                                 R"("mapping":"0,1,4,5,2,3,6,7","partition":"memory"})");
  EXPECT_EQ(valueOf(knobs, "dp"), "2");
  EXPECT_EQ(valueOf(knobs, "inter_gbps"), "100 Gb/s");
  EXPECT_EQ(valueOf(knobs, "inter_latency_us"), "5 µs");
  EXPECT_EQ(valueOf(knobs, "mapping"), "0,1,4,5,2,3,6,7");
  const std::vector<std::string> expected = {
      "backend",  "schedule",   "stages",           "partition", "dp",
      "topology", "inter_gbps", "inter_latency_us", "mapping"};
  EXPECT_EQ(keysOf(knobs), expected);
  RunInfo run;
  run.config_json = R"({"schedule":"1f1b","dp":2})";
  EXPECT_EQ(dataParallelOf(run), 2);
  run.config_json = R"({"backend":"cpu","plan":{"schedule":"1f1b","dp":3}})";
  EXPECT_EQ(dataParallelOf(run), 3);
  run.config_json = R"({"schedule":"1f1b"})";
  EXPECT_EQ(dataParallelOf(run), 1);
}

TEST(ConfigKnobs, FreeLinksAndFractionalValuesReadPlainly) {
  const auto knobs = configKnobs(R"({"schedule":"gpipe","link_gbps":null,"act_mb":0.5,)"
                                 R"("boundaries":[]})");
  EXPECT_EQ(valueOf(knobs, "link_gbps"), "free");
  EXPECT_EQ(valueOf(knobs, "act_mb"), "0.5 MiB");
  EXPECT_EQ(valueOf(knobs, "boundaries"), "none");
}

TEST(ConfigKnobs, ModelRunMergesItsPlanAndNamesTheBackend) {
  const std::string config = std::string(R"({"plan":)") + kSimConfig +
                             R"(,"backend":"cpu","model":"mlp","hidden":128,"seq":16,)"
                             R"("mb_size":4,"heads":4,"seed":42,"optimizer":"adam","lr":0.001,)"
                             R"("dtype":"fp32","sm_split":false,"cuda":{"transport":"p2p"}})";
  const auto knobs = configKnobs(config);
  EXPECT_EQ(valueOf(knobs, "backend"), "cpu");
  EXPECT_EQ(knobs.front().key, "backend");
  EXPECT_EQ(valueOf(knobs, "layers"), "16");
  EXPECT_EQ(valueOf(knobs, "hidden"), "128");
  EXPECT_EQ(valueOf(knobs, "lr"), "0.001");
  // Float knobs written as doubles read as the float they were.
  EXPECT_EQ(
      valueOf(
          configKnobs(R"({"backend":"cpu","beta1":0.8999999761581421,"lr":0.0010000000474974513})"),
          "beta1"),
      "0.9");
  EXPECT_EQ(valueOf(configKnobs(R"({"backend":"cpu","lr":0.0010000000474974513})"), "lr"), "0.001");
  EXPECT_EQ(valueOf(knobs, "cuda.transport"), "p2p");
  EXPECT_EQ(valueOf(knobs, "plan"), "<absent>");  // merged, not dumped
}

TEST(ConfigKnobs, CostFileReplacesTheUniformFlagsAndIsSummarised) {
  const auto knobs = configKnobs(
      R"({"schedule":"1f1b","fwd_us":100,"link_gbps":null,"costs_file":"/data/runs/costs.json",)"
      R"("costs":{"layers":[{"fwd_us":1},{"fwd_us":2,"repeat":3}]}})");
  EXPECT_EQ(valueOf(knobs, "costs_file"), "costs.json (4 layers)");
  EXPECT_EQ(valueOf(knobs, "fwd_us"), "<absent>");
  EXPECT_EQ(valueOf(knobs, "link_gbps"), "<absent>");
  EXPECT_EQ(valueOf(knobs, "costs"), "<absent>");
}

TEST(ConfigKnobs, ImportIsSummarisedWithBaseNames) {
  const auto knobs = configKnobs(
      R"({"import":{"format":"nsys","align":"p2p","align_requested":"auto",)"
      R"("residual_skew_ns":1500,"matched_events":12,"files":[)"
      R"({"path":"/long/path/to/rank0.sqlite","rank":0},{"path":"/long/path/rank1.sqlite"},)"
      R"({"path":"r2.sqlite"},{"path":"r3.sqlite"}]}})");
  EXPECT_EQ(valueOf(knobs, "import.format"), "nsys");
  EXPECT_EQ(valueOf(knobs, "import.files"), "rank0.sqlite +3");
  EXPECT_EQ(valueOf(knobs, "import.align"), "p2p");
  EXPECT_EQ(valueOf(knobs, "import.residual_skew_ns"), "1.500 µs");
  EXPECT_EQ(valueOf(knobs, "backend"), "<absent>");  // not a plan
}

TEST(ConfigKnobs, UnknownScalarsFollowUnderTheirOwnKey) {
  const auto knobs = configKnobs(R"({"schedule":"1f1b","note":"warm cache","nested":{"a":1}})");
  EXPECT_EQ(valueOf(knobs, "note"), "warm cache");
  EXPECT_EQ(valueOf(knobs, "nested"), "<absent>");
}

TEST(ConfigKnobs, NotAnObjectGivesNoKnobs) {
  EXPECT_TRUE(configKnobs("").empty());
  EXPECT_TRUE(configKnobs("{").empty());
  EXPECT_TRUE(configKnobs("[1,2]").empty());
  EXPECT_TRUE(configKnobs("{}").empty());
  // Wrong types are left out, never a crash.
  const auto knobs = configKnobs(R"({"schedule":3,"boundaries":"x","link_gbps":"fast"})");
  EXPECT_EQ(valueOf(knobs, "schedule"), "3");
  EXPECT_EQ(valueOf(knobs, "boundaries"), "<absent>");
  EXPECT_EQ(valueOf(knobs, "link_gbps"), "<absent>");
}

TEST(ConfigKnobs, PathBaseName) {
  EXPECT_EQ(pathBaseName("/a/b/rank0.sqlite"), "rank0.sqlite");
  EXPECT_EQ(pathBaseName("C:\\t\\x.json"), "x.json");
  EXPECT_EQ(pathBaseName("plain"), "plain");
  EXPECT_EQ(pathBaseName("/a/dir/"), "dir");
}

}  // namespace
}  // namespace ps::trace
