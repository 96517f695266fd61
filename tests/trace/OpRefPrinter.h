#pragma once
// How GoogleTest prints an OpRef in a failure message ("{rank 1, compute, 3}"); found by
// argument-dependent lookup, so it lives in OpRef's namespace.

#include <ostream>

#include "trace/OpKind.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

inline void PrintTo(const OpRef& o, std::ostream* os) {
  *os << "{rank " << o.rank << ", " << laneName(o.lane) << ", " << o.index << "}";
}

}  // namespace ps::trace
