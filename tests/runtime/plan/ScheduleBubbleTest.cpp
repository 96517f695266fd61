// Bubble and memory of every generator under the uniform cost model with free links, checked
// against what each paper states under its own assumptions. Unless a test says otherwise one
// layer's F = 1 µs, B = 2 µs (I = W = 1 µs), and each layer holds 1 MiB of activations per
// micro-batch; "idle" is a rank's span − busy within the step (DESIGN §4), in µs.

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/plan/Validator.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

constexpr std::int64_t kUs = 1000;  // ns

Plan generate(const std::string& name, int p, int m, int v = 1, int steps = 1) {
  auto plan = generateSchedule(name, {p, m, v, steps});
  EXPECT_TRUE(plan.ok()) << plan.error();
  return plan.ok() ? *plan : Plan{};
}

// Gives every stage `layers` consecutive layers (so a one-chunk plan can be compared with a
// v-chunk plan over the same model).
Plan withLayersPerStage(Plan plan, int layers) {
  for (auto& replica : plan.placement)
    for (int s = 0; s < plan.numStages; ++s) {
      replica[s].firstLayer = s * layers;
      replica[s].lastLayer = s * layers + layers - 1;
    }
  plan.numLayers = plan.numStages * layers;
  return plan;
}

struct Measured {
  test::StepMeasure step;
  std::vector<double> peak;  // in-flight activations per rank, in stage·micro-batch units
};

Measured run(const Plan& plan, double fwdUs = 1, double bwdUs = 2, double wgradUs = 1) {
  const CostModel cost = test::uniformCosts(plan.numLayers, fwdUs, bwdUs, wgradUs);
  const SimResult sim = test::validateAndSimulate(plan, cost);
  return {test::measureStep(plan, sim), test::peakActivationUnits(plan, cost, sim)};
}

double steady(const Plan& oneStep, int steps, OptimizerSync sync) {
  auto plan = repeatSteps(oneStep, steps, sync);
  EXPECT_TRUE(plan.ok()) << plan.error();
  const CostModel cost = test::uniformCosts(plan->numLayers);
  return test::steadyStateBubble(*plan, test::validateAndSimulate(*plan, cost));
}

// GPipe (Huang et al. 2019) and 1F1B (Narayanan et al. 2021; Fan et al. 2021): every rank is
// busy m(F+B) = 3m and waits (p-1)(F+B) = 3(p-1) in total — the fill and the drain — so the
// bubble ratio is (p-1)/(m+p-1) exactly, whatever the order of the backwards.
TEST(ScheduleBubble, GpipeAndOneFOneBMatchTheClassicFormula) {
  for (const char* name : {"gpipe", "1f1b"})
    for (int p : {2, 3, 4, 8})
      for (int m : {1, 4, 8, 13}) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        const Measured r = run(generate(name, p, m));
        EXPECT_NEAR(r.step.bubble, double(p - 1) / double(m + p - 1), 1e-12);
        for (auto idle : r.step.idleNs)
          EXPECT_EQ(idle, 3 * (p - 1) * kUs);
      }
}

// GPipe keeps every micro-batch's activations until the backwards start: m on every rank.
// 1F1B admits a new micro-batch on rank r only after one of its p-r in flight has gone back:
// min(p-r, m).
TEST(ScheduleBubble, GpipeAndOneFOneBPeakActivations) {
  for (int p : {2, 4, 8})
    for (int m : {1, 3, 8, 16}) {
      const Measured g = run(generate("gpipe", p, m));
      const Measured o = run(generate("1f1b", p, m));
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(g.peak[r], m) << "gpipe p=" << p << " m=" << m << " rank " << r;
        EXPECT_EQ(o.peak[r], std::min(p - r, m)) << "1f1b p=" << p << " m=" << m << " rank " << r;
      }
    }
}

