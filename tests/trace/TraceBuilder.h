#pragma once
// Builds small hand-made runs for tests: write them through the real writer, then read back.

#include <functional>
#include <string>

#include "trace/RunTrace.h"
#include "trace/store/TraceWriter.h"

namespace ps::test {

// Writes `header` and `batch` as one complete run into `path`; returns its id (throws
// std::runtime_error with the store's message on failure). `beforeFinish`, when given, runs
// between the write and the finish: a rendezvous for racing writers.
std::int64_t writeRun(const std::string& path, trace::RunHeader header,
                      const trace::TraceBatch& batch,
                      const std::function<void()>& beforeFinish = {});

// A header for `ranks` ranks, one stage each.
trace::RunHeader simpleHeader(int ranks, const std::string& name = "hand-made");

trace::OpRecord compute(int rank, trace::OpKind kind, int mb, std::int64_t start, std::int64_t end,
                        int step = 0);
trace::OpRecord send(int rank, int peer, std::int64_t bytes, std::int64_t start, std::int64_t end,
                     int step = 0);

// Loads a run straight from a RunHeader + batch without a file (via a temp file).
trace::RunTrace roundTrip(const trace::RunHeader& header, const trace::TraceBatch& batch);

}  // namespace ps::test
