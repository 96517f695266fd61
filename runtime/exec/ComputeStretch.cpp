#include "runtime/exec/ComputeStretch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace ps::runtime {

std::vector<double> computeStretchOf(const CostModel& cost, int ranks) {
  std::vector<double> speeds;
  for (int r = 0; r < ranks; ++r)
    speeds.push_back(cost.speedOf(r));
  if (speeds.empty()) return {};
  const double fastest = *std::max_element(speeds.begin(), speeds.end());
  if (std::all_of(speeds.begin(), speeds.end(), [&](double s) { return s == fastest; })) return {};
  std::vector<double> stretch;
  for (double s : speeds)
    stretch.push_back(s > 0 ? fastest / s : 1.0);
  return stretch;
}

std::int64_t stretchCompute(std::int64_t start, std::int64_t end, double stretch,
                            const std::function<std::int64_t()>& now) {
  if (!(stretch > 1.0) || end <= start) return end;
  const double took = static_cast<double>(end - start);
  const auto target = start + static_cast<std::int64_t>(std::llround(took * stretch));
  // A sleep overshoots by tens of µs: sleep to short of the target, then yield up to it.
  constexpr std::int64_t kSpinNs = 200'000;
  for (std::int64_t t = now();; t = now()) {
    if (t >= target) return t;
    if (target - t > kSpinNs)
      std::this_thread::sleep_for(std::chrono::nanoseconds(target - t - kSpinNs / 2));
    else
      std::this_thread::yield();
  }
}

}  // namespace ps::runtime
