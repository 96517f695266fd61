#include "ui/teach/Lessons.h"

namespace ps::ui {

using trace::OpKind;

namespace {

// The Papers presets run p = 4 ranks and m = 8 micro-batches; the texts name ops of those runs.
std::vector<Lesson> makeLessons() {
  std::vector<Lesson> out;
  out.push_back(
      {"gpipe",
       "GPipe",
       {{"All forwards first. Rank 0 runs F0 to F7 back to back (highlighted); rank 3 can start "
         "F0 only after ranks 0, 1 and 2 have each done theirs: the empty wedge at the top left "
         "is the fill.",
         {{OpKind::F, 0, 0, 7}, {OpKind::F, -1, 0, 0}}},
        {"Then all backwards, from the last stage back up. Rank 3 starts B7 right after F7; rank 0 "
         "waits until the gradient of micro-batch 7 has come back through ranks 3, 2 and 1: the "
         "wedge at the bottom right is the drain.",
         {{OpKind::B, -1, 7, 7}}},
        {"The price is memory: at the turn every rank holds all 8 micro-batches' activations "
         "(watch rank 0's in-flight count reach 8). The bubble is (p-1)/(m+p-1): only more "
         "micro-batches shrink it.",
         {{OpKind::F, 0, 7, 7}, {OpKind::B, 0, 7, 7}}}}});
  out.push_back(
      {"1f1b",
       "1F1B",
       {{"Warm-up: rank r runs p-r forwards before its first backward. Rank 0 does F0 to F3 "
         "(highlighted), rank 3 only F0, then B0 at once.",
         {{OpKind::F, 0, 0, 3}, {OpKind::F, 3, 0, 0}, {OpKind::B, 3, 0, 0}}},
        {"Steady state: one forward, one backward. On rank 0, B0 runs as soon as the gradient is "
         "back from rank 1, then F4, B1, F5, ...: a new micro-batch enters only when an old one "
         "leaves.",
         {{OpKind::B, 0, 0, 1}, {OpKind::F, 0, 4, 5}}},
        {"Same bubble as GPipe, (p-1)/(m+p-1), but rank 0 never holds more than p = 4 "
         "micro-batches' activations instead of m = 8: its count peaks at F3.",
         {{OpKind::F, 0, 3, 3}}}}});
  out.push_back(
      {"interleaved-1f1b",
       "Interleaved 1F1B",
       {{"Each rank holds v = 2 chunks of the model: rank 0 stages 0 and 4, rank 3 stages 3 and "
         "7. Micro-batch 0 goes down ranks 0 to 3 twice (its forwards are highlighted).",
         {{OpKind::F, -1, 0, 0}}},
        {"The fill is still p-1 chunk forwards deep (rank 3 starts after three), but every rank "
         "now has v·m = 16 chunk forwards and backwards to run, so the bubble's share falls to "
         "(p-1)/(v·m+p-1).",
         {{OpKind::F, 3, 0, 0, 3}}},
        {"The price: each micro-batch crosses every rank v times each way, twice the messages of "
         "1F1B (micro-batch 0's backwards are highlighted).",
         {{OpKind::B, -1, 0, 0}}}}});
  out.push_back(
      {"zb-h1",
       "ZB-H1",
       {{"The backward is split in two: I, the input gradient the previous stage waits for, and "
         "W, the weight gradient nobody waits for (micro-batch 0's I and W are highlighted).",
         {{OpKind::I, -1, 0, 0}, {OpKind::W, -1, 0, 0}}},
        {"So W can wait. The last ranks keep W4 to W7 for the end, where 1F1B's drain left them "
         "idle: the W's fill the bubble.",
         {{OpKind::W, 3, 4, 7}, {OpKind::W, 2, 4, 7}}},
        {"The bubble is about a third of 1F1B's, (p-1)/(3m+p-1) under the paper's F = I = W "
         "times, with 1F1B's activation memory: rank 0 still holds at most p = 4 (its count "
         "peaks at F3).",
         {{OpKind::F, 0, 3, 3}}}}});
  out.push_back(
      {"dualpipe-v",
       "DualPipeV",
       {{"A V: each rank holds one stage on the way down and one on the way back. Rank 0 holds "
         "stages 0 and 7, rank 3 stages 3 and 4, so micro-batch 0 turns on rank 3 without a "
         "transfer (its forwards are highlighted).",
         {{OpKind::F, -1, 0, 0}}},
        {"The last stage is back on rank 0: its backward I0 on stage 7 starts there while rank 0 "
         "is still feeding forwards, and the W's fill the gaps as in ZB-H1.",
         {{OpKind::I, 0, 0, 0, 7}, {OpKind::W, 0, 0, 0, 7}}},
        {"Its paper gives no closed form here: compare the measured bubble with 1F1B's "
         "(p-1)/(m+p-1) at the same p and m. The price is memory: rank 0 holds many micro-batches "
         "in flight during the warm-up (its count on the lane).",
         {{OpKind::F, 0, 0, 6, 0}}}}});
  return out;
}

bool inRange(int value, int from, int to) {
  return (from < 0 || value >= from) && (to < 0 || value <= to);
}

}  // namespace

const std::vector<Lesson>& classicLessons() {
  static const std::vector<Lesson> lessons = makeLessons();
  return lessons;
}

const Lesson* lessonFor(std::string_view schedule) {
  for (const Lesson& l : classicLessons())
    if (l.schedule == schedule) return &l;
  return nullptr;
}

std::vector<trace::OpRef> lessonOps(const trace::RunTrace& run, const LessonStep& step) {
  std::vector<trace::OpRef> out;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const auto& c = run.ranks[r].lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c.step[i] != 0) continue;
      for (const LessonOps& want : step.ops)
        if (c.kind[i] == want.kind && inRange(static_cast<int>(r), want.rank, want.rank) &&
            inRange(c.microbatch[i], want.mbFrom, want.mbTo) &&
            inRange(c.stage[i], want.stage, want.stage)) {
          out.push_back({static_cast<int>(r), trace::Lane::Compute, i});
          break;
        }
    }
  }
  return out;
}

}  // namespace ps::ui
