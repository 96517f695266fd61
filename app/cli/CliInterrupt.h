#pragma once
// Ctrl-C (SIGINT) and SIGTERM for the long subcommands (sim, run, import): while an
// InterruptScope lives, either signal sets one flag that the command passes on as its cancel
// flag, so the run ends 'cancelled' (or is not written) and the store closes cleanly (back in
// rollback mode, no -wal/-shm left). A second signal while the first is being honoured ends the
// process at once, as the default action would.

#include <atomic>

namespace ps::cli {

class InterruptScope {
 public:
  InterruptScope();   // installs the handlers, clears the flag
  ~InterruptScope();  // restores the handlers that were there before
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // The flag to poll (set from the signal handler).
  const std::atomic<bool>* flag() const;
  bool interrupted() const;
  // The signal that set the flag (SIGINT or SIGTERM), 0 when none came.
  int signalNumber() const;
};

}  // namespace ps::cli
