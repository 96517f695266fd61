// Issue 31 §1: torch.distributed's ranges around an NCCL call ("nccl:send", "nccl:coalesced",
// "record_param_comms") are the CPU side of the transfer its kernel did, not ops of their own.
// batch_isend_irecv (torch pipelining's p2p) records a "nccl:send" / "nccl:recv" range per
// transfer that launches nothing, and launches the kernel from "nccl:coalesced" at the group's
// end. Before, one send became up to three ops: a SEND_F at the CPU range's host time, an OTHER
// "nccl:coalesced" and the SEND_F made from (or holding) the kernel.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/import/ImportPipeline.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

constexpr int kLaunchThread = 100;
constexpr int kLaunchComputeStream = 7;
constexpr int kNcclStream = 20;

std::string hostRange(const std::string& name, int ts, int dur,
                      const std::string& cat = "user_annotation") {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":)" +
         std::to_string(kLaunchThread) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + "}";
}

std::string runtimeCall(int ts, int correlation) {
  return R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":)" +
         std::to_string(kLaunchThread) + R"(,"ts":)" + std::to_string(ts) +
         R"(,"dur":1,"args":{"correlation":)" + std::to_string(correlation) + "}}";
}

std::string gpuKernel(const std::string& name, int stream, int ts, int dur, int correlation,
                      const std::string& extraArgs = "") {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":)" +
         std::to_string(stream) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + R"(,"args":{"device":0,"stream":)" + std::to_string(stream) +
         R"(,"correlation":)" + std::to_string(correlation) + extraArgs + "}}";
}

const std::string kSendArgs =
    R"(,"Collective name":"send","In msg nelems":1024,"Out msg nelems":1024,"dtype":"Float",)"
    R"("Group size":2,"Src Rank":0,"Dst Rank":1)";

// Rank 0 of 2: F0 on the compute stream, then the send of its activations (the ranges given),
// then B0. The NCCL kernel (correlation 2) runs at [205, 255] µs on its own stream.
ImportedRun importRank0(const std::vector<std::string>& sendRanges) {
  std::vector<std::string> e = {hostRange("ProfilerStep#1", 0, 100), hostRange("PP:0F0", 10, 10),
                                runtimeCall(11, 1)};
  e.insert(e.end(), sendRanges.begin(), sendRanges.end());
  e.insert(e.end(), {hostRange("PP:0B0", 40, 10), runtimeCall(41, 3),
                     gpuKernel("gemm_f0", kLaunchComputeStream, 100, 100, 1),
                     gpuKernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
                               kNcclStream, 205, 50, 2, kSendArgs),
                     gpuKernel("gemm_b0", kLaunchComputeStream, 260, 200, 3)});
  std::string json = R"({"distributedInfo":{"rank":0,"world_size":2},"traceEvents":[)";
  for (std::size_t i = 0; i < e.size(); ++i)
    json += (i ? ",\n" : "\n") + e[i];
  json += "]}";
  auto raw = readKinetoBuffer(json, "rank0.json");
  EXPECT_TRUE(raw.ok()) << raw.error();
  std::vector<RawRankTrace> raws;
  raws.push_back(std::move(*raw));
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(raws), options);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : ImportedRun{};
}

std::string opsOf(const ImportedRun& run) {
  std::string out;
  for (const auto& op : run.ops)
    out += std::string(opKindName(op.kind)) + " " + op.name.value_or("") + " [" +
           std::to_string(op.start_ns) + ", " + std::to_string(op.end_ns) + ")\n";
  return out;
}

// The one send there is: on the GPU's time (the kernel's 50 µs), with the kernel's bytes.
void expectOneSendFromTheKernel(const ImportedRun& run) {
  int sends = 0, others = 0;
  for (const auto& op : run.ops) {
    others += op.kind == OpKind::OTHER;
    if (!isSend(op.kind)) continue;
    ++sends;
    EXPECT_EQ(op.kind, OpKind::SEND_F);
    EXPECT_EQ(op.end_ns - op.start_ns, 50'000);
    EXPECT_EQ(op.bytes, 4096);
  }
  EXPECT_EQ(sends, 1) << opsOf(run);
  EXPECT_EQ(others, 0) << opsOf(run);
  EXPECT_EQ(run.stats.opsByKind[static_cast<int>(OpKind::F)], 1);
  EXPECT_EQ(run.stats.opsByKind[static_cast<int>(OpKind::B)], 1);
}

TEST(KinetoNcclLaunchRanges, BatchedSendLaunchedFromTheCoalescedRange) {
  const ImportedRun run = importRank0(
      {hostRange("nccl:send", 21, 2), hostRange("nccl:coalesced", 24, 4), runtimeCall(25, 2)});
  expectOneSendFromTheKernel(run);
  EXPECT_EQ(run.stats.launchRanges, 2);
}

TEST(KinetoNcclLaunchRanges, ALabelledSendAroundTheBatchIsTheOp) {
  const ImportedRun run =
      importRank0({hostRange("PP:0SEND_F0", 21, 10), hostRange("nccl:send", 22, 2),
                   hostRange("nccl:coalesced", 25, 4), runtimeCall(26, 2)});
  expectOneSendFromTheKernel(run);
  for (const auto& op : run.ops)
    if (isSend(op.kind)) EXPECT_EQ(op.name, "PP:0SEND_F0");
}

TEST(KinetoNcclLaunchRanges, RecordParamCommsAsARangeIsPartOfTheSend) {
  const ImportedRun run = importRank0(
      {hostRange("record_param_comms", 21, 6), hostRange("nccl:send", 22, 4), runtimeCall(23, 2)});
  expectOneSendFromTheKernel(run);
  for (const auto& op : run.ops)
    if (isSend(op.kind)) EXPECT_EQ(op.name, "nccl:send");  // it launched the kernel: the op
}

TEST(KinetoNcclLaunchRanges, WithoutCorrelationIdsTheKernelIsTheSend) {
  // The call names a correlation no kernel has (older files link nothing): the range stays on
  // the host, the kernel is the transfer.
  const ImportedRun run = importRank0({hostRange("nccl:send", 22, 4), runtimeCall(23, 99)});
  expectOneSendFromTheKernel(run);
}

TEST(KinetoNcclLaunchRanges, WithoutNcclKernelsTheRangesStay) {
  // A CPU-only profile (gloo, or CUDA activity not recorded): the ranges are all there is.
  std::string json = R"({"distributedInfo":{"rank":0,"world_size":2},"traceEvents":[)" +
                     hostRange("ProfilerStep#1", 0, 100) + "," + hostRange("PP:0F0", 10, 10) + "," +
                     hostRange("nccl:send", 22, 4) + "," + hostRange("nccl:coalesced", 26, 2) +
                     "]}";
  auto raw = readKinetoBuffer(json, "rank0.json");
  ASSERT_TRUE(raw.ok()) << raw.error();
  std::vector<RawRankTrace> raws;
  raws.push_back(std::move(*raw));
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::SEND_F)], 1) << opsOf(*run);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::OTHER)], 1) << opsOf(*run);
  EXPECT_EQ(run->stats.launchRanges, 0);
}

}  // namespace
}  // namespace ps::trace::import
