#pragma once
// A small, format-neutral description of one rank's profile that the fixture writers turn into a
// Kineto JSON file (KinetoFixture.h) or an Nsight Systems SQLite export (NsysFixture.h). Tests
// plant known pipeline ops, NCCL kernels and clock skews here and check what the importers make
// of them. Times are nanoseconds on the rank's TRUE clock; `clockSkewNs` is added when writing,
// so the file shows what a skewed node clock would have recorded.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ps::trace::import::testing {

enum class FixtureEventKind {
  Annotation,  // a labelled range (Kineto user_annotation + gpu_user_annotation; nsys NVTX
               // push/pop range on the host with the kernel below launched inside it)
  Kernel,      // a compute kernel
  Nccl,        // an NCCL kernel; `name` like "ncclDevKernel_SendRecv(...)"
  Memcpy,      // a copy; peer >= 0 makes it peer-to-peer
};

struct FixtureEvent {
  FixtureEventKind kind = FixtureEventKind::Kernel;
  std::string name;
  std::int64_t startNs = 0;  // true clock
  std::int64_t endNs = 0;
  int peer = -1;  // NCCL Src/Dst rank, p2p copy peer
  std::int64_t bytes = -1;
  std::optional<int> step;  // NVTX payload / enclosing ProfilerStep
};

struct FixtureRank {
  int rank = 0;
  int worldSize = 1;
  bool writeRankMetadata = true;  // Kineto distributedInfo; nsys has none in any case
  std::int64_t wallClockBaseNs = 1'700'000'000'000'000'000;  // UTC epoch ns of local time 0
  std::int64_t clockSkewNs = 0;  // added to every time written (the node clock's error)
  std::string deviceName = "NVIDIA H200";
  std::int64_t memoryCapacityBytes = 141LL << 30;
  std::vector<FixtureEvent> events;
  std::vector<std::pair<std::int64_t, std::int64_t>> memory;  // (t_ns true clock, bytes in use)
  std::vector<std::pair<std::int64_t, std::int64_t>> profilerSteps;  // (start, end) ns, #0..
};

}  // namespace ps::trace::import::testing
