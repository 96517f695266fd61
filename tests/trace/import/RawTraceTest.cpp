#include "trace/import/RawTrace.h"

#include <gtest/gtest.h>

namespace ps::trace::import {
namespace {

TEST(RawTraceTest, InternReturnsTheSameIndexForTheSameName) {
  RawRankTrace trace;
  EXPECT_EQ(trace.intern("PP:0F1"), 0);
  EXPECT_EQ(trace.intern("sgemm"), 1);
  EXPECT_EQ(trace.intern("PP:0F1"), 0);
  ASSERT_EQ(trace.names.size(), 2U);
  EXPECT_EQ(trace.names[1], "sgemm");
}

struct CommCase {
  const char* name;
  CommOp op;
};

class CommOpFromKernelNameTest : public ::testing::TestWithParam<CommCase> {};

TEST_P(CommOpFromKernelNameTest, Recognises) {
  EXPECT_EQ(commOpFromKernelName(GetParam().name), GetParam().op) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Names, CommOpFromKernelNameTest,
    ::testing::Values(
        CommCase{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CommOp::SendRecv},
        CommCase{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", CommOp::SendRecv},
        CommCase{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", CommOp::AllReduce},
        CommCase{"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", CommOp::ReduceScatter},
        CommCase{"ncclDevKernel_Reduce_Sum_f32_RING_LL", CommOp::Reduce},
        CommCase{"ncclDevKernel_Send", CommOp::Send}, CommCase{"ncclDevKernel_Recv", CommOp::Recv},
        CommCase{"ncclDevKernel_Nonsense", CommOp::Other},
        CommCase{"volta_sgemm_128x64_nn", CommOp::None}, CommCase{"", CommOp::None}));

}  // namespace
}  // namespace ps::trace::import
