#include "runtime/run/Backend.h"

#include "runtime/run/Backends.h"

namespace ps::runtime {

std::string_view backendName(Backend backend) {
  return backendInfo(backend).name;
}

std::optional<Backend> parseBackend(std::string_view name) {
  if (const BackendInfo* row = findBackend(name)) return row->id;
  return std::nullopt;
}

bool trainsModel(Backend backend) {
  return backendInfo(backend).trainsModel;
}

}  // namespace ps::runtime
