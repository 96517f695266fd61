#pragma once
// Turns an imported label into a pipeline op (DESIGN §6): torch pipelining / PipeScope
// `PP:{stage}{KIND}{mb}`, Megatron and zero-bubble style `F<mb>.<chunk>` / `SEND_FORWARD` /
// `forward-compute`, PiPPy's `F_<stage>,<mb>`, and user rules (MappingRules.h) tried first.
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

 private:
  MappingRules userRules_;
};

// The built-in namings alone, each exposed for tests.
std::optional<RecognizedOp> recognizeTorchPipelining(std::string_view label);  // PP:1F3
std::optional<RecognizedOp> recognizeMegatron(std::string_view label);         // F3.1, SEND_FORWARD
std::optional<RecognizedOp> recognizePippy(std::string_view label);            // F_0,3

}  // namespace ps::trace::import
