#include "runtime/mpi/MpiTransport.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/mpi/MpiTwinGradients.h"

namespace ps::runtime::mpi {
namespace {

constexpr int kControlTag = 0;
constexpr int kRecordsTag = 0;
constexpr int kClockTag = 1;

}  // namespace

MpiTransport::MpiTransport(ExecShared& shared) : s_(shared) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  if (found && ub) tagUpperBound_ = *ub;
  for (MPI_Comm* c : {&data_, &meta_, &grads_, &sync_, &records_, &control_})
    MPI_Comm_dup(MPI_COMM_WORLD, c);
}

MpiTransport::~MpiTransport() {
  // Sends still in flight (a run that aborted) are left to MPI; their buffers must outlive them
  // only until MPI_Finalize, which does not wait for unmatched messages.
  for (auto& p : pending_)
    if (p.request != MPI_REQUEST_NULL) MPI_Request_free(&p.request);
  for (MPI_Comm* c : {&data_, &meta_, &grads_, &sync_, &records_, &control_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

Status MpiTransport::checkPlan() const {
  const Plan& plan = *s_.plan;
  const std::int64_t tags = std::int64_t{plan.numStages} * plan.numStages * 2 * plan.numReplicas() *
                            std::max(1, plan.numMicrobatches());
  if (tags > std::int64_t{tagUpperBound_} + 1)
    return Error{"--procs: the plan has " + std::to_string(tags) +
                 " distinct messages per step, more than this MPI's " +
                 std::to_string(tagUpperBound_ + 1) + " tags"};
  return {};
}

int MpiTransport::tagOf(const MessageKey& key) const {
  const Plan& plan = *s_.plan;
  std::int64_t t = key.fromStage;
  t = t * plan.numStages + key.stage;
  t = t * 2 + (key.backward ? 1 : 0);
  t = t * plan.numReplicas() + key.replica;
  t = t * plan.numMicrobatches() + key.microbatch;
  return static_cast<int>(t);
}

bool MpiTransport::emulatesLink() const {
  const auto& o = *s_.options;
  return o.linkLatencyUs > 0 || (o.linkGbps && *o.linkGbps > 0);
}

std::int64_t MpiTransport::alignedNowNs() const {
  return s_.nowNs() + clockOffsetNs_;
}

void MpiTransport::backoff(int& spins) {
  // Ranks usually share cores (mpirun --oversubscribe): give the core away while waiting.
  if (++spins < 64)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

void MpiTransport::releaseCompleted() {
  Lock lock(calls_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? pending_.erase(it) : std::next(it);
  }
}

bool MpiTransport::poll() {
  Lock calls(calls_);
  if (onPoll) onPoll();
  if (s_.abort) return true;
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kControlTag, control_, &flag, &status);
  if (flag) {
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::vector<char> text(static_cast<std::size_t>(std::max(count, 1)));
    MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, kControlTag, control_,
             MPI_STATUS_IGNORE);
    const bool cancelled = count > 0 && text[0] != 0;
    const std::string message =
        count > 1 ? std::string(text.begin() + 1, text.begin() + count) : "a rank failed";
    fromPeer_ = true;
    if (cancelled) {
      std::lock_guard lock(s_.mutex);
      s_.cancelled = true;
    }
    s_.fail(message);
    fromPeer_ = false;
    return true;
  }
  if (s_.options->cancel && s_.options->cancel->load()) {
    {
      std::lock_guard lock(s_.mutex);
      s_.cancelled = true;
    }
    s_.fail("cancelled");
    return true;
  }
  releaseCompleted();
  return false;
}

void MpiTransport::broadcastFailure(const std::string& message, bool cancelled) {
  Lock lock(calls_);
  if (fromPeer_) return;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    Pending& p = pending_.emplace_back();
    p.bytes.push_back(cancelled ? 1 : 0);
    p.bytes.insert(p.bytes.end(), message.begin(), message.end());
    MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_CHAR, r, kControlTag, control_,
              &p.request);
  }
}

