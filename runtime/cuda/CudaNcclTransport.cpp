#include "runtime/cuda/CudaNcclTransport.h"

#include <algorithm>
#include <set>
#include <string>

#include "runtime/cuda/CudaCheck.h"
#include "runtime/cuda/CudaNcclApi.h"
#include "runtime/model/StageModel.h"

namespace ps::runtime {
namespace {

void ncclCheck(ncclResult_t rc, const char* what) {
  if (rc == ncclSuccess) return;
  throw kernels::DeviceError(std::string(what) + ": " + nccl().getErrorString(rc));
}

// One NCCL group; ended on every path, also when a call inside it throws (an open group would
// defer everything this thread does with NCCL afterwards, the abort included).
class NcclGroup {
 public:
  NcclGroup() { ncclCheck(nccl().groupStart(), "ncclGroupStart"); }
  ~NcclGroup() {
    if (open_) nccl().groupEnd();  // only when leaving by an exception or an early return
  }
  void end() {
    open_ = false;
    ncclCheck(nccl().groupEnd(), "ncclGroupEnd");
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

 private:
  bool open_ = true;
};

cudaEvent_t recordEvent(int device, cudaStream_t stream) {
  cudaCheck(cudaSetDevice(device), "cudaSetDevice");
  cudaEvent_t e = nullptr;
  cudaCheck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  cudaCheck(cudaEventRecord(e, stream), "cudaEventRecord");
  return e;
}

cudaStream_t newStream(int device) {
  cudaCheck(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t s = nullptr;
  cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  return s;
}

// A pair of communicators {first, second} on the two ranks' GPUs, from one thread.
std::pair<ncclComm_t, ncclComm_t> pairComms(int deviceA, int deviceB) {
  ncclComm_t comms[2] = {nullptr, nullptr};
  const int devices[2] = {deviceA, deviceB};
  ncclCheck(nccl().commInitAll(comms, 2, devices), "ncclCommInitAll");
  return {comms[0], comms[1]};
}

}  // namespace

Result<std::unique_ptr<CudaNcclTransport>> CudaNcclTransport::create(ExecShared& shared,
                                                                     std::vector<CudaRank> ranks,
                                                                     CommOrder order,
                                                                     long messageElems) {
  std::unique_ptr<CudaNcclTransport> t(
      new CudaNcclTransport(shared, std::move(ranks), std::move(order), messageElems));
  try {
    t->findTwins();
    t->initInProcess();
    t->connectChannels();
  } catch (const kernels::DeviceError& e) {
    return Error{std::string("setting up NCCL: ") + e.what()};
  }
  return t;
}

Result<std::unique_ptr<CudaNcclTransport>> CudaNcclTransport::createForProcess(
    ExecShared& shared, int self, int ranks, CudaRank mine, CommOrder order, long messageElems,
    const std::function<std::vector<ncclUniqueId>(int count)>& shareIds) {
  std::vector<CudaRank> all(ranks);
  all.at(self) = mine;
  std::unique_ptr<CudaNcclTransport> t(
      new CudaNcclTransport(shared, std::move(all), std::move(order), messageElems));
  t->self_ = self;
  try {
    t->findTwins();
    const std::vector<ncclUniqueId> ids =
        shareIds(static_cast<int>(t->order_.channels.size() + t->twins_.size() + 1));
    t->initForProcess(ids, ranks);
    t->connectChannels();
  } catch (const kernels::DeviceError& e) {
    return Error{"rank " + std::to_string(self) + ": setting up NCCL: " + e.what()};
  }
  return t;
}

CudaNcclTransport::CudaNcclTransport(ExecShared& shared, std::vector<CudaRank> ranks,
                                     CommOrder order, long messageElems)
    : s_(shared), ranks_(std::move(ranks)), order_(std::move(order)), messageElems_(messageElems) {}

void CudaNcclTransport::findTwins() {
  const Plan& plan = *s_.plan;
  std::set<std::pair<int, int>> twinRanks;
  if (plan.numReplicas() > 1)
    for (int st = 0; st < plan.numStages; ++st) {
      const int a = plan.placement[0][st].rank;
      const int b = plan.placement[1][st].rank;
      if (a != b) twinRanks.insert({std::min(a, b), std::max(a, b)});
    }
  for (const auto& [a, b] : twinRanks)
    twins_.push_back({a, b});
}

void CudaNcclTransport::initInProcess() {
  std::vector<int> devices;
  std::vector<const kernels::CudaDevice*> rankDevices;
  for (const CudaRank& r : ranks_) {
    devices.push_back(r.device->deviceIndex());
    rankDevices.push_back(r.device);
  }
  barrier_ = std::make_unique<CudaDeviceBarrier>(rankDevices);
  for (const auto& [pair, list] : order_.channels) {
    Channel& c = channels_[pair];
    std::tie(c.sendComm, c.recvComm) = pairComms(devices[pair.first], devices[pair.second]);
    c.sendStream = newStream(devices[pair.first]);
    c.recvStream = newStream(devices[pair.second]);
  }
  for (Twins& t : twins_)
    std::tie(t.commA, t.commB) = pairComms(devices[t.a], devices[t.b]);
}

void CudaNcclTransport::initForProcess(const std::vector<ncclUniqueId>& ids, int ranks) {
  const int device = ranks_[self_].device->deviceIndex();
  cudaCheck(cudaSetDevice(device), "cudaSetDevice");
  // Every process walks the communicators in the same order and initialises its own in one
  // group, so no init waits for a peer that is busy with another.
  std::size_t id = 0;
  NcclGroup group;
  for (const auto& [pair, list] : order_.channels) {
    const ncclUniqueId& channelId = ids.at(id++);
    if (!owns(pair.first) && !owns(pair.second)) continue;
    Channel& c = channels_[pair];
    if (pair.first == self_) {
      ncclCheck(nccl().commInitRank(&c.sendComm, 2, channelId, 0), "ncclCommInitRank");
      c.sendStream = newStream(device);
    } else {
      ncclCheck(nccl().commInitRank(&c.recvComm, 2, channelId, 1), "ncclCommInitRank");
      c.recvStream = newStream(device);
    }
  }
  for (Twins& t : twins_) {
    const ncclUniqueId& twinId = ids.at(id++);
    if (t.a == self_) ncclCheck(nccl().commInitRank(&t.commA, 2, twinId, 0), "ncclCommInitRank");
    if (t.b == self_) ncclCheck(nccl().commInitRank(&t.commB, 2, twinId, 1), "ncclCommInitRank");
  }
  ncclCheck(nccl().commInitRank(&world_, ranks, ids.at(id), self_), "ncclCommInitRank");
  group.end();
  barrierFloat_ = Tensor::uncounted(*ranks_[self_].device, 1);
}

void CudaNcclTransport::connectChannels() {
  std::vector<Tensor> probes;
  NcclGroup group;
  for (auto& [pair, c] : channels_) {
    if (owns(pair.first)) {
      probes.push_back(Tensor::uncounted(*ranks_[pair.first].device, 1));
      ncclCheck(nccl().send(probes.back().data(), 1, ncclFloat32, 1, c.sendComm, c.sendStream),
                "ncclSend");
    }
    if (owns(pair.second)) {
      probes.push_back(Tensor::uncounted(*ranks_[pair.second].device, 1));
      ncclCheck(nccl().recv(probes.back().data(), 1, ncclFloat32, 0, c.recvComm, c.recvStream),
                "ncclRecv");
    }
  }
  group.end();
  for (auto& [pair, c] : channels_) {
    if (c.sendStream) cudaCheck(cudaStreamSynchronize(c.sendStream), "cudaStreamSynchronize");
    if (c.recvStream) cudaCheck(cudaStreamSynchronize(c.recvStream), "cudaStreamSynchronize");
  }
}

CudaNcclTransport::~CudaNcclTransport() {
  const bool aborted = aborted_;
  const auto destroy = [&](ncclComm_t comm) {
    if (comm && !aborted) nccl().commDestroy(comm);
  };
  for (auto& [pair, c] : channels_) {
    if (!aborted) releaseSent(c, true);
    for (auto& [k, p] : c.posted)
      cudaEventDestroy(p.arrived);
    c.posted.clear();
    destroy(c.sendComm);
    destroy(c.recvComm);
    if (c.sendStream) cudaStreamDestroy(c.sendStream);
    if (c.recvStream) cudaStreamDestroy(c.recvStream);
  }
  for (Twins& t : twins_) {
    destroy(t.commA);
    destroy(t.commB);
  }
  destroy(world_);
}

void CudaNcclTransport::releaseSent(Channel& c, bool wait) {
  while (!c.sent.empty()) {
    Sent& s = c.sent.front();
    if (wait) {
      cudaEventSynchronize(s.done);
    } else if (cudaEventQuery(s.done) != cudaSuccess) {
      cudaGetLastError();  // not ready yet
      return;
    }
    cudaEventDestroy(s.done);
    c.sent.pop_front();
  }
}

TransferStamps CudaNcclTransport::send(const MessageKey& key, int fromRank, int toRank,
                                       Tensor tensor) {
  if (fromRank == toRank) {
    s_.mailboxes[toRank]->put(key, std::move(tensor), Mailbox::Clock::now());
    return {};
  }
  if (static_cast<long>(tensor.size()) != messageElems_)
    throw kernels::DeviceError("a message of " + std::to_string(tensor.size()) +
                               " floats on a channel of " + std::to_string(messageElems_));
  std::shared_lock lock(commsInUse_);
  if (aborted_) throw kernels::DeviceError("aborted");
  Channel& c = channels_.at({fromRank, toRank});
  releaseSent(c, false);
  const CudaRank& from = ranks_[fromRank];
  const int device = from.device->deviceIndex();
  cudaEvent_t produced = recordEvent(device, from.device->stream());
  cudaCheck(cudaStreamWaitEvent(c.sendStream, produced, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(produced);
  TransferStamps stamps;
  stamps.start = from.clock ? from.clock->markOn(c.sendStream) : s_.nowNs();
  NcclGroup group;
  ncclCheck(nccl().send(tensor.data(), tensor.size(), ncclFloat32, 1, c.sendComm, c.sendStream),
            "ncclSend");
  group.end();
  stamps.end = from.clock ? from.clock->markOn(c.sendStream) : s_.nowNs();
  c.sent.push_back({std::move(tensor), recordEvent(device, c.sendStream)});
  return stamps;
}

Result<Tensor> CudaNcclTransport::receive(const MessageKey& key, int fromRank, int toRank,
                                          const std::shared_ptr<MemoryCounter>& memory) {
  if (fromRank == toRank) return s_.mailboxes[toRank]->take(key, s_.abort);
  std::shared_lock lock(commsInUse_);
  if (aborted_ || s_.abort) return Error{"aborted"};
  Channel& c = channels_.at({fromRank, toRank});
  const int k = order_.indexOf(fromRank, toRank, key);
  if (k < 0)
    return Error{"rank " + std::to_string(fromRank) + " never sends this tensor to rank " +
                 std::to_string(toRank)};
  const CudaRank& me = ranks_[toRank];
  const int device = me.device->deviceIndex();
  // Post this channel's receives up to k, in the channel's order, into buffers on this rank.
  while (c.nextToPost <= k) {
    // allocateFor orders the receive after the block's previous user only.
    const auto elems = static_cast<std::size_t>(messageElems_);
    Tensor buffer = Tensor::adopt(
        memory, static_cast<float*>(me.device->allocateFor(elems * sizeof(float), c.recvStream)),
        elems);
    NcclGroup group;
    ncclCheck(nccl().recv(buffer.data(), buffer.size(), ncclFloat32, 0, c.recvComm, c.recvStream),
              "ncclRecv");
    group.end();
    c.posted[c.nextToPost++] = {std::move(buffer), recordEvent(device, c.recvStream)};
  }
  auto it = c.posted.find(k);
  if (it == c.posted.end())
    return Error{"message " + std::to_string(k) + " from rank " + std::to_string(fromRank) +
                 " was received twice"};
  cudaCheck(cudaStreamWaitEvent(me.device->stream(), it->second.arrived, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(it->second.arrived);
  Tensor tensor = std::move(it->second.tensor);
  c.posted.erase(it);
  return tensor;
}

bool CudaNcclTransport::barrier(int rank) {
  if (barrier_) return barrier_->arriveAndWait(rank, *s_.barrier, s_.abort);
  std::shared_lock lock(commsInUse_);
  if (aborted_ || s_.abort) return false;
  // Across processes: an all-reduce of one float orders every GPU behind every rank's work.
  ncclCheck(nccl().allReduce(barrierFloat_.data(), barrierFloat_.data(), 1, ncclFloat32, ncclSum,
                             world_, ranks_[rank].device->stream()),
            "ncclAllReduce");
  return !s_.abort;
}

Status CudaNcclTransport::sumReplicaGradients(int rank, const RankStages& stages) {
  const Plan& plan = *s_.plan;
  // By stage index on both twins, so each twin communicator sees the same order of reductions.
  std::vector<std::pair<int, int>> held;  // (stage, replica)
  for (const auto& [id, model] : stages)
    held.push_back({id.second, id.first});
  std::sort(held.begin(), held.end());
  std::shared_lock lock(commsInUse_);
  if (aborted_) return Error{"aborted"};
  NcclGroup group;
  for (const auto& [st, replica] : held) {
    const int twinRank = plan.placement[1 - replica][st].rank;
    StageModel* model = stages.at({replica, st}).get();
    auto g = model->gradients();
    if (twinRank == rank) {
      if (replica != 0) continue;  // both copies here: replica 0 sums for both
      StageModel* twin = stages.at({1, st}).get();
      auto g1 = twin->gradients();
      model->device().axpy(1.0f, g1.data(), g.data(), static_cast<long>(g.size()));
      model->device().copy(g1.data(), g.data(), g.size_bytes());
      continue;
    }
    const auto t = std::find_if(twins_.begin(), twins_.end(), [&](const Twins& x) {
      return (x.a == rank && x.b == twinRank) || (x.b == rank && x.a == twinRank);
    });
    if (t == twins_.end()) return Error{"internal: no communicator for twin ranks"};
    ncclCheck(nccl().allReduce(g.data(), g.data(), g.size(), ncclFloat32, ncclSum,
                               t->a == rank ? t->commA : t->commB, ranks_[rank].device->stream()),
              "ncclAllReduce");
  }
  group.end();
  return {};
}

void CudaNcclTransport::wakeAll() {
  s_.wakeThreadWaiters();
  // Waits until no rank thread is inside an NCCL call, then frees the communicators for good.
  std::unique_lock lock(commsInUse_);
  if (aborted_) return;
  aborted_ = true;
  const auto abort = [](ncclComm_t comm) {
    if (comm) nccl().commAbort(comm);
  };
  for (auto& [pair, c] : channels_) {
    abort(c.sendComm);
    abort(c.recvComm);
  }
  for (Twins& t : twins_) {
    abort(t.commA);
    abort(t.commB);
  }
  abort(world_);
}

}  // namespace ps::runtime
