#include "runtime/cuda/CudaEventClock.h"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "kernels/ComputeDevice.h"
#include "runtime/cuda/CudaCheck.h"
#include "runtime/cuda/CudaWait.h"

namespace ps::runtime {
namespace {

nvtxDomainHandle_t pipescopeDomain() {
  static nvtxDomainHandle_t domain = nvtxDomainCreateA("pipescope");
  return domain;
}

// Registered strings: one handle per label for the whole process (NVTX wants them registered
// once; nsys then stores each name once).
nvtxStringHandle_t registeredName(const std::string& label) {
  static std::mutex mutex;
  static std::map<std::string, nvtxStringHandle_t> names;
  std::lock_guard lock(mutex);
  auto it = names.find(label);
  if (it == names.end())
    it = names.emplace(label, nvtxDomainRegisterStringA(pipescopeDomain(), label.c_str())).first;
  return it->second;
}

std::int64_t hostNsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
      .count();
}

}  // namespace

CudaEventClock::CudaEventClock(const kernels::CudaDevice& device,
                               std::chrono::steady_clock::time_point t0)
    : device_(device), stream_(device.stream()), timeline_(0) {
  device_.makeCurrent();
  cudaEvent_t anchor = nullptr;
  cudaCheck(cudaEventCreate(&anchor), "cudaEventCreate");
  anchors_.push_back(anchor);
  // Pinned on an idle stream: the event completes as soon as it is recorded, so the host time
  // right after the wait is its time (to within the wait's wake-up latency, a few µs).
  cudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  cudaCheck(cudaEventRecord(anchor, stream_), "cudaEventRecord");
  cudaCheck(cudaEventSynchronize(anchor), "cudaEventSynchronize");
  timeline_ = EventTimeline(hostNsSince(t0));
}

CudaEventClock::~CudaEventClock() {
  try {
    device_.makeCurrent();
  } catch (const kernels::DeviceError&) {  // destroying events needs no more than best effort
  }
  for (Slot& s : slots_)
    cudaEventDestroy(s.event);
  for (cudaEvent_t e : anchors_)
    if (e) cudaEventDestroy(e);
}

std::int64_t CudaEventClock::markOn(cudaStream_t stream) {
  // Events belong to the device current when they are made; another rank's allocation on this
  // thread (a transfer's receive buffer) may have left its GPU current.
  if (anchorDue_ || free_.empty()) device_.makeCurrent();
  if (anchorDue_) {
    cudaEvent_t anchor = nullptr;
    cudaCheck(cudaEventCreate(&anchor), "cudaEventCreate");
    cudaCheck(cudaEventRecord(anchor, stream_), "cudaEventRecord");
    anchors_.push_back(anchor);
    anchorDue_ = false;
  }
  if (free_.empty()) {
    Slot s;
    cudaCheck(cudaEventCreate(&s.event), "cudaEventCreate");
    slots_.push_back(s);
    free_.push_back(static_cast<int>(slots_.size()) - 1);
  }
  const int index = free_.back();
  free_.pop_back();
  Slot& slot = slots_[index];
  slot.busy = true;
  slot.anchor = static_cast<int>(anchors_.size()) - 1;
  cudaCheck(cudaEventRecord(slot.event, stream), "cudaEventRecord");
  return index;
}

Status CudaEventClock::resolveAnchorsUpTo(int anchor) {
  while (timeline_.anchors() <= anchor) {
    const int next = timeline_.anchors();
    float ms = 0;
    PS_TRY(waitForEvent(anchors_[next], waitPoll_, "waiting for a step's anchor event"));
    if (const cudaError_t rc = cudaEventElapsedTime(&ms, anchors_[next - 1], anchors_[next]);
        rc != cudaSuccess)
      return Error{std::string("reading a step's anchor event: ") + cudaGetErrorString(rc)};
    timeline_.addAnchor(ms);
  }
  return {};
}

Result<std::int64_t> CudaEventClock::resolveToken(std::int64_t token) {
  if (token < 0 || token >= static_cast<std::int64_t>(slots_.size()) || !slots_[token].busy)
    return Error{"internal: event stamp " + std::to_string(token) + " is not in flight"};
  Slot& slot = slots_[token];
  PS_TRY(resolveAnchorsUpTo(slot.anchor));
  float ms = 0;
  PS_TRY(waitForEvent(slot.event, waitPoll_, "waiting for an op's event"));
  if (const cudaError_t rc = cudaEventElapsedTime(&ms, anchors_[slot.anchor], slot.event);
      rc != cudaSuccess)
    return Error{std::string("reading an op's event: ") + cudaGetErrorString(rc)};
  slot.busy = false;
  free_.push_back(static_cast<int>(token));
  return timeline_.toHostNs(slot.anchor, ms);
}

Status CudaEventClock::resolve(trace::TraceBatch& batch) {
  for (trace::OpRecord& op : batch.ops) {
    auto start = resolveToken(op.start_ns);
    if (!start) return std::move(start).takeError();
    auto end = resolveToken(op.end_ns);
    if (!end) return std::move(end).takeError();
    op.start_ns = *start;
    op.end_ns = std::max(*start, *end);
  }
  for (trace::MemorySample& m : batch.memory) {
    auto t = resolveToken(m.t_ns);
    if (!t) return std::move(t).takeError();
    m.t_ns = *t;
  }
  anchorDue_ = true;  // the rank's next op belongs to a new step
  releaseOldAnchors();
  return {};
}

void CudaEventClock::releaseOldAnchors() {
  // An anchor's event is needed while a stamp in flight refers to it, and until the next anchor
  // has been measured against it; the timeline keeps its time either way.
  int oldestNeeded = timeline_.anchors() - 1;
  for (const Slot& s : slots_)
    if (s.busy) oldestNeeded = std::min(oldestNeeded, s.anchor);
  for (int a = firstLiveAnchor_; a < oldestNeeded; ++a) {
    cudaEventDestroy(anchors_[a]);
    anchors_[a] = nullptr;
  }
  firstLiveAnchor_ = std::max(firstLiveAnchor_, oldestNeeded);
}

Status CudaEventClock::resolveWithin(trace::TraceBatch& batch, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  std::function<bool()> saved =
      std::exchange(waitPoll_, [deadline] { return std::chrono::steady_clock::now() > deadline; });
  const Status status = resolve(batch);
  waitPoll_ = std::move(saved);
  return status;
}

void CudaEventClock::beginRange(OpKind kind, const Action& action) {
  Action labelled = action;
  labelled.kind = kind;
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = registeredName("PP:" + actionLabel(labelled));
  attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  attr.payload.llValue = action.step;
  nvtxDomainRangePushEx(pipescopeDomain(), &attr);
}

void CudaEventClock::endRange() {
  nvtxDomainRangePop(pipescopeDomain());
}

}  // namespace ps::runtime
