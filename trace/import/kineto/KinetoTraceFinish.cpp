// The builder's last pass (KinetoTraceBuilder::finish): steps, nesting depths, NCCL peers, the
// device and the time base, once every event is in.

#include <algorithm>
#include <limits>
#include <numeric>

#include "trace/import/kineto/KinetoTraceBuilder.h"

namespace ps::trace::import {

namespace {

// 2000-01-01 in epoch ns: anything later is an absolute (legacy) timestamp, anything earlier a
// time relative to baseTimeNanoseconds (those are days to weeks of µs, ~1e15 ns at most).
constexpr std::int64_t kEpoch2000Ns = 946'684'800'000'000'000;

}  // namespace

RawRankTrace KinetoTraceBuilder::finish(const KinetoMetadata& meta) {
  std::sort(trace_.steps.begin(), trace_.steps.end(),
            [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  assignSteps();
  projectToGpu();
  resolvePeers(meta);
  chooseMemoryDevice();
  chooseDevice(meta);
  setTimeBase(meta);
  trace_.rank = meta.rank;
  trace_.worldSize = meta.worldSize;
  trace_.host = meta.host;

  std::size_t unclosed = 0;
  for (const auto& [key, stack] : openBegins_)
    unclosed += stack.size();
  if (badTimes_ > 0)
    trace_.warnings.push_back(std::to_string(badTimes_) +
                              " events without a usable \"ts\" were skipped");
  if (unclosed > 0)
    trace_.warnings.push_back(std::to_string(unclosed) +
                              " \"B\" events without a matching \"E\" were dropped");
  if (unmatchedEnds_ > 0)
    trace_.warnings.push_back(std::to_string(unmatchedEnds_) +
                              " \"E\" events without a matching \"B\" were ignored");
  for (auto& [rank, samples] : trace_.memoryOfRank)
    std::stable_sort(
        samples.begin(), samples.end(),
        [](const RawMemorySample& a, const RawMemorySample& b) { return a.t_ns < b.t_ns; });
  if (trace_.events.empty() && trace_.memory.empty() && trace_.memoryOfRank.empty()) {
    trace_.warnings.push_back("no annotations, kernels or memory events");
  } else if (!trace_.events.empty() && trace_.statedOps.empty() &&
             std::none_of(trace_.events.begin(), trace_.events.end(), [](const RawEvent& e) {
               return e.source == EventSource::Kernel || e.source == EventSource::NcclKernel;
             })) {
    trace_.warnings.push_back("no GPU kernels: a CPU-only profile (CUDA activity not recorded)");
  }
  return std::move(trace_);
}

void KinetoTraceBuilder::assignSteps() {
  const auto& steps = trace_.steps;
  if (steps.empty()) return;
  for (RawEvent& e : trace_.events) {
    auto it = std::upper_bound(steps.begin(), steps.end(), e.start_ns,
                               [](std::int64_t t, const StepRange& s) { return t < s.start_ns; });
    if (it == steps.begin()) continue;
    --it;
    if (e.start_ns < it->end_ns) e.step = static_cast<std::int32_t>(it->number);
  }
}

// CPU ranges onto the GPU work they launched (issue 31 §1), unless the file has the GPU side of a
// label already (gpu_user_annotation wins: Kineto drew it from the same correlation ids). The
// CPU nesting is computed first: projection keeps it as the tie-break of equal GPU spans.
void KinetoTraceBuilder::projectToGpu() {
  assignAnnotationDepths(trace_);
  std::vector<bool> onGpu(trace_.names.size(), false);
  for (const RawEvent& e : trace_.events)
    if (e.source == EventSource::GpuAnnotation && e.name >= 0) onGpu[e.name] = true;
  auto& ranges = projection_.ranges;
  ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                              [&](const RangeRef& r) {
                                const std::int32_t name = trace_.events[r.event].name;
                                return name >= 0 && onGpu[static_cast<std::size_t>(name)];
                              }),
               ranges.end());
  lastLaunches_ = nullptr;
  if (!ranges.empty()) {
    auto& work = projection_.gpuWork;
    work.reserve(workEvent_.size());
    for (std::size_t i = 0; i < workEvent_.size(); ++i) {
      const RawEvent& e = trace_.events[workEvent_[i]];
      work.push_back({workCorrelation_[i], e.start_ns, e.end_ns, e.track});
    }
  }
  std::vector<std::int64_t>().swap(workCorrelation_);
  std::vector<std::uint32_t>().swap(workEvent_);
  if (projectRangesToGpu(trace_, projection_) > 0) assignAnnotationDepths(trace_);
}

void KinetoTraceBuilder::resolvePeers(const KinetoMetadata& meta) {
  for (const NcclPeer& p : ncclPeers_) {
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
    trace_.events[p.event].peer =
        static_cast<std::int32_t>(std::min<std::int64_t>(peer, INT32_MAX));
  }
  // Copies name devices, not ranks. With torchrun's usual layout (local rank = device index,
  // consecutive ranks per node) the peer's rank is ours shifted by the device difference; without
  // a rank it cannot be told.
  if (!meta.rank) return;
  for (const CopyPeer& p : copyPeers_) {
    const std::int64_t peer = *meta.rank - p.self + p.other;
    const bool inWorld = peer >= 0 && (!meta.worldSize || peer < *meta.worldSize);
    if (inWorld && peer <= INT32_MAX) trace_.events[p.event].peer = static_cast<std::int32_t>(peer);
  }
}

void KinetoTraceBuilder::chooseMemoryDevice() {
  // One trace, one device: the one with the most samples (others are rare stray allocations).
  const std::vector<RawMemorySample>* best = nullptr;
  for (const auto& [device, samples] : memoryByDevice_)
    if (best == nullptr || samples.size() > best->size()) best = &samples;
  if (best == nullptr) return;
  trace_.memory = *best;
  std::stable_sort(
      trace_.memory.begin(), trace_.memory.end(),
      [](const RawMemorySample& a, const RawMemorySample& b) { return a.t_ns < b.t_ns; });
}

void KinetoTraceBuilder::chooseDevice(const KinetoMetadata& meta) {
  std::optional<std::int64_t> id;
  std::size_t uses = 0;
  for (const auto& [device, count] : deviceUse_) {
    if (count > uses) {
      id = device;
      uses = count;
    }
  }
  if (!id) {
    std::size_t samples = 0;
    for (const auto& [device, list] : memoryByDevice_) {
      if (list.size() > samples) {
        id = device;
        samples = list.size();
      }
    }
  }
  if (!id && meta.devices.size() == 1) id = meta.devices.front().id;
  if (!id) return;
  for (const KinetoDeviceInfo& d : meta.devices) {
    if (d.id != *id) continue;
    if (!d.name.empty()) {
      std::string name = d.name;
      if (d.computeMajor && d.computeMinor)
        name += " (sm_" + std::to_string(*d.computeMajor) + std::to_string(*d.computeMinor) + ")";
      trace_.device = std::move(name);
    }
    if (d.totalGlobalMem && *d.totalGlobalMem > 0) trace_.memoryCapacityBytes = d.totalGlobalMem;
    return;
  }
}

void KinetoTraceBuilder::setTimeBase(const KinetoMetadata& meta) {
  const bool haveTimes = minStartNs_ != std::numeric_limits<std::int64_t>::max();
  const bool absolute = haveTimes && minStartNs_ >= kEpoch2000Ns;
  if (meta.baseTimeNs) {
    if (absolute) {
      trace_.warnings.push_back(
          "baseTimeNanoseconds ignored: the event times are already absolute");
      trace_.wallClockOffsetNs = 0;
    } else {
      trace_.wallClockOffsetNs = meta.baseTimeNs;
    }
    return;
  }
  // Legacy Kineto: times are epoch µs, so the local clock already is UTC.
  if (absolute) trace_.wallClockOffsetNs = 0;
}

}  // namespace ps::trace::import
