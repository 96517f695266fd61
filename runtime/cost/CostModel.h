#pragma once
// What things cost (DESIGN §2): per-layer F/I/W time, activation and parameter bytes; per-rank
// speed factor and memory capacity (heterogeneous devices); per-link bandwidth and latency.
// Built from the uniform CLI flags, a per-layer JSON file, or calibration on a backend.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/Result.h"

namespace ps::runtime {

struct LayerCost {
  double fwdNs = 0;           // forward of one micro-batch (cost scale 1)
  double inputGradNs = 0;     // I: backward for inputs
  double weightGradNs = 0;    // W: backward for weights (B = I + W)
  std::int64_t actBytes = 0;  // activations kept from F until the last backward op
  // Bytes of the layer's output for one micro-batch: what crosses a stage boundary after it.
  // 0 = unknown: the boundary then carries actBytes (the uniform flags' --act-mb).
  std::int64_t outputBytes = 0;
  std::int64_t paramBytes = 0;  // weights (gradients and optimizer state scale with them)
  std::string name;
};

struct LinkCost {
  double bytesPerNs = 0;  // 0 = free link: transfers take no time
  double latencyNs = 0;
};

// Devices grouped into nodes (Luo et al.): ranks r and r' share a node when r / gpusPerNode ==
// r' / gpusPerNode, or, for nodes of different sizes, when they fall in the same run of
// nodeSizes (node n holds the next nodeSizes[n] ranks). Within a node transfers take the default
// link; between two nodes they take interNode, and all transfers from one node to another share
// that link (each queues behind the others, where per-pair links queue only behind their own
// pair's).
struct Topology {
  int gpusPerNode = 0;         // 0 = no topology (unless nodeSizes): every pair has its own link
  std::vector<int> nodeSizes;  // nodes of different sizes, in rank order (then gpusPerNode is 0)
  LinkCost interNode;
  // true: one inter-node link per pair of nodes that all their devices share (a network card
  // per node); false: one per pair of devices (a card per device), which nothing else queues on.
  bool sharedLink = true;
  bool present() const { return gpusPerNode > 0 || !nodeSizes.empty(); }
  int nodeOf(int rank) const {
    if (nodeSizes.empty()) return gpusPerNode > 0 ? rank / gpusPerNode : rank;
    int n = 0;
    for (int first = 0; n < static_cast<int>(nodeSizes.size()); first += nodeSizes[n++])
      if (rank < first + nodeSizes[n]) return n;
    return n;  // past the last node: a node of its own
  }
  // Each node's devices for `ranks` ranks (the last uniform node may be partly filled).
  std::vector<int> sizes(int ranks) const;
};

struct RankCost {
  double speed = 1.0;  // durations are divided by it (2.0 = twice as fast)
  std::optional<std::int64_t> memoryCapacityBytes;
};

struct CostModel {
  std::vector<LayerCost> layers;
  std::vector<RankCost> ranks;  // may be shorter than the plan's ranks: missing ones are speed 1
  LinkCost defaultLink;
  std::map<std::pair<int, int>, LinkCost> links;  // (src, dst) overrides
  Topology topology;
  double optimizerNsPerParamByte = 0;  // OPT duration per byte of the stage's parameters
  // Parameters + gradients + optimizer state per parameter byte (Adam: weights, grads, m, v).
  double stateBytesPerParamByte = 4.0;
  // DiffusionPipe: the frozen (non-trainable) part's forward for one micro-batch on a device of
  // speed 1, e.g. a text encoder: what one FILL op with a stage costs. 0 = none.
  double frozenFwdNs = 0;
  // What-ifs of single ops (slack's brute force): ns added to the op (stage, kind, micro-batch,
  // step) on top of its cost. Not read from or written to cost files.
  std::map<std::tuple<int, int, int, int>, std::int64_t> opExtraNs;

  double speedOf(int rank) const {
    return rank >= 0 && rank < static_cast<int>(ranks.size()) ? ranks[rank].speed : 1.0;
  }
  std::optional<std::int64_t> capacityOf(int rank) const {
    if (rank >= 0 && rank < static_cast<int>(ranks.size())) return ranks[rank].memoryCapacityBytes;
    return std::nullopt;
  }
  int nodeOf(int rank) const { return topology.nodeOf(rank); }
  // True when src -> dst goes over the shared link between two nodes (no per-pair override).
  bool crossesNodes(int src, int dst) const {
    return topology.present() && nodeOf(src) != nodeOf(dst) && !links.contains({src, dst});
  }
  const LinkCost& link(int src, int dst) const {
    auto it = links.find({src, dst});
    if (it != links.end()) return it->second;
    return crossesNodes(src, dst) ? topology.interNode : defaultLink;
  }
};

// The uniform cost flags of DESIGN §5: --fwd-us is one layer's forward, --bwd-us its whole
// backward (I + W), --wgrad-us the W part; --act-mb one micro-batch's activations per layer.
struct UniformCostFlags {
  int layers = 0;
  double fwdUs = 100;
  double bwdUs = 200;
  double wgradUs = 100;
  double actMb = 0;
  double paramMb = 0;
  std::optional<double> linkGbps;  // gigabits per second
  double linkLatencyUs = 0;
};

// Ranges every cost model must keep so that simulated times and byte counts stay exact in int64
// (the simulator still checks its sums): no single op or transfer over 10^6 s, no layer over
// 1 TiB of activations or parameters, at most 2^20 layers, speeds within 10^±6.
inline constexpr double kMaxOpNs = 1e15;
inline constexpr std::int64_t kMaxLayerBytes = std::int64_t{1} << 40;
inline constexpr int kMaxLayers = 1 << 20;

// Checks the flags (finite, positive sizes, wgrad <= bwd, the ranges above, one transfer within
// kMaxOpNs) and builds a model; errors name the flag and its value.
Result<CostModel> uniformCostModel(const UniformCostFlags& flags);

// DawnPiper's operator-granular cut (--operators K): each layer as K operators, each with a K-th
// of its times, activations and parameters (the remainder bytes on the last), every one handing
// the layer's whole output to the next (an activation between operators is as large as one
// between layers). Stage boundaries then fall between operators. Errors: K outside 1..64, or
// more than kMaxLayers operators.
Result<CostModel> operatorCosts(const CostModel& model, int k);

// The ranges above on a model from a file or calibration; errors start with `source`.
Status checkCostRanges(const CostModel& model, const std::string& source);

// A double as a message shows it: "1e-12", "2.5", "1e+20".
std::string formatNumber(double v);

}  // namespace ps::runtime