bool MpiTransport::wait(MPI_Request& request) {
  int spins = 0;
  for (;;) {
    {
      Lock lock(calls_);
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) return true;
      if (poll()) return false;
    }
    backoff(spins);
  }
}

TransferStamps MpiTransport::send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) {
  Lock lock(calls_);
  const std::int64_t called = s_.nowNs();
  if (toRank == fromRank) {
    local_[key] = std::move(tensor);
    return {called, called};
  }
  if (dataPlane_) return dataPlane_->send(key, fromRank, toRank, std::move(tensor));
  const int tag = tagOf(key);
  std::int64_t occupy = 0;
  if (emulatesLink()) {
    // Bytes queue on the emulated link first come, first served; the receiver holds them until
    // the link could have carried them (both on rank 0's clock).
    const auto& o = *s_.options;
    const std::int64_t start = alignedNowNs();
    std::int64_t deliverAt = start + static_cast<std::int64_t>(o.linkLatencyUs * 1e3);
    if (o.linkGbps && *o.linkGbps > 0) {
      std::int64_t& free = s_.linkFreeNs[fromRank][toRank];
      const std::int64_t begin = std::max(start, free);
      occupy = static_cast<std::int64_t>(static_cast<double>(tensor.bytes()) * 8.0 / *o.linkGbps);
      free = begin + occupy;
      deliverAt += free - start;
    }
    Pending& meta = pending_.emplace_back();
    meta.value = deliverAt;
    MPI_Isend(&meta.value, 1, MPI_INT64_T, toRank, tag, meta_, &meta.request);
  }
  Pending& p = pending_.emplace_back();
  p.tensor = std::move(tensor);
  MPI_Isend(p.tensor.data(), static_cast<int>(p.tensor.size()), MPI_FLOAT, toRank, tag, data_,
            &p.request);
  releaseCompleted();
  return {called, called + occupy};
}

Result<Tensor> MpiTransport::receive(const MessageKey& key, int fromRank, int toRank,
                                     const std::shared_ptr<MemoryCounter>& memory) {
  if (fromRank == toRank) {
    Lock lock(calls_);
    auto it = local_.find(key);
    if (it == local_.end()) return Error{"a stage of this rank has not produced its input yet"};
    Tensor t = std::move(it->second);
    local_.erase(it);
    return t;
  }
  if (dataPlane_) return dataPlane_->receive(key, fromRank, toRank, memory);
  const int tag = tagOf(key);
  MPI_Message message;
  MPI_Status status;
  int spins = 0;
  for (;;) {
    {
      Lock lock(calls_);
      int flag = 0;
      MPI_Improbe(fromRank, tag, data_, &flag, &message, &status);
      if (flag) break;
      if (poll()) return Error{"aborted"};
    }
    backoff(spins);
  }
  int count = 0;
  MPI_Get_count(&status, MPI_FLOAT, &count);
  Tensor tensor(memory, static_cast<std::size_t>(count));
  MPI_Request request = MPI_REQUEST_NULL;
  std::int64_t deliverAt = 0;
  {
    Lock lock(calls_);
    MPI_Mrecv(tensor.data(), count, MPI_FLOAT, &message, MPI_STATUS_IGNORE);
    if (emulatesLink()) MPI_Irecv(&deliverAt, 1, MPI_INT64_T, fromRank, tag, meta_, &request);
  }
  if (emulatesLink()) {
    if (!wait(request)) {
      Lock lock(calls_);
      MPI_Cancel(&request);
      MPI_Request_free(&request);
      return Error{"aborted"};
    }
    // Emulated link: the bytes are not there before the link could have carried them.
    while (alignedNowNs() < deliverAt) {
      if (poll()) return Error{"aborted"};
      std::this_thread::sleep_for(
          std::chrono::nanoseconds(std::min<std::int64_t>(deliverAt - alignedNowNs(), 20'000'000)));
    }
  }
  return tensor;
}

