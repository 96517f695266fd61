#include "trace/import/RawTrace.h"

namespace ps::trace::import {

std::int32_t RawRankTrace::intern(std::string_view name) {
  auto it = nameIndex_.find(std::string(name));
  if (it != nameIndex_.end()) return it->second;
  auto index = static_cast<std::int32_t>(names.size());
  names.emplace_back(name);
  nameIndex_.emplace(names.back(), index);
  return index;
}

std::string_view eventSourceName(EventSource source) {
  switch (source) {
    case EventSource::CpuAnnotation:
      return "cpu_annotation";
    case EventSource::GpuAnnotation:
      return "gpu_annotation";
    case EventSource::Kernel:
      return "kernel";
    case EventSource::NcclKernel:
      return "nccl_kernel";
    case EventSource::Memcpy:
      return "memcpy";
    case EventSource::Memset:
      return "memset";
  }
  return "unknown";
}

std::string_view commOpName(CommOp op) {
  switch (op) {
    case CommOp::None:
      return "none";
    case CommOp::Send:
      return "Send";
    case CommOp::Recv:
      return "Recv";
    case CommOp::SendRecv:
      return "SendRecv";
    case CommOp::AllReduce:
      return "AllReduce";
    case CommOp::AllGather:
      return "AllGather";
    case CommOp::ReduceScatter:
      return "ReduceScatter";
    case CommOp::Broadcast:
      return "Broadcast";
    case CommOp::Reduce:
      return "Reduce";
    case CommOp::AllToAll:
      return "AllToAll";
    case CommOp::Other:
      return "Other";
  }
  return "unknown";
}

CommOp commOpFromKernelName(std::string_view name) {
  std::string_view rest;
  if (name.starts_with("ncclDevKernel_")) {
    rest = name.substr(14);
  } else if (name.starts_with("ncclKernel_")) {
    rest = name.substr(11);
  } else if (name.starts_with("nccl")) {
    rest = name.substr(4);
  } else {
    return CommOp::None;
  }
  // Longest names first: "SendRecv" before "Send", "ReduceScatter" before "Reduce".
  static constexpr std::pair<std::string_view, CommOp> kOps[] = {
      {"SendRecv", CommOp::SendRecv},   {"Send", CommOp::Send},
      {"Recv", CommOp::Recv},           {"AllReduce", CommOp::AllReduce},
      {"AllGather", CommOp::AllGather}, {"ReduceScatter", CommOp::ReduceScatter},
      {"Broadcast", CommOp::Broadcast}, {"Reduce", CommOp::Reduce},
      {"AllToAll", CommOp::AllToAll},   {"AlltoAll", CommOp::AllToAll},
  };
  for (const auto& [prefix, op] : kOps) {
    if (rest.starts_with(prefix)) return op;
  }
  return CommOp::Other;
}

}  // namespace ps::trace::import
