// OpLanes (Piper's overlap on the cpu backend): a rank's program on two lanes that take turns on
// its compute. An op that waits lets the next op start when that one may overlap it: another
// micro-batch's F, B, I or W of the same step; never its own micro-batch's, an OPT or the next
// step's first op.

#include "runtime/exec/OpLanes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace ps::runtime {
namespace {

using Clock = std::chrono::steady_clock;

struct Span {
  Clock::time_point start, end;
};

// Runs `program` on two lanes; each op waits `waitMs` outside the compute token (as an exchange
// does) and returns its start and end.
std::vector<Span> runLanes(const std::vector<Action>& program, int waitMs) {
  std::atomic<bool> abort{false};
  std::vector<Span> spans(program.size());
  std::mutex guard;
  OpLanes lanes(program, abort);
  const bool ok = lanes.run([&](std::size_t i) {
    const auto start = Clock::now();
    {
      OpLanes::Wait wait;
      std::this_thread::sleep_for(std::chrono::milliseconds(waitMs));
    }
    std::lock_guard lock(guard);
    spans[i] = {start, Clock::now()};
    return true;
  });
  EXPECT_TRUE(ok);
  return spans;
}

bool overlap(const Span& a, const Span& b) {
  return a.start < b.end && b.start < a.end;
}

TEST(OpLanes, AnotherMicrobatchStartsWhileAnOpWaits) {
  const std::vector<Action> program = {{OpKind::F, 0, 0, 0}, {OpKind::F, 0, 1, 0}};
  const auto spans = runLanes(program, 100);
  EXPECT_TRUE(overlap(spans[0], spans[1]));
  EXPECT_LE(spans[0].start, spans[1].start);  // in program order
}

TEST(OpLanes, OwnMicrobatchOptimizerAndStepBoundaryWait) {
  const std::vector<Action> program = {
      {OpKind::F, 0, 0, 0},                            // 0
      {OpKind::B, 0, 0, 0},                            // 1: its own micro-batch's F must end first
      {OpKind::OPT, -1, -1, 0}, {OpKind::F, 0, 0, 1},  // 3: the next step
      {OpKind::F, 0, 1, 1},                            // 4: beside 3
  };
  const auto spans = runLanes(program, 30);
  EXPECT_FALSE(overlap(spans[0], spans[1]));
  EXPECT_FALSE(overlap(spans[1], spans[2]));
  EXPECT_FALSE(overlap(spans[2], spans[3]));
  EXPECT_TRUE(overlap(spans[3], spans[4]));
}

TEST(OpLanes, AtMostTwoOpsAreInFlight) {
  std::vector<Action> program;
  for (int mb = 0; mb < 6; ++mb)
    program.push_back({OpKind::F, 0, mb, 0});
  const auto spans = runLanes(program, 40);
  // At each op's start, at most one other op is in flight (and, the ops waiting 40 ms, one is).
  int besideAnother = 0;
  for (const Span& s : spans) {
    int inFlight = 0;
    for (const Span& other : spans)
      if (other.start <= s.start && s.start < other.end) ++inFlight;
    EXPECT_LE(inFlight, 2);
    if (inFlight == 2) ++besideAnother;
  }
  EXPECT_GT(besideAnother, 0);
}

TEST(OpLanes, AFailedOpStopsLaterOpsFromStarting) {
  std::vector<Action> program;
  for (int mb = 0; mb < 6; ++mb)
    program.push_back({OpKind::F, 0, mb, 0});
  std::atomic<bool> abort{false};
  std::atomic<int> started{0};
  OpLanes lanes(program, abort);
  const bool ok = lanes.run([&](std::size_t i) {
    ++started;
    return i != 1;
  });
  EXPECT_FALSE(ok);
  EXPECT_EQ(started.load(), 2);  // no op waits, so none ran beside op 1; none started after it
}

}  // namespace
}  // namespace ps::runtime
