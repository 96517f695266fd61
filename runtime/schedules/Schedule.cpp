#include "runtime/schedules/Schedule.h"

#include "runtime/schedules/Generators.h"

namespace ps::runtime {

const std::vector<ScheduleInfo>& scheduleRegistry() {
  // Built once; the order is the one `pipescope-cli schedules` prints (family by family, from
  // the oldest idea to the newest).
  static const std::vector<ScheduleInfo> registry = {
      {"gpipe", "classic", "all forwards, then all backwards (GPipe, Huang et al. 2019)", "none",
       false, generateGpipe, flushBubble},
      {"1f1b", "classic",
       "one forward, one backward, flush at the step's end (PipeDream-Flush / DAPPLE)", "none",
       false, generateOneFOneB, flushBubble},
      {"interleaved-1f1b", "interleaved",
       "1F1B over v looped chunks per rank (Megatron-LM, Narayanan et al. 2021): bubble / v",
       "m a multiple of p", false, generateInterleaved1F1B, interleavedBubble},
      {"looped-bfs", "interleaved",
       "breadth-first over v looped chunks (Lamy-Poirier 2023): bubble / v, GPipe's memory", "none",
       false, generateLoopedBfs, interleavedBubble},
      {"zb-h1", "zero-bubble",
       "backward split into I and W, W postponed into the bubbles (Qi et al. 2024): 1F1B's "
       "memory, bubble / 3",
       "m >= p", false, generateZeroBubbleH1, zeroBubbleH1Bubble},
      {"zb-h2", "zero-bubble",
       "2p-1 forwards in flight, parallelogram steps (Qi et al. 2024): zero steady-state bubble "
       "without an optimizer barrier",
       "m >= 2p-1", false, generateZeroBubbleH2},
      {"zb-v", "zero-bubble",
       "zero-bubble over two chunks per rank in a V (Qi et al. 2024): 1F1B's memory on every "
       "rank, zero steady-state bubble without an optimizer barrier (m >= 2p-1)",
       "v = 2 (fixed)", false, generateZeroBubbleV, zeroBubbleVBubble},
      {"chimera", "bidirectional",
       "two pipeline replicas in opposite directions (Chimera, Li & Hoefler 2021); forward "
       "doubling for m > p",
       "p even, m = p or a multiple of 2p", false, generateChimera, chimeraBubble},
      {"dualpipe-v", "bidirectional",
       "DeepSeek's DualPipe cut in half: V shape, forward and backward chunks overlapped",
       "v = 2 (fixed), m >= 2p", false, generateDualPipeV},
      {"bitpipe", "bidirectional",
       "two V-shaped interleaved pipelines in opposite directions (BitPipe, Wu et al. 2024): "
       "below Chimera's and interleaved 1F1B's bubble",
       "v = 2 (fixed), p even, m a multiple of p", false, generateBitPipe},
      {"pipedream", "asynchronous",
       "1F1B without flushes, weight stashing (PipeDream, Narayanan et al. 2019)", "none", true,
       generatePipeDream},
      {"pipedream-2bw", "asynchronous",
       "1F1B without flushes, two weight versions updated every m micro-batches (PipeDream-2BW)",
       "m >= p", true, generatePipeDream2BW},
      {"nf1b", "asynchronous",
       "TiMePReSt's nF1B (Dutta et al. 2024): asynchronous 1F1B over whole mini-batches, the m "
       "forwards of one then the backward of the oldest and its update; --weight-versions latest "
       "drops the stash",
       "none", true, generateNF1B},
  };
  return registry;
}

const ScheduleInfo* findSchedule(const std::string& name) {
  for (const auto& info : scheduleRegistry())
    if (info.name == name) return &info;
  return nullptr;
}

Result<Plan> generateSchedule(const std::string& name, const ScheduleParams& params) {
  const ScheduleInfo* info = findSchedule(name);
  if (!info) {
    std::string valid;
    for (const auto& i : scheduleRegistry())
      valid += (valid.empty() ? "" : ", ") + i.name;
    return Error{"unknown schedule '" + name + "' (valid: " + valid + ")"};
  }
  return info->generate(params);
}

Status checkBasicParams(const std::string& name, const ScheduleParams& p) {
  auto positive = [&](const char* what, int value) -> Status {
    if (value > 0) return {};
    return Error{name + ": " + what + " must be positive (got " + std::to_string(value) + ")"};
  };
  PS_TRY(positive("ranks", p.ranks));
  PS_TRY(positive("microbatches", p.microbatches));
  PS_TRY(positive("chunks", p.chunks));
  PS_TRY(positive("steps", p.steps));
  return {};
}

Plan planSkeleton(const std::string& name, int ranks, int stages, int microbatches,
                  const std::function<int(int stage)>& rankOfStage) {
  Plan plan;
  plan.schedule = name;
  plan.numRanks = ranks;
  plan.numStages = stages;
  plan.chunks = ranks > 0 && stages % ranks == 0 ? stages / ranks : 1;
  plan.numLayers = stages;
  plan.placement.assign(1, {});
  plan.placement[0].reserve(stages);
  for (int s = 0; s < stages; ++s)
    plan.placement[0].push_back({rankOfStage(s), s, s});
  plan.microbatches.assign(microbatches, MicrobatchSpec{});
  plan.programs.assign(ranks, {});
  return plan;
}

}  // namespace ps::runtime
