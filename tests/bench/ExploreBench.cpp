// The explorer at the size: p = 8, m in {8, 16, 32, 64}, V in {1, 2, 4}, every
// synchronous schedule, both partitions, 32 uniform layers. Goal: under 10 s per sweep on a
// 2-core machine (the time column; s_per_sweep says the same in seconds). Prints how many
// candidates were simulated and how many refused (a schedule's constraint on p, m or V).

#include <benchmark/benchmark.h>

#include "runtime/run/Explore.h"

namespace {

ps::runtime::ExploreSpec sweep() {
  ps::runtime::ExploreSpec spec;
  spec.base.stages = 8;
  spec.base.layers = 32;
  spec.base.uniform.actMb = 1;
  spec.microbatches = {8, 16, 32, 64};
  spec.chunks = {1, 2, 4};
  return spec;
}

void BM_Explore_p8(benchmark::State& state) {
  const ps::runtime::ExploreSpec spec = sweep();
  std::size_t candidates = 0, refused = 0;
  for (auto _ : state) {
    auto result = ps::runtime::explorePlans(spec);
    if (!result) {
      state.SkipWithError(result.error().c_str());
      return;
    }
    candidates = result->ranked.size();
    refused = result->refused.size();
    benchmark::DoNotOptimize(result->ranked.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["refused"] = static_cast<double>(refused);
  state.counters["s_per_sweep_goal_10"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Explore_p8)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
