#pragma once
// The costs of a recorded or imported run (issue 31 §2, "Costs"): per stage and op kind the
// durations' mean, median and spread; per link a bandwidth and latency fitted from the matched
// transfers; the optimizer step per rank. Only the steps RecordedProgram::fitSteps names count.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/fit/RecordedProgram.h"
#include "trace/RunTrace.h"

namespace ps::runtime::fit {

struct KindCost {
  int stage = 0;
  trace::OpKind kind = trace::OpKind::F;
  std::size_t count = 0;
  double meanNs = 0;  // what the plan takes: it keeps every rank's busy time
  double medianNs = 0;
  double p10Ns = 0;
  double p90Ns = 0;
};

struct LinkFit {
  std::size_t samples = 0;  // matched send/receive pairs
  std::size_t sizes = 0;    // distinct byte counts among them
  double bytesPerNs = 0;    // 0: no bandwidth limit found (free link)
  double latencyNs = 0;
  double medianBytes = 0;
  // Per stage, the median bytes crossing the boundary after it (its SEND_F, else the SEND_B
  // back into it); -1 where no transfer says.
  std::vector<double> boundaryBytes;
  std::string how;  // one line: which fit and from what
};

struct CostFit {
  std::vector<KindCost> kinds;      // by (stage, kind)
  LinkFit link;                     // one link for every pair
  std::vector<double> optimizerNs;  // per rank, the mean OPT duration (0 without OPT)
  std::vector<std::string> notes;

  const KindCost* find(int stage, trace::OpKind kind) const;
};

CostFit fitCosts(const trace::RunTrace& run, const RecordedProgram& program);

// Least squares y = a + b·x over the points; b = 0 and a = mean(y) when x has no spread.
struct LineFit {
  double intercept = 0;
  double slope = 0;
};
LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace ps::runtime::fit
