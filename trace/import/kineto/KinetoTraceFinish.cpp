// The Kineto builder's last pass (KinetoTraceFinish.h).

#include "trace/import/kineto/KinetoTraceFinish.h"

#include <algorithm>
#include <optional>
#include <string>

namespace ps::trace::import {

namespace {

// 2000-01-01 in epoch ns: anything later is an absolute (legacy) timestamp, anything earlier a
// time relative to baseTimeNanoseconds (those are days to weeks of µs, ~1e15 ns at most).
constexpr std::int64_t kEpoch2000Ns = 946'684'800'000'000'000;

void resolvePeers(RawRankTrace& trace, const KinetoGathered& gathered, const KinetoMetadata& meta) {
  for (const auto& [event, p] : gathered.ncclPeers) {
    // Direction unknown: the peer is whichever of Src/Dst Rank is not this rank.
    std::int64_t peer = -1;
    if (meta.rank) {
      if (p.dst >= 0 && p.dst != *meta.rank) {
        peer = p.dst;
      } else if (p.src >= 0 && p.src != *meta.rank) {
        peer = p.src;
      }
    } else if ((p.src >= 0) != (p.dst >= 0)) {
      peer = std::max(p.src, p.dst);
    }
    trace.events[event].peer = static_cast<std::int32_t>(std::min<std::int64_t>(peer, INT32_MAX));
  }
  // Copies name devices, not ranks. With torchrun's usual layout (local rank = device index,
  // consecutive ranks per node) the peer's rank is ours shifted by the device difference; without
  // a rank it cannot be told.
  if (!meta.rank) return;
  for (const auto& [event, p] : gathered.copyPeers) {
    const std::int64_t peer = *meta.rank - p.self + p.other;
    const bool inWorld = peer >= 0 && (!meta.worldSize || peer < *meta.worldSize);
    if (inWorld && peer <= INT32_MAX) trace.events[event].peer = static_cast<std::int32_t>(peer);
  }
}

void chooseMemoryDevice(RawRankTrace& trace, const KinetoGathered& gathered) {
  // One trace, one device: the one with the most samples (others are rare stray allocations).
  const std::vector<RawMemorySample>* best = nullptr;
  for (const auto& [device, samples] : gathered.memoryOnDevice)
    if (best == nullptr || samples.size() > best->size()) best = &samples;
  if (best == nullptr) return;
  trace.memory = *best;
  std::stable_sort(
      trace.memory.begin(), trace.memory.end(),
      [](const RawMemorySample& a, const RawMemorySample& b) { return a.t_ns < b.t_ns; });
}

// The device this trace ran on: the one most GPU events ran on, else the one with the most memory
// samples, else the file's only device.
std::optional<std::int64_t> traceDevice(const KinetoGathered& gathered,
                                        const KinetoMetadata& meta) {
  std::optional<std::int64_t> id;
  std::size_t uses = 0;
  for (const auto& [device, count] : gathered.gpuEventsOnDevice) {
    if (count > uses) {
      id = device;
      uses = count;
    }
  }
  if (!id) {
    std::size_t samples = 0;
    for (const auto& [device, list] : gathered.memoryOnDevice) {
      if (list.size() > samples) {
        id = device;
        samples = list.size();
      }
    }
  }
  if (!id && meta.devices.size() == 1) id = meta.devices.front().id;
  return id;
}

void chooseDevice(RawRankTrace& trace, const KinetoGathered& gathered, const KinetoMetadata& meta) {
  const std::optional<std::int64_t> id = traceDevice(gathered, meta);
  if (!id) return;
  for (const KinetoDeviceInfo& d : meta.devices) {
    if (d.id != *id) continue;
    if (!d.name.empty()) {
      std::string name = d.name;
      if (d.computeMajor && d.computeMinor)
        name += " (sm_" + std::to_string(*d.computeMajor) + std::to_string(*d.computeMinor) + ")";
      trace.device = std::move(name);
    }
    if (d.totalGlobalMem && *d.totalGlobalMem > 0) trace.memoryCapacityBytes = d.totalGlobalMem;
    return;
  }
}

void setTimeBase(RawRankTrace& trace, std::int64_t minStartNs, const KinetoMetadata& meta) {
  const bool haveTimes = minStartNs != std::numeric_limits<std::int64_t>::max();
  const bool absolute = haveTimes && minStartNs >= kEpoch2000Ns;
  if (meta.baseTimeNs) {
    if (absolute) {
      trace.warnings.push_back("baseTimeNanoseconds ignored: the event times are already absolute");
      trace.wallClockOffsetNs = 0;
    } else {
      trace.wallClockOffsetNs = meta.baseTimeNs;
    }
    return;
  }
  // Legacy Kineto: times are epoch µs, so the local clock already is UTC.
  if (absolute) trace.wallClockOffsetNs = 0;
}

void warnAboutSkipped(RawRankTrace& trace, const KinetoGathered& gathered) {
  if (gathered.badTimes > 0)
    trace.warnings.push_back(std::to_string(gathered.badTimes) +
                             " events without a usable \"ts\" were skipped");
  if (gathered.unclosedBegins > 0)
    trace.warnings.push_back(std::to_string(gathered.unclosedBegins) +
                             " \"B\" events without a matching \"E\" were dropped");
  if (gathered.unmatchedEnds > 0)
    trace.warnings.push_back(std::to_string(gathered.unmatchedEnds) +
                             " \"E\" events without a matching \"B\" were ignored");
}

void warnAboutWhatIsMissing(RawRankTrace& trace) {
  if (trace.events.empty() && trace.memory.empty() && trace.memoryOfRank.empty()) {
    trace.warnings.push_back("no annotations, kernels or memory events");
  } else if (!trace.events.empty() && trace.statedOps.empty() &&
             std::none_of(trace.events.begin(), trace.events.end(), [](const RawEvent& e) {
               return e.source == EventSource::Kernel || e.source == EventSource::NcclKernel;
             })) {
    trace.warnings.push_back("no GPU kernels: a CPU-only profile (CUDA activity not recorded)");
  }
}

}  // namespace

void assignKinetoSteps(RawRankTrace& trace) {
  auto& steps = trace.steps;
  std::sort(steps.begin(), steps.end(),
            [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  if (steps.empty()) return;
  for (RawEvent& e : trace.events) {
    auto it = std::upper_bound(steps.begin(), steps.end(), e.start_ns,
                               [](std::int64_t t, const StepRange& s) { return t < s.start_ns; });
    if (it == steps.begin()) continue;
    --it;
    if (e.start_ns < it->end_ns) e.step = static_cast<std::int32_t>(it->number);
  }
}

void finishKinetoTrace(RawRankTrace& trace, const KinetoGathered& gathered,
                       const KinetoMetadata& meta) {
  resolvePeers(trace, gathered, meta);
  chooseMemoryDevice(trace, gathered);
  chooseDevice(trace, gathered, meta);
  setTimeBase(trace, gathered.minStartNs, meta);
  trace.rank = meta.rank;
  trace.worldSize = meta.worldSize;
  trace.host = meta.host;
  warnAboutSkipped(trace, gathered);
  for (auto& [rank, samples] : trace.memoryOfRank)
    std::stable_sort(
        samples.begin(), samples.end(),
        [](const RawMemorySample& a, const RawMemorySample& b) { return a.t_ns < b.t_ns; });
  warnAboutWhatIsMissing(trace);
}

}  // namespace ps::trace::import
