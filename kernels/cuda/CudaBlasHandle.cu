// BlasHandle (CudaBlasHandle.h): opening and closing one CudaDevice's cuBLAS handle.
#include <cublas_v2.h>

#include "kernels/cuda/CudaBlasHandle.h"
#include "kernels/cuda/CudaCommon.cuh"

namespace ps::kernels::cuda {

void BlasHandle::open(cudaStream_t stream, std::size_t smCount) {
  // Created with the device's context current: cuBLAS's own resources belong to it.
  cublasHandle_t handle = nullptr;
  checkCublas(cublas().create(&handle), "cublasCreate");
  blas_ = handle;
  checkCublas(cublas().setStream(blas_, stream), "cublasSetStream");
  // cuBLAS picks its kernels' grid sizes for the SMs it believes it has: on a green context,
  // the share's, so that it does not size work for SMs it cannot get.
  if (smCount > 0)
    checkCublas(cublas().setSmCountTarget(blas_, static_cast<int>(smCount)),
                "cublasSetSmCountTarget");
  checkCuda(cudaMalloc(&workspace_, kWorkspaceBytes), "cudaMalloc of the cuBLAS workspace");
  checkCublas(cublas().setWorkspace(blas_, workspace_, kWorkspaceBytes), "cublasSetWorkspace");
  // Fp32 is the reference path: default math never uses TF32 (only CUBLAS_TF32_TENSOR_OP_MATH
  // or a compute type that asks for it would). Bf16 asks for tensor cores by its input type.
  checkCublas(cublas().setMathMode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  checkCublas(cublas().setAtomicsMode(blas_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
  checkCublas(cublas().setPointerMode(blas_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
}

void BlasHandle::close() noexcept {
  if (blas_) cublas().destroy(blas_);
  if (workspace_) cudaFree(workspace_);
  blas_ = nullptr;
  workspace_ = nullptr;
}

}  // namespace ps::kernels::cuda
