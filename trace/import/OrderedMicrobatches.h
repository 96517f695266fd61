#pragma once
// Labels that name the phase but not the micro-batch (issue 31 §1): Megatron-LM's timer names
// `forward-compute`, `backward-compute`, `forward-recv`, `backward-send`,
// `forward-send-backward-recv`, ..., which hand-written pipelines reuse as record_function labels.
// Without numbers no send pairs with its receive and no op has an input, so the analysis called
// a third of the time "other". A pipeline processes the micro-batches of one kind in order on a
// rank (every non-interleaved schedule does: GPipe, 1F1B, zero-bubble's W after B), so the k-th
// such op of a kind in a step is micro-batch k; the stage is the rank (Megatron's layout without
// virtual stages, which would name a chunk).
//
// Not numbered: ops whose label gives a micro-batch, stage or chunk, communication calls
// (`gloo:send`: OpRecognizer::isBackendCall), and kinds outside the pipeline (OPT, AR, A2A).

#include <cstddef>
#include <vector>

#include "trace/TraceRecords.h"
#include "trace/import/OpRecognizer.h"

namespace ps::trace::import {

// Whether an op recognised from `label` as `op` is to be numbered by order.
bool numberedByOrder(const RecognizedOp& op, bool backendCall);

// Gives ops[i], for each i in `unindexed`, micro-batch = its position among the rank's ops of
// the same step, kind and stage, in start order (ties: the order in `unindexed`).
void numberByOrder(std::vector<OpRecord>& ops, const std::vector<std::size_t>& unindexed);

}  // namespace ps::trace::import
