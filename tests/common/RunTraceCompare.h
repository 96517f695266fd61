#pragma once
// Two runs in memory are the same run: every column of every lane in the same order, memory,
// names, ranks, stages, layers, metrics and the run's own fields (`file` is the one loadRun read).

#include <gtest/gtest.h>

#include <string>

#include "trace/RunTrace.h"

namespace ps::test {

inline void expectSameLane(const trace::OpColumns& a, const trace::OpColumns& b,
                           const std::string& at) {
  EXPECT_EQ(a.start, b.start) << at;
  EXPECT_EQ(a.end, b.end) << at;
  EXPECT_EQ(a.kind, b.kind) << at;
  EXPECT_EQ(a.stage, b.stage) << at;
  EXPECT_EQ(a.microbatch, b.microbatch) << at;
  EXPECT_EQ(a.step, b.step) << at;
  EXPECT_EQ(a.peer, b.peer) << at;
  EXPECT_EQ(a.bytes, b.bytes) << at;
  EXPECT_EQ(a.name, b.name) << at;
}

inline void expectSameRun(const trace::RunTrace& memory, const trace::RunTrace& file) {
  EXPECT_EQ(memory.info.name, file.info.name);
  EXPECT_EQ(memory.info.created_utc, file.info.created_utc);
  EXPECT_EQ(memory.info.source, file.info.source);
  EXPECT_EQ(memory.info.schedule, file.info.schedule);
  EXPECT_EQ(memory.info.num_ranks, file.info.num_ranks);
  EXPECT_EQ(memory.info.num_stages, file.info.num_stages);
  EXPECT_EQ(memory.info.num_microbatches, file.info.num_microbatches);
  EXPECT_EQ(memory.info.config_json, file.info.config_json);
  EXPECT_EQ(memory.info.status, file.info.status);
  EXPECT_EQ(memory.names, file.names);
  EXPECT_TRUE(file.warnings.empty()) << file.warnings.front();
  ASSERT_EQ(memory.ranks.size(), file.ranks.size());
  for (std::size_t r = 0; r < memory.ranks.size(); ++r) {
    const auto& a = memory.ranks[r];
    const auto& b = file.ranks[r];
    EXPECT_EQ(a.info.rank, b.info.rank);
    EXPECT_EQ(a.info.device, b.info.device);
    EXPECT_EQ(a.info.host, b.info.host);
    EXPECT_EQ(a.info.memory_capacity_bytes, b.info.memory_capacity_bytes);
    for (std::size_t l = 0; l < a.lanes.size(); ++l)
      expectSameLane(a.lanes[l], b.lanes[l],
                     "rank " + std::to_string(r) + " lane " + std::to_string(l));
    EXPECT_EQ(a.memory.t, b.memory.t) << "rank " << r;
    EXPECT_EQ(a.memory.bytes, b.memory.bytes) << "rank " << r;
  }
  ASSERT_EQ(memory.stages.size(), file.stages.size());
  for (std::size_t i = 0; i < memory.stages.size(); ++i) {
    EXPECT_EQ(memory.stages[i].stage, file.stages[i].stage);
    EXPECT_EQ(memory.stages[i].rank, file.stages[i].rank);
    EXPECT_EQ(memory.stages[i].first_layer, file.stages[i].first_layer);
    EXPECT_EQ(memory.stages[i].last_layer, file.stages[i].last_layer);
  }
  ASSERT_EQ(memory.layers.size(), file.layers.size());
  for (std::size_t i = 0; i < memory.layers.size(); ++i) {
    EXPECT_EQ(memory.layers[i].layer, file.layers[i].layer);
    EXPECT_EQ(memory.layers[i].fwd_ns, file.layers[i].fwd_ns);
    EXPECT_EQ(memory.layers[i].act_bytes, file.layers[i].act_bytes);
  }
  ASSERT_EQ(memory.metrics.size(), file.metrics.size());
  for (std::size_t i = 0; i < memory.metrics.size(); ++i) {
    EXPECT_EQ(memory.metrics[i].name, file.metrics[i].name);
    EXPECT_EQ(memory.metrics[i].step, file.metrics[i].step);
    EXPECT_EQ(memory.metrics[i].rank, file.metrics[i].rank);
    EXPECT_EQ(memory.metrics[i].value, file.metrics[i].value);
  }
}

}  // namespace ps::test
