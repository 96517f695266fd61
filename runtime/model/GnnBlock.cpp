#include "runtime/model/GnnBlock.h"

#include <algorithm>
#include <string>

#include "kernels/ComputeDevice.h"
#include "runtime/model/ChunkGraph.h"

namespace ps::runtime {
namespace {

void requireHost(const ActivationStash& stash) {
  if (!stash.device().isHost())
    throw kernels::DeviceError("the gnn block aggregates neighbours on the host; its device is " +
                               stash.device().name());
}

}  // namespace

GnnBlock::GnnBlock(const ModelConfig& config)
    : Layer(config),
      mlp_(layout_, "mlp", config.rows(), config.hidden, config.ffnHidden(), kAggregate + 1) {}

void GnnBlock::forward(const float* p, const float* in, float* out, ActivationStash& st) const {
  requireHost(st);
  const long n = config_.activationElems();
  const int H = config_.hidden, T = config_.rows();
  const float* x = st.copyIn(ActivationStash::kInputSlot, in, n);
  float* agg = st.allocate(kAggregate, static_cast<std::size_t>(n));
  const GraphContext& ctx = st.graph();
  const ChunkGraph* g = ctx.graph;
  const int first = ctx.chunk * T;
  for (int i = 0; i < T; ++i) {
    float* a = agg + static_cast<long>(i) * H;
    std::copy_n(x + static_cast<long>(i) * H, H, a);
    const int v = first + i;
    if (!g || v >= g->nodes) continue;
    for (int e = g->offsets[v]; e < g->offsets[v + 1]; ++e) {
      const int u = g->neighbours[e];
      const bool here = u >= first && u < first + T;
      const float* h =
          here ? x + static_cast<long>(u - first) * H : ctx.history + static_cast<long>(u) * H;
      for (int j = 0; j < H; ++j)
        a[j] += h[j];
    }
    const float scale = 1.0f / static_cast<float>(g->degree(v) + 1);
    for (int j = 0; j < H; ++j)
      a[j] *= scale;
  }
  // This chunk's inputs become the history the other chunks read.
  if (g && ctx.history && first + T <= g->nodes)
    std::copy_n(x, n, ctx.history + static_cast<long>(first) * H);
  mlp_.forward(p, agg, out, st);
  st.device().residualAdd(out, x, out, n);
}

void GnnBlock::backwardInput(const float* p, const float* dOut, ActivationStash& st,
                             float* dIn) const {
  requireHost(st);
  const long n = config_.activationElems();
  const int H = config_.hidden, T = config_.rows();
  Tensor dAgg = st.scratch(static_cast<std::size_t>(n));
  mlp_.backwardInput(p, st.get(kAggregate), dOut, st, dAgg.data(), false);
  st.device().copy(dIn, dOut, 4 * static_cast<std::size_t>(n));  // the residual
  const GraphContext& ctx = st.graph();
  const ChunkGraph* g = ctx.graph;
  const int first = ctx.chunk * T;
  for (int i = 0; i < T; ++i) {
    const int v = first + i;
    const bool linked = g && v < g->nodes;
    const float scale = linked ? 1.0f / static_cast<float>(g->degree(v) + 1) : 1.0f;
    const float* da = dAgg.data() + static_cast<long>(i) * H;
    float* self = dIn + static_cast<long>(i) * H;
    for (int j = 0; j < H; ++j)
      self[j] += scale * da[j];
    if (!linked) continue;
    for (int e = g->offsets[v]; e < g->offsets[v + 1]; ++e) {
      const int u = g->neighbours[e];
      if (u < first || u >= first + T) continue;  // history: no gradient
      float* du = dIn + static_cast<long>(u - first) * H;
      for (int j = 0; j < H; ++j)
        du[j] += scale * da[j];
    }
  }
}

void GnnBlock::backwardWeight(ActivationStash& st, float* g) const {
  mlp_.backwardWeight(st.get(kAggregate), st, g);
  st.clear();
}

std::int64_t GnnBlock::forwardStashBytes() const {
  return 2 * 4 * config_.activationElems() + mlp_.forwardStashBytes();
}

std::int64_t GnnBlock::backwardStashBytes() const {
  return 2 * 4 * config_.activationElems() + mlp_.backwardStashBytes();
}

}  // namespace ps::runtime
