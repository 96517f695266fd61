#include "trace/import/OpRecognizer.h"

#include <gtest/gtest.h>

namespace ps::trace::import {
namespace {

struct LabelCase {
  const char* label;
  std::optional<RecognizedOp> expected;
};

RecognizedOp op(OpKind kind, int stage = -1, int mb = -1, int chunk = -1) {
  RecognizedOp r{kind};
  r.stage = stage;
  r.microbatch = mb;
  r.chunk = chunk;
  return r;
}

// A batched send+receive label: the send, with the receive as its second half.
RecognizedOp sendRecv(OpKind send, OpKind receive) {
  RecognizedOp r{send};
  r.alsoReceives = receive;
  return r;
}

class BuiltInLabelsTest : public ::testing::TestWithParam<LabelCase> {};

TEST_P(BuiltInLabelsTest, RecognisesOrRejects) {
  const OpRecognizer recognizer;
  EXPECT_EQ(recognizer.recognize(GetParam().label), GetParam().expected) << GetParam().label;
}

INSTANTIATE_TEST_SUITE_P(
    Labels, BuiltInLabelsTest,
    ::testing::Values(
        // torch pipelining / PipeScope (DESIGN §6)
        LabelCase{"PP:1F3", op(OpKind::F, 1, 3)}, LabelCase{"PP:0B12", op(OpKind::B, 0, 12)},
        LabelCase{"PP:2I0", op(OpKind::I, 2, 0)}, LabelCase{"PP:2W0", op(OpKind::W, 2, 0)},
        LabelCase{"PP:0SEND_B2", op(OpKind::SEND_B, 0, 2)},
        LabelCase{"PP:3RECV_F1", op(OpKind::RECV_F, 3, 1)},
        LabelCase{"PP:1UNSHARD", op(OpKind::OTHER, 1)},
        LabelCase{"PP:1REDUCE_GRAD", op(OpKind::AR, 1)}, LabelCase{"PP:OPT", op(OpKind::OPT)},
        LabelCase{"PP:F3", std::nullopt}, LabelCase{"PP:1F", std::nullopt},
        LabelCase{"PP:1F3x", std::nullopt}, LabelCase{"PP:1X3", std::nullopt},
        // Megatron / zero-bubble
        LabelCase{"F3", op(OpKind::F, -1, 3)}, LabelCase{"B7.1", op(OpKind::B, -1, 7, 1)},
        LabelCase{"W0.0", op(OpKind::W, -1, 0, 0)}, LabelCase{"SEND_FORWARD", op(OpKind::SEND_F)},
        LabelCase{"RECV_BACKWARD", op(OpKind::RECV_B)},
        LabelCase{"SEND_FORWARD_RECV_BACKWARD", sendRecv(OpKind::SEND_F, OpKind::RECV_B)},
        LabelCase{"backward-send-forward-recv", sendRecv(OpKind::SEND_B, OpKind::RECV_F)},
        LabelCase{"forward-compute", op(OpKind::F)}, LabelCase{"backward-recv", op(OpKind::RECV_B)},
        LabelCase{"Optimizer.step#Adam.step", op(OpKind::OPT)},
        LabelCase{"nccl:all_reduce", op(OpKind::AR)}, LabelCase{"nccl:all_to_all", op(OpKind::A2A)},
        LabelCase{"gloo:send", op(OpKind::SEND_F)}, LabelCase{"nccl:barrier", std::nullopt},
        // c10d's dispatcher ops, as the legacy profiler shows them
        LabelCase{"c10d::send", op(OpKind::SEND_F)}, LabelCase{"c10d::recv_", op(OpKind::RECV_F)},
        LabelCase{"c10d::recv_any_source_", op(OpKind::RECV_F)},
        LabelCase{"c10d::allreduce_", op(OpKind::AR)},
        LabelCase{"c10d::alltoall_base_", op(OpKind::A2A)},
        LabelCase{"c10d::barrier", std::nullopt}, LabelCase{"c10d:send", std::nullopt},
        LabelCase{"foo:all_reduce", std::nullopt}, LabelCase{"F3.", std::nullopt},
        LabelCase{"Foo", std::nullopt}, LabelCase{"B", std::nullopt},
        // PiPPy visualizer
        LabelCase{"F_0,1", op(OpKind::F, 0, 1)}, LabelCase{"B_3,12", op(OpKind::B, 3, 12)},
        LabelCase{"F_0,", std::nullopt}, LabelCase{"F_a,1", std::nullopt},
        // everything else
        LabelCase{"aten::mm", std::nullopt}, LabelCase{"## forward ##", std::nullopt},
        LabelCase{"", std::nullopt}));

TEST(OpRecognizerTest, StepMarkersAreNotOps) {
  EXPECT_TRUE(OpRecognizer::isStepMarker("ProfilerStep#12"));
  EXPECT_FALSE(OpRecognizer::isStepMarker("PP:0F1"));
}

TEST(OpRecognizerTest, BackendCallsAreTold) {
  for (const char* label : {"gloo:send", "nccl:all_reduce", "mpi:recv", "c10d::recv_"})
    EXPECT_TRUE(OpRecognizer::isBackendCall(label)) << label;
  for (const char* label : {"forward-send", "PP:0SEND_F1", "c10d:send", "glue:send"})
    EXPECT_FALSE(OpRecognizer::isBackendCall(label)) << label;
}

TEST(OpRecognizerTest, UserRulesWinOverBuiltIns) {
  auto rules = MappingRules::parse(
      R"({"rules":[{"pattern":"^fwd_s(\\d+)_mb(\\d+)$","kind":"F","stage":"$1","microbatch":"$2"},
                   {"pattern":"^F3$","kind":"FILL"}]})",
      "rules.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  const OpRecognizer recognizer(std::move(*rules));
  EXPECT_EQ(recognizer.recognize("fwd_s2_mb7"), op(OpKind::F, 2, 7));
  EXPECT_EQ(recognizer.recognize("F3"), op(OpKind::FILL));
  EXPECT_EQ(recognizer.recognize("PP:1F3"), op(OpKind::F, 1, 3));
}

}  // namespace
}  // namespace ps::trace::import
