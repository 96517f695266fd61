#pragma once
// The CPU compute kernels of the trainable model, in one include.
//
// Conventions shared by every kernel in kernels/cpu (fp32, no allocation, no state):
// - Tensors are plain `float*` plus int dimensions, dense and row-major; a "[rows×cols]" matrix
//   has leading dimension cols unless an argument says otherwise. Activations are [R×H] with
//   R = batch·seq rows (one per token) and H features; weights are [out×in] (torch layout).
// - Every matrix product goes through sgemm (OpenBLAS); the kernels only add the elementwise
//   and reduction loops around it.
// - Backward passes are split as zero-bubble schedules need them: `...BackwardInput` computes
//   the gradient of the inputs (I) and writes it, or adds it when `accumulate` is true (residual
//   branches); `...BackwardWeight` computes parameter gradients (W) and always ADDS them to the
//   given buffers, so gradients accumulate over micro-batches and W may run long after I.
// - Kernels never allocate: callers pass scratch buffers (sized by the `...ScratchElems`
//   helpers), so the model's counting allocator sees every byte.

#include "kernels/cpu/Attention.h"
#include "kernels/cpu/Elementwise.h"
#include "kernels/cpu/Gelu.h"
#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/LayerNorm.h"
#include "kernels/cpu/Lif.h"
#include "kernels/cpu/Linear.h"
#include "kernels/cpu/Loss.h"
#include "kernels/cpu/Softmax.h"
