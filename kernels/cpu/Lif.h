#pragma once
// Leaky integrate-and-fire neurons as an activation (the spiking block, BlockType::Spiking),
// elementwise over n: each neuron is driven for `steps` time steps by the constant input current
// h (its pre-activation), its membrane leaking by kLifDecay a step; it spikes when the membrane
// reaches kLifThreshold and then drops by the threshold (soft reset). The output is the firing
// rate, spikes / steps, in [0, 1].
//
// The spike's derivative is zero almost everywhere, so the backward uses a surrogate (the fast
// sigmoid's, 1 / (1 + kLifSlope·|u − θ|)²) through time: backpropagation through the `steps`
// membrane updates, the reset detached (as snnTorch and SpikingJelly do by default). The forward
// membrane values are recomputed from h, so only h is stashed.

namespace ps::kernels {

inline constexpr float kLifDecay = 0.9f;
inline constexpr float kLifThreshold = 1.0f;
inline constexpr float kLifSlope = 2.0f;
inline constexpr int kLifMaxSteps = 64;

// rate = spikes(h) / steps; rate may alias h. 1 <= steps <= kLifMaxSteps.
void lifForward(const float* h, float* rate, long n, int steps);

// dh = surrogate ∂rate/∂h · dRate (dh += … when accumulate); dh may alias dRate when not
// accumulating.
void lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                 bool accumulate = false);

}  // namespace ps::kernels
