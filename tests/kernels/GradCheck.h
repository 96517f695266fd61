#pragma once
// Finite-difference gradient checks for fp32 kernels (header-only so tests/runtime can use it).
//
// A kernel's outputs are reduced to a scalar L = Σ wᵢ·outᵢ with fixed random weights w (in
// double), so the analytic gradient is the kernel's backward fed with dOut = w. Each input element
// is perturbed by ±eps (central differences: truncation error O(eps²)). In fp32 the forward's
// rounding noise is about 1e-7·|L|/eps, so eps is ~1e-2 for O(1) values, and errors are judged
// relative to max(|analytic|, |numeric|, floor): the floor stops near-zero gradients from being
// judged on pure rounding noise while a wrong formula still shows up as an O(1) relative error.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ps::test {

// n values drawn from N(0, sd²) with a fixed generator (deterministic per seed).
inline std::vector<float> randomVector(std::size_t n, std::uint32_t seed, float sd = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, sd);
  std::vector<float> v(n);
  for (float& x : v)
    x = dist(gen);
  return v;
}

// Σ wᵢ·outᵢ in double: the scalar whose gradient w.r.t. out is w.
inline double weightedSum(const std::vector<float>& w, const float* out) {
  double s = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    s += static_cast<double>(w[i]) * out[i];
  return s;
}

struct GradCheckResult {
  double maxError = 0;  // max over elements of |a − n| / max(|a|, |n|, floor)
  std::size_t worst = 0;
  double analytic = 0;
  double numeric = 0;
};

// Perturbs every element of `x` (restoring it afterwards) and compares ∂loss/∂x by central
// differences with `analytic`.
inline GradCheckResult checkGradient(std::vector<float>& x, const std::vector<float>& analytic,
                                     const std::function<double()>& loss, float eps = 1e-2f,
                                     double floor = 1e-2) {
  GradCheckResult r;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float saved = x[i];
    x[i] = saved + eps;
    const double plus = loss();
    x[i] = saved - eps;
    const double minus = loss();
    x[i] = saved;
    // The real step is what fp32 could represent, not eps itself.
    const double step = static_cast<double>(saved + eps) - static_cast<double>(saved - eps);
    const double numeric = (plus - minus) / step;
    const double a = analytic[i];
    const double err = std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), floor});
    if (i == 0 || err > r.maxError) r = {err, i, a, numeric};
  }
  return r;
}

// A floor for checkGradient scaled to a gradient tensor: elements far smaller than the tensor's
// largest are judged against `fraction` of it (like allclose's atol), since for them fp32 noise
// and truncation error are as large as the value itself.
inline double scaleFloor(const std::vector<float>& analytic, double fraction = 0.1) {
  double mx = 0;
  for (float g : analytic)
    mx = std::max(mx, static_cast<double>(std::abs(g)));
  return std::max(1e-2, fraction * mx);
}

// For failure messages: where the worst element is and both values.
inline std::string describe(const GradCheckResult& r) {
  return "worst element " + std::to_string(r.worst) + ": analytic " + std::to_string(r.analytic) +
         ", numeric " + std::to_string(r.numeric) + ", relative error " +
         std::to_string(r.maxError);
}

// Tolerance for fp32 central differences with eps = 1e-2 (observed errors are ~1e-4..1e-3; a
// wrong term gives > 1e-1).
inline constexpr double kGradTolerance = 1e-2;

}  // namespace ps::test