Status MpiTransport::allowsLanes() const {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level >= MPI_THREAD_SERIALIZED) return {};
  return Error{
      "--a2a overlap on --procs calls MPI from two threads of a rank, but this MPI "
      "gives only thread level " +
      std::to_string(level) + " (MPI_THREAD_SERIALIZED needed): give --a2a serial"};
}

bool MpiTransport::barrier(int rank) {
  if (dataPlane_) return !poll() && dataPlane_->barrier(rank);
  MPI_Request request;
  {
    Lock lock(calls_);
    MPI_Ibarrier(sync_, &request);
  }
  // On abort the barrier stays pending: the processes that fail never reach it, and MPI_Finalize
  // does not wait for it.
  return wait(request);
}

Status MpiTransport::sumReplicaGradients(int rank, const RankStages& stages) {
  if (dataPlane_) return dataPlane_->sumReplicaGradients(rank, stages);
  Lock lock(calls_);  // an OPT: no other op of this rank is in flight
  return sumTwinGradients(*s_.plan, grads_, rank, stages,
                          [this](MPI_Request& request) { return wait(request); });
}

std::int64_t MpiTransport::syncClock() {
  Lock lock(calls_);
  // Cristian's algorithm against rank 0, one process at a time: r sends its time t1, rank 0
  // answers with its own T, r reads t2; the offset is T − (t1 + t2) / 2 for the fastest round.
  constexpr int kRounds = 16;
  clockOffsetNs_ = 0;
  for (int r = 1; r < size_; ++r) {
    if (rank_ == 0) {
      for (int k = 0; k < kRounds; ++k) {
        std::int64_t t1 = 0;
        MPI_Recv(&t1, 1, MPI_INT64_T, r, kClockTag, sync_, MPI_STATUS_IGNORE);
        const std::int64_t now = s_.nowNs();
        MPI_Send(&now, 1, MPI_INT64_T, r, kClockTag, sync_);
      }
    } else if (rank_ == r) {
      std::int64_t best = -1;
      for (int k = 0; k < kRounds; ++k) {
        const std::int64_t t1 = s_.nowNs();
        std::int64_t t0 = 0;
        MPI_Send(&t1, 1, MPI_INT64_T, 0, kClockTag, sync_);
        MPI_Recv(&t0, 1, MPI_INT64_T, 0, kClockTag, sync_, MPI_STATUS_IGNORE);
        const std::int64_t t2 = s_.nowNs();
        if (best < 0 || t2 - t1 < best) {
          best = t2 - t1;
          clockOffsetNs_ = t0 - (t1 + t2) / 2;
        }
      }
    }
  }
  return clockOffsetNs_;
}

void MpiTransport::sendRecords(std::vector<char> bytes) {
  Lock lock(calls_);
  Pending& p = pending_.emplace_back();
  p.bytes = std::move(bytes);
  p.records = true;
  MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, 0, kRecordsTag, records_,
            &p.request);
}

bool MpiTransport::tryReceiveRecords(std::vector<char>& bytes) {
  Lock lock(calls_);
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kRecordsTag, records_, &flag, &status);
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  bytes.resize(static_cast<std::size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, kRecordsTag, records_,
           MPI_STATUS_IGNORE);
  return true;
}

void MpiTransport::flushRecords(std::chrono::milliseconds grace) {
  int spins = 0;
  std::optional<std::chrono::steady_clock::time_point> giveUpAt;
  for (;;) {
    releaseCompleted();
    if (std::none_of(pending_.begin(), pending_.end(), [](const Pending& p) { return p.records; }))
      return;
    if (poll()) {
      const auto now = std::chrono::steady_clock::now();
      if (!giveUpAt) giveUpAt = now + grace;
      if (now > *giveUpAt) return;
    }
    backoff(spins);
  }
}

}  // namespace ps::runtime::mpi
