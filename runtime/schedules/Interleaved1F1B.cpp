// Interleaved 1F1B — D. Narayanan, M. Shoeybi, J. Casper, P. LeGresley, M. Patwary,
// V. Korthikanti, D. Vainbrand, P. Kashinkunti, J. Bernauer, B. Catanzaro, A. Phanishayee,
// M. Zaharia: "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", SC 2021 (§2.2.2).
//
// The model is cut into p·v stages; stage s lives on rank s % p (a loop), so each rank holds v
// chunks. Forwards walk the chunks in groups of p micro-batches (chunk 0 for micro-batches
// 0..p-1, chunk 1 for the same micro-batches, ..., then chunk 0 for p..2p-1, ...); backwards
// walk the chunks in the opposite order. Each rank runs a 1F1B over its m·v "virtual"
// micro-batches with (p-1-r)·2 + (v-1)·p warm-up forwards: (v-1)·p forwards fill the first
// chunks before the first micro-batch comes back, and two per downstream rank cover the
// round trip of a forward and a backward through it. The bubble time shrinks to 1F1B's ÷ v.
// Constraint (the paper's): m a multiple of p, so that the groups of p are whole. With v = 1
// this is plain 1F1B.

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateInterleaved1F1B(const ScheduleParams& params) {
  const std::string name = "interleaved-1f1b";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches, v = params.chunks;
  if (m % p != 0)
    return sched::constraintError(name, "m to be a multiple of p", {{"m", m}, {"p", p}});
  Plan plan = planSkeleton(name, p, p * v, m, [p](int s) { return s % p; });
  const int total = m * v;
  // Virtual micro-batch k → (chunk, micro-batch): groups of p micro-batches per chunk.
  auto chunkOf = [&](int k, bool forward) {
    int c = (k / p) % v;
    return forward ? c : v - 1 - c;
  };
  auto mbOf = [&](int k) { return (k / (p * v)) * p + k % p; };
  for (int r = 0; r < p; ++r) {
    const int warmup = v == 1 ? p - 1 - r : (p - 1 - r) * 2 + (v - 1) * p;
    auto& prog = plan.programs[r];
    prog.reserve(2 * static_cast<std::size_t>(total));
    for (auto [k, fwd] : sched::oneFOneBSequence(warmup, total)) {
      const int stage = chunkOf(k, fwd) * p + r;
      prog.push_back(sched::makeAction(fwd ? OpKind::F : OpKind::B, stage, mbOf(k)));
    }
  }
  return plan;
}

}  // namespace ps::runtime
