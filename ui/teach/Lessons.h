#pragma once
// The Teach dock's lessons: for each classic schedule (GPipe → 1F1B → interleaved → ZB-H1 →
// DualPipeV, the Papers presets of 4 ranks and 8 micro-batches) two or three steps of text, each
// naming the ops it talks about so that the timeline highlights them. Plain data and a matcher;
// no widget.

#include <string>
#include <string_view>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::ui {

// Ops a lesson step points at: every compute op of `kind` whose rank, stage and micro-batch fall
// in the given ranges (-1: any).
struct LessonOps {
  trace::OpKind kind;
  int rank = -1;
  int mbFrom = -1, mbTo = -1;
  int stage = -1;
};

struct LessonStep {
  std::string text;  // plain text; the ops it names are the `ops`
  std::vector<LessonOps> ops;
};

struct Lesson {
  std::string schedule;  // the run's schedule it is for, e.g. "1f1b"
  std::string title;     // "1F1B"
  std::vector<LessonStep> steps;
};

// The five lessons in teaching order.
const std::vector<Lesson>& classicLessons();
// The lesson for a run's schedule; null when there is none.
const Lesson* lessonFor(std::string_view schedule);
// The compute ops of step 0 of `run` that `step` names.
std::vector<trace::OpRef> lessonOps(const trace::RunTrace& run, const LessonStep& step);

}  // namespace ps::ui
