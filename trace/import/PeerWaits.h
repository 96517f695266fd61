#pragma once
// Splits a matched NCCL send/receive into the part spent waiting for the peer and the transfer
// itself (issue 6 item 1). A point-to-point transfer starts only once both sides have started;
// whichever side started first waited until then. The waiting part becomes an op of the same
// kind named "<name> · waiting for rank N" (no bytes), the transfer keeps the name and bytes.
// Runs after clock alignment: the comparison is across ranks.

#include <cstdint>
#include <vector>

#include "trace/import/OpBuilder.h"

namespace ps::trace::import {

// Returns how many waiting parts were split off. Waits shorter than `minWaitNs` are left alone.
std::int64_t splitPeerWaits(std::vector<RankOps>& ranks, std::int64_t minWaitNs = 1000);

}  // namespace ps::trace::import
