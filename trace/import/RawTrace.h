#pragma once
// What a file reader hands to the import pipeline: the events of ONE rank's profile, on that
// file's own clock, before pipeline ops are recognised and before ranks are aligned.
//
//   reader (KinetoReader, NsysReader)  ->  RawRankTrace  ->  recognition (OpRecognizer)
//     -> per-rank ops (OpBuilder)  ->  merge + clock alignment (RankMerge)  ->  TraceWriter
//
// Readers know their format and nothing about pipelines; the later stages know pipelines and
// nothing about formats. Every reader fills the same fields, so the rest is shared.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/OpKind.h"

namespace ps::trace::import {

// Where an event came from. Annotations are the user's labels (NVTX ranges, torch
// record_function); the rest is work the profiler saw on the device.
enum class EventSource : std::uint8_t {
  CpuAnnotation,  // a labelled range on a host thread (CPU time)
  GpuAnnotation,  // a labelled range projected onto the GPU time of its kernels
  Kernel,         // a compute kernel
  NcclKernel,     // an NCCL kernel (collective or send/recv)
  Memcpy,         // a copy; peer-to-peer copies carry `peer` (the other device's rank)
  Memset,
};

constexpr bool isAnnotation(EventSource s) {
  return s == EventSource::CpuAnnotation || s == EventSource::GpuAnnotation;
}

// The NCCL operation of an NcclKernel event, from its name or its args.
enum class CommOp : std::uint8_t {
  None,
  Send,
  Recv,
  SendRecv,
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  Other
};

struct RawEvent {
  std::int64_t start_ns = 0;  // on the file's own clock (see RawRankTrace::clock)
  std::int64_t end_ns = 0;
  std::int32_t name = -1;  // index into RawRankTrace::names
  EventSource source = EventSource::Kernel;
  CommOp comm = CommOp::None;
  std::int32_t track = 0;    // thread or stream (a GPU stream and a host thread never share one)
  std::int32_t peer = -1;    // NCCL src/dst rank, or the peer of a p2p copy; -1 unknown
  std::int64_t bytes = -1;   // -1 unknown
  std::int32_t depth = 0;    // nesting depth of annotations on their track (0 = outermost)
  std::int32_t step = -1;    // ProfilerStep / payload step when the file says; -1 unknown
  std::int32_t stated = -1;  // index into RawRankTrace::statedOps when the file states the op
};

// An op the file states outright instead of naming it in a label (PipeScope's own Chrome export:
// args kind, stage, microbatch): taken as it is, not recognised.
struct StatedOp {
  OpKind kind = OpKind::OTHER;
  std::int32_t stage = -1;
  std::int32_t microbatch = -1;
  friend bool operator==(const StatedOp&, const StatedOp&) = default;
};

// A step marker: ProfilerStep#N in Kineto, an NVTX range named like it in nsys.
struct StepRange {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t number = 0;  // N of ProfilerStep#N
};

struct RawMemorySample {
  std::int64_t t_ns = 0;
  std::int64_t bytes = 0;  // total in use on the device from t_ns on
};

struct RawRankTrace {
  std::string file;              // the path as given, for messages
  std::string format;            // "kineto" | "nsys"
  std::optional<int> rank;       // from the file's metadata (distributedInfo.rank, ...)
  std::optional<int> worldSize;  // from the file's metadata
  // Add to a local time to get UTC nanoseconds since the Unix epoch, when the file says
  // (Kineto baseTimeNanoseconds, nsys session start utcEpochNs). Used by --align wall and to
  // tell files of different runs apart.
  std::optional<std::int64_t> wallClockOffsetNs;
  std::optional<std::string> host;
  std::optional<std::string> device;  // e.g. "NVIDIA H200 (sm_90)"
  std::optional<std::int64_t> memoryCapacityBytes;

  std::vector<std::string> names;       // interned event names
  std::vector<RawEvent> events;         // any order
  std::vector<StepRange> steps;         // sorted by start
  std::vector<RawMemorySample> memory;  // sorted by time
  // The thread id of each host-thread track (key: RawEvent::track), when the reader knows it
  // (Kineto's "tid", the thread of an nsys globalTid). Orders the ranks of threads-as-ranks
  // (ImportOptions::threadsAsRanks); without it they follow the track numbers.
  std::map<std::int32_t, std::int64_t> threadIds;
  std::vector<StatedOp> statedOps;  // see RawEvent::stated
  // A file of several ranks on one clock (PipeScope's Chrome export: one process per rank): the
  // rank of each track holding stated ops, and each rank's memory samples (sorted by time). The
  // reader splits such a trace per rank (splitProcessesAsRanks); empty for one rank's profile.
  std::map<std::int32_t, int> rankOfTrack;
  std::map<int, std::vector<RawMemorySample>> memoryOfRank;
  // Set on the ranks split from one file: their times are on that file's one clock already, so
  // the import fits no clock offsets (0 for each) and splits no peer waits off.
  bool sharedClock = false;
  // Things the reader could not import and why, one line each, e.g.
  // "no CUPTI_ACTIVITY_KIND_KERNEL table: kernels not imported".
  std::vector<std::string> warnings;

  // Interns a name; returns its index.
  std::int32_t intern(std::string_view name);
  const std::string& nameOf(const RawEvent& e) const {
    return names[static_cast<std::size_t>(e.name)];
  }

 private:
  std::unordered_map<std::string, std::int32_t> nameIndex_;
};

// Cancel flag and progress callback for long reads (the app's File → Import runs them in a
// worker thread). Readers poll `cancelled()` every few thousand events and then return an error
// "cancelled"; progress is the fraction of the file consumed, 0..1, called at most ~100 times.
struct ReadControl {
  const std::atomic<bool>* cancel = nullptr;
  // A second flag, set by the import itself rather than the user: readTraceFiles stops the reads
  // of later files once one has failed (their errors would not be reported). Same effect.
  const std::atomic<bool>* stop = nullptr;
  std::function<void(double)> progress;
  bool cancelled() const {
    return (cancel != nullptr && cancel->load(std::memory_order_relaxed)) ||
           (stop != nullptr && stop->load(std::memory_order_relaxed));
  }
  void report(double fraction) const {
    if (progress) progress(fraction);
  }
};

std::string_view eventSourceName(EventSource source);
std::string_view commOpName(CommOp op);
// Recognises the NCCL operation from a kernel name such as "ncclDevKernel_SendRecv(...)",
// "ncclKernel_AllReduce_RING_LL_Sum_float(...)" or "ncclDevKernel_AllGather_RING_LL(...)";
// CommOp::None when the name is not an NCCL kernel.
CommOp commOpFromKernelName(std::string_view name);

}  // namespace ps::trace::import
