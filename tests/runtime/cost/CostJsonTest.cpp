#include "runtime/cost/CostJson.h"

#include <gtest/gtest.h>

#include "runtime/cost/JsonSyntax.h"
#include "tests/common/TestUtil.h"

namespace ps::runtime {
namespace {

constexpr const char* kFull = R"({
  "format": "pipescope-costs", "version": 1, "source": "hand-written",
  "_comment": "keys starting with an underscore are ignored",
  "layers": [
    {"name": "embed", "fwd_us": 120, "bwd_us": 240, "wgrad_us": 100,
     "act_bytes": 4194304, "param_bytes": 1048576},
    {"name": "block", "repeat": 3, "fwd_us": 300, "igrad_us": 310, "wgrad_us": 290.5,
     "act_bytes": 8e6, "param_bytes": 1000},
    {"fwd_us": 50, "bwd_us": 80}
  ],
  "ranks": [{"speed": 1.0, "memory_gb": 80}, {"speed": 1.5, "memory_bytes": 42949672960}, {}],
  "link": {"gbps": 100, "latency_us": 5},
  "links": [{"src": 0, "dst": 1, "gbps": 25}],
  "optimizer_ns_per_param_byte": 0.02,
  "state_bytes_per_param_byte": 16
})";

TEST(CostJsonTest, ParsesEveryField) {
  auto r = parseCostJson(kFull, "costs.json");
  ASSERT_TRUE(r) << r.error();
  const CostModel& m = *r;
  ASSERT_EQ(m.layers.size(), 5u);
  EXPECT_EQ(m.layers[0].name, "embed");
  EXPECT_DOUBLE_EQ(m.layers[0].fwdNs, 120e3);
  EXPECT_DOUBLE_EQ(m.layers[0].inputGradNs, 140e3);
  EXPECT_DOUBLE_EQ(m.layers[0].weightGradNs, 100e3);
  EXPECT_EQ(m.layers[0].actBytes, 4194304);
  EXPECT_EQ(m.layers[0].paramBytes, 1048576);
  EXPECT_EQ(m.layers[1].name, "block.0");
  EXPECT_EQ(m.layers[3].name, "block.2");
  EXPECT_DOUBLE_EQ(m.layers[3].inputGradNs, 310e3);
  EXPECT_DOUBLE_EQ(m.layers[3].weightGradNs, 290.5e3);
  EXPECT_EQ(m.layers[3].actBytes, 8000000);
  EXPECT_EQ(m.layers[4].name, "layer4");
  EXPECT_DOUBLE_EQ(m.layers[4].inputGradNs, 40e3);  // no wgrad: half of bwd
  EXPECT_DOUBLE_EQ(m.layers[4].weightGradNs, 40e3);
  ASSERT_EQ(m.ranks.size(), 3u);
  EXPECT_EQ(m.capacityOf(0), 80ll << 30);
  EXPECT_EQ(m.capacityOf(1), 42949672960ll);
  EXPECT_FALSE(m.capacityOf(2));
  EXPECT_DOUBLE_EQ(m.speedOf(1), 1.5);
  EXPECT_DOUBLE_EQ(m.speedOf(2), 1.0);
  EXPECT_DOUBLE_EQ(m.defaultLink.bytesPerNs, 12.5);
  EXPECT_DOUBLE_EQ(m.defaultLink.latencyNs, 5e3);
  EXPECT_DOUBLE_EQ(m.link(0, 1).bytesPerNs, 25.0 / 8);
  EXPECT_DOUBLE_EQ(m.link(0, 1).latencyNs, 5e3);  // inherited from "link"
  EXPECT_DOUBLE_EQ(m.link(1, 0).bytesPerNs, 12.5);
  EXPECT_DOUBLE_EQ(m.optimizerNsPerParamByte, 0.02);
  EXPECT_DOUBLE_EQ(m.stateBytesPerParamByte, 16);
}

TEST(CostJsonTest, MinimalFileHasDefaults) {
  auto r = parseCostJson(R"({"layers":[{"fwd_us":1,"bwd_us":2}]})", "c.json");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->ranks.empty());
  EXPECT_EQ(r->defaultLink.bytesPerNs, 0);
  EXPECT_EQ(r->stateBytesPerParamByte, 4.0);
}

