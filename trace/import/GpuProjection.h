#pragma once
// Labelled host ranges (NVTX, torch record_function) live on CPU threads, but a pipeline op's
// cost is the GPU time of what it launched (issue 31 §1). Projection links the two the way
// Nsight Systems' "NVTX on GPU" row and Kineto's gpu_user_annotation do: the CUDA runtime or
// driver calls a thread makes inside a range carry correlation ids; kernels, copies and memsets
// with the same ids are the range's GPU work. Shared by the nsys and Kineto readers, which only
// gather the material (ranges, launches per thread, GPU work by correlation id).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// One kernel / copy / memset that a range may have launched.
struct GpuWork {
  std::int64_t correlationId = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t track = 0;  // its stream
};

// A CUDA runtime or driver call on a host thread.
struct Launch {
  std::int64_t start = 0;
  std::int64_t correlationId = 0;
};

// A labelled range, already in the trace as a CpuAnnotation event.
struct RangeRef {
  std::int64_t thread = 0;  // the reader's key of its thread (the key of `launches`)
  std::size_t event = 0;    // index into trace.events
};

struct ProjectionMaterial {
  std::vector<RangeRef> ranges;
  std::unordered_map<std::int64_t, std::vector<Launch>> launches;  // by thread
  std::vector<GpuWork> gpuWork;
  void release();  // frees the memory (the vectors' capacity too)
};

// Appends one GpuAnnotation per range that launched GPU work: the calls on the range's thread
// starting in [range start, range end) -> their correlation ids -> the GPU work with those ids ->
// [first start, last end], on the track (stream) of the earliest of that work; name, step,
// stated op and depth are the range's (run assignAnnotationDepths first: on equal GPU spans the
// depth keeps the CPU nesting). A range whose own thread launched nothing inside it (it waited:
// torch's backward runs on the autograd engine's thread) takes the calls made during it by
// threads that hold no ranges at all. Ranges that launched nothing get none. Returns how many
// ranges were projected.
std::size_t projectRangesToGpu(RawRankTrace& trace, ProjectionMaterial& material);

// Nesting depth of the annotations (CPU and GPU alike) on each track: 0 for the outermost, by a
// sweep in start order (longer first, then lower previous depth on ties) that closes ranges ended
// by the next start.
void assignAnnotationDepths(RawRankTrace& trace);

}  // namespace ps::trace::import
