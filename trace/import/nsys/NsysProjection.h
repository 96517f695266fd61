#pragma once
// NVTX ranges live on host threads, but a pipeline op's cost is the GPU time of what it launched.
// Projection links the two the way Nsight Systems' own "NVTX on GPU" row does: the CUDA runtime
// calls a thread made inside a range carry correlation ids; kernels, copies and memsets with the
// same ids in the same process are the range's GPU work.

#include "trace/import/nsys/NsysProcess.h"

namespace ps::trace::import::nsys {

// Appends one GpuAnnotation per NVTX range of `process` that launched GPU work: runtime calls on
// the range's thread starting in [range start, range end) -> their correlation ids -> GPU work
// with those ids -> [min start, max end], on the track of the earliest of that work; name and
// step are the range's, and so is depth (run assignAnnotationDepths first: on equal GPU spans it
// keeps the CPU nesting). Ranges that launched nothing get none. Frees the projection material.
void projectRangesToGpu(NsysProcess& process);

// Nesting depth of the annotations (CPU and GPU alike) on each track: 0 for the outermost, by a
// sweep in start order (longer first, then lower previous depth on ties) that closes ranges ended
// by the next start.
void assignAnnotationDepths(RawRankTrace& trace);

}  // namespace ps::trace::import::nsys
