#include "runtime/exec/Mailbox.h"

#include <thread>

namespace ps::runtime {

void Mailbox::put(const MessageKey& key, Tensor tensor, Clock::time_point deliverAt) {
  {
    std::lock_guard lock(mutex_);
    messages_[key] = Message{std::move(tensor), deliverAt};
  }
  ready_.notify_all();
}

Result<Tensor> Mailbox::take(const MessageKey& key, const std::atomic<bool>& abort) {
  Clock::time_point deliverAt;
  Tensor tensor;
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (abort.load()) return Error{"aborted"};
      auto it = messages_.find(key);
      if (it != messages_.end()) {
        tensor = std::move(it->second.tensor);
        deliverAt = it->second.deliverAt;
        messages_.erase(it);
        break;
      }
      ready_.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
  // Emulated link: the bytes are not there before the link could have carried them.
  while (Clock::now() < deliverAt) {
    if (abort.load()) return Error{"aborted"};
    std::this_thread::sleep_until(
        std::min(deliverAt, Clock::now() + std::chrono::milliseconds(20)));
  }
  return tensor;
}

void Mailbox::wakeAll() {
  ready_.notify_all();
}

}  // namespace ps::runtime
