#pragma once
// What a message between ranks is for (Mailbox.h, the transports, the NCCL channel order): its own
// header so that CommOrder.h, which ui reaches through runtime/cuda/CudaBackend.h, needs no Tensor
// and so no kernels/ header (DESIGN §1).

#include <compare>

namespace ps::runtime {

struct MessageKey {
  bool backward = false;  // false: activation for F; true: gradient for I/B
  int stage = 0;          // the consuming stage
  int replica = 0;
  int microbatch = 0;
  int step = 0;
  int fromStage = 0;  // the producing stage (a stage DAG may deliver several inputs)
  // A MoE layer's all-to-all between a stage's replicas (fromStage = stage): layer · 4 + phase;
  // kEmbeddingTag − sender rank for NestPipe's embedding rows to stage 0 and their gradients
  // back (stage = fromStage = 0); kHistoryRefreshTag for GNNPipe's full-graph refresh from
  // stage fromStage to stage (marked backward, a direction no chain's gradient takes); −1 for
  // the pipeline's activations and gradients.
  int expertTag = -1;
  static constexpr int kEmbeddingTag = -2;
  static constexpr int kHistoryRefreshTag = -(1 << 30);
  auto operator<=>(const MessageKey&) const = default;
};

}  // namespace ps::runtime
