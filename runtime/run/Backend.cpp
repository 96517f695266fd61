#include "runtime/run/Backend.h"

namespace ps::runtime {

std::string_view backendName(Backend backend) {
  switch (backend) {
    case Backend::Sim:
      return "sim";
    case Backend::Cpu:
      return "cpu";
    case Backend::Cuda:
      return "cuda";
  }
  return "sim";
}

std::optional<Backend> parseBackend(std::string_view name) {
  for (Backend b : {Backend::Sim, Backend::Cpu, Backend::Cuda})
    if (backendName(b) == name) return b;
  return std::nullopt;
}

}  // namespace ps::runtime
