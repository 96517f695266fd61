#include "trace/import/OpRecognizer.h"

#include <array>
#include <charconv>
#include <tuple>
#include <utility>

namespace ps::trace::import {
namespace {

// Reads a run of decimal digits at the front of `s` (advancing it); nullopt when none.
std::optional<int> takeNumber(std::string_view& s) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

// torch pipelining's computation types as they appear in `str(_Action)`; longest first so
// "SEND_F" is not read as "S...". Non-compute FSDP actions keep their stage but count as OTHER.
constexpr std::array<std::pair<std::string_view, OpKind>, 13> kTorchKinds{{
    {"SEND_F", OpKind::SEND_F},
    {"RECV_F", OpKind::RECV_F},
    {"SEND_B", OpKind::SEND_B},
    {"RECV_B", OpKind::RECV_B},
    {"REDUCE_GRAD", OpKind::AR},
    {"UNSHARD", OpKind::OTHER},
    {"RESHARD", OpKind::OTHER},
    {"BW", OpKind::B},  // older torch: full backward
    {"F", OpKind::F},
    {"B", OpKind::B},
    {"I", OpKind::I},
    {"W", OpKind::W},
    {"R", OpKind::R},
}};

// The compute kind a one-letter label prefix names (F, B, I, W, R), shared by the Megatron and
// PiPPy namings.
std::optional<OpKind> computeKindOfLetter(char letter) {
  switch (letter) {
    case 'F':
      return OpKind::F;
    case 'B':
      return OpKind::B;
    case 'I':
      return OpKind::I;
    case 'W':
      return OpKind::W;
    case 'R':
      return OpKind::R;
    default:
      return std::nullopt;
  }
}

// The communication backend a call's range names: "nccl:", "gloo:", "mpi:" (c10d's
// record_function) or "c10d::" (the dispatcher op).
std::optional<std::string_view> backendOf(std::string_view label) {
  for (const std::string_view backend : {"nccl:", "gloo:", "mpi:", "c10d::"})
    if (label.starts_with(backend)) return backend.substr(0, backend.find(':'));
  return std::nullopt;
}

}  // namespace

std::optional<RecognizedOp> recognizeTorchPipelining(std::string_view label) {
  if (!label.starts_with("PP:")) return std::nullopt;
  std::string_view rest = label.substr(3);
  if (rest == "OPT") return RecognizedOp{OpKind::OPT};
  RecognizedOp op;
  const auto stage = takeNumber(rest);
  if (!stage) return std::nullopt;
  op.stage = *stage;
  for (const auto& [text, kind] : kTorchKinds) {
    if (!rest.starts_with(text)) continue;
    std::string_view after = rest.substr(text.size());
    const auto mb = takeNumber(after);
    // FSDP actions (UNSHARD, RESHARD, REDUCE_GRAD) carry no micro-batch; the others must.
    if (!after.empty()) continue;
    if (!mb && kind != OpKind::OTHER && kind != OpKind::AR) continue;
    op.kind = kind;
    op.microbatch = mb.value_or(-1);
    return op;
  }
  return std::nullopt;
}

std::optional<RecognizedOp> recognizeMegatron(std::string_view label) {
  // Named phases: Megatron-LM's timers and zero-bubble's p2p names.
  // Megatron's batched pairs send one way and receive the other: two ops over one range.
  static constexpr std::array<std::tuple<std::string_view, OpKind, OpKind>, 4> kPairs{{
      {"SEND_FORWARD_RECV_BACKWARD", OpKind::SEND_F, OpKind::RECV_B},
      {"SEND_BACKWARD_RECV_FORWARD", OpKind::SEND_B, OpKind::RECV_F},
      {"forward-send-backward-recv", OpKind::SEND_F, OpKind::RECV_B},
      {"backward-send-forward-recv", OpKind::SEND_B, OpKind::RECV_F},
  }};
  for (const auto& [text, kind, receives] : kPairs)
    if (label == text) {
      RecognizedOp op{kind};
      op.alsoReceives = receives;
      return op;
    }
  static constexpr std::array<std::pair<std::string_view, OpKind>, 12> kNamed{{
      {"SEND_FORWARD", OpKind::SEND_F},
      {"RECV_FORWARD", OpKind::RECV_F},
      {"SEND_BACKWARD", OpKind::SEND_B},
      {"RECV_BACKWARD", OpKind::RECV_B},
      {"forward-compute", OpKind::F},
      {"backward-compute", OpKind::B},
      {"forward-send", OpKind::SEND_F},
      {"forward-recv", OpKind::RECV_F},
      {"backward-send", OpKind::SEND_B},
      {"backward-recv", OpKind::RECV_B},
      {"optimizer", OpKind::OPT},
      {"optimizer.step", OpKind::OPT},
  }};
  for (const auto& [text, kind] : kNamed)
    if (label == text) return RecognizedOp{kind};
  // torch's optimizer hook label, e.g. "Optimizer.step#Adam.step".
  if (label.starts_with("Optimizer.step#")) return RecognizedOp{OpKind::OPT};
  // torch.distributed's record_function names for c10d calls: "nccl:all_reduce", "gloo:send",
  // and the dispatcher's ops "c10d::send", "c10d::recv_", "c10d::allreduce_" (the trailing
  // underscore marks an in-place op). Their direction is unknown: a send is SEND_F until a
  // labelled transfer around it says otherwise.
  if (auto backend = backendOf(label)) {
    std::string_view op = label.substr(backend->size() + (*backend == "c10d" ? 2 : 1));
    if (op.ends_with('_')) op.remove_suffix(1);
    if (op == "send" || op == "isend") return RecognizedOp{OpKind::SEND_F};
    if (op == "recv" || op == "irecv" || op == "recv_any_source")
      return RecognizedOp{OpKind::RECV_F};
    if (op == "all_to_all" || op == "all_to_all_base" || op == "alltoall" || op == "alltoall_base")
      return RecognizedOp{OpKind::A2A};
    if (op.find("all_reduce") != std::string_view::npos ||
        op.find("allreduce") != std::string_view::npos ||
        op.find("reduce_scatter") != std::string_view::npos ||
        op.find("all_gather") != std::string_view::npos ||
        op.find("allgather") != std::string_view::npos || op == "broadcast" || op == "reduce")
      return RecognizedOp{OpKind::AR};
    return std::nullopt;
  }

  // "F3", "B3.1", "W12.0": kind letter, micro-batch, optional chunk.
  if (label.size() < 2) return std::nullopt;
  const auto kind = computeKindOfLetter(label[0]);
  if (!kind) return std::nullopt;
  std::string_view rest = label.substr(1);
  const auto mb = takeNumber(rest);
  if (!mb) return std::nullopt;
  RecognizedOp op{*kind};
  op.microbatch = *mb;
  if (rest.empty()) return op;
  if (rest[0] != '.') return std::nullopt;
  rest.remove_prefix(1);
  const auto chunk = takeNumber(rest);
  if (!chunk || !rest.empty()) return std::nullopt;
  op.chunk = *chunk;
  return op;
}

std::optional<RecognizedOp> recognizePippy(std::string_view label) {
  // PiPPy's visualizer: "F_<stage>,<mb>", "B_<stage>,<mb>", "W_<stage>,<mb>".
  if (label.size() < 5 || label[1] != '_') return std::nullopt;
  const auto kind = computeKindOfLetter(label[0]);
  if (!kind || *kind == OpKind::R) return std::nullopt;  // PiPPy has no recompute label
  std::string_view rest = label.substr(2);
  const auto stage = takeNumber(rest);
  if (!stage || rest.empty() || rest[0] != ',') return std::nullopt;
  rest.remove_prefix(1);
  const auto mb = takeNumber(rest);
  if (!mb || !rest.empty()) return std::nullopt;
  RecognizedOp op{*kind};
  op.stage = *stage;
  op.microbatch = *mb;
  return op;
}

bool OpRecognizer::isBackendCall(std::string_view label) {
  return backendOf(label).has_value();
}

bool OpRecognizer::isNcclLaunchRange(std::string_view label) {
  return label.starts_with("nccl:") || label == "record_param_comms";
}

bool OpRecognizer::isStepMarker(std::string_view label) {
  return label.starts_with("ProfilerStep#");
}

std::optional<RecognizedOp> OpRecognizer::recognize(std::string_view label) const {
  if (auto op = userRules_.apply(label)) return op;
  if (auto op = recognizeTorchPipelining(label)) return op;
  if (auto op = recognizePippy(label)) return op;
  return recognizeMegatron(label);
}

}  // namespace ps::trace::import
