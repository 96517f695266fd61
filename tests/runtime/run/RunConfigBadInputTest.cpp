// What requestFromConfigJson refuses: imported runs, text that is not a plan's config, wrong
// types; each with a message that says why.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/run/RunConfig.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

struct BadConfig {
  const char* name;
  const char* json;
  const char* message;
};

std::string badName(const ::testing::TestParamInfo<BadConfig>& param) {
  return param.param.name;
}

class RunConfigBad : public ::testing::TestWithParam<BadConfig> {};

TEST_P(RunConfigBad, IsAClearError) {
  auto parsed = requestFromConfigJson(GetParam().json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Configs, RunConfigBad,
    ::testing::Values(
        BadConfig{"nsys", R"({"import":{"format":"nsys","files":[]}})",
                  "run was imported from nsys: it has no plan to rerun"},
        BadConfig{"kineto", R"({"import":{"format":"kineto"}})",
                  "run was imported from kineto: it has no plan to rerun"},
        BadConfig{"empty_object", "{}", "has no \"schedule\""},
        BadConfig{"empty_text", "", "not valid JSON"},
        BadConfig{"broken", R"({"schedule":"1f1b",)", "not valid JSON"},
        BadConfig{"array", "[1,2]", "not a JSON object"},
        BadConfig{"stages_string", R"({"schedule":"1f1b","stages":"4"})",
                  "\"stages\" must be an integer (got \"4\")"},
        BadConfig{"stages_huge", R"({"schedule":"1f1b","stages":99999999999})",
                  "\"stages\" must be an integer"},
        BadConfig{"schedule_number", R"({"schedule":7})", "\"schedule\" must be a string"},
        BadConfig{"boundaries_text", R"({"schedule":"1f1b","boundaries":"1,2"})",
                  "\"boundaries\" must be an array of layer numbers"},
        BadConfig{"boundaries_float", R"({"schedule":"1f1b","boundaries":[1.5]})",
                  "\"boundaries\" must be an array of layer numbers"},
        BadConfig{"link_text", R"({"schedule":"1f1b","link_gbps":"fast"})",
                  "\"link_gbps\" must be a number"},
        BadConfig{"recompute_int", R"({"schedule":"1f1b","recompute":1})",
                  "\"recompute\" must be true or false"},
        BadConfig{"sync_unknown", R"({"schedule":"1f1b","optimizer_sync":"eventually"})",
                  "\"optimizer_sync\" must be \"barrier\" or \"none\" (got \"eventually\")"},
        BadConfig{"costs_broken",
                  R"({"schedule":"1f1b","costs_file":"c.json","costs":{"layers":"x"}})",
                  "config_json \"costs\""},
        BadConfig{"costs_not_object", R"({"schedule":"1f1b","costs_file":"c.json","costs":3})",
                  "\"costs\" must be an object"},
        BadConfig{"plan_not_object", R"({"plan":3,"backend":"cpu"})", "\"plan\" must be an object"},
        BadConfig{"plan_without_backend", R"({"plan":{"schedule":"1f1b"}})", "no \"backend\""},
        BadConfig{"backend_unknown", R"({"plan":{"schedule":"1f1b"},"backend":"tpu"})",
                  "\"backend\" must be sim, cpu or cuda (got \"tpu\")"},
        BadConfig{"model_unknown", R"({"plan":{"schedule":"1f1b"},"backend":"cpu","model":"rnn"})",
                  "config_json: \"model\""},
        BadConfig{"optimizer_unknown",
                  R"({"plan":{"schedule":"1f1b"},"backend":"cpu","optimizer":"lion"})",
                  "config_json: \"optimizer\""},
        BadConfig{"dtype_unknown", R"({"plan":{"schedule":"1f1b"},"backend":"cuda","dtype":"fp8"})",
                  "\"dtype\" must be \"fp32\" or \"bf16\" (got \"fp8\")"},
        BadConfig{"plan_knob_wrong", R"({"plan":{"schedule":"1f1b","steps":true},"backend":"cpu"})",
                  "config_json \"plan\": \"steps\" must be an integer (got true)"}),
    badName);

}  // namespace
}  // namespace ps::runtime
