#pragma once
// Where each named parameter tensor of a layer lives in the layer's flat parameter buffer. Flat
// buffers make weight versions, optimizers, gradient all-reduce and comparisons one loop each.

#include <cstddef>
#include <string>
#include <vector>

namespace ps::runtime {

struct ParamSlice {
  std::string name;  // e.g. "mlp.w1"
  std::size_t offset = 0;
  std::size_t size = 0;
  int fanIn = 0;  // inputs per output for weight matrices (init scale); 0 for biases and norms
  // Which of the full layer's tensors this is: its initial weights' random stream. The slice's
  // position, unless a shard of the layer skipped tensors it does not hold (MoE experts).
  std::size_t seedIndex = 0;
};

class ParamLayout {
 public:
  // Appends a tensor and returns its offset.
  std::size_t add(std::string name, std::size_t size, int fanIn = 0);
  // The next tensor added is the full layer's `index`-th (a shard skipping others' tensors).
  void seedNextAs(std::size_t index) { nextSeed_ = index; }
  std::size_t size() const { return size_; }
  const std::vector<ParamSlice>& slices() const { return slices_; }

 private:
  std::vector<ParamSlice> slices_;
  std::size_t size_ = 0;
  std::size_t nextSeed_ = 0;
};

}  // namespace ps::runtime
