#pragma once
// The synthesiser's two local searches (internal to runtime/synth), each a hill-climb that keeps
// a move when the step does not grow (equal moves cross plateaus):
//  - over priority keys, scheduled by the list scheduler: a move swaps the keys of two ops a few
//    places apart in one rank's order. The list scheduler never idles a rank that has a ready
//    op, so it finds warm-ups and W placements, but not an order that waits on purpose;
//  - over the orders themselves, replayed as the simulator replays a program: a move takes one
//    op a few places earlier or later in its rank's order. It can hold an op back (ZB-H1 waits
//    for an I rather than start an F that would delay it), and it starts from the generators'
//    orders, so the result is never slower than a generator that fits the caps.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/synth/ListSynth.h"

namespace ps::runtime::synth {

using Keys = std::vector<std::int64_t>;
using Order = std::vector<std::vector<std::int32_t>>;

// The work one search may do: passes, passes without a shorter step, the clock, a cancel.
struct SearchBudget {
  int maxPasses = 0;
  int patience = 0;
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* cancel = nullptr;
  std::mt19937_64* random = nullptr;
  int passes = 0;               // out: run
  bool stoppedByClock = false;  // out
};

// The order of preference of two complete schedules: the shorter step, then the smaller largest
// peak (with no cap, a schedule as fast at half the memory is the one to hand out), then the
// earlier rank ends.
bool better(const ListPass& a, const ListPass& b);

// Improves `keys` whose list schedule is `pass` (both updated in place).
void improveKeys(const SynthProblem& problem, SearchBudget& budget, ListWorkspace& work, Keys& keys,
                 ListPass& pass);

// Improves `order` whose replay is `pass` (both updated in place).
void improveOrder(const SynthProblem& problem, SearchBudget& budget, ListWorkspace& work,
                  Order& order, ListPass& pass);

// A plan's compute ops of step 0 as the problem's op ids, per rank in program order; empty when
// the plan has other ops than the problem (a schedule whose backward is split otherwise).
Order orderOfPlan(const SynthProblem& problem, const Plan& plan);

}  // namespace ps::runtime::synth
