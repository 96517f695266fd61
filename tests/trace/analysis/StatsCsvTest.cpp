#include "trace/analysis/StatsCsv.h"

#include <gtest/gtest.h>

#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"

namespace ps::trace {
namespace {

TEST(StatsCsv, StepTimeHasItsOwnColumnNotTheBusyOne) {
  SyntheticGpipe g;
  const RunAnalysis a =
      analyzeRun(test::roundTrip(syntheticGpipeHeader(g), syntheticGpipeStep(g, 0)));
  ASSERT_TRUE(a.step_time_ns);
  const std::string csv = statsCsv(a);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "scope,rank,busy_ns,bubble_ratio,peak_memory_bytes,step_time_ns,steady_bubble_ratio");
  const std::string last = csv.substr(csv.rfind("run,"));
  // run,,,<bubble>,<peak>,<step time>,<steady>: the step time is the 6th field.
  std::vector<std::string> fields;
  std::size_t from = 0;
  for (std::size_t comma; (comma = last.find_first_of(",\n", from)) != std::string::npos;
       from = comma + 1)
    fields.push_back(last.substr(from, comma - from));
  ASSERT_EQ(fields.size(), 7u) << last;
  EXPECT_EQ(fields[2], "") << "no busy time for the run row";
  EXPECT_EQ(fields[3], "0.2727272727");
  EXPECT_EQ(fields[5], std::to_string(*a.step_time_ns));
  // One row per rank with its busy time.
  EXPECT_NE(csv.find("rank,0," + std::to_string(a.ranks[0].busy_ns) + ","), std::string::npos);
}

}  // namespace
}  // namespace ps::trace
