#pragma once
// Staged, throttled progress (DESIGN §7.6), the one throttle every long job uses: a worker
// reports as often as it likes; an update goes through when it starts a new stage, when it ends
// one (fraction 1), or when it has moved on by at least one percent and at least `interval`
// has passed since the last update that went through (interval 0: once per percent). So a bar
// never skips a stage, never stops short of done, and the receiver sees at most ~100 updates per
// stage.

#include <chrono>
#include <string>
#include <string_view>

namespace ps::trace {

class ProgressThrottle {
 public:
  explicit ProgressThrottle(std::chrono::milliseconds interval = std::chrono::milliseconds(0))
      : interval_(interval) {}

  // True when this update should be shown. `fraction` is clamped to [0, 1].
  bool pass(std::string_view stage, double fraction) {
    const double f = fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
    const int percent = static_cast<int>(f * 100.0);
    const bool newStage = !started_ || stage != stage_;
    if (!newStage && f < 1.0) {
      if (percent <= percent_) return false;
      if (interval_.count() > 0 && std::chrono::steady_clock::now() - last_ < interval_)
        return false;
    }
    if (newStage) stage_.assign(stage);
    started_ = true;
    percent_ = percent;
    if (interval_.count() > 0) last_ = std::chrono::steady_clock::now();
    return true;
  }
  bool pass(double fraction) { return pass({}, fraction); }
  // `done` of `total` (total <= 0 counts as done).
  bool pass(std::string_view stage, long long done, long long total) {
    return pass(stage, total <= 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total));
  }

 private:
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_{};
  std::string stage_;
  int percent_ = -1;
  bool started_ = false;
};

}  // namespace ps::trace
