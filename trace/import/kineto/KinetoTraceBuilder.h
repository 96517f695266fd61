#pragma once
// The Kineto format's meaning, apart from its JSON: which events become annotations, kernels,
// NCCL kernels, copies, steps and memory samples; tracks per (pid, tid); B/E pairing; and, once
// every event is in, nesting depth, step numbers, NCCL/copy peers, the device and the time base.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/import/GpuProjection.h"
#include "trace/import/RawTrace.h"
#include "trace/import/kineto/KinetoEvent.h"
#include "trace/import/kineto/KinetoMetadata.h"

namespace ps::trace::import {

class KinetoTraceBuilder {
 public:
  explicit KinetoTraceBuilder(std::string file);

  void add(const KinetoEvent& event);
  // Everything after the last event: metadata applied, derived fields computed.
  [[nodiscard]] RawRankTrace finish(const KinetoMetadata& meta);

  std::size_t keptEvents() const { return trace_.events.size(); }

 private:
  struct PendingBegin {
    KinetoCategory category = KinetoCategory::Missing;
    bool profilerStep = false;
    std::string name;
    std::int64_t startNs = 0;
  };
  struct NcclPeer {  // Src/Dst Rank of a kernel whose direction the name and args left open
    std::size_t event = 0;
    std::int64_t src = -1;
    std::int64_t dst = -1;
  };
  struct CopyPeer {  // devices of a peer-to-peer memcpy, turned into a rank at the end
    std::size_t event = 0;
    std::int64_t self = -1;
    std::int64_t other = -1;
  };

  // One event by phase: a complete ("X") event, a range's begin ("B") or end ("E").
  void addComplete(const KinetoEvent& event);
  void addBegin(const KinetoEvent& event);
  void addEnd(const KinetoEvent& event);
  static std::string threadKey(const KinetoEvent& event);
  void addRange(const KinetoEvent& event, std::int64_t startNs, std::int64_t endNs);
  // PipeScope's own export: an op stated in args, on the rank its process id names; a memory
  // counter of that rank.
  void addStated(const KinetoEvent& event, std::int64_t startNs, std::int64_t endNs);
  void addRankMemory(const KinetoEvent& event);
  void addLaunch(const KinetoEvent& event);  // a runtime/driver call (projection material)
  void projectToGpu();
  void addStep(std::string_view name, std::int64_t startNs, std::int64_t endNs);
  void addMemory(const KinetoEvent& event);
  void fillNccl(const KinetoEvent& event, RawEvent& raw);
  void fillCopy(const KinetoEvent& event, RawEvent& raw);
  void countDevice(std::string_view deviceText);
  std::int32_t intern(std::string_view name);
  std::int32_t trackOf(bool gpu, std::string_view pid, std::string_view tid);

  void assignSteps();
  void resolvePeers(const KinetoMetadata& meta);
  void chooseDevice(const KinetoMetadata& meta);
  void chooseMemoryDevice();
  void setTimeBase(const KinetoMetadata& meta);

  RawRankTrace trace_;
  // Name interning without building a std::string per event: keys view `nameStore_`.
  std::deque<std::string> nameStore_;
  std::unordered_map<std::string_view, std::int32_t> nameCache_;
  std::unordered_map<std::string, std::int32_t> tracks_;
  std::string trackKey_;  // reused, so looking a track up allocates nothing
  std::string lastTrackKey_;
  std::int32_t lastTrack_ = -1;
  std::unordered_map<std::string, std::vector<PendingBegin>> openBegins_;
  std::vector<NcclPeer> ncclPeers_;
  std::vector<CopyPeer> copyPeers_;
  ProjectionMaterial projection_;  // CPU ranges -> launches -> GPU work (GpuProjection.h)
  // The GPU work's correlation ids and events, 12 bytes a kernel instead of a GpuWork's 32: the
  // work's times and stream are in the event already. Made into projection_.gpuWork at the end
  // only when some range is left to project (a file with gpu_user_annotation has none).
  std::vector<std::int64_t> workCorrelation_;
  std::vector<std::uint32_t> workEvent_;
  std::vector<Launch>* lastLaunches_ = nullptr;  // the last launch's thread's list
  std::int32_t lastLaunchTrack_ = -1;
  std::unordered_map<std::uint64_t, std::int32_t> statedIndex_;  // StatedOp key -> its index
  std::map<std::int64_t, std::size_t> deviceUse_;                // device id -> GPU events on it
  std::map<std::int64_t, std::vector<RawMemorySample>> memoryByDevice_;
  std::int64_t minStartNs_ = INT64_MAX;
  std::size_t badTimes_ = 0;
  std::size_t unmatchedEnds_ = 0;
};

}  // namespace ps::trace::import
