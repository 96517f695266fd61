#pragma once
// A layer's weight gradients against central differences, one parameter tensor at a time so
// that a failure names it (the block tests: ModelBlockGradTest, GnnBlockTest).

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/model/ParamLayout.h"
#include "tests/kernels/GradCheck.h"

namespace ps::test {

// `grads` is the analytic gradient of `loss()` over `params`, laid out as `layout`; each tensor's
// elements are perturbed in `params` (restored afterwards) by ±`eps`.
template <typename Loss>
void expectWeightGradients(std::vector<float>& params, const std::vector<float>& grads,
                           const runtime::ParamLayout& layout, Loss&& loss, float eps = 1e-2f) {
  for (const runtime::ParamSlice& s : layout.slices()) {
    const auto first = static_cast<std::ptrdiff_t>(s.offset);
    const auto last = static_cast<std::ptrdiff_t>(s.offset + s.size);
    std::vector<float> slice(params.begin() + first, params.begin() + last);
    const std::vector<float> analytic(grads.begin() + first, grads.begin() + last);
    const auto sliceLoss = [&] {
      std::copy(slice.begin(), slice.end(), params.begin() + first);
      return loss();
    };
    const auto r = checkGradient(slice, analytic, sliceLoss, eps, scaleFloor(analytic));
    std::copy(slice.begin(), slice.end(), params.begin() + first);
    EXPECT_LT(r.maxError, kGradTolerance) << s.name << ": " << describe(r);
  }
}

}  // namespace ps::test
