#pragma once
// Turns an imported label into a pipeline op (DESIGN §6): torch pipelining / PipeScope
// `PP:{stage}{KIND}{mb}`, Megatron and zero-bubble style `F<mb>.<chunk>` / `SEND_FORWARD` /
// `forward-compute`, PiPPy's `F_<stage>,<mb>`, communication calls (`gloo:send`, `c10d::recv_`),
// and user rules (MappingRules.h) tried first.
// Labels are recognised once per distinct name, so the cost is per name, not per event.

#include <optional>
#include <string_view>
#include <vector>

#include "trace/OpKind.h"
#include "trace/import/MappingRules.h"

namespace ps::trace::import {

struct RecognizedOp {
  OpKind kind = OpKind::OTHER;
  int stage = -1;       // virtual stage when the label says
  int microbatch = -1;  // when the label says
  int chunk = -1;       // Megatron/zero-bubble chunk (model part on this rank) when the label says
  int step = -1;        // when the label says
  // A label naming a send and a receive done together (Megatron's forward-send-backward-recv):
  // the kind of the receive, which becomes an op of its own over the same range; OTHER otherwise.
  OpKind alsoReceives = OpKind::OTHER;
  friend bool operator==(const RecognizedOp&, const RecognizedOp&) = default;
};

// What a label is, beyond a pipeline op.
enum class LabelRole { PipelineOp, StepMarker, Unknown };

class OpRecognizer {
 public:
  OpRecognizer() = default;
  explicit OpRecognizer(MappingRules userRules) : userRules_(std::move(userRules)) {}

  // The op a label names, or nullopt when no rule and no built-in naming matches.
  std::optional<RecognizedOp> recognize(std::string_view label) const;
  // ProfilerStep#N and similar step ranges are steps, not ops.
  static bool isStepMarker(std::string_view label);
  // A communication library's own range ("gloo:send", "nccl:all_reduce", "c10d::recv_"): the
  // call that does a transfer, not a pipeline label. It names no direction, stage or micro-batch,
  // so it is never numbered by order (OrderedMicrobatches.h); inside a labelled transfer it is
  // part of that transfer (NestedTransfers.h).
  static bool isBackendCall(std::string_view label);
  // torch.distributed's ranges around an NCCL call: "nccl:send", "nccl:coalesced" (where
  // batch_isend_irecv launches the kernels of its group) and "record_param_comms". Where the
  // trace has the NCCL kernels, the kernel (or the labelled range that holds it) is the transfer
  // and these are its CPU side (OpBuilder).
  static bool isNcclLaunchRange(std::string_view label);

 private:
  MappingRules userRules_;
};

// The built-in namings alone, each exposed for tests.
std::optional<RecognizedOp> recognizeTorchPipelining(std::string_view label);  // PP:1F3
std::optional<RecognizedOp> recognizeMegatron(std::string_view label);         // F3.1, SEND_FORWARD
std::optional<RecognizedOp> recognizePippy(std::string_view label);            // F_0,3

}  // namespace ps::trace::import
