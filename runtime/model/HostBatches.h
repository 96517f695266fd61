#pragma once
// Synthetic inputs or targets for a stage whose device is not the host (the cuda backend): the
// same numbers as SyntheticData, made ahead on a worker thread (each micro-batch on several
// threads), as a data loader prefetches. Made inline, one micro-batch of a transformer stage
// (B=4 S=256 H=512) took ~27 ms of host time on the H200 machine, 40 times its stage's forward
// pass on the GPU, and the first and last ranks' F ops showed it (a 1F1B p=4 m=8 step of 318 ms,
// bubble 59 %). One micro-batch ahead on 8 threads still left F at ~5 ms: the worker keeps up to
// a step's micro-batches ready (at most kAheadBytes of them), so the making spreads over the step.
//
// take(key) returns key's batch: the one made ahead when the worker guessed it (the step's next
// micro-batch, after the last one the next step's first), else it is made now and the worker
// starts again after it. prepare(key) makes key's batch ready without taking it (calibration
// times the passes, not the data). One caller thread per HostBatches.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/model/MicrobatchKey.h"
#include "runtime/model/SyntheticData.h"

namespace ps::runtime {

class HostBatches {
 public:
  enum class Kind { Input, Target };
  static constexpr std::size_t kAheadBytes = 256u << 20;

  // threads: how many make one micro-batch (>= 1).
  HostBatches(Kind kind, const ModelConfig& config, int microbatchesPerStep, int threads);
  ~HostBatches();
  HostBatches(const HostBatches&) = delete;
  HostBatches& operator=(const HostBatches&) = delete;

  std::vector<float> take(MicrobatchKey key);
  void prepare(MicrobatchKey key);
  // Whether key's batch is made and waiting, within `timeout` (never starts making it).
  bool madeAhead(MicrobatchKey key, std::chrono::milliseconds timeout);

  // Threads for one maker on this machine: half its cores (a GPU run's rank threads mostly wait).
  static int defaultThreads();

 private:
  struct Made {
    MicrobatchKey key;
    std::vector<float> batch;
  };
  std::vector<float> make(MicrobatchKey key) const;
  MicrobatchKey nextOf(MicrobatchKey key) const;
  void work();
  // Under the lock.
  bool isReady(MicrobatchKey key) const;
  bool isComing(MicrobatchKey key) const;
  // Under the lock: waits until key is the front of ready_, restarting the worker at key when it
  // is neither made nor coming (every change to ready_ or the worker's state notifies).
  void waitFor(MicrobatchKey key, std::unique_lock<std::mutex>& lock);

  const Kind kind_;
  const ModelConfig config_;
  const SyntheticData data_;
  const int microbatchesPerStep_;
  const int threads_;
  const std::size_t depth_;  // batches kept ready

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Made> ready_;
  MicrobatchKey cursor_{};  // the next key the worker makes
  bool started_ = false;    // the worker waits for the first take or prepare
  bool making_ = false;     // the worker is making cursor_'s predecessor
  MicrobatchKey makingKey_{};
  long makingGeneration_ = 0;
  long generation_ = 0;  // bumped by a restart: a batch made for an older one is dropped
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace ps::runtime
