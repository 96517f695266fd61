#include "trace/import/GpuProjection.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

namespace ps::trace::import {

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

// Widens `gpu` by the work of the calls in `launches` made during `cpu`: [start, end), so a
// call at the very instant a range ends belongs to the next one, but a zero-length range still
// owns a call at its instant. Returns whether any call had GPU work.
bool widenByLaunches(const std::vector<Launch>& launches, const std::vector<GpuWork>& work,
                     const RawEvent& cpu, RawEvent& gpu, bool found) {
  auto launch = std::lower_bound(launches.begin(), launches.end(), cpu.start_ns,
                                 [](const Launch& l, std::int64_t t) { return l.start < t; });
  for (; launch != launches.end() && (launch->start < cpu.end_ns || launch->start == cpu.start_ns);
       ++launch) {
    auto w =
        std::lower_bound(work.begin(), work.end(), launch->correlationId,
                         [](const GpuWork& g, std::int64_t id) { return g.correlationId < id; });
    if (w == work.end() || w->correlationId != launch->correlationId) continue;
    if (!found || w->start < gpu.start_ns) {
      gpu.start_ns = w->start;
      gpu.track = w->track;
    }
    gpu.end_ns = found ? std::max(gpu.end_ns, w->end) : w->end;
    found = true;
  }
  return found;
}

}  // namespace

void ProjectionMaterial::release() {
  import::release(ranges);
  import::release(launches);
  import::release(gpuWork);
}

std::size_t projectRangesToGpu(RawRankTrace& trace, ProjectionMaterial& m) {
  std::size_t projected = 0;
  if (m.ranges.empty() || m.gpuWork.empty()) {
    m.release();
    return projected;
  }
  collapseByCorrelation(m.gpuWork);
  for (auto& [thread, launches] : m.launches)
    std::sort(launches.begin(), launches.end(),
              [](const Launch& a, const Launch& b) { return a.start < b.start; });
  // Threads that launch but hold no ranges (torch's autograd engine): stand-ins for a range
  // whose own thread only waited.
  std::unordered_set<std::int64_t> labelled;
  for (const RangeRef& r : m.ranges)
    labelled.insert(r.thread);
  std::vector<const std::vector<Launch>*> unlabelled;
  for (const auto& [thread, launches] : m.launches)
    if (!labelled.count(thread) && !launches.empty()) unlabelled.push_back(&launches);

  for (const RangeRef& r : m.ranges) {
    const RawEvent cpu = trace.events[r.event];  // a copy: push_back below may reallocate
    RawEvent gpu = cpu;
    gpu.source = EventSource::GpuAnnotation;  // depth: the CPU one, a tie-break hint
    bool found = false;
    if (const auto own = m.launches.find(r.thread); own != m.launches.end())
      found = widenByLaunches(own->second, m.gpuWork, cpu, gpu, false);
    if (!found)
      for (const auto* launches : unlabelled)
        found = widenByLaunches(*launches, m.gpuWork, cpu, gpu, found);
    if (!found) continue;
    trace.events.push_back(gpu);
    ++projected;
  }
  m.release();
  return projected;
}

void assignAnnotationDepths(RawRankTrace& trace) {
  auto& events = trace.events;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (isAnnotation(events[i].source)) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const RawEvent& x = events[a];
    const RawEvent& y = events[b];
    // Readers give GPU streams and host threads different track numbers, so the track alone
    // separates GPU annotations from CPU ones.
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

}  // namespace ps::trace::import
