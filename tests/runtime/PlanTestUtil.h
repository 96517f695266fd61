#pragma once
// Hand-written plans for validator and simulator tests, independent of the generators.

#include <string>
#include <vector>

#include "runtime/plan/Plan.h"

namespace ps::test {

// A chain of `ranks` stages (stage s on rank s, one layer each), `microbatches` micro-batches,
// programs given as rows of labels like "0F1" (B/I/W/R/F kinds).
runtime::Plan chainPlan(int ranks, int microbatches,
                        const std::vector<std::vector<std::string>>& rows);

// Hand-written 1F1B for p ranks and m micro-batches (PipeDream-Flush order), B unsplit.
runtime::Plan oneFOneB(int p, int m);

}  // namespace ps::test
