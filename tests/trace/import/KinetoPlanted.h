#pragma once
// The Kineto reader tests' planted rank: one rank's events with every kind the reader tells
// apart, on a skewed clock (shared by KinetoReaderTest and KinetoReaderErrorsTest).

#include <cstdint>
#include <string>

#include "tests/trace/import/KinetoFixture.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import::testing {

inline constexpr std::int64_t kSkew = 2'500'123;  // not a whole µs: the ns fraction must survive
inline constexpr std::int64_t kBase = 1'700'000'000'000'000'000;
inline const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
inline const std::string kSendRecv = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
inline const std::string kRecv = "ncclDevKernel_Recv";
inline const std::string kAllReduce =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned "
    "long, ncclWork*)";

inline FixtureEvent ev(FixtureEventKind kind, std::string name, std::int64_t start,
                       std::int64_t end, int peer = -1, std::int64_t bytes = -1) {
  FixtureEvent e;
  e.kind = kind;
  e.name = std::move(name);
  e.startNs = start;
  e.endNs = end;
  e.peer = peer;
  e.bytes = bytes;
  return e;
}

// Rank 1 of 2: a forward with a nested range and its kernel, a send and a receive to rank 0, a
// peer copy, an all-reduce, two profiler steps (#3, #4) and device memory samples.
inline FixtureRank plantedRank() {
  FixtureRank r;
  r.rank = 1;
  r.worldSize = 2;
  r.wallClockBaseNs = kBase;
  r.clockSkewNs = kSkew;
  r.events = {
      ev(FixtureEventKind::Annotation, "PP:0F0", 1'000'000, 3'000'000),
      ev(FixtureEventKind::Annotation, "attn", 1'200'000, 1'800'000),
      ev(FixtureEventKind::Kernel, kGemm, 1'250'500, 1'750'250),
      ev(FixtureEventKind::Nccl, kSendRecv, 3'100'000, 3'900'000, 0, 4096),
      ev(FixtureEventKind::Memcpy, "p2p", 4'000'000, 4'100'000, 0, 1'048'576),
      ev(FixtureEventKind::Annotation, "PP:0F1", 11'000'000, 13'000'000),
      ev(FixtureEventKind::Nccl, kRecv, 12'000'000, 12'500'000, 0, 6),
      ev(FixtureEventKind::Nccl, kAllReduce, 14'000'000, 14'800'000, -1, 8000),
      ev(FixtureEventKind::Kernel, kGemm, 25'000'000, 25'001'000),
  };
  r.profilerSteps = {{0, 10'000'000}, {10'000'000, 20'000'000}};
  r.memory = {{500'000, 1LL << 30}, {2'000'000, (1LL << 30) + 4096}, {15'000'000, 1LL << 29}};
  return r;
}

inline Result<RawRankTrace> readText(const std::string& json,
                                     const std::string& label = "mem.json") {
  return readKinetoBuffer(json, label);
}

}  // namespace ps::trace::import::testing
