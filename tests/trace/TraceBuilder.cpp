#include "tests/trace/TraceBuilder.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::test {

std::int64_t writeRun(const std::string& path, trace::RunHeader header,
                      const trace::TraceBatch& batch, const std::function<void()>& beforeFinish) {
  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
  if (!store) throw std::runtime_error(store.error());
  auto writer = trace::TraceWriter::begin(*store, header);
  if (!writer) throw std::runtime_error(writer.error());
  if (auto s = writer->write(batch); !s) throw std::runtime_error(s.error());
  if (beforeFinish) beforeFinish();
  if (auto s = writer->finish(trace::RunStatus::Complete); !s) throw std::runtime_error(s.error());
  return writer->runId();
}

trace::RunHeader simpleHeader(int ranks, const std::string& name) {
  trace::RunHeader h;
  h.info.name = name;
  h.info.source = "sim";
  h.info.schedule = "custom";
  h.info.num_ranks = ranks;
  h.info.num_stages = ranks;
  for (int r = 0; r < ranks; ++r) {
    h.ranks.push_back({r, "host", "cpu", {}, 0});
    h.stages.push_back({r, r, r, r});
  }
  return h;
}

trace::OpRecord compute(int rank, trace::OpKind kind, int mb, std::int64_t start, std::int64_t end,
                        int step) {
  return {rank, kind, rank, mb, step, start, end, {}, {}, {}};
}

trace::OpRecord send(int rank, int peer, std::int64_t bytes, std::int64_t start, std::int64_t end,
                     int step) {
  return {rank, trace::OpKind::SEND_F, rank, 0, step, start, end, peer, bytes, {}};
}

trace::RunTrace roundTrip(const trace::RunHeader& header, const trace::TraceBatch& batch) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  const std::int64_t id = writeRun(path, header, batch);
  auto run = trace::loadRunFromFile(path, id);
  if (!run) throw std::runtime_error(run.error());
  return std::move(*run);
}

}  // namespace ps::test
