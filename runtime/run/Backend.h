#pragma once
// The backends a plan runs on (DESIGN §3), by id: the simulator, real training on CPU threads (or
// MPI processes), real training on CUDA devices. What each one is and does is its row in the
// registry (Backends.h); the id is that row's position, named here for the callers and tests
// that pick one in code. A new backend needs no name here: its row's id is the next number.

#include <optional>
#include <string_view>

namespace ps::runtime {

enum class Backend : int { Sim, Cpu, Cuda };

std::string_view backendName(Backend backend);  // its row's name: "sim" | "cpu" | "cuda" | ...
std::optional<Backend> parseBackend(std::string_view name);

// True for the backends that train the layered model (cpu, cuda); false for the simulator.
bool trainsModel(Backend backend);

}  // namespace ps::runtime
