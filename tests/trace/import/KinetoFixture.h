#pragma once
// Writes a FixtureRank as the JSON torch.profiler (Kineto) would have written for it: the
// planted annotations, kernels, NCCL kernels, copies, ProfilerStep ranges and [memory] events,
// surrounded by the noise real files carry (cpu_op, cuda_runtime launches, flow events,
// process/thread metadata, an arg above 2^63) that the reader must skip. Times are the rank's
// true times plus clockSkewNs, written as µs with ns fractions.
//
// How FixtureEvents come out:
//   Annotation -> user_annotation on the host thread, plus (option) gpu_user_annotation with the
//                 same times on the compute stream;
//   Kernel     -> kernel on stream 7;
//   Nccl       -> kernel on stream 24 with PyTorch's NCCL args: "Collective name" ("recv" for a
//                 ...Recv name, "send" for Send and SendRecv names: the fixture has no direction),
//                 message size in "Float" elements (or "Byte" when bytes is not a multiple of 4),
//                 "Dst Rank"/"Src Rank" = peer for point-to-point names;
//   Memcpy     -> gpu_memcpy on stream 22 named like Kineto ("Memcpy PtoP (Device -> Device)" when
//                 peer >= 0, with fromDevice/toDevice = peer % 8; "Memcpy HtoD (Pinned -> Device)"
//                 otherwise) unless the fixture name itself starts with "Memcpy ".
// FixtureEvent::step is not written (Kineto has no payload): steps come from profilerSteps.
// The rank's device is rank % 8 (ranks fill 8-GPU nodes in order).

#include <cstdint>
#include <string>

#include "tests/trace/import/FixtureSpec.h"
#include "trace/Result.h"

namespace ps::trace::import::testing {

struct KinetoFixtureOptions {
  bool gzip = false;
  // Modern files: "baseTimeNanoseconds" (= wallClockBaseNs) and ts counted from it. Legacy
  // files (before 2023): no base, ts absolute epoch µs (wallClockBaseNs + time).
  bool legacyAbsoluteUs = false;
  std::int64_t firstStepNumber = 0;  // profilerSteps[i] is ProfilerStep#(firstStepNumber + i)
  bool gpuAnnotations = true;        // each Annotation also as gpu_user_annotation on the stream
  bool noise = true;                 // cpu_op / cuda_runtime / flow / metadata events
};

// The local device index a rank's fixture uses (ranks fill nodes of 8 GPUs in order).
inline int fixtureDevice(const FixtureRank& rank) {
  return rank.rank % 8;
}
// Host pid / tid and the GPU streams the fixture writes.
inline std::int64_t fixtureHostPid(const FixtureRank& rank) {
  return 41000 + rank.rank;
}
constexpr int kKinetoComputeStream = 7;
constexpr int kKinetoNcclStream = 24;
constexpr int kKinetoCopyStream = 22;

[[nodiscard]] std::string kinetoFixtureJson(const FixtureRank& rank,
                                            const KinetoFixtureOptions& options = {});

[[nodiscard]] ps::Status writeKinetoFixture(const std::string& path, const FixtureRank& rank,
                                            const KinetoFixtureOptions& options);
[[nodiscard]] ps::Status writeKinetoFixture(const std::string& path, const FixtureRank& rank,
                                            bool gzip);

// Gzip-compresses `bytes` (test helper, also for hand-written traces).
[[nodiscard]] std::string gzipBytes(const std::string& bytes);

}  // namespace ps::trace::import::testing
