#pragma once
// Reader for PyTorch profiler (Kineto) Chrome-trace JSON: one rank's .json or .json.gz, either
// an object with "traceEvents" (what torch.profiler writes) or a bare array of events (PiPPy's
// visualizer and other hand-made files). Fills a RawRankTrace (format "kineto"):
//   user_annotation -> CpuAnnotation, gpu_user_annotation -> GpuAnnotation,
//   kernel -> Kernel or NcclKernel (peer from "Src Rank"/"Dst Rank", bytes from the message
//   size and dtype), gpu_memcpy -> Memcpy, gpu_memset -> Memset, events without "cat" ->
//   CpuAnnotation, ProfilerStep#N -> steps, [memory] instants -> memory samples of the trace's GPU.
// Times stay on the file's clock, in ns: modern files count µs from baseTimeNanoseconds (which
// becomes wallClockOffsetNs), legacy ones absolute epoch µs (offset 0).

#include <string>
#include <string_view>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// Reads one rank's Kineto trace (.json or .json.gz, an object with traceEvents or a bare array).
[[nodiscard]] Result<RawRankTrace> readKinetoFile(const std::string& path,
                                                  const ReadControl& control = {});

// Same from bytes already in memory (gzip or not: detected); `label` names the source in
// messages.
[[nodiscard]] Result<RawRankTrace> readKinetoBuffer(std::string_view bytes,
                                                    const std::string& label,
                                                    const ReadControl& control = {});

}  // namespace ps::trace::import
