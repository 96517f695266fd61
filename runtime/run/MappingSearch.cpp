#include "runtime/run/MappingSearch.h"

#include "runtime/cost/CostModel.h"

#include <numeric>
#include <string>
#include <utility>

namespace ps::runtime {
namespace {

// Past this many node assignments the enumeration stops; the swaps carry on from the best.
constexpr int kMaxAssignments = 4096;
// Evaluations the pair swaps may spend (each one simulation).
constexpr int kMaxSwapEvaluations = 4000;

class Search {
 public:
  Search(int ranks, std::vector<int> sizes, const MappingCost& cost,
         const std::atomic<bool>* cancel)
      : ranks_(ranks), sizes_(std::move(sizes)), cost_(cost), cancel_(cancel) {
    for (int size : sizes_) {
      first_.push_back(devices_);
      devices_ += size;
    }
  }

  Result<MappingSearchResult> run() {
    std::vector<int> identity(static_cast<std::size_t>(ranks_));
    std::iota(identity.begin(), identity.end(), 0);
    auto base = cost_(identity);
    if (!base) return std::move(base).takeError();
    best_ = {identity, *base, *base, 1};
    const int nodes = static_cast<int>(sizes_.size());
    if (nodes > 1 && devices_ == ranks_) {
      std::vector<int> nodeOf(static_cast<std::size_t>(ranks_), -1);
      std::vector<int> used(static_cast<std::size_t>(nodes), 0);
      assignNodes(0, 0, nodeOf, used);
    }
    swapPairs();
    if (cancelled_)
      return Error{"cancelled after " + std::to_string(best_.evaluated) + " mappings"};
    return best_;
  }

 private:
  // True once the cancel flag was seen set: every loop below stops at its next turn.
  bool stopped() {
    if (!cancelled_ && cancel_ && cancel_->load()) cancelled_ = true;
    return cancelled_;
  }

  void consider(const std::vector<int>& deviceOf) {
    if (stopped()) return;
    ++best_.evaluated;
    auto step = cost_(deviceOf);
    if (step && *step < best_.stepNs) {
      best_.stepNs = *step;
      best_.deviceOf = deviceOf;
    }
  }

  // Every way of giving ranks r.. nodes with room left; a new node is opened only in order
  // (node labels are interchangeable), so each sharing-out is tried once.
  void assignNodes(int r, int opened, std::vector<int>& nodeOf, std::vector<int>& used) {
    if (assignments_ >= kMaxAssignments || stopped()) return;
    if (r == ranks_) {
      ++assignments_;
      std::vector<int> deviceOf(static_cast<std::size_t>(ranks_));
      std::vector<int> next(used.size(), 0);
      for (int q = 0; q < ranks_; ++q)
        deviceOf[q] = first_[nodeOf[q]] + next[nodeOf[q]]++;
      consider(deviceOf);
      return;
    }
    const int nodes = static_cast<int>(used.size());
    for (int n = 0; n < std::min(opened + 1, nodes); ++n) {
      if (used[n] == capacity(n)) continue;
      nodeOf[r] = n;
      ++used[n];
      assignNodes(r + 1, std::max(opened, n + 1), nodeOf, used);
      --used[n];
    }
  }
  int capacity(int node) const { return sizes_[static_cast<std::size_t>(node)]; }

  void swapPairs() {
    int spent = 0;
    bool improved = true;
    while (improved && spent < kMaxSwapEvaluations && !stopped()) {
      improved = false;
      const std::vector<int> from = best_.deviceOf;
      const std::int64_t before = best_.stepNs;
      for (int a = 0; a < ranks_ && spent < kMaxSwapEvaluations && !stopped(); ++a)
        for (int b = a + 1; b < ranks_ && spent < kMaxSwapEvaluations; ++b) {
          std::vector<int> swapped = from;
          std::swap(swapped[a], swapped[b]);
          consider(swapped);
          ++spent;
        }
      improved = best_.stepNs < before;
    }
  }

  int ranks_;
  std::vector<int> sizes_, first_;  // each node's devices, and its first device
  int devices_ = 0;
  const MappingCost& cost_;
  const std::atomic<bool>* cancel_;
  bool cancelled_ = false;
  MappingSearchResult best_;
  int assignments_ = 0;
};

// Uniform nodes of gpusPerNode devices, the last one partly filled when the ranks do not divide.
std::vector<int> uniformNodes(int ranks, int gpusPerNode) {
  Topology t;
  t.gpusPerNode = gpusPerNode;
  return t.sizes(ranks);
}

}  // namespace

Result<MappingSearchResult> searchDeviceMapping(int ranks, int gpusPerNode,
                                                const MappingCost& stepTime,
                                                const std::atomic<bool>* cancel) {
  return searchDeviceMapping(ranks, uniformNodes(ranks, gpusPerNode), stepTime, cancel);
}

Result<MappingSearchResult> searchDeviceMapping(int ranks, const std::vector<int>& nodeSizes,
                                                const MappingCost& stepTime,
                                                const std::atomic<bool>* cancel) {
  return Search(ranks, nodeSizes, stepTime, cancel).run();
}

int mappingSearchEvaluations(int ranks, int gpusPerNode) {
  return mappingSearchEvaluations(ranks, uniformNodes(ranks, gpusPerNode));
}

int mappingSearchEvaluations(int ranks, const std::vector<int>& nodeSizes) {
  if (ranks < 1) return 0;
  const MappingCost constant = [](const std::vector<int>&) -> Result<std::int64_t> { return 1; };
  auto found = Search(ranks, nodeSizes, constant, nullptr).run();
  return found ? found->evaluated : 1;
}

}  // namespace ps::runtime