TEST(CostJsonTest, WrongValuesNameTheJsonPath) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {R"({"layers":[{"fwd_us":1,"bwd_us":2},{"fwd_us":-1,"bwd_us":2}]})",
       "costs.json: layers[1].fwd_us: expected a non-negative number"},
      {R"({"layers":[{"fwd_us":"fast","bwd_us":2}]})",
       "costs.json: layers[0].fwd_us: expected a non-negative number"},
      {R"({"layers":[{"fwd_ns":1,"bwd_us":2}]})",
       "costs.json: layers[0].fwd_ns: unknown key (expected name, repeat, fwd_us"},
      {R"({"layers":[{"bwd_us":2}]})", "costs.json: layers[0]: missing fwd_us"},
      {R"({"layers":[{"fwd_us":1}]})", "costs.json: layers[0]: missing backward"},
      {R"({"layers":[{"fwd_us":1,"igrad_us":1}]})", "costs.json: layers[0]: missing backward"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2,"igrad_us":1}]})",
       "costs.json: layers[0].igrad_us: give either"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2,"wgrad_us":3}]})",
       "costs.json: layers[0].wgrad_us: must not exceed bwd_us"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2,"act_bytes":1.5}]})",
       "costs.json: layers[0].act_bytes: expected a non-negative integer"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2,"repeat":0}]})",
       "costs.json: layers[0].repeat: expected a positive integer"},
      {R"({"layers":[]})", "costs.json: layers: expected a non-empty array"},
      {R"({"ranks":[]})", "costs.json: layers: expected a non-empty array"},
      {R"({"layers":{}})", "costs.json: layers: expected an array"},
      {R"({"layers":[3]})", "costs.json: layers[0]: expected an object"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"ranks":[{"speed":0}]})",
       "costs.json: ranks[0].speed: expected a positive number"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"ranks":[{"memory_gb":1,"memory_bytes":1}]})",
       "costs.json: ranks[0].memory_bytes: give either"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"link":{"gbps":-3}})",
       "costs.json: link.gbps: expected a non-negative number"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"links":[{"src":0,"gbps":1}]})",
       "costs.json: links[0]: missing src or dst"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"links":[{"src":1,"dst":1}]})",
       "costs.json: links[0].dst: must differ from src"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"version":2})", "costs.json: version: unsupported"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"format":"other"})", "costs.json: format: expected"},
      {R"({"layers":[{"fwd_us":1,"bwd_us":2}],"speed":2})", "costs.json: speed: unknown key"},
      {R"([1,2])", "costs.json: expected a JSON object at the top level"},
  };
  for (const auto& c : cases) {
    auto r = parseCostJson(c.json, "costs.json");
    ASSERT_FALSE(r) << c.json;
    EXPECT_EQ(r.error().rfind(c.error, 0), 0u) << "got: " << r.error() << "\nfor: " << c.json;
  }
}

TEST(CostJsonTest, MalformedJsonNamesLineAndColumn) {
  auto r = parseCostJson("{\n  \"layers\": [\n    {\"fwd_us\": 1,}\n  ]\n}\n", "costs.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "costs.json:3:18: malformed JSON: expected a string key") << r.error();
  auto missingComma = parseCostJson("{\"layers\": [1 2]}", "c.json");
  ASSERT_FALSE(missingComma);
  EXPECT_EQ(missingComma.error(), "c.json:1:15: malformed JSON: expected ',' or ']'");
  auto truncated = parseCostJson("{\"layers\": [", "c.json");
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().find("c.json:1:13: malformed JSON"), std::string::npos)
      << truncated.error();
}

