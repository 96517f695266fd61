#include "trace/import/nsys/NsysProjection.h"

#include <algorithm>
#include <tuple>

namespace ps::trace::import::nsys {

namespace {

// GPU work by correlation id, one span per id: a graph launch runs many kernels under one id.
// Sorted by id; the track is that of the earliest piece.
void collapseByCorrelation(std::vector<GpuWork>& work) {
  std::sort(work.begin(), work.end(), [](const GpuWork& a, const GpuWork& b) {
    return std::tie(a.correlationId, a.start) < std::tie(b.correlationId, b.start);
  });
  std::size_t out = 0;
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (out > 0 && work[out - 1].correlationId == work[i].correlationId) {
      work[out - 1].end = std::max(work[out - 1].end, work[i].end);
    } else {
      work[out++] = work[i];
    }
  }
  work.resize(out);
}

template <typename T>
void release(T& container) {
  T().swap(container);
}

}  // namespace

void projectRangesToGpu(NsysProcess& p) {
  if (!p.ranges.empty() && !p.gpuWork.empty()) {
    auto& work = p.gpuWork;
    collapseByCorrelation(work);
    for (auto& [tid, launches] : p.launches)
      std::sort(launches.begin(), launches.end(),
                [](const Launch& a, const Launch& b) { return a.start < b.start; });

    for (const RangeRef& r : p.ranges) {
      const RawEvent cpu = p.trace.events[r.event];  // a copy: push_back below may reallocate
      auto thread = p.launches.find(r.globalTid);
      if (thread == p.launches.end()) continue;
      const auto& launches = thread->second;
      auto launch = std::lower_bound(launches.begin(), launches.end(), cpu.start_ns,
                                     [](const Launch& l, std::int64_t t) { return l.start < t; });
      bool found = false;
      RawEvent gpu = cpu;
      gpu.source = EventSource::GpuAnnotation;  // depth: the CPU one, a tie-break hint
      // [start, end): a call at the very instant a range ends belongs to the next one. A
      // zero-length range still owns a call at its instant.
      for (; launch != launches.end() &&
             (launch->start < cpu.end_ns || launch->start == cpu.start_ns);
           ++launch) {
        auto w = std::lower_bound(
            work.begin(), work.end(), launch->correlationId,
            [](const GpuWork& g, std::int64_t id) { return g.correlationId < id; });
        if (w == work.end() || w->correlationId != launch->correlationId) continue;
        if (!found || w->start < gpu.start_ns) {
          gpu.start_ns = w->start;
          gpu.track = w->track;
        }
        gpu.end_ns = found ? std::max(gpu.end_ns, w->end) : w->end;
        found = true;
      }
      if (found) p.trace.events.push_back(gpu);
    }
  }
  release(p.ranges);
  release(p.launches);
  release(p.gpuWork);
}

void assignAnnotationDepths(RawRankTrace& trace) {
  auto& events = trace.events;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const EventSource s = events[i].source;
    if (s == EventSource::CpuAnnotation || s == EventSource::GpuAnnotation) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const RawEvent& x = events[a];
    const RawEvent& y = events[b];
    // GPU and CPU annotations never share a track (GPU tracks are >= 2^24), so the track alone
    // separates them.
    if (x.track != y.track) return x.track < y.track;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;  // the enclosing one first
    // Equal spans (GPU versions of ranges that launched the same work): keep the nesting the
    // ranges had, which the depth field holds from the previous pass.
    if (x.depth != y.depth) return x.depth < y.depth;
    return a < b;
  });
  std::vector<std::int64_t> open;  // end times of the enclosing ranges, innermost last
  std::int32_t track = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    RawEvent& e = events[order[k]];
    if (k == 0 || e.track != track) {
      open.clear();
      track = e.track;
    }
    while (!open.empty() && open.back() <= e.start_ns)
      open.pop_back();
    e.depth = static_cast<std::int32_t>(open.size());
    open.push_back(e.end_ns);
  }
}

}  // namespace ps::trace::import::nsys
