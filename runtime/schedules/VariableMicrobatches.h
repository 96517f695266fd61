#pragma once
// DynaPipe (Jiang et al., "DynaPipe: Optimizing Multi-task Training through Dynamic Pipelines",
// EuroSys 2024): a global batch of sequences of different lengths becomes micro-batches of
// different sizes. Two ways to group them:
//  - packed (the baseline): sequences concatenated, in the order given, into rows of
//    `rowTokens` tokens (first fit); a micro-batch takes budget / rowTokens rows. Every row costs
//    a full sequence: attention runs over the whole row, and a row's unused tail is padding.
//  - dp (DynaPipe's dynamic micro-batching): sequences sorted by length, then cut into
//    contiguous groups padded to their longest by a DP for the least pipeline latency
//    Σ t_i + (p-1)·max t_i, each group's padded tokens within the budget.
//
// Cost model (as TokenSlices.h's): a layer's time over one sequence of T = rowTokens tokens is
// the cost flags'; its linear part (1 - A) scales with tokens, its attention part A with tokens
// times the sequence's length. A group of n sequences padded to L costs
// n·L/T·((1 - A) + A·L/T) of it, plus `overhead` for any micro-batch (the fixed work of a
// micro-batch: weight reads, kernel launches, small-GEMM inefficiency). Memory scales the same
// way (an approximation: activations grow with tokens only).

#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct SequenceBatching {
  int rowTokens = 2048;           // T: the reference sequence of the cost flags, a packed row
  double attentionShare = 0.5;    // A
  long long budgetTokens = 8192;  // padded tokens per micro-batch, at most
  double overhead = 0;            // per micro-batch, as a fraction of one T-token sequence's cost
};

// The cost of n sequences padded to `maxLen` tokens, relative to one T-token sequence's.
double paddedGroupScale(const SequenceBatching& b, int n, int maxLen);

// "--seq-lengths": "l1,l2,..." or "@FILE" (lengths separated by commas, spaces or new lines).
// Each in 1..rowTokens. Errors name the flag, file and value.
Result<std::vector<int>> parseSequenceLengths(const std::string& text, int rowTokens);

struct Microbatching {
  std::vector<double> scales;            // per micro-batch, its cost relative to the flags'
  std::vector<std::vector<int>> groups;  // per micro-batch, the sequences (indices) it holds
  // Per micro-batch, its rows' sequences: dp pads each sequence to the group's longest, packed
  // rows hold several side by side.
  std::vector<std::vector<std::vector<int>>> rows;
  long long paddedTokens = 0;  // tokens computed, padding included
};

Result<Microbatching> packedMicrobatches(const std::vector<int>& lengths,
                                         const SequenceBatching& b);
Result<Microbatching> dpMicrobatches(const std::vector<int>& lengths, const SequenceBatching& b,
                                     int stages);

// DynaPipe's order for uneven micro-batches: the cheapest first and last, the dearest in the
// middle (a pipeline's warm-up waits on its first micro-batch's forwards, its cool-down on the last
// one's backwards). dpMicrobatches returns its groups in this order.
void orderForPipeline(Microbatching& mb);

// Σ t_i + (p-1)·max t_i of a micro-batching, in units of one T-token sequence's time.
double pipelineLatency(const std::vector<double>& scales, int stages);

// Sets each micro-batch's cost scale (the plan has one micro-batch per group).
[[nodiscard]] Status applyMicrobatchScales(Plan& plan, const std::vector<double>& scales);

}  // namespace ps::runtime
