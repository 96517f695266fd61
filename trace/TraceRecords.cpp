#include "trace/TraceRecords.h"

namespace ps::trace {

std::string_view runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Complete:
      return "complete";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Cancelled:
      return "cancelled";
  }
  return "running";
}

std::optional<RunStatus> parseRunStatus(std::string_view name) {
  for (RunStatus s :
       {RunStatus::Running, RunStatus::Complete, RunStatus::Failed, RunStatus::Cancelled})
    if (runStatusName(s) == name) return s;
  return std::nullopt;
}

}  // namespace ps::trace
