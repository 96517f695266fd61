// cuBLAS and NCCL are opened on first use (kernels/cuda/CudaLibraries.h), not linked. No GPU is
// needed to open them: these run wherever the build has CUDA, and check that every function
// PipeScope calls is found under the name the headers give it, and that a library that cannot be
// opened is named with the loader's reason.

#include <gtest/gtest.h>

#ifdef PIPESCOPE_HAVE_CUDA

#include <gmock/gmock.h>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/CudaLibraries.h"
#include "runtime/cuda/CudaNcclApi.h"

namespace ps::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Every member of an API table is a function pointer: all must be set.
template <typename Api>
int missingFunctions(const Api& api) {
  static_assert(sizeof(Api) % sizeof(void*) == 0);
  const auto* slots = reinterpret_cast<void* const*>(&api);
  int missing = 0;
  for (std::size_t i = 0; i < sizeof(Api) / sizeof(void*); ++i)
    missing += slots[i] == nullptr ? 1 : 0;
  return missing;
}

TEST(CudaLibraries, CublasOpensWithEveryFunction) {
  const kernels::cuda::CublasApi& api = kernels::cuda::cublas();
  EXPECT_EQ(missingFunctions(api), 0);
  // A call that needs no GPU: the library answers in its own words.
  EXPECT_STREQ(api.getStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(&kernels::cuda::cublas(), &api);  // opened once
}

TEST(CudaLibraries, NcclOpensWithEveryFunction) {
  const NcclApi& api = nccl();
  EXPECT_EQ(missingFunctions(api), 0);
  EXPECT_THAT(api.getErrorString(ncclInvalidArgument), HasSubstr("invalid argument"));
}

TEST(CudaLibraries, TheNcclLibraryIsAtLeastTheHeadersVersion) {
  // nccl() refuses an older library (NcclVersion.h); the installed one passes.
  int version = 0;
  ASSERT_EQ(nccl().getVersion(&version), ncclSuccess);
  EXPECT_GE(version / 100, NCCL_VERSION_CODE / 100) << "libnccl is " << version;
}

TEST(CudaLibraries, AMissingLibraryIsNamedWithTheLoadersReason) {
  try {
    kernels::cuda::cudaLibrarySymbol("libpipescope-absent.so.7", "f");
    FAIL() << "opened a library that does not exist";
  } catch (const kernels::DeviceError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("cannot open libpipescope-absent.so.7"),
                                HasSubstr("No such file"), HasSubstr("LD_LIBRARY_PATH")));
  }
}

TEST(CudaLibraries, AMissingFunctionIsNamed) {
  try {
    kernels::cuda::cudaLibrarySymbol("libnccl.so.2", "ncclNoSuchFunction");
    FAIL() << "found a function that does not exist";
  } catch (const kernels::DeviceError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("libnccl.so.2"), HasSubstr("ncclNoSuchFunction")));
  }
}

}  // namespace
}  // namespace ps::runtime

#endif  // PIPESCOPE_HAVE_CUDA
