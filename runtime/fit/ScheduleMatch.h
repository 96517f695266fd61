#pragma once
// Names the schedule a recorded program follows (issue 31 §2): every registered generator is run
// for the program's P, M and V and its per-rank order of forward and backward actions compared
// with the recorded one. The torch-pipelining CSV of the recorded order stands in when none
// matches, so that an unknown schedule still reruns as what it was.

#include <string>

#include "runtime/fit/RecordedProgram.h"

namespace ps::runtime::fit {

struct ScheduleMatch {
  std::string name;           // the matching generator; empty when none matches
  std::string nearest;        // the closest generator when none matches (empty when none ran)
  std::size_t differing = 0;  // nearest: actions whose (kind, stage, micro-batch) differ
  std::size_t actions = 0;    // actions compared
};

// Tries every generator of scheduleRegistry(): same placement of stages on ranks and the same
// order of F/B/I/W per rank in the first step (R, OPT and FILL aside; overlap ignored).
ScheduleMatch matchSchedule(const RecordedProgram& program);

// The recorded order as a torch-pipelining CSV (compute only; overlapped pairs as
// "(0F7;7B3)OVERLAP_F_B"), which `--schedule-file` and a plan's "schedule_file" read back.
std::string recordedScheduleCsv(const RecordedProgram& program);

}  // namespace ps::runtime::fit
