#pragma once
// What the executor tests (cpu against the unpipelined model, cuda against cpu) share: a weight
// comparison and a schedule case with a test-name generator.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace ps::test {

// The largest |a − b| / max(|b|, 1e-3) over the two weight vectors (same length).
inline double maxRelError(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double scale = std::max(1e-3, std::fabs(static_cast<double>(b[i])));
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]) / scale);
  }
  return worst;
}

struct ScheduleCase {
  std::string schedule;
  int p, m, v;
  int dp = 1;  // --dp: data-parallel replicas of the pipeline (m is every replica's together)
};

// A gtest parameter name: the schedule with '-' made '_'.
struct ScheduleCaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param.schedule;
    std::replace(n.begin(), n.end(), '-', '_');
    if (info.param.dp > 1) n += "_dp" + std::to_string(info.param.dp);
    return n;
  }
};

}  // namespace ps::test
