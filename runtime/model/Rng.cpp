#include "runtime/model/Rng.h"

#include <cmath>

namespace ps::runtime {
namespace {

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t Rng::key(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return mix(mix(mix(a) + b) + c);
}

std::uint64_t Rng::next() {
  state_ += kIncrement;
  return mix(state_);
}

double Rng::uniform() {
  // 53 random bits, shifted by half a step so 0 and 1 cannot occur.
  return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
}

float Rng::normal() {
  const double u1 = uniform();
  const double u2 = uniform();
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
}

void Rng::normalPair(float& a, float& b) {
  const auto u1 = static_cast<float>(uniform());
  const auto u2 = static_cast<float>(uniform());
  // u1 > 0 after rounding too (uniform() >= 2^-54, a normal float), so the log is finite.
  const float r = std::sqrt(-2.0f * std::log(u1));
  const float theta = 2.0f * static_cast<float>(M_PI) * u2;
  a = r * std::cos(theta);
  b = r * std::sin(theta);
}

}  // namespace ps::runtime
