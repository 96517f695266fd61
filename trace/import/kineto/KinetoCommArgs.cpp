#include "trace/import/kineto/KinetoCommArgs.h"

#include <algorithm>
#include <limits>
#include <string>

#include "trace/import/kineto/KinetoNumber.h"

namespace ps::trace::import {

namespace {

std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Element size of a c10::ScalarType name as PyTorch writes it in NCCL kernel args ("Float",
// "BFloat16", ...); 0 when unknown.
std::int64_t dtypeSize(std::string_view dtype) {
  const std::string d = lowerAscii(dtype);
  if (d == "float" || d == "int" || d == "qint32" || d == "uint32" || d == "complexhalf") return 4;
  if (d == "double" || d == "long" || d == "complexfloat" || d == "uint64") return 8;
  if (d == "half" || d == "bfloat16" || d == "short" || d == "uint16") return 2;
  if (d == "byte" || d == "char" || d == "bool" || d == "qint8" || d == "quint8" ||
      d.rfind("float8", 0) == 0)
    return 1;
  if (d == "complexdouble") return 16;
  return 0;
}

// torch.distributed's collective names (record_param_comms), for kernels whose name says less.
CommOp commOpFromCollective(const std::string& c) {
  if (c == "send") return CommOp::Send;
  if (c == "recv") return CommOp::Recv;
  if (c == "allreduce" || c == "all_reduce" || c == "allreduce_coalesced") return CommOp::AllReduce;
  if (c == "allgather" || c == "all_gather" || c == "_allgather_base" ||
      c == "allgather_into_tensor_coalesced")
    return CommOp::AllGather;
  if (c == "reduce_scatter" || c == "reducescatter" || c == "_reduce_scatter_base" ||
      c == "reduce_scatter_tensor_coalesced")
    return CommOp::ReduceScatter;
  if (c == "broadcast") return CommOp::Broadcast;
  if (c == "reduce") return CommOp::Reduce;
  if (c == "all_to_all" || c == "alltoall" || c == "all_to_allv" || c == "alltoall_base")
    return CommOp::AllToAll;
  return CommOp::None;
}

}  // namespace

std::optional<OpenNcclPeer> readNcclArgs(const KinetoEvent& event, RawEvent& raw) {
  const CommOp fromArgs = commOpFromCollective(lowerAscii(event.collective));
  // The kernel name decides the operation (as it does for nsys, which sees only names); the
  // args refine a name that says nothing more specific, and tell a send from a receive.
  if (raw.comm == CommOp::Other && fromArgs != CommOp::None) raw.comm = fromArgs;
  // A SendRecv kernel moves data one way; PyTorch's args say which ("send"/"recv"), and the
  // op builder needs that direction for kernels outside any labelled SEND/RECV range.
  if (raw.comm == CommOp::SendRecv && (fromArgs == CommOp::Send || fromArgs == CommOp::Recv))
    raw.comm = fromArgs;
  const bool send = raw.comm == CommOp::Send || fromArgs == CommOp::Send;
  const bool recv = raw.comm == CommOp::Recv || fromArgs == CommOp::Recv;
  const std::int64_t src = parseCountOrMinusOne(event.srcRank);
  const std::int64_t dst = parseCountOrMinusOne(event.dstRank);
  std::optional<OpenNcclPeer> open;
  if (send) {
    raw.peer = static_cast<std::int32_t>(std::min<std::int64_t>(dst, INT32_MAX));
  } else if (recv) {
    raw.peer = static_cast<std::int32_t>(std::min<std::int64_t>(src, INT32_MAX));
  } else if (src >= 0 || dst >= 0) {
    open = OpenNcclPeer{src, dst};
  }
  const std::int64_t size = dtypeSize(event.dtype);
  const std::int64_t in = parseCountOrMinusOne(event.inNelems);
  const std::int64_t out = parseCountOrMinusOne(event.outNelems);
  const std::int64_t nelems = send ? in : recv ? out : std::max(in, out);
  if (size > 0 && nelems >= 0 && nelems <= std::numeric_limits<std::int64_t>::max() / size)
    raw.bytes = nelems * size;
  return open;
}

std::optional<CopyDevices> readCopyArgs(const KinetoEvent& event, RawEvent& raw) {
  raw.bytes = parseCountOrMinusOne(event.bytes);
  const auto from = parseInteger(event.fromDevice);
  const auto to = parseInteger(event.toDevice);
  if (!from || !to || *from == *to || *from < 0 || *to < 0) return std::nullopt;
  auto self = parseInteger(event.inDevice);
  if (!self) self = parseInteger(event.device);
  if (!self) return std::nullopt;
  return CopyDevices{*self, *self == *from ? *to : *from};
}

}  // namespace ps::trace::import
