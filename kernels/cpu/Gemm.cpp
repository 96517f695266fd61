#include "kernels/cpu/Gemm.h"

#include <cblas.h>

#include <cctype>
#include <string_view>

#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {

void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void setBlasThreads(int threads) {
  openblas_set_num_threads(threads);
}

std::string blasCoreName() {
  const char* core = openblas_get_corename();
  return std::string("OpenBLAS ") + (core ? core : "(unknown core)");
}

std::string blasCoreWarning() {
  const std::string simd = simdLevel();
  if (simd != "avx2" && simd != "avx512") return {};
  // OpenBLAS's kernel sets that use AVX2/FMA or AVX-512 (x86-64).
  static constexpr std::string_view kVector[] = {
      "haswell", "zen", "skylakex", "cooperlake", "sapphirerapids", "excavator"};
  std::string core = openblas_get_corename() ? openblas_get_corename() : "";
  std::string lower;
  for (char c : core)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view v : kVector)
    if (lower == v) return {};
  return "warning: OpenBLAS runs its " + (core.empty() ? std::string("unknown") : core) +
         " kernels on a CPU with " + simd +
         ": GEMMs will run far below the CPU's peak (a DYNAMIC_ARCH OpenBLAS picks a better set; "
         "OPENBLAS_CORETYPE overrides it)";
}

}  // namespace ps::kernels
