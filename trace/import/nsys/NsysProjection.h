#pragma once
// NVTX ranges live on host threads, but a pipeline op's cost is the GPU time of what it launched:
// the nsys reader hands its process's NVTX ranges, the runtime calls on their threads and the GPU
// work by correlation id to the shared projection (trace/import/GpuProjection.h), as Nsight
// Systems' own "NVTX on GPU" row does.

#include "trace/import/GpuProjection.h"
#include "trace/import/nsys/NsysProcess.h"

namespace ps::trace::import::nsys {

// Projects the NVTX ranges of `process` onto their GPU work (GpuProjection.h) and frees the
// projection material.
inline void projectRangesToGpu(NsysProcess& process) {
  import::projectRangesToGpu(process.trace, process.projection);
}

using import::assignAnnotationDepths;

}  // namespace ps::trace::import::nsys
