#pragma once
// The order of the cuda backend's NCCL point-to-point calls, planned on the CPU before launch.
//
// NCCL matches a send with the receive posted in the same position on the same communicator, and
// a send cannot finish before its receive is posted. So every ordered pair of ranks (a → b) gets
// its own channel (a two-rank communicator and a stream at each end), and both ends follow ONE
// order on it: the order in which a's program produces the messages. The sender posts each send
// when its program reaches it; the receiver, when its program needs message k of the channel,
// posts every not-yet-posted receive up to k (into buffers it allocates), then waits for k. A
// send then waits only for receives its receiver will post no later than it needs them, so the
// channels add no wait the plan itself does not have: for a validated plan, deadlock-free by
// construction. checkCommOrder proves it for a given plan by playing the programs.

#include <map>
#include <utility>
#include <vector>

#include "runtime/exec/MessageKey.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct CommOrder {
  // (from, to) → the channel's messages in order; local hand-overs (from == to) are not in it.
  std::map<std::pair<int, int>, std::vector<MessageKey>> channels;
  // (from, to, key) → position in its channel.
  std::map<std::pair<std::pair<int, int>, MessageKey>, int> position;

  // The position of `key` on channel from → to; −1 if it is not there.
  int indexOf(int from, int to, const MessageKey& key) const;
};

// The channels of a plan (every rank's program walked in order). Errors: a message sent twice.
[[nodiscard]] Result<CommOrder> planCommOrder(const Plan& plan);

// Plays every rank's program with the channel rules above (sends never block the program; a
// receive of message k posts the channel's receives up to k and waits until the sender has
// issued message k). Errors name the ranks and actions that could never proceed, a receive of a
// message nobody sends, and messages sent but never received.
[[nodiscard]] Status checkCommOrder(const Plan& plan, const CommOrder& order);

}  // namespace ps::runtime
