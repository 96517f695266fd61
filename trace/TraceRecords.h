#pragma once
// Row types of schema v1 (DESIGN §4) as the writer takes them and the reader returns them.
// Times are integer nanoseconds on the run's common axis; optional columns are std::optional.

#include <cstdint>
#include <optional>
#include <string>

#include "trace/OpKind.h"

namespace ps::trace {

enum class RunStatus { Running, Complete, Failed, Cancelled };
std::string_view runStatusName(RunStatus status);
std::optional<RunStatus> parseRunStatus(std::string_view name);

struct RunInfo {
  std::int64_t id = 0;  // assigned by the store
  std::string name;
  std::string created_utc;  // ISO 8601; filled by the writer when empty
  std::string source;       // sim | cpu | cuda | nsys | kineto | torch-csv
  std::optional<std::string> schedule;
  int num_ranks = 0;
  std::optional<int> num_stages;
  std::optional<int> num_microbatches;
  std::string config_json = "{}";
  RunStatus status = RunStatus::Running;
  std::string status_message;  // why a run failed or was cancelled (schema extension)
};

struct RankInfo {
  int rank = 0;
  std::optional<std::string> host;
  std::optional<std::string> device;
  std::optional<std::int64_t> memory_capacity_bytes;
  std::int64_t clock_offset_ns = 0;
};

struct OpRecord {
  int rank = 0;
  OpKind kind = OpKind::F;
  std::optional<int> stage;
  std::optional<int> microbatch;
  int step = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::optional<int> peer_rank;
  std::optional<std::int64_t> bytes;
  std::optional<std::string> name;
};

struct MemorySample {
  int rank = 0;
  std::int64_t t_ns = 0;
  std::int64_t bytes = 0;  // in use on the rank from t_ns on
};

struct LayerRecord {
  int layer = 0;
  std::optional<std::string> name;
  std::optional<std::int64_t> fwd_ns, bwd_ns, wgrad_ns, act_bytes, param_bytes;
};

struct StageRecord {
  int stage = 0;
  int rank = 0;
  int first_layer = 0;
  int last_layer = 0;  // inclusive
};

struct MetricRecord {
  int step = 0;
  std::optional<int> rank;
  std::string name;
  double value = 0.0;
};

}  // namespace ps::trace
