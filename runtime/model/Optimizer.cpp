#include "runtime/model/Optimizer.h"

#include <algorithm>
#include <string>

#include "runtime/model/Adam.h"
#include "runtime/model/Sgd.h"

namespace ps::runtime {

Status validate(const OptimizerConfig& c) {
  if (!(c.lr > 0)) return Error{"learning rate must be positive, got " + std::to_string(c.lr)};
  const auto unit = [](float v, const char* name) -> Status {
    if (v >= 0 && v < 1) return {};
    return Error{std::string(name) + " must be in [0, 1), got " + std::to_string(v)};
  };
  PS_TRY(unit(c.momentum, "momentum"));
  PS_TRY(unit(c.beta1, "Adam beta1"));
  PS_TRY(unit(c.beta2, "Adam beta2"));
  if (!(c.eps > 0)) return Error{"Adam eps must be positive, got " + std::to_string(c.eps)};
  return {};
}

std::string_view optimizerName(OptimizerKind kind) {
  return kind == OptimizerKind::Sgd ? "sgd" : "adam";
}

Result<OptimizerKind> parseOptimizerKind(std::string_view name) {
  if (name == "sgd") return OptimizerKind::Sgd;
  if (name == "adam") return OptimizerKind::Adam;
  return Error{"unknown optimizer '" + std::string(name) + "' (expected sgd or adam)"};
}

void Optimizer::predict(std::span<float> out, std::span<const float> params, int) const {
  std::copy(params.begin(), params.end(), out.begin());
}

std::unique_ptr<Optimizer> Optimizer::create(const OptimizerConfig& config, std::size_t params,
                                             std::shared_ptr<MemoryCounter> counter) {
  if (config.kind == OptimizerKind::Adam) {
    return std::make_unique<Adam>(config, params, std::move(counter));
  }
  return std::make_unique<Sgd>(config, params, std::move(counter));
}

}  // namespace ps::runtime
