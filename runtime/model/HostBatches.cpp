#include "runtime/model/HostBatches.h"

#include <algorithm>

namespace ps::runtime {
namespace {

// Runs piece(begin, end) over [0, n) cut into `threads` pieces, the first on this thread.
template <typename Piece>
void inPieces(long n, int threads, Piece&& piece) {
  const long per = (n + threads - 1) / threads;
  std::vector<std::thread> helpers;
  for (long begin = per; begin < n; begin += per)
    helpers.emplace_back([&piece, begin, end = std::min(n, begin + per)] { piece(begin, end); });
  piece(0, std::min(n, per));
  for (std::thread& t : helpers)
    t.join();
}

}  // namespace

HostBatches::HostBatches(Kind kind, const ModelConfig& config, int microbatchesPerStep, int threads)
    : kind_(kind),
      config_(config),
      data_(config),
      microbatchesPerStep_(std::max(1, microbatchesPerStep)),
      threads_(std::max(1, threads)),
      depth_(std::clamp<std::size_t>(
          kAheadBytes / std::max<std::size_t>(
                            1, static_cast<std::size_t>(config.activationElems()) * sizeof(float)),
          1, static_cast<std::size_t>(microbatchesPerStep_))),
      worker_([this] { work(); }) {}

HostBatches::~HostBatches() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

int HostBatches::defaultThreads() {
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()) / 2, 1, 16);
}

std::vector<float> HostBatches::make(MicrobatchKey key) const {
  const long n = config_.activationElems();
  std::vector<float> input(static_cast<std::size_t>(n));
  inPieces(n, threads_,
           [&](long begin, long end) { data_.inputRange(key, input.data() + begin, begin, end); });
  if (kind_ == Kind::Input) return input;
  std::vector<float> target(input.size());
  inPieces(config_.rows(), threads_, [&](long begin, long end) {
    data_.targetRows(input.data(), target.data(), static_cast<int>(begin), static_cast<int>(end));
  });
  return target;
}

MicrobatchKey HostBatches::nextOf(MicrobatchKey key) const {
  if (key.microbatch + 1 < microbatchesPerStep_) return {key.step, key.microbatch + 1};
  return {key.step + 1, 0};
}

void HostBatches::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || (started_ && ready_.size() < depth_); });
    if (stop_) return;
    const MicrobatchKey key = cursor_;
    const long generation = generation_;
    cursor_ = nextOf(key);
    making_ = true;
    makingKey_ = key;
    makingGeneration_ = generation;
    lock.unlock();
    std::vector<float> batch = make(key);
    lock.lock();
    making_ = false;
    if (generation == generation_) ready_.push_back({key, std::move(batch)});
    changed_.notify_all();
  }
}

bool HostBatches::isReady(MicrobatchKey key) const {
  return std::any_of(ready_.begin(), ready_.end(), [&](const Made& m) { return m.key == key; });
}

bool HostBatches::isComing(MicrobatchKey key) const {
  // Being made for the current guess (a batch of an older one is dropped), or the next to make
  // with room for it.
  return (making_ && makingKey_ == key && makingGeneration_ == generation_) ||
         (started_ && cursor_ == key && ready_.size() < depth_);
}

void HostBatches::waitFor(MicrobatchKey key, std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (isReady(key)) {
      while (ready_.front().key != key)
        ready_.pop_front();  // skipped micro-batches (never asked for) make room
      return;
    }
    if (!isComing(key)) {  // a miss: start again at key, dropping what was made for the old guess
      ready_.clear();
      ++generation_;
      cursor_ = key;
      started_ = true;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return isReady(key) || !isComing(key); });
  }
}

std::vector<float> HostBatches::take(MicrobatchKey key) {
  std::unique_lock lock(mutex_);
  waitFor(key, lock);
  std::vector<float> batch = std::move(ready_.front().batch);
  ready_.pop_front();
  changed_.notify_all();  // room for one more
  return batch;
}

void HostBatches::prepare(MicrobatchKey key) {
  std::unique_lock lock(mutex_);
  waitFor(key, lock);
}

bool HostBatches::madeAhead(MicrobatchKey key, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return isReady(key); });
}

}  // namespace ps::runtime
