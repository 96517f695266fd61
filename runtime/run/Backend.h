#pragma once
// The backends a plan runs on (DESIGN §3): the simulator, real training on CPU threads (or MPI
// processes), real training on CUDA devices.

#include <optional>
#include <string_view>

namespace ps::runtime {

enum class Backend { Sim, Cpu, Cuda };

std::string_view backendName(Backend backend);  // "sim" | "cpu" | "cuda"
std::optional<Backend> parseBackend(std::string_view name);

// True for the backends that train the layered model (cpu, cuda).
inline bool trainsModel(Backend backend) {
  return backend != Backend::Sim;
}

}  // namespace ps::runtime
