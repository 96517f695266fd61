// bench_synth: schedule synthesis (issue 36 §1) at p 8, m 32 on the skewed transformer, with no
// cap and under ZB-H1's peak: the search's wall time (target: within 10 s) and, measured in the
// same run, the synthesised step over the fastest generator's under the same caps.

#include <benchmark/benchmark.h>

#include <string>

#include "runtime/synth/SynthOutput.h"
#include "runtime/synth/Synthesise.h"

namespace {

using namespace ps::runtime::synth;

SynthRequest request(bool capAtZbH1) {
  SynthRequest r;
  r.spec.stages = 8;
  r.spec.microbatches = 32;
  r.spec.costsFile =
      std::string(PIPESCOPE_BENCH_SOURCE_DIR) + "/resources/costs/skewed-transformer.json";
  if (capAtZbH1) {
    auto caps = capsOfSchedule(r, "zb-h1");
    if (caps) r.spec.rankMemoryGb = *caps;
  }
  return r;
}

void BM_Synth_p8_m32(benchmark::State& state) {
  const SynthRequest r = request(state.range(0) != 0);
  for (auto _ : state) {
    auto s = synthesise(r);
    if (!s) {
      state.SkipWithError(s.error().c_str());
      return;
    }
    const SynthBaseline* best = bestBaseline(s->baselines);
    state.counters["search_s"] = s->seconds;
    state.counters["passes"] = s->passes;
    state.counters["step_ms"] = static_cast<double>(s->stepNs) / 1e6;
    if (best)
      state.counters["step_over_best_generator"] =
          static_cast<double>(s->stepNs) / static_cast<double>(*best->stepNs);
  }
}
BENCHMARK(BM_Synth_p8_m32)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("cap_at_zb_h1")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
