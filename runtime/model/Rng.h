#pragma once
// Counter-based randomness for weights and synthetic data: splitmix64 streams keyed by tuples
// like (seed, layer) or (seed, step, micro-batch). Unlike std::*_distribution, whose output is
// implementation-defined, these values are the same on every rank, process and compiler.

#include <cstdint>

namespace ps::runtime {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // A well-mixed key for a tuple: Rng(Rng::key(seed, step, mb)).
  static std::uint64_t key(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0);

  std::uint64_t next();
  // Uniform in (0, 1), never exactly 0 or 1.
  double uniform();
  // Standard normal (Box–Muller; one value per call, so streams stay simple to reason about).
  float normal();

 private:
  std::uint64_t state_;
};

}  // namespace ps::runtime
