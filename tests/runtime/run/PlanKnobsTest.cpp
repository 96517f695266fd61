// The plan knob table (runtime/run/PlanKnobs.h, issue 33 §1): one row per knob, from which
// config_json and preset files are read and written and the CLI registers its flags. Every row
// is read back by both readers through its own field, so a row whose field, key or type is wrong
// fails here, not in a user's rerun.

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include "runtime/run/ConfigKnobs.h"
#include "runtime/run/PlanKnobs.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunConfig.h"

namespace ps::runtime {
namespace {

TEST(PlanKnobs, KeysAndFlagsAreUniqueAndNamed) {
  std::set<std::string_view> keys, flags;
  for (const PlanKnob& knob : planKnobs()) {
    EXPECT_TRUE(keys.insert(knob.key).second) << knob.key;
    EXPECT_FALSE(knob.label.empty()) << knob.key;
    EXPECT_FALSE(knob.help.empty()) << knob.key;
    ASSERT_GT(knob.flag.size(), 2u) << knob.key;
    EXPECT_EQ(knob.flag.substr(0, 2), "--") << knob.key;
    EXPECT_TRUE(flags.insert(knob.flag).second) << knob.flag;
    EXPECT_EQ(findPlanKnob(knob.key), &knob);
  }
  EXPECT_EQ(findPlanKnob("no_such_knob"), nullptr);
  EXPECT_GE(keys.size(), 45u);
}

// A value of the row's type that is not its default and that the row accepts, as JSON, and a
// check that `spec` holds it.
struct Sample {
  std::string json;
  std::function<void(const PlanSpec&)> check;
};

Sample sampleOf(const PlanKnob& knob) {
  Sample s;
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          using T = std::decay_t<decltype(get(std::declval<PlanSpec&>()))>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::optional<int>>) {
            s.json = "3";
            s.check = [get](const PlanSpec& p) { EXPECT_EQ(get(const_cast<PlanSpec&>(p)), 3); };
          } else if constexpr (std::is_same_v<T, double> ||
                               std::is_same_v<T, std::optional<double>>) {
            s.json = "0.75";
            s.check = [get](const PlanSpec& p) { EXPECT_EQ(get(const_cast<PlanSpec&>(p)), 0.75); };
          } else if constexpr (std::is_same_v<T, bool>) {
            s.json = "true";
            s.check = [get](const PlanSpec& p) { EXPECT_TRUE(get(const_cast<PlanSpec&>(p))); };
          } else if constexpr (std::is_same_v<T, std::string>) {
            const std::string text =
                knob.choices.empty() ? std::string("x1") : std::string(knob.choices.back());
            s.json = "\"" + text + "\"";
            s.check = [get, text](const PlanSpec& p) {
              EXPECT_EQ(get(const_cast<PlanSpec&>(p)), text);
            };
          } else {
            s.json = "[1.5, 2]";
            s.check = [get](const PlanSpec& p) {
              EXPECT_EQ(get(const_cast<PlanSpec&>(p)), (std::vector<double>{1.5, 2}));
            };
          }
        }
      },
      knob.field);
  return s;
}

TEST(PlanKnobs, EveryRowReadsBackThroughItsFieldFromConfigJson) {
  int read = 0;
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.key == "boundaries" || knob.key == "schedule") continue;  // own forms, tested apart
    const Sample sample = sampleOf(knob);
    if (!sample.check) continue;  // optimizer_sync: an enum, tested by RunConfig
    const std::string config =
        "{\"schedule\": \"1f1b\", \"" + std::string(knob.key) + "\": " + sample.json + "}";
    auto request = requestFromConfigJson(config);
    ASSERT_TRUE(request.ok()) << knob.key << ": " << request.error();
    SCOPED_TRACE(std::string(knob.key));
    sample.check(request->spec);
    ++read;
  }
  EXPECT_GE(read, 40);
}

TEST(PlanKnobs, EveryRowReadsBackThroughItsFieldFromAPreset) {
  int read = 0;
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.key == "schedule" || knob.key == "costs_file") continue;
    const Sample sample = sampleOf(knob);
    if (!sample.check) continue;
    const std::string text = R"({"name": "x", "title": "T", "reference": "R", "teaching": "P",
      "plan": {"schedule": "1f1b", ")" +
                             std::string(knob.key) + "\": " + sample.json + R"(},
      "headline": {"metric": "bubble_ratio", "value": 0.5, "text": "t"}})";
    auto preset = parsePreset(text, "x.json");
    ASSERT_TRUE(preset.ok()) << knob.key << ": " << preset.error();
    SCOPED_TRACE(std::string(knob.key));
    sample.check(preset->spec);
    ++read;
  }
  EXPECT_GE(read, 40);
}

TEST(PlanKnobs, APresetValueOutsideTheRowsRangeOrWordsNamesTheKey) {
  const auto parse = [](const std::string& plan) {
    const std::string text = R"({"name": "x", "title": "T", "reference": "R", "teaching": "P",
      "plan": {"schedule": "1f1b", )" +
                             plan + R"(},
      "headline": {"metric": "bubble_ratio", "value": 0.5, "text": "t"}})";
    auto preset = parsePreset(text, "x.json");
    return preset.ok() ? std::string("(parsed)") : preset.error();
  };
  EXPECT_EQ(parse(R"("chunks": 65)"), "x.json: plan.chunks: expected at most 64");
  EXPECT_EQ(parse(R"("attention_share": 1.5)"), "x.json: plan.attention_share: expected at most 1");
  EXPECT_EQ(parse(R"("fetch": "sideways")"), "x.json: plan.fetch: expected overlap or serial");
  EXPECT_EQ(parse(R"("weight_versions": "old")"),
            "x.json: plan.weight_versions: expected stash, latest, predict, ema or blend");
  EXPECT_EQ(parse(R"("costs_file": "c.json")").find("plan.costs_file: unknown key"), 8u);
}

// The compare table and the history (trace/analysis/ConfigKnobs.cpp) show each knob a run set
// under the table's label: a knob the table gains is caught here until the reader shows it.
TEST(PlanKnobs, TheCompareTableShowsEveryKnobUnderItsLabel) {
  int shown = 0;
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.key == "schedule") continue;
    std::string json = sampleOf(knob).json;
    if (knob.key == "optimizer_sync") json = "\"none\"";
    if (knob.key == "boundaries") json = "[1, 2]";
    if (knob.format == KnobFormat::Flag) json = "true";
    const std::string config =
        "{\"schedule\": \"1f1b\", \"" + std::string(knob.key) + "\": " + json + "}";
    bool found = false;
    for (const runtime::ConfigKnob& k : runtime::configKnobs(config))
      if (k.key == knob.key) {
        found = true;
        EXPECT_EQ(k.label, knob.label) << knob.key;
        EXPECT_FALSE(k.value.empty()) << knob.key;
      }
    EXPECT_TRUE(found) << knob.key << " is not shown in the compare table";
    shown += found ? 1 : 0;
  }
  EXPECT_GE(shown, 45);
}

}  // namespace
}  // namespace ps::runtime
