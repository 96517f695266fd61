#pragma once
// How a mixture-of-experts layer sharded over replicas (expert parallelism, Piper) reaches the
// other shards' experts: an all-to-all between the copies of the layer, which the executor runs
// over its transport (RankWorker). The layer hands it one part per replica and gets back one part
// from each.

#include <vector>

#include "runtime/model/MicrobatchKey.h"

namespace ps::runtime {

class ExpertExchange {
 public:
  virtual ~ExpertExchange() = default;
  // Sends parts[o] to replica o's copy of the layer (parts[own] stays) and returns what every
  // other replica sent this copy (the own entry empty), for this copy's micro-batch `key`, the
  // model's `layer` and the layer's `phase`-th exchange of the pass. Throws
  // kernels::DeviceError when the run fails while waiting.
  virtual std::vector<std::vector<float>> exchange(MicrobatchKey key, int layer, int phase,
                                                   std::vector<std::vector<float>> parts) = 0;
};

// What a layer's stash carries for its exchanges (ActivationStash::setExperts).
struct ExpertContext {
  ExpertExchange* exchange = nullptr;
  MicrobatchKey key;
  int layer = 0;
};

}  // namespace ps::runtime
