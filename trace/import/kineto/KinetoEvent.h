#pragma once
// One traceEvents element as far as the importer cares, handed from the JSON layer
// (KinetoEventParser) to the format logic (KinetoTraceBuilder). Strings are views into the
// input or the parser's scratch space: valid only during KinetoTraceBuilder::add. Numbers stay
// text until the builder knows it keeps the event (most events are cpu_op and are dropped).

#include <cstdint>
#include <string_view>

namespace ps::trace::import {

enum class KinetoPhase : std::uint8_t { Other, Complete, Begin, End, Instant, Counter };

enum class KinetoCategory : std::uint8_t {
  Missing,            // no "cat": PiPPy's visualizer, the autograd profiler's own export
  UserAnnotation,     // record_function on a host thread
  GpuUserAnnotation,  // the same projected onto a stream
  Kernel,
  Memcpy,
  Memset,
  CpuOp,  // only ProfilerStep#N matters among these
  // An op kind's name ("F", "SEND_B", ...): PipeScope's own Chrome export, whose args state
  // the op (kind, stage, microbatch, step, bytes, peer) and whose processes are ranks.
  StatedOp,
  Launch,  // cuda_runtime / cuda_driver: a call whose correlation id names the GPU work it started
  Other,   // python_function, ac2g flows, ...: ignored
};

struct KinetoEvent {
  KinetoPhase phase = KinetoPhase::Other;
  KinetoCategory category = KinetoCategory::Missing;
  bool profilerStep = false;  // name starts with "ProfilerStep#"
  std::string_view name;
  std::string_view pid;  // raw JSON tokens: numbers or quoted strings
  std::string_view tid;
  std::string_view ts;  // raw number text, microseconds
  std::string_view dur;

  // args, raw number text unless noted ("" when absent)
  std::string_view correlation;  // launch, kernel / memcpy / memset: links a call to its work
  std::string_view device;       // kernel / memcpy / memset
  std::string_view bytes;        // memcpy / memset
  std::string_view fromDevice;   // peer-to-peer memcpy
  std::string_view inDevice;
  std::string_view toDevice;
  std::string_view collective;      // NCCL "Collective name" (string contents)
  std::string_view dtype;           // NCCL "dtype" (string contents)
  std::string_view inNelems;        // NCCL "In msg nelems"
  std::string_view outNelems;       // NCCL "Out msg nelems"
  std::string_view srcRank;         // NCCL "Src Rank"
  std::string_view dstRank;         // NCCL "Dst Rank"
  std::string_view totalAllocated;  // [memory] "Total Allocated"
  std::string_view memoryDevice;    // [memory] "Device Id"
  // PipeScope's export (StatedOp events; "bytes" above also serves its memory counter)
  std::string_view kind;  // "kind" (string contents)
  std::string_view stage;
  std::string_view microbatch;
  std::string_view step;
  std::string_view peer;
};

// The phase of a "ph" value ("X", "B", ...); Other for phases the importer ignores.
KinetoPhase kinetoPhaseOf(std::string_view ph);
// The category of a "cat" value (its contents, non-empty); Other for categories it ignores.
KinetoCategory kinetoCategoryOf(std::string_view cat);
// The category of an event without "cat", by its name: CpuOp for the framework's own ops
// ("aten::mm", "autograd::engine::...", "MmBackward0"), Launch for runtime calls
// ("cudaLaunchKernel"), Missing (a label) otherwise.
KinetoCategory kinetoCategoryOfUncategorised(std::string_view name);

}  // namespace ps::trace::import
