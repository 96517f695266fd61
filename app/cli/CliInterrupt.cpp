#include "app/cli/CliInterrupt.h"

#include <signal.h>

namespace ps::cli {
namespace {

std::atomic<bool> gInterrupted{false};
std::atomic<int> gSignal{0};
struct sigaction gPreviousInt {};
struct sigaction gPreviousTerm {};

extern "C" void onInterrupt(int sig) {
  // Async-signal-safe only: atomics, signal(), raise().
  if (gInterrupted.exchange(true)) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  gSignal = sig;
}

}  // namespace

InterruptScope::InterruptScope() {
  gInterrupted = false;
  gSignal = 0;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking read or wait returns EINTR and the command looks at the flag.
  action.sa_flags = 0;
  sigaction(SIGINT, &action, &gPreviousInt);
  sigaction(SIGTERM, &action, &gPreviousTerm);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

const std::atomic<bool>* InterruptScope::flag() const {
  return &gInterrupted;
}

bool InterruptScope::interrupted() const {
  return gInterrupted.load();
}

int InterruptScope::signalNumber() const {
  return gSignal.load();
}

}  // namespace ps::cli
