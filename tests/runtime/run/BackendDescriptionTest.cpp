// runtime::describeBackend and the dtype names: what ui and app print about a backend's kernels
// without including kernels/ (DESIGN §1). The cpu answer is the kernels' own, word for word.
#include <gtest/gtest.h>

#include "kernels/ComputeDevice.h"
#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/VectorMath.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/BackendDescription.h"

namespace ps::runtime {
namespace {

TEST(BackendDescription, CpuNamesTheBlasAndElementwiseKernels) {
  const BackendDescription cpu = describeBackend(Backend::Cpu);
  EXPECT_EQ(cpu.blas, kernels::blasCoreName());
  EXPECT_EQ(cpu.blas.rfind("OpenBLAS ", 0), 0u) << cpu.blas;
  EXPECT_EQ(cpu.simd, kernels::simdLevel());
  EXPECT_TRUE(cpu.simd == "avx512" || cpu.simd == "avx2" || cpu.simd == "sse2") << cpu.simd;
  EXPECT_EQ(cpu.warning, kernels::blasCoreWarning());
  // What `pipescope-cli run` printed before: "<blas>, elementwise <simd>".
  EXPECT_EQ(cpu.summary(), kernels::blasCoreName() + ", elementwise " + kernels::simdLevel());
}

TEST(BackendDescription, SimRunsNoKernelsAndCudaRunsCublas) {
  const BackendDescription sim = describeBackend(Backend::Sim);
  EXPECT_EQ(sim.summary(), "");
  EXPECT_EQ(sim.warning, "");
  const BackendDescription cuda = describeBackend(Backend::Cuda);
  EXPECT_EQ(cuda.summary(), "cuBLAS");
  EXPECT_EQ(cuda.simd, "");
}

TEST(BackendDescription, DtypeNamesRoundTripAndDefaultIsFp32) {
  EXPECT_EQ(nameOfDtype(kernels::DType::Fp32), "fp32");
  EXPECT_EQ(nameOfDtype(kernels::DType::Bf16), "bf16");
  EXPECT_EQ(parseDtype("fp32"), kernels::DType::Fp32);
  EXPECT_EQ(parseDtype("bf16"), kernels::DType::Bf16);
  EXPECT_EQ(parseDtype("fp16"), std::nullopt);
  EXPECT_EQ(parseDtype(""), std::nullopt);
  // CpuExecutor.h declares DType without its enumerators and defaults to DType{}.
  EXPECT_EQ(CpuRunOptions{}.dtype, kernels::DType::Fp32);
}

}  // namespace
}  // namespace ps::runtime
