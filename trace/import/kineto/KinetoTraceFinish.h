#pragma once
// The Kineto builder's last pass, once every event is in: what is derived from the whole file
// rather than from one event. Step numbers, the peers of NCCL kernels and copies (which need the
// file's own rank), the device and its memory samples, the time base, and the warnings about what
// was skipped. KinetoTraceBuilder gathers `KinetoGathered` while adding events, then calls
// assignKinetoSteps, projects ranges onto the GPU, and calls finishKinetoTrace.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "trace/import/RawTrace.h"
#include "trace/import/kineto/KinetoCommArgs.h"
#include "trace/import/kineto/KinetoMetadata.h"

namespace ps::trace::import {

// What the builder keeps beside the events for the last pass.
struct KinetoGathered {
  struct NcclPeer {  // an NCCL kernel (index into events) whose direction was left open
    std::size_t event = 0;
    OpenNcclPeer ranks;
  };
  struct CopyPeer {  // a copy between two devices, turned into a rank at the end
    std::size_t event = 0;
    CopyDevices devices;
  };
  std::vector<NcclPeer> ncclPeers;
  std::vector<CopyPeer> copyPeers;
  std::map<std::int64_t, std::size_t> gpuEventsOnDevice;                // device id -> count
  std::map<std::int64_t, std::vector<RawMemorySample>> memoryOnDevice;  // "[memory]" samples
  std::int64_t minStartNs = std::numeric_limits<std::int64_t>::max();
  std::size_t badTimes = 0;        // events skipped for want of a usable "ts"
  std::size_t unclosedBegins = 0;  // "B" without "E"
  std::size_t unmatchedEnds = 0;   // "E" without "B"
};

// Sorts the steps by start and gives each event the step it starts in.
void assignKinetoSteps(RawRankTrace& trace);

// The rest, after the GPU projection: peers, device and memory, time base, the metadata's rank,
// world size and host, each rank's memory sorted by time, and the warnings.
void finishKinetoTrace(RawRankTrace& trace, const KinetoGathered& gathered,
                       const KinetoMetadata& meta);

}  // namespace ps::trace::import
