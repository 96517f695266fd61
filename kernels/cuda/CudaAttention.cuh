#pragma once
// Causal multi-head self-attention on a CudaDevice's queue (CudaAttention.cu): ComputeDevice's
// attention forward and input gradient, contracts as there. (Its weight gradient is two linear
// weight gradients: CudaDevice composes them.)

#include "kernels/cpu/Attention.h"
#include "kernels/cuda/CudaLinear.cuh"

namespace ps::kernels::cuda {

void attentionForward(const CudaQueue& queue, const AttentionShape& s, const float* x,
                      const AttentionWeights& w, const AttentionSaved& saved, float* out);
void attentionBackwardInput(const CudaQueue& queue, const AttentionShape& s,
                            const AttentionWeights& w, const AttentionSaved& saved,
                            const float* dOut, float* dQkv, float* dX, float* scratch,
                            bool accumulate);

}  // namespace ps::kernels::cuda
