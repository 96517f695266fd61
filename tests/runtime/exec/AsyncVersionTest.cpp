// Asynchronous schedules on the cpu backend compute with the weight version their schedule says
// (DESIGN §3, issue 4 item 5). PipeDream (weight stashing): a forward uses the weights after the
// latest update its rank has applied, and the micro-batch's backward uses that same stashed
// version however many updates happened in between. PipeDream-2BW (double buffering): the
// forwards of step k use the version published by the rank's update at the end of step k−1 — or,
// for the few forwards the schedule places before that update (warm-up shifted on the early
// ranks), the one before it — backwards reuse their forward's version, and never more than two
// versions are in use on a rank.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/PlanBuilder.h"

namespace ps::runtime {
namespace {

struct VersionCase {
  std::string schedule;
  int p, m, steps;
};

struct Seen {
  Action action;
  int versionUsed;
  int liveVersion;
};

// What the schedule says, per rank: at each F, the number of OPTs before it in program order
// (one stage per rank, so that is the stage's live version); each B/I inherits its F's.
struct Expected {
  std::map<std::pair<int, int>, int> forwardVersion;  // (step, mb) -> version
  std::vector<int> liveAt;                            // per program position: OPTs before it
};

Expected expectedFromSchedule(const std::vector<Action>& program) {
  Expected e;
  int opts = 0;
  for (const Action& a : program) {
    e.liveAt.push_back(opts);
    if (a.kind == OpKind::OPT) ++opts;
    if (a.kind == OpKind::F) e.forwardVersion[{a.step, a.microbatch}] = opts;
  }
  return e;
}

ModelConfig tinyModel() {
  ModelConfig c;
  c.hidden = 8;
  c.seq = 2;
  c.microbatchSize = 2;
  c.ffnMultiplier = 2;
  c.seed = 3;
  return c;
}

class AsyncVersions : public ::testing::TestWithParam<VersionCase> {
 protected:
  // Runs the plan and returns, per rank, every reported (action, version used, live version).
  std::vector<std::vector<Seen>> run(const BuiltPlan& built) {
    std::vector<std::vector<Seen>> seen(built.plan.numRanks);
    CpuRunOptions options;
    options.model = tinyModel();
    options.optimizer.kind = OptimizerKind::Sgd;
    options.optimizer.lr = 0.01f;
    // Each rank appends to its own vector only: no lock needed.
    options.onWeightVersion = [&seen](int rank, const Action& a, int used, int live) {
      seen[rank].push_back({a, used, live});
    };
    auto result = runOnCpuThreads(built.plan, built.graph, options, nullptr);
    EXPECT_TRUE(result.ok()) << result.error();
    if (result.ok()) {
      EXPECT_EQ(result->status, trace::RunStatus::Complete) << result->message;
    }
    return seen;
  }
};

TEST_P(AsyncVersions, EachStageComputesWithTheVersionTheScheduleSays) {
  const VersionCase c = GetParam();
  PlanSpec spec;
  spec.schedule = c.schedule;
  spec.stages = c.p;
  spec.microbatches = c.m;
  spec.steps = c.steps;
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  const bool twoBuffers = built->plan.versioning == WeightVersioning::DoubleBuffered;
  ASSERT_TRUE(twoBuffers || built->plan.versioning == WeightVersioning::Stashed);

  const auto seen = run(*built);
  int staleBackwards = 0;  // backwards whose stashed version is older than the live weights
  int mostVersionsInUse = 0;
  for (int r = 0; r < built->plan.numRanks; ++r) {
    const auto& program = built->plan.programs[r];
    const Expected expected = expectedFromSchedule(program);
    // The reports follow the program order of the rank's F, I and B actions.
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < program.size(); ++i)
      if (program[i].kind == OpKind::F || program[i].kind == OpKind::B ||
          program[i].kind == OpKind::I)
        positions.push_back(i);
    ASSERT_EQ(seen[r].size(), positions.size()) << "rank " << r;
    std::map<std::pair<int, int>, int> inFlight;  // (step, mb) -> version it computes with
    for (std::size_t k = 0; k < positions.size(); ++k) {
      const Action& a = program[positions[k]];
      const Seen& s = seen[r][k];
      ASSERT_EQ(actionLabel(s.action), actionLabel(a)) << "rank " << r;
      const std::string where = "rank " + std::to_string(r) + " " + actionLabel(a);
      const int live = expected.liveAt[positions[k]];
      EXPECT_EQ(s.liveVersion, live) << where;
      const int wanted = expected.forwardVersion.at({a.step, a.microbatch});
      EXPECT_EQ(s.versionUsed, wanted) << where;  // never the live buffer (−1)
      if (a.kind == OpKind::F) {
        // The weights after the latest update done on this rank.
        EXPECT_EQ(s.versionUsed, live) << where;
        if (twoBuffers) {
          // Step k's forwards: the version published at the end of step k−1 (number k), unless
          // the schedule runs them before this rank's update of step k−1 (then number k−1).
          const bool afterUpdate = live >= a.step;
          EXPECT_EQ(s.versionUsed, afterUpdate ? a.step : a.step - 1) << where;
        }
        inFlight[{a.step, a.microbatch}] = s.versionUsed;
      } else {
        if (s.versionUsed < s.liveVersion) ++staleBackwards;
        std::set<int> inUse = {s.liveVersion};
        for (const auto& [key, v] : inFlight)
          inUse.insert(v);
        mostVersionsInUse = std::max(mostVersionsInUse, static_cast<int>(inUse.size()));
        if (twoBuffers) {
          EXPECT_LE(inUse.size(), 2u) << where;
          EXPECT_GE(s.versionUsed, s.liveVersion - 1) << where;
        }
        inFlight.erase({a.step, a.microbatch});
      }
    }
  }
  // The stash mattered: some backwards ran after updates, with their forward's older weights.
  EXPECT_GT(staleBackwards, 0);
  // PipeDream keeps up to p versions on rank 0 when every micro-batch is a step (m = 1).
  if (!twoBuffers && c.m == 1) {
    EXPECT_EQ(mostVersionsInUse, c.p);
  }
  if (twoBuffers) {
    EXPECT_EQ(mostVersionsInUse, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, AsyncVersions,
                         ::testing::Values(VersionCase{"pipedream", 3, 1, 5},
                                           VersionCase{"pipedream", 2, 2, 3},
                                           VersionCase{"pipedream-2bw", 3, 3, 3},
                                           VersionCase{"pipedream-2bw", 2, 4, 3}),
                         [](const ::testing::TestParamInfo<VersionCase>& param) {
                           std::string n = param.param.schedule + "_p" +
                                           std::to_string(param.param.p) + "_m" +
                                           std::to_string(param.param.m);
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace ps::runtime
