#pragma once
// Optimizers over a stage's flat parameter buffer. Both are elementwise, so a stage updating its
// slice gives exactly the numbers the whole model would: pipelined and unpipelined runs match.
// State (momentum, Adam moments) is allocated through the stage's MemoryCounter.

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "trace/Result.h"

namespace ps::runtime {

class MemoryCounter;  // runtime/model/MemoryCounter.h (it includes kernels/: not for ui or app)

enum class OptimizerKind { Sgd, Adam };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::Sgd;
  float lr = 0.05f;
  float momentum = 0.0f;  // SGD: 0 = plain SGD, no state
  float beta1 = 0.9f;     // Adam
  float beta2 = 0.999f;
  float eps = 1e-8f;
};

// lr > 0, momentum and betas in [0, 1), eps > 0; the message names the field.
[[nodiscard]] Status validate(const OptimizerConfig& config);
std::string_view optimizerName(OptimizerKind kind);  // "sgd" | "adam"
[[nodiscard]] Result<OptimizerKind> parseOptimizerKind(std::string_view name);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of `params` from `grads` (both of the size given at creation, on the counter's
  // device; `counter` may not be null).
  virtual void step(float* params, const float* grads) = 0;
  // Bytes of optimizer state (for memory accounting and the cost model).
  virtual std::int64_t stateBytes() const = 0;
  // XPipe's weight prediction: `out` = the weights after `updates` more steps like the latest
  // one (the update direction read off the optimizer's state: Adam's m̂ / (√v̂ + eps), SGD's
  // momentum; plain SGD keeps no direction and predicts no change). Host spans of the stage's
  // size; `params` the live weights.
  virtual void predict(std::span<float> out, std::span<const float> params, int updates) const;

  static std::unique_ptr<Optimizer> create(const OptimizerConfig& config, std::size_t params,
                                           std::shared_ptr<MemoryCounter> counter);
};

}  // namespace ps::runtime
