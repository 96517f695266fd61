#pragma once
// Activations and gradients moving between rank threads. Each rank owns one mailbox; senders put
// a tensor under a key naming what it is for, the receiver takes exactly that key. A message may
// carry a delivery time (link emulation): take() returns it no earlier than that.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "runtime/exec/MessageKey.h"
#include "runtime/model/Tensor.h"
#include "trace/Result.h"

namespace ps::runtime {

class Mailbox {
 public:
  using Clock = std::chrono::steady_clock;

  void put(const MessageKey& key, Tensor tensor, Clock::time_point deliverAt);
  // Waits for `key`; returns an error when `abort` becomes true while waiting (checked at least
  // every 20 ms, so a cancelled run stops promptly).
  Result<Tensor> take(const MessageKey& key, const std::atomic<bool>& abort);
  // Wakes every waiter (after setting the abort flag).
  void wakeAll();

 private:
  struct Message {
    Tensor tensor;
    Clock::time_point deliverAt;
  };
  std::mutex mutex_;
  std::condition_variable ready_;
  std::map<MessageKey, Message> messages_;
};

}  // namespace ps::runtime
