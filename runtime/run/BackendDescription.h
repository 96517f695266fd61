#pragma once
// What a backend computes with, in words, and the GEMM precision by name: what the front ends
// print (the Plan panel's backend tips, `pipescope-cli run`'s notes) without including kernels/,
// which is private to runtime (DESIGN §1).

#include <optional>
#include <string>
#include <string_view>

#include "runtime/exec/KernelTypes.h"
#include "runtime/run/Backend.h"

namespace ps::runtime {

struct BackendDescription {
  // cpu: the BLAS and its kernel set for this CPU ("OpenBLAS Haswell"); cuda: "cuBLAS"; sim: empty.
  std::string blas;
  // cpu: the vector width of our own elementwise kernels on this CPU ("avx512" | "avx2" | "sse2");
  // empty for the other backends.
  std::string simd;
  // cpu: a generic BLAS kernel set on a CPU with AVX2 or AVX-512 (GEMMs then run at a fraction of
  // its peak); empty otherwise.
  std::string warning;

  // "OpenBLAS Haswell, elementwise avx2" (cpu), "cuBLAS" (cuda), "" (sim).
  std::string summary() const;
};

BackendDescription describeBackend(Backend backend);

// CpuRunOptions::dtype by name: "fp32" | "bf16".
std::string_view nameOfDtype(kernels::DType type);
std::optional<kernels::DType> parseDtype(std::string_view name);

}  // namespace ps::runtime
