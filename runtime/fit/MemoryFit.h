#pragma once
// Memory per rank as fixed bytes (weights, gradients, optimizer state, workspace) plus bytes per
// micro-batch in flight (activations kept from a forward until its last backward), fitted by
// least squares to the run's memory samples against the in-flight counts its ops give
// (issue 31 §2). Only samples inside the fit steps count.

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/fit/RecordedProgram.h"
#include "trace/RunTrace.h"

namespace ps::runtime::fit {

struct RankMemoryFit {
  std::size_t samples = 0;
  double fixedBytes = 0;
  double perMicrobatchBytes = 0;
};

struct MemoryFit {
  std::vector<RankMemoryFit> ranks;  // [rank]; samples 0 where the run has none
  bool fitted() const;               // some rank had samples
  std::vector<std::string> notes;
};

MemoryFit fitMemory(const trace::RunTrace& run, const RecordedProgram& program);

}  // namespace ps::runtime::fit
