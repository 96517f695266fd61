#pragma once
// Shape and seed of the trainable layered model (DESIGN §3, cpu backend): L identical blocks of
// hidden size H over micro-batches of B sequences of S tokens, fp32. Every layer's weights and
// every micro-batch's data derive from `seed`, so any rank rebuilds exactly its part of the model.

#include <cstdint>
#include <string_view>

#include "trace/Result.h"

namespace ps::runtime {

enum class BlockType {
  Mlp,          // y = x + W2·GELU(W1·LN(x) + b1) + b2
  Transformer,  // pre-LN: h = x + Attn(LN1(x)); y = h + MLP(LN2(h))
  // y = x + W2·LIF(W1·LN(x) + b1) + b2: the MLP block with leaky integrate-and-fire neurons run
  // for `timeSteps` steps in place of GELU, their firing rate as the activation and a surrogate
  // gradient through time (kernels/cpu/Lif.h). SpikePipe's spiking network.
  Spiking,
  // y = x + Σ_{j ∈ top-k} p_j(x) · E_j(x): a mixture of `experts` MLP experts (each its own
  // LN(x) → W1 → GELU → W2), a linear router over x with a softmax, each token sent to its top-k
  // experts, at most `capacity` tokens of a micro-batch per expert (the rest of an expert's
  // tokens dropped: only the residual and the other experts carry them). Piper's MoE layer.
  Moe,
  // y = x + W2·GELU(W1·LN(ā) + b1) + b2 with ā_v the mean of x over v and its graph neighbours
  // (ChunkGraph): a micro-batch is a chunk of the graph's nodes, a neighbour in another chunk
  // read from the layer's historical embeddings (no gradient through it). GNNPipe's GNN.
  Gnn,
};

struct ModelConfig {
  BlockType block = BlockType::Mlp;
  int layers = 4;
  int hidden = 16;               // H
  int seq = 8;                   // S tokens per sequence
  int microbatchSize = 2;        // B sequences per micro-batch
  int heads = 2;                 // attention heads (transformer); must divide hidden
  int ffnMultiplier = 4;         // MLP inner width = ffnMultiplier·H
  int timeSteps = 4;             // spiking: the LIF neurons' time steps per forward (1..64)
  int experts = 4;               // moe: experts per layer (2..64)
  int topK = 2;                  // moe: experts each token goes to (1..experts)
  double capacityFactor = 1.25;  // moe: capacity = ⌈factor · k · rows / experts⌉ tokens
  // moe, expert parallelism (Piper): the experts are shared out over `expertShards` copies of
  // each layer (the --dp replicas), experts/expertShards each, this copy holding shard
  // `expertShard`; tokens reach the other shards' experts through an ExpertExchange.
  int expertShards = 1;
  int expertShard = 0;
  // NestPipe's embedding table: > 0 gives every token an id in [0, embeddingRows) and makes the
  // first stage's input the table's rows for them (EmbeddingTable, sharded over the ranks);
  // each id's synthetic features, which the targets come from, are a function of the id alone.
  int embeddingRows = 0;
  // NestPipe's key-centric sample clustering: > 0 regroups each step's clusterKeys·B samples
  // into micro-batches by shared keys (SyntheticData::tokenIds; Plan::clusterKeys sets it to
  // the plan's micro-batches per step).
  int clusterKeys = 0;
  int graphLinks = 3;  // gnn: edges each new node of the power-law graph adds
  // gnn: a full-graph refresh of the historical embeddings before every K-th step (0: never;
  // StageModel::refreshHistory, Plan::historyRefresh).
  int historyRefresh = 0;
  std::uint64_t seed = 42;

  int rows() const { return microbatchSize * seq; }  // tokens per micro-batch
  int ffnHidden() const { return ffnMultiplier * hidden; }
  // Floats in one micro-batch's activation (or its gradient) between two layers: B·S·H.
  long activationElems() const { return static_cast<long>(rows()) * hidden; }
  // moe: the most tokens of one micro-batch an expert takes.
  int expertCapacity() const;
};

// Positive sizes, heads dividing hidden; the message names the field.
[[nodiscard]] Status validate(const ModelConfig& config);

// "mlp" | "transformer" | "snn" | "moe".
std::string_view blockTypeName(BlockType type);
[[nodiscard]] Result<BlockType> parseBlockType(std::string_view name);

}  // namespace ps::runtime
