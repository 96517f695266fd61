// The presets of resources/presets (DESIGN §8): every file parses, the classic figures are all
// there, each simulates through a trace file and reproduces its headline number, and presets
// with a formula agree with the analytic bubble. Bad preset files get messages naming the key.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/PlanKnobs.h"
#include "runtime/run/PresetHeadline.h"
#include "runtime/run/Presets.h"
#include "runtime/schedules/ClosedForms.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

trace::RunAnalysis simulatePreset(const Preset& p) {
  return trace::analyzeRun(test::simulateThroughTraceFile(p.spec));
}

TEST(Presets, EveryFileParsesAndTheClassicFiguresAreThere) {
  const auto& list = builtinPresets();
  EXPECT_THAT(list.errors, ::testing::IsEmpty());
  EXPECT_EQ(list.presets.size(), embeddedPresetFiles().size());
  std::set<std::string> names;
  for (const auto& p : list.presets) {
    EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
    EXPECT_GT(p.teaching.size(), 200u) << p.name;
  }
  for (const char* want : {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-h2", "zb-v", "chimera",
                           "dualpipe-v", "pipedream", "pipedream-2bw"})
    EXPECT_TRUE(names.count(want)) << want;
  // A file is named after its preset.
  for (const auto& f : embeddedPresetFiles()) {
    auto p = parsePreset(f.text, f.fileName);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p->name + ".json", f.fileName);
  }
}

TEST(Presets, EachSimulatesToItsHeadline) {
  for (const auto& p : builtinPresets().presets) {
    SCOPED_TRACE(p.name);
    const trace::RunAnalysis a = simulatePreset(p);
    const std::optional<double> measured = headlineMetric(a, p.headline.metric);
    ASSERT_TRUE(measured.has_value()) << p.headline.metric;
    EXPECT_NEAR(*measured, p.headline.value, 1e-6) << p.headline.text;
  }
}

TEST(Presets, FormulasAgreeWithTheAnalyticBubble) {
  int checked = 0;
  for (const auto& p : builtinPresets().presets) {
    if (p.formula.empty()) continue;
    SCOPED_TRACE(p.name);
    const auto analytic = analyticBubble(p.spec.schedule, p.spec.stages.value_or(0),
                                         p.spec.microbatches.value_or(0), p.spec.chunks);
    ASSERT_TRUE(analytic.has_value());
    EXPECT_EQ(analytic->formula, p.formula);
    ASSERT_EQ(p.headline.metric, "bubble_ratio");
    EXPECT_NEAR(analytic->value, p.headline.value, 1e-6);
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(Presets, BadFilesNameTheKey) {
  const std::string good = R"({"name": "x", "title": "T", "reference": "R", "teaching": "P",
    "plan": {"schedule": "1f1b", "stages": 2, "microbatches": 2},
    "headline": {"metric": "bubble_ratio", "value": 0.33, "text": "t"}})";
  ASSERT_TRUE(parsePreset(good, "x.json").ok()) << parsePreset(good, "x.json").error();
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    auto p = parsePreset(s, "x.json");
    return p.ok() ? std::string("(parsed)") : p.error();
  };
  // The plan knob table's order (runtime/run/PlanKnobs.cpp), "costs" last: every row's key, so
  // that a new knob needs no edit here.
  std::string expected = "x.json: plan.stagez: unknown key (expected ";
  for (const PlanKnob& knob : planKnobs())
    if (knob.key != "costs_file") expected += std::string(knob.key) + ", ";  // a preset's "costs"
  expected += "costs)";
  EXPECT_EQ(with("\"stages\": 2", "\"stagez\": 2"), expected);
  EXPECT_NE(expected.find("schedule, schedule_file, stages, dp, "), std::string::npos);
  EXPECT_EQ(with("\"stages\": 2", "\"stages\": 0"),
            "x.json: plan.stages: expected a positive integer");
  EXPECT_EQ(with("\"name\": \"x\"", "\"name\": \"X Y\""),
            "x.json: name: expected lower-case letters, digits, '-' or '_'");
  EXPECT_EQ(with("\"metric\": \"bubble_ratio\"", "\"metric\": \"speed\""),
            "x.json: headline.metric: expected bubble_ratio, steady_bubble_ratio, step_time_ns, "
            "peak_memory_bytes, peak_memory_spread_bytes or link_bytes");
  EXPECT_THAT(with("\"title\": \"T\",", "\"title\": \"T\""), HasSubstr("x.json:1:"));
  EXPECT_EQ(with("\"teaching\": \"P\",", ""), "x.json: teaching: missing (a non-empty string)");
  EXPECT_THAT(findPreset("nope").error(), HasSubstr("unknown preset \"nope\" (there are: 1f1b"));
}

}  // namespace
}  // namespace ps::runtime