// Megatron-LM's interleaved 1F1B (Narayanan et al. SC'21): with v chunks per rank each chunk
// takes 1/v of a rank's work, and the fill and drain pass through chunks, not whole ranks:
// bubble time (p-1)(F+B)/v, i.e. 1F1B's over the same model divided by v. Looped BFS
// (Lamy-Poirier 2023) fills and drains the same way (GPipe-like per chunk), so its bubble time
// is GPipe's divided by v too, for m >= p.
TEST(ScheduleBubble, InterleavedAndLoopedBfsDivideTheBubbleByV) {
  for (int p : {2, 4, 8})
    for (int v : {2, 4})
      for (int k : {1, 2, 3}) {
        const int m = k * p;
        SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) +
                     " v=" + std::to_string(v));
        const Measured base = run(withLayersPerStage(generate("1f1b", p, m), v));
        const Measured gpipe = run(withLayersPerStage(generate("gpipe", p, m), v));
        const Measured inter = run(generate("interleaved-1f1b", p, m, v));
        const Measured bfs = run(generate("looped-bfs", p, m, v));
        for (int r = 0; r < p; ++r) {
          EXPECT_EQ(base.step.idleNs[r], 3 * (p - 1) * v * kUs);
          EXPECT_EQ(inter.step.idleNs[r] * v, base.step.idleNs[r]) << "rank " << r;
          EXPECT_EQ(bfs.step.idleNs[r] * v, gpipe.step.idleNs[r]) << "rank " << r;
          // Breadth-first keeps all m·v chunk activations, like GPipe.
          EXPECT_EQ(bfs.peak[r], m * v) << "rank " << r;
        }
      }
}

// ZB-H1 (Qi et al. ICLR'24 §2.1): with F = I = W the bubble is (p-1)(F + I - W) = p-1 against
// 1F1B's (p-1)(F + B) = 3(p-1): a third; and the first rank holds no more activations than in
// 1F1B (p micro-batches).
TEST(ScheduleBubble, ZeroBubbleH1ThirdsTheOneFOneBBubbleAtItsMemory) {
  for (int p : {2, 3, 4, 6, 8})
    for (int m : {p, 2 * p, 3 * p + 1, 32}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const Measured base = run(generate("1f1b", p, m));
      const Measured h1 = run(generate("zb-h1", p, m));
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(h1.step.idleNs[r] * 3, base.step.idleNs[r]) << "rank " << r;
        EXPECT_LE(h1.peak[r], p) << "rank " << r;
      }
      EXPECT_EQ(h1.peak[0], base.peak[0]);
    }
}

// ZB-H2 (Qi et al. ICLR'24 §2.2 and §4): 2p-1 micro-batches in flight on the first rank fill
// the warm-up; inside one step the ranks still start r units apart (the same p-1 idle as
// ZB-H1), but every rank's step is one gap-free block and the blocks form a parallelogram. With
// the optimizer step as a barrier the next step cannot start into that shape; with the paper's
// post-validation (no barrier) it does, and the steady-state bubble is zero.
TEST(ScheduleBubble, ZeroBubbleH2HasNoSteadyStateBubbleWithoutAnOptimizerBarrier) {
  for (int p : {2, 3, 4, 8})
    for (int m : {2 * p - 1, 2 * p, 24}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const Plan plan = generate("zb-h2", p, m);
      const Measured h2 = run(plan);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(h2.step.idleNs[r], (p - 1) * kUs) << "rank " << r;
        EXPECT_LE(h2.peak[r], 2 * p - 1) << "rank " << r;
      }
      EXPECT_EQ(h2.peak[0], 2 * p - 1);
      EXPECT_EQ(steady(plan, 4, OptimizerSync::None), 0.0);
      EXPECT_GT(steady(plan, 4, OptimizerSync::Barrier), 0.0);
    }
}

// ZB-V (Qi et al. 2024): two chunks per rank in a V; with F = I = W the paper reports a
// near-zero bubble at 1F1B's activation memory, the same on every rank. Memory: p micro-batches
// of a rank's share = 2p chunk activations, on every rank (the paper's "balanced"). Bubble: the
// V's start-up skew, p-1 chunk units per rank and step — 1/6 of 1F1B's 3(p-1) rank units over
// the same model and half of ZB-H1's (p-1) rank units.
TEST(ScheduleBubble, ZeroBubbleVAtOneFOneBMemory) {
  for (int p : {2, 3, 4, 5, 6, 8})
    for (int m : {p, 2 * p, 3 * p, 32}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const Measured zbv = run(generate("zb-v", p, m));
      const Measured base = run(withLayersPerStage(generate("1f1b", p, m), 2));
      const Measured h1 = run(withLayersPerStage(generate("zb-h1", p, m), 2));
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(zbv.peak[r], 2 * p) << "rank " << r;  // chunk units: 1F1B's p micro-batches
        EXPECT_EQ(zbv.step.idleNs[r], (p - 1) * kUs) << "rank " << r;
        EXPECT_EQ(zbv.step.idleNs[r] * 6, base.step.idleNs[r]) << "rank " << r;
        EXPECT_EQ(zbv.step.idleNs[r] * 2, h1.step.idleNs[r]) << "rank " << r;
      }
    }
}

