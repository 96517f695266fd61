#include "runtime/run/TokenLayoutsOf.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace ps::runtime {
namespace {

// TeraPipe: micro-batch seq·K + k of each replica is slice k of the model's micro-batch `seq`
// of that replica, every one of its rows cut at the same tokens.
void sliceLayouts(const SequencePlan& sp, const ModelConfig& model, int replicas, int perReplica,
                  TokenLayouts& out) {
  const auto K = static_cast<int>(sp.sliceLengths.size());
  const int sequences = perReplica / K;
  out.slicesOfMicrobatches = true;
  out.rowsPerMicrobatch = model.microbatchSize;
  const double stepTokens = static_cast<double>(replicas) * sequences * model.seq;
  for (int rep = 0; rep < replicas; ++rep)
    for (int seq = 0; seq < sequences; ++seq) {
      const int source = rep * sequences + seq;  // the unsliced run's micro-batch
      int prefix = 0;
      for (int k = 0; k < K; ++k) {
        const int len = sp.sliceLengths[static_cast<std::size_t>(k)];
        MicrobatchTokens mb;
        mb.cols = len;
        mb.prefix = prefix;
        mb.firstSlice = rep * perReplica + seq * K;
        mb.lossWeight = len / stepTokens;
        for (int b = 0; b < model.microbatchSize; ++b)
          mb.rows.push_back({{source * model.microbatchSize + b, prefix, len}});
        out.microbatches.push_back(std::move(mb));
        prefix += len;
      }
    }
}

// DynaPipe: each micro-batch's rows of whole sequences, padded to the longest row (dp) or to a
// full --seq-tokens row (packed rows, as their cost model has it).
void groupLayouts(const SequencePlan& sp, int replicas, bool packed, TokenLayouts& out) {
  const auto N = static_cast<int>(sp.lengths.size());
  for (int rep = 0; rep < replicas; ++rep)
    out.sequenceLengths.insert(out.sequenceLengths.end(), sp.lengths.begin(), sp.lengths.end());
  const double stepTokens =
      static_cast<double>(replicas) * std::accumulate(sp.lengths.begin(), sp.lengths.end(), 0.0);
  for (int rep = 0; rep < replicas; ++rep)
    for (const auto& rows : sp.rows) {
      MicrobatchTokens mb;
      for (const auto& row : rows) {
        auto& pieces = mb.rows.emplace_back();
        int used = 0;
        for (int s : row) {
          const int len = sp.lengths[static_cast<std::size_t>(s)];
          pieces.push_back({rep * N + s, 0, len});
          used += len;
        }
        mb.cols = std::max(mb.cols, used);
      }
      if (packed) mb.cols = sp.tokens;
      mb.lossWeight = static_cast<double>(mb.realTokens()) / stepTokens;
      out.microbatches.push_back(std::move(mb));
    }
}

}  // namespace

Result<std::shared_ptr<const TokenLayouts>> tokenLayoutsOf(const BuiltPlan& built,
                                                           const ModelConfig& model) {
  const SequencePlan& sp = built.sequences;
  if (sp.empty()) return std::shared_ptr<const TokenLayouts>();
  const bool sliced = !sp.sliceLengths.empty();
  const std::string flag = sliced ? "--token-slices" : "--seq-lengths";
  if (model.seq != sp.tokens)
    return Error{flag + ": the model trains sequences of --seq " + std::to_string(model.seq) +
                 " tokens, the plan cuts --seq-tokens " + std::to_string(sp.tokens) +
                 " (give both the same value)"};
  const int total = built.plan.numMicrobatches();
  int perReplica = static_cast<int>(sp.rows.size());
  if (sliced) {
    perReplica = 0;
    for (const MicrobatchSpec& mb : built.plan.microbatches)
      if (mb.replica == 0) ++perReplica;
  }
  if (perReplica < 1 || total % perReplica != 0 ||
      (sliced && perReplica % static_cast<int>(sp.sliceLengths.size()) != 0))
    return Error{flag + ": the plan's " + std::to_string(total) +
                 " micro-batches do not match its sequences"};
  auto out = std::make_shared<TokenLayouts>();
  if (sliced)
    sliceLayouts(sp, model, total / perReplica, perReplica, *out);
  else
    groupLayouts(sp, total / perReplica, sp.packed, *out);
  return std::shared_ptr<const TokenLayouts>(std::move(out));
}

}  // namespace ps::runtime
