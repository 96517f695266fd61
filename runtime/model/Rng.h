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
  // As if next() had been called `calls` times (splitmix64's state only counts): a stream can be
  // cut into pieces made on several threads.
  void skip(std::uint64_t calls) { state_ += calls * kIncrement; }
  static constexpr std::uint64_t kIncrement = 0x9e3779b97f4a7c15ULL;
  static constexpr std::uint64_t kCallsPerPair = 2;  // normal() and normalPair() draw two
  // Uniform in (0, 1), never exactly 0 or 1.
  double uniform();
  // Standard normal (Box–Muller; one value per call, so streams stay simple to reason about).
  float normal();
  // Two standard normals from two uniforms (Box–Muller's pair, in float): the synthetic data's,
  // made by the million per micro-batch, where normal()'s double log and cos of one value per
  // pair cost ~50 ns a value (a transformer micro-batch took 27 ms of host time).
  void normalPair(float& a, float& b);

 private:
  std::uint64_t state_;
};

}  // namespace ps::runtime