// Chimera (Li & Hoefler SC'21), one basic unit (m = p) in the paper's own time model of equal
// forward and backward slots: bubble ratio (D-2)/(2N+D-2) for D = p stages and N = m
// micro-batches, against 1F1B's (D-1)/(N+D-1); activations per rank between D/2+1 (rank 0) and
// D. (m > p uses forward doubling, whose time model is B = 2F: ChimeraForwardDoublingTest.cpp.)
TEST(ScheduleBubble, ChimeraMatchesThePaperWithEqualForwardAndBackward) {
  for (int p : {2, 4, 6, 8}) {
    const int m = p;
    SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
    const Measured c = run(generate("chimera", p, m), 1, 1, 0);
    EXPECT_NEAR(c.step.bubble, double(p - 2) / double(2 * m + p - 2), 1e-12);
    for (int r = 0; r < p; ++r)
      EXPECT_LE(c.peak[r], p) << "rank " << r;
    EXPECT_EQ(c.peak[0], p / 2 + 1);
  }
  // With B = 2F (the rest of these tests) one unit of m = p still idles less than 1F1B.
  for (int p : {4, 6, 8}) {
    const Measured c = run(generate("chimera", p, p));
    const Measured base = run(generate("1f1b", p, p));
    for (int r = 0; r < p; ++r)
      EXPECT_LT(c.step.idleNs[r], base.step.idleNs[r]);
  }
}

// DualPipeV (DeepSeek-V3 report; DualPipe's V-shape cut in half): the paper's bubble is
// (PP/2-1)(F&B + B - 3W) with PP = 2p chunk stages; here an overlapped F&B pair runs as F + B,
// so the bound is (p-1)(3 + 2 - 3) = 2(p-1) chunk units per rank. Activations: PP+1 = 2p+1 chunk
// activations per rank at most.
TEST(ScheduleBubble, DualPipeVWithinThePaperBubbleAndMemory) {
  for (int p : {2, 3, 4, 6, 8})
    for (int m : {2 * p, 3 * p, 32}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const Plan plan = generate("dualpipe-v", p, m);
      const Measured d = run(plan);
      for (int r = 0; r < p; ++r) {
        EXPECT_LE(d.step.idleNs[r], 2 * (p - 1) * kUs) << "rank " << r;  // the paper's bound
        EXPECT_EQ(d.step.idleNs[r], (p - 1) * kUs) << "rank " << r;      // this order's
        EXPECT_LE(d.peak[r], 2 * p + 1) << "rank " << r;
      }
      EXPECT_EQ(d.peak[0], 2 * p + 1);
      int pairs = 0;  // the steady state overlaps forward and backward chunks
      for (const auto& prog : plan.programs)
        for (const Action& a : prog)
          pairs += a.overlapNext;
      EXPECT_GT(pairs, 0);
    }
}

// PipeDream (SOSP'19) and PipeDream-2BW (ICML'21) never flush: after the first warm-up every
// rank alternates forward and backward across step boundaries, so the steady-state bubble is
// zero and the first step alone carries the fill.
TEST(ScheduleBubble, AsynchronousPipelinesNeverDrainBetweenSteps) {
  for (const char* name : {"pipedream", "pipedream-2bw"})
    for (int p : {2, 4, 8})
      for (int m : {p, 2 * p}) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        const Plan plan = generate(name, p, m, 1, 4);
        const CostModel cost = test::uniformCosts(plan.numLayers);
        EXPECT_EQ(test::steadyStateBubble(plan, test::validateAndSimulate(plan, cost)), 0.0);
      }
}

}  // namespace
}  // namespace ps::runtime
