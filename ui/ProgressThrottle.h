#pragma once
// Staged, throttled progress (DESIGN §7.6): a worker reports as often as it likes; at most one
// update per interval reaches the GUI thread, except that a new stage and the end of a stage
// always go through, so the bar never skips a stage or stops short of done.

#include <chrono>
#include <string>

namespace ps::ui {

class ProgressThrottle {
 public:
  explicit ProgressThrottle(std::chrono::milliseconds interval = std::chrono::milliseconds(50))
      : interval_(interval) {}

  // True when this update should be shown.
  bool pass(const std::string& stage, int done, int total) {
    const auto now = std::chrono::steady_clock::now();
    const bool newStage = stage != stage_;
    if (!newStage && done < total && now - last_ < interval_) return false;
    stage_ = stage;
    last_ = now;
    return true;
  }

 private:
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_{};
  std::string stage_;
};

}  // namespace ps::ui
