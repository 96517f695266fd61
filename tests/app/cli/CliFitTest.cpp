// pipescope-cli fit (issue 31 §2 and its acceptance): a cpu run exported to Chrome and imported
// back with `import kineto` is fitted: the schedule is named with its P, M and V, and the fitted
// plan's replay gives the run's step time within 3 % and its bubble within 2 points. The closed
// loop: the fitted plan changed to M 16 and to zb-h1 is simulated and really run on the cpu
// backend, and the prediction is compared with the measurement.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "runtime/cost/CostJson.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "trace/FileText.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

// The first number after "key": in a JSON text (fit --json, report --json).
double number(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex re("\"" + key + "\": *(-?[0-9.eE+-]+)");
  EXPECT_TRUE(std::regex_search(json, m, re)) << key << " not in " << json;
  return m.empty() ? NAN : std::stod(m[1]);
}

std::string text(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex re("\"" + key + "\": *\"([^\"]*)\"");
  return std::regex_search(json, m, re) ? std::string(m[1]) : std::string("<none>");
}

// cpu run -> export chrome -> import kineto, into `dir`; returns the imported file.
std::string importedCpuRun(const TempDir& dir, const std::vector<std::string>& plan) {
  const std::string db = dir.file("cpu.sqlite"), json = dir.file("cpu.json"),
                    imported = dir.file("imported.sqlite");
  std::vector<std::string> args = {"run", "--backend", "cpu", "--steps", "6", "--db", db};
  args.insert(args.end(), plan.begin(), plan.end());
  const auto run = cli(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto exported = cli({"export", "chrome", db, "--out", json});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  const auto import = cli({"import", "kineto", json, "--db", imported});
  EXPECT_EQ(import.exit_code, 0) << import.err;
  return imported;
}

struct Case {
  const char* preset;
  int chunks;
};

// Serial: the bubble it checks is measured on the cores; tests beside it would move it.
class CliFitRoundTripSerial : public ::testing::TestWithParam<Case> {};

TEST_P(CliFitRoundTripSerial, NamesTheScheduleAndReplaysTheRun) {
  TempDir dir;
  const std::string imported = importedCpuRun(dir, {"--preset", GetParam().preset});
  const auto fit = cli({"fit", imported, "--json"});
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_EQ(text(fit.out, "schedule"), GetParam().preset);
  EXPECT_EQ(number(fit.out, "ranks"), 4);
  EXPECT_EQ(number(fit.out, "microbatches"), 8);
  EXPECT_EQ(number(fit.out, "chunks"), GetParam().chunks);
  EXPECT_LT(std::abs(number(fit.out, "step_error")), 0.03) << fit.out;
  EXPECT_LT(std::abs(number(fit.out, "predicted_bubble") - number(fit.out, "measured_bubble")),
            0.02)
      << fit.out;
}

INSTANTIATE_TEST_SUITE_P(Presets, CliFitRoundTripSerial,
                         ::testing::Values(Case{"1f1b", 1}, Case{"zb-h1", 1},
                                           Case{"interleaved-1f1b", 2}),
                         [](const auto& param) {
                           std::string n = param.param.preset;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// W's share of the backward (I + W) summed over the layers of a calibrated cost file.
double wgradShare(const std::string& costFile) {
  const auto costs = runtime::loadCostJson(costFile);
  EXPECT_TRUE(costs.ok()) << costs.error();
  if (!costs.ok()) return NAN;
  double w = 0, backward = 0;
  for (const runtime::LayerCost& layer : costs->layers) {
    w += layer.weightGradNs;
    backward += layer.inputGradNs + layer.weightGradNs;
  }
  EXPECT_GT(backward, 0);
  return w / backward;
}

// One pass of the loop in `dir`: the largest |error| of the two what-ifs (NaN when a step
// failed: the failure is reported by the ASSERTs inside).
double closedLoopError(const TempDir& dir) {
  // P 2: one rank thread per core. With P 4 on two cores the ops slow down with the number of
  // ranks computing at once (measured: predictions 10-16 % short, M 16 and zb-h1 both run more
  // ranks at once than the fitted M 8), which the simulator's independent devices do not have.
  // The fitted run's B is fused, so no trace can say how much of it is W: the user tells fit
  // (--wgrad-share), here from the layers' own calibration. Assuming half made zb-h1's
  // prediction 10-22 % short: in this model W is about a quarter of B (the elementwise passes,
  // GELU and LayerNorm, are in I), so I, on zb-h1's critical path, is longer than assumed.
  const std::string calibration = dir.file("calibrated.json");
  const std::string imported =
      importedCpuRun(dir, {"--preset", "1f1b", "--stages", "2", "--calibrate-out", calibration});
  const double share = wgradShare(calibration);
  std::cout << "W share of B (calibrated): " << share << "\n";
  const std::string plan = dir.file("fitted.json");
  const auto fit = cli({"fit", imported, "--out", plan, "--wgrad-share", std::to_string(share)});
  EXPECT_EQ(fit.exit_code, 0) << fit.err;
  auto fitted = trace::readTextFile(plan, 1 << 24, "plan");
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  if (fit.exit_code != 0 || !fitted.ok()) return NAN;
  const std::vector<std::pair<std::string, std::string>> whatIfs = {
      {"m16", replaced(*fitted, "\"microbatches\": 8", "\"microbatches\": 16")},
      {"zb-h1", replaced(*fitted, "\"schedule\": \"1f1b\"", "\"schedule\": \"zb-h1\"")}};
  double worst = 0;
  for (const auto& [name, json] : whatIfs) {
    const std::string file = dir.file(name + ".json"), db = dir.file(name + ".sqlite");
    EXPECT_TRUE(trace::writeTextFile(file, json, "plan").ok());
    const auto sim = cli({"sim", "--preset", file, "--db", db});
    const auto run = cli({"run", "--preset", file, "--backend", "cpu", "--db", db});
    // Both sides over the steps after the first: the prediction has no warm-up step, and the
    // fit's measured_step_ns is the mean of a run's steps after its first (its warm-up:
    // allocation, page faults, thread start), as the fitted plan's costs are.
    const auto predicted = cli({"report", db, "--run", "1", "--json"});
    const auto measured = cli({"fit", db, "--run", "2", "--json"});
    EXPECT_EQ(sim.exit_code, 0) << sim.err;
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(predicted.exit_code, 0) << predicted.err;
    EXPECT_EQ(measured.exit_code, 0) << measured.err;
    const double p = number(predicted.out, "step_time_ns");
    const double m = number(measured.out, "measured_step_ns");
    const double error = (p - m) / m;
    std::cout << "closed loop " << name << ": predicted " << p / 1e6 << " ms, measured " << m / 1e6
              << " ms, error " << error * 100 << " %\n";
    ::testing::Test::RecordProperty(name + "_error_percent", std::to_string(error * 100));
    worst = std::isnan(error) ? error : std::max(worst, std::abs(error));
  }
  return worst;
}

// The closed loop, compared over the steps after the first on both sides. The errors are
// printed for the record (seen on a quiet 2-core machine with the calibrated W share: M 16 -0.6
// .. +3.5 %, zb-h1 +1.3 .. +2.4 %; with W assumed half of B zb-h1 was -7 .. -12 % here and -16 /
// -22 % on CI). The suite runs alone (RUN_SERIAL: its name ends in Serial), yet real times move
// with whatever else the machine runs between the fitted run and the what-ifs (a build beside it
// made a pass -24 / -30 %): up to three passes are run while one misses, and the bound is 15 %.
TEST(CliFitClosedLoopSerial, PredictsWhatIfsThatReallyRun) {
  double worst = NAN;
  for (int pass = 0; pass < 3; ++pass) {
    TempDir dir;
    worst = closedLoopError(dir);
    if (std::isnan(worst) || worst < 0.15) break;
  }
  EXPECT_LT(worst, 0.15);
}

// An imported run has no config to rebuild: --sensitivity and explore --from start from its
// fitted plan (before: "there is no plan to re-simulate"; explore had no way to start from a run).
TEST(CliFit, ImportedRunsGetSensitivityAndExplore) {
  TempDir dir;
  const std::string db = dir.file("sim.sqlite"), json = dir.file("sim.json"),
                    imported = dir.file("imported.sqlite");
  ASSERT_EQ(cli({"sim", "--preset", "1f1b", "--steps", "3", "--db", db}).exit_code, 0);
  ASSERT_EQ(cli({"export", "chrome", db, "--out", json}).exit_code, 0);
  const auto import = cli({"import", "kineto", json, "--db", imported});
  ASSERT_EQ(import.exit_code, 0) << import.err;
  // The import names the schedule its ops follow (before: never named).
  EXPECT_THAT(import.out, HasSubstr("schedule: 1f1b (P 4, M 8, V 1); pipescope-cli fit "));
  const auto sensitivity = cli({"report", imported, "--sensitivity"});
  ASSERT_EQ(sensitivity.exit_code, 0) << sensitivity.err;
  EXPECT_THAT(sensitivity.err, HasSubstr("plan fitted (1f1b, replay"));
  EXPECT_THAT(sensitivity.out, HasSubstr("B on stage 3 (rank 3)"));
  const auto explore = cli({"explore", "--from", imported + ":1", "--schedules", "1f1b,zb-h1",
                            "--microbatches", "8,16", "--chunks", "1", "--json"});
  ASSERT_EQ(explore.exit_code, 0) << explore.err;
  EXPECT_THAT(explore.out, HasSubstr("\"zb-h1\""));
  EXPECT_THAT(explore.out, HasSubstr("\"microbatches\":16"));
  const auto conflicting = cli({"explore", "--from", imported, "--stages", "2"});
  EXPECT_EQ(conflicting.exit_code, 2);
}

TEST(CliFit, BadInputSaysWhat) {
  TempDir dir;
  const std::string db = dir.file("sim.sqlite");
  ASSERT_EQ(cli({"sim", "--preset", "1f1b", "--db", db}).exit_code, 0);
  const auto noRun = cli({"fit", db, "--run", "9"});
  EXPECT_EQ(noRun.exit_code, 2);
  EXPECT_THAT(noRun.err, HasSubstr("9"));
  const auto folder = cli({"fit", db, "--out", dir.path().string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_THAT(folder.err, HasSubstr("--out"));
  const auto missing = cli({"fit", dir.file("none.sqlite")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("none.sqlite"));
}

}  // namespace
}  // namespace ps
