#pragma once
// TeraPipe (Li et al., "TeraPipe: Token-Level Pipeline Parallelism for Training Large-Scale
// Language Models", ICML 2021): one long sequence is cut into slices of tokens that flow through
// the pipeline one after the other. A causal transformer's slice attends to every token before
// it, so F(s, slice k) follows F(s, slice k-1) and the backward runs the other way; and a slice's
// cost grows with its prefix: equal slices are not equally long. TeraPipe picks the lengths by
// dynamic programming, for the pipeline latency Σ t_i + (p-1)·max t_i.
//
// Cost model: a layer's forward over the whole sequence (the cost flags') is a linear part,
// 1 - A, and causal attention, A (--attention-share). A slice of `len` tokens after `prefix`
// tokens of a sequence of T costs (1 - A)·len/T + A·len·(prefix + len/2)/(T²/2) of it (the
// slices of a sequence add up to exactly the whole). Activations and transfers scale the same
// way (an approximation: they grow with len only).

#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct TokenSlicing {
  int tokens = 2048;            // the sequence's length
  double attentionShare = 0.5;  // A
  double overhead =
      0;  // a slice's fixed cost, as a fraction of the whole sequence's (--microbatch-overhead)
};

// A slice's cost relative to the whole sequence's (without the overhead).
double sliceScale(const TokenSlicing& s, int prefix, int len);

// TeraPipe's DP over a grid of at most 64 cells of tokens: the lengths (summing to s.tokens)
// with the least sequences·Σ t_i + (stages-1)·max t_i, t_i = sliceScale + overhead (without an
// overhead the finest grid always wins).
std::vector<int> bestSliceLengths(const TokenSlicing& s, int stages, int sequences);

// "--token-slices": "K" (K equal slices, the remainder spread over the first), "auto" (the DP)
// or "l1,l2,..." (lengths summing to the sequence). Errors name the flag and value.
Result<std::vector<int>> parseTokenSlices(const std::string& text, const TokenSlicing& s,
                                          int stages, int sequences);

// `plan`: one step of gpipe over sequences × K micro-batches, micro-batch j = sequence·K + k.
// Sets each micro-batch's cost scale and slice chain, and the backward chain of each sequence
// (B(s, k-1) after B(s, k)) as extra edges.
[[nodiscard]] Status sliceTokens(Plan& plan, const std::vector<int>& lengths,
                                 const TokenSlicing& s);

}  // namespace ps::runtime
