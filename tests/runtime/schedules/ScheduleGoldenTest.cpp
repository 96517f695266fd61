// Golden programs of small cases, one file per schedule in tests/runtime/golden/ (each checked
// by eye against its paper's figure when it was accepted; PIPESCOPE_UPDATE_GOLDEN=1 rewrites
// them), and the torch CSV round trip of every single-replica synchronous plan.

#include <gtest/gtest.h>

#include "runtime/plan/TorchCsv.h"
#include "runtime/schedules/Schedule.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

struct GoldenCase {
  std::string name;
  ScheduleParams params;
  std::string file;
};

std::vector<GoldenCase> goldenCases() {
  return {
      {"gpipe", {4, 8, 1, 1}, "schedule_gpipe_p4_m8.txt"},
      {"1f1b", {4, 8, 1, 1}, "schedule_1f1b_p4_m8.txt"},
      {"interleaved-1f1b", {4, 8, 2, 1}, "schedule_interleaved-1f1b_p4_m8_v2.txt"},
      {"looped-bfs", {4, 8, 2, 1}, "schedule_looped-bfs_p4_m8_v2.txt"},
      {"zb-h1", {4, 8, 1, 1}, "schedule_zb-h1_p4_m8.txt"},
      {"zb-h2", {4, 8, 1, 1}, "schedule_zb-h2_p4_m8.txt"},
      {"zb-v", {4, 8, 2, 1}, "schedule_zb-v_p4_m8.txt"},
      {"chimera", {4, 8, 1, 1}, "schedule_chimera_p4_m8.txt"},
      {"dualpipe-v", {4, 8, 2, 1}, "schedule_dualpipe-v_p4_m8.txt"},
      {"pipedream", {4, 4, 1, 2}, "schedule_pipedream_p4_m4_s2.txt"},
      {"pipedream-2bw", {4, 4, 1, 2}, "schedule_pipedream-2bw_p4_m4_s2.txt"},
  };
}

TEST(ScheduleGolden, SmallCasesMatchTheirGoldenPrograms) {
  for (const auto& c : goldenCases()) {
    SCOPED_TRACE(c.name);
    auto plan = generateSchedule(c.name, c.params);
    ASSERT_TRUE(plan.ok()) << plan.error();
    const std::string header = "# " + c.name + " p=" + std::to_string(c.params.ranks) +
                               " m=" + std::to_string(c.params.microbatches) +
                               " v=" + std::to_string(plan->chunks) +
                               " steps=" + std::to_string(plan->steps) + "\n";
    test::expectGolden(c.file, header + test::formatPrograms(*plan));
  }
}

// The same small cases as torch pipelining CSVs (compute-only form), for the schedules torch
// can express: what `pipescope-cli export torch-csv` writes and torch's _load_csv reads.
TEST(ScheduleGolden, TorchCsvFormsMatchTheirGoldenCsvs) {
  for (const auto& c : goldenCases()) {
    auto plan = generateSchedule(c.name, c.params);
    ASSERT_TRUE(plan.ok()) << plan.error();
    if (plan->steps != 1 || plan->numReplicas() != 1) continue;
    SCOPED_TRACE(c.name);
    std::string csv = c.file.substr(0, c.file.size() - 4) + ".csv";
    test::expectGolden(csv, writeTorchCsvComputeOnly(*plan));
  }
}

TEST(ScheduleGolden, SynchronousPlansRoundTripThroughTorchCsv) {
  for (const auto& c : goldenCases()) {
    auto plan = generateSchedule(c.name, c.params);
    ASSERT_TRUE(plan.ok()) << plan.error();
    if (plan->steps != 1 || plan->numReplicas() != 1) continue;  // torch has neither
    SCOPED_TRACE(c.name);
    auto back = parseTorchCsv(writeTorchCsvComputeOnly(*plan), c.name + ".csv");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->plan.programs, plan->programs);
  }
}

}  // namespace
}  // namespace ps::runtime