TEST(CostJsonTest, SyntaxLocator) {
  for (const char* ok : {"{}", "[]", " 1 ", "-0.5e+3", "\"a\\u00e9\\n\"", "[true,false,null]",
                         "{\"a\":{\"b\":[1,{\"c\":\"d\"}]}}"})
    EXPECT_FALSE(findJsonSyntaxError(ok)) << ok;
  struct Case {
    const char* text;
    std::size_t offset;
  };
  for (const Case& c :
       {Case{"", 0}, Case{"{", 1}, Case{"[1,]", 3}, Case{"01", 1}, Case{"{\"a\" 1}", 5},
        Case{"\"a\\x\"", 3}, Case{"[1] 2", 4}, Case{"tru", 0}, Case{"1.", 2}, Case{"\"abc", 4}}) {
    auto e = findJsonSyntaxError(c.text);
    ASSERT_TRUE(e) << c.text;
    EXPECT_EQ(e->offset, c.offset) << c.text;
  }
  const std::string deep(5000, '[');
  EXPECT_TRUE(findJsonSyntaxError(deep));
}

TEST(CostJsonTest, WriteReadRoundTrip) {
  auto parsed = parseCostJson(kFull, "costs.json");
  ASSERT_TRUE(parsed) << parsed.error();
  CostModel m = *parsed;
  m.links[{2, 0}] = LinkCost{0, 7e3};  // an explicitly free link
  m.layers[2].fwdNs = 123456.789;
  m.layers[1].outputBytes = 4096;  // the boundary size after layer 1
  test::TempDir dir;
  const std::string path = dir.file("out.json");
  ASSERT_TRUE(saveCostJson(m, path, "round trip"));
  auto back = loadCostJson(path);
  ASSERT_TRUE(back) << back.error() << "\n" << test::readFile(path);
  ASSERT_EQ(back->layers.size(), m.layers.size());
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    EXPECT_EQ(back->layers[l].name, m.layers[l].name);
    EXPECT_DOUBLE_EQ(back->layers[l].fwdNs, m.layers[l].fwdNs);
    EXPECT_DOUBLE_EQ(back->layers[l].inputGradNs, m.layers[l].inputGradNs);
    EXPECT_DOUBLE_EQ(back->layers[l].weightGradNs, m.layers[l].weightGradNs);
    EXPECT_EQ(back->layers[l].actBytes, m.layers[l].actBytes);
    EXPECT_EQ(back->layers[l].outputBytes, m.layers[l].outputBytes);
    EXPECT_EQ(back->layers[l].paramBytes, m.layers[l].paramBytes);
  }
  ASSERT_EQ(back->ranks.size(), m.ranks.size());
  for (std::size_t r = 0; r < m.ranks.size(); ++r) {
    EXPECT_DOUBLE_EQ(back->ranks[r].speed, m.ranks[r].speed);
    EXPECT_EQ(back->ranks[r].memoryCapacityBytes, m.ranks[r].memoryCapacityBytes);
  }
  EXPECT_DOUBLE_EQ(back->defaultLink.bytesPerNs, m.defaultLink.bytesPerNs);
  EXPECT_DOUBLE_EQ(back->defaultLink.latencyNs, m.defaultLink.latencyNs);
  ASSERT_EQ(back->links.size(), m.links.size());
  for (const auto& [ends, l] : m.links) {
    EXPECT_DOUBLE_EQ(back->link(ends.first, ends.second).bytesPerNs, l.bytesPerNs);
    EXPECT_DOUBLE_EQ(back->link(ends.first, ends.second).latencyNs, l.latencyNs);
  }
  EXPECT_DOUBLE_EQ(back->optimizerNsPerParamByte, m.optimizerNsPerParamByte);
  EXPECT_DOUBLE_EQ(back->stateBytesPerParamByte, m.stateBytesPerParamByte);
}

TEST(CostJsonTest, UniformModelRoundTrips) {
  UniformCostFlags f;
  f.layers = 4;
  f.actMb = 2;
  f.linkGbps = 200;
  auto m = uniformCostModel(f);
  ASSERT_TRUE(m) << m.error();
  auto back = parseCostJson(writeCostJson(*m), "u.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->layers.size(), 4u);
  EXPECT_DOUBLE_EQ(back->layers[3].inputGradNs, 100e3);
  EXPECT_EQ(back->layers[3].actBytes, 2 << 20);
  EXPECT_DOUBLE_EQ(back->defaultLink.bytesPerNs, 25);
}

TEST(CostJsonTest, MissingFileNamesThePath) {
  auto r = loadCostJson("/nonexistent/costs.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "/nonexistent/costs.json: cannot open for reading");
}

}  // namespace
}  // namespace ps::runtime
