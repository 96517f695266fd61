#pragma once
// What lets the elementwise kernels vectorise: exp and tanh written as plain arithmetic (no libm
// call, so the compiler turns a loop of them into SIMD code), and PS_SIMD_CLONES, which compiles a
// kernel for several instruction sets and picks one at load time for the CPU it runs on (GCC and
// Clang target_clones): the binary stays portable and still uses AVX2 or AVX-512 where present.
//
// Accuracy: fastExp is within 2 ulp of exp on [-87, 88] (Cody-Waite reduction, degree-7 Taylor
// polynomial on [-ln2/2, ln2/2]); fastTanh within 1e-7 absolute.

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PS_SIMD_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define PS_SIMD_CLONES
#endif

namespace ps::kernels {

inline float fastExp(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float y = x * 1.44269504088896341f;
  const int n = static_cast<int>(y + (y >= 0.0f ? 0.5f : -0.5f));  // nearest: |r| <= ln2/2
  const auto nf = static_cast<float>(n);
  const float r = (x - nf * 0.693359375f) - nf * -2.12194440e-4f;  // ln2 in two parts
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>(static_cast<std::int32_t>((n + 127) << 23));
}

inline float fastTanh(float u) {
  const float e = fastExp(2.0f * std::fabs(u));  // tanh|u| = (e - 1)/(e + 1)
  return std::copysign((e - 1.0f) / (e + 1.0f), u);
}

// The instruction set PS_SIMD_CLONES picks on this CPU: "avx512", "avx2" or "sse2".
std::string simdLevel();

}  // namespace ps::kernels
