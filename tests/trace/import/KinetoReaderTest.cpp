#include "trace/import/kineto/KinetoReader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/KinetoFixture.h"
#include "tests/trace/import/KinetoPlanted.h"
#include "trace/import/kineto/KinetoNumber.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;
using testing::KinetoFixtureOptions;
using namespace testing;  // the planted rank, its constants and readText (KinetoPlanted.h)

KinetoFixtureOptions stepsFrom3() {
  KinetoFixtureOptions o;
  o.firstStepNumber = 3;
  return o;
}

std::vector<const RawEvent*> find(const RawRankTrace& t, const std::string& name,
                                  EventSource source) {
  std::vector<const RawEvent*> out;
  for (const RawEvent& e : t.events)
    if (t.nameOf(e) == name && e.source == source) out.push_back(&e);
  std::sort(out.begin(), out.end(),
            [](const RawEvent* a, const RawEvent* b) { return a->start_ns < b->start_ns; });
  return out;
}

const RawEvent& one(const RawRankTrace& t, const std::string& name, EventSource source) {
  const auto found = find(t, name, source);
  EXPECT_EQ(found.size(), 1U) << name << " " << eventSourceName(source);
  static const RawEvent none{};
  return found.empty() ? none : *found.front();
}

bool contains(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

// Everything about the planted rank, for times on clock `offset` (0 for modern files, the
// wall-clock base for legacy ones, whose times are absolute).
void expectPlanted(const RawRankTrace& t, std::int64_t offset) {
  const std::int64_t k = kSkew + offset;
  EXPECT_EQ(t.format, "kineto");
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.worldSize, 2);
  EXPECT_EQ(t.device, "NVIDIA H200 (sm_90)");
  EXPECT_EQ(t.memoryCapacityBytes, 141LL << 30);

  const RawEvent& f0 = one(t, "PP:0F0", EventSource::CpuAnnotation);
  EXPECT_EQ(f0.start_ns, 1'000'000 + k);
  EXPECT_EQ(f0.end_ns, 3'000'000 + k);
  EXPECT_EQ(f0.step, 3);
  EXPECT_EQ(f0.depth, 0);
  const RawEvent& f0gpu = one(t, "PP:0F0", EventSource::GpuAnnotation);
  EXPECT_EQ(f0gpu.start_ns, 1'000'000 + k);
  EXPECT_EQ(f0gpu.end_ns, 3'000'000 + k);
  EXPECT_EQ(f0gpu.step, 3);
  const RawEvent& attn = one(t, "attn", EventSource::CpuAnnotation);
  EXPECT_EQ(attn.depth, 1);
  EXPECT_EQ(attn.track, f0.track);
  EXPECT_EQ(one(t, "attn", EventSource::GpuAnnotation).depth, 1);

  const auto gemms = find(t, kGemm, EventSource::Kernel);
  ASSERT_EQ(gemms.size(), 2U);
  EXPECT_EQ(gemms[0]->start_ns, 1'250'500 + k);
  EXPECT_EQ(gemms[0]->end_ns, 1'750'250 + k);
  EXPECT_EQ(gemms[0]->step, 3);
  EXPECT_EQ(gemms[0]->comm, CommOp::None);
  EXPECT_EQ(gemms[1]->step, -1);  // after the last ProfilerStep
  // A stream is one track: GPU annotations share it with kernels, never with a host thread.
  EXPECT_EQ(gemms[0]->track, f0gpu.track);
  EXPECT_NE(gemms[0]->track, f0.track);

  const RawEvent& send = one(t, kSendRecv, EventSource::NcclKernel);
  EXPECT_EQ(send.start_ns, 3'100'000 + k);
  EXPECT_EQ(send.end_ns, 3'900'000 + k);
  EXPECT_EQ(send.comm, CommOp::Send);  // "Collective name": "send" gives the direction
  EXPECT_EQ(send.peer, 0);
  EXPECT_EQ(send.bytes, 4096);
  EXPECT_EQ(send.step, 3);
  EXPECT_NE(send.track, gemms[0]->track);

  const RawEvent& recv = one(t, kRecv, EventSource::NcclKernel);
  EXPECT_EQ(recv.comm, CommOp::Recv);
  EXPECT_EQ(recv.peer, 0);
  EXPECT_EQ(recv.bytes, 6);  // 6 "Byte" elements
  EXPECT_EQ(recv.step, 4);

  const RawEvent& allReduce = one(t, kAllReduce, EventSource::NcclKernel);
  EXPECT_EQ(allReduce.comm, CommOp::AllReduce);
  EXPECT_EQ(allReduce.peer, -1);
  EXPECT_EQ(allReduce.bytes, 8000);

  const RawEvent& copy = one(t, "Memcpy PtoP (Device -> Device)", EventSource::Memcpy);
  EXPECT_EQ(copy.start_ns, 4'000'000 + k);
  EXPECT_EQ(copy.end_ns, 4'100'000 + k);
  EXPECT_EQ(copy.peer, 0);
  EXPECT_EQ(copy.bytes, 1'048'576);

  EXPECT_EQ(one(t, "PP:0F1", EventSource::CpuAnnotation).step, 4);

  // 2 annotations x (cpu + gpu) x ... : nothing else (no cpu_op, runtime, flows, metadata).
  EXPECT_EQ(t.events.size(), 3U * 2 + 2 + 3 + 1);

  ASSERT_EQ(t.steps.size(), 2U);
  EXPECT_EQ(t.steps[0].number, 3);
  EXPECT_EQ(t.steps[0].start_ns, 0 + k);
  EXPECT_EQ(t.steps[0].end_ns, 10'000'000 + k);
  EXPECT_EQ(t.steps[1].number, 4);
  EXPECT_EQ(t.steps[1].start_ns, 10'000'000 + k);

  ASSERT_EQ(t.memory.size(), 3U);  // the host's Device Id -1 samples are not the GPU's
  EXPECT_EQ(t.memory[0].t_ns, 500'000 + k);
  EXPECT_EQ(t.memory[0].bytes, 1LL << 30);
  EXPECT_EQ(t.memory[1].bytes, (1LL << 30) + 4096);
  EXPECT_EQ(t.memory[2].t_ns, 15'000'000 + k);
  EXPECT_EQ(t.memory[2].bytes, 1LL << 29);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
}

TEST(KinetoReaderTest, ModernFileWithBaseTimeGivesExactSkewedTimes) {
  ps::test::TempDir dir;
  const std::string path = dir.file("rank1.pt.trace.json");
  ASSERT_TRUE(testing::writeKinetoFixture(path, plantedRank(), stepsFrom3()).ok());
  auto trace = readKinetoFile(path);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace->file, path);
  EXPECT_EQ(trace->wallClockOffsetNs, kBase);
  expectPlanted(*trace, 0);
}

TEST(KinetoReaderTest, GzipRoundTripReadsTheSameTrace) {
  ps::test::TempDir dir;
  KinetoFixtureOptions gz = stepsFrom3();
  gz.gzip = true;
  const std::string path = dir.file("rank1.pt.trace.json.gz");
  ASSERT_TRUE(testing::writeKinetoFixture(path, plantedRank(), gz).ok());
  auto trace = readKinetoFile(path);
  ASSERT_TRUE(trace.ok()) << trace.error();
  expectPlanted(*trace, 0);
  EXPECT_EQ(trace->wallClockOffsetNs, kBase);

  // Gzip is told by its magic bytes, not the name; and the buffer API gunzips too.
  const std::string renamed = dir.file("no_extension");
  std::filesystem::copy_file(path, renamed);
  auto byMagic = readKinetoFile(renamed);
  ASSERT_TRUE(byMagic.ok()) << byMagic.error();
  expectPlanted(*byMagic, 0);
  auto fromMemory = readKinetoBuffer(ps::test::readFile(path), "buffer");
  ASSERT_TRUE(fromMemory.ok()) << fromMemory.error();
  EXPECT_EQ(fromMemory->file, "buffer");
  expectPlanted(*fromMemory, 0);
}

TEST(KinetoReaderTest, LegacyAbsoluteMicrosecondsGiveTheSameWallClock) {
  ps::test::TempDir dir;
  KinetoFixtureOptions legacy = stepsFrom3();
  legacy.legacyAbsoluteUs = true;
  const std::string path = dir.file("legacy.json");
  ASSERT_TRUE(testing::writeKinetoFixture(path, plantedRank(), legacy).ok());
  EXPECT_EQ(ps::test::readFile(path).find("baseTimeNanoseconds"), std::string::npos);
  auto trace = readKinetoFile(path);
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace->wallClockOffsetNs, 0);
  expectPlanted(*trace, kBase);

  // The same instant, whichever form the file took.
  const std::string modernPath = dir.file("modern.json");
  ASSERT_TRUE(testing::writeKinetoFixture(modernPath, plantedRank(), stepsFrom3()).ok());
  auto modern = readKinetoFile(modernPath);
  ASSERT_TRUE(modern.ok()) << modern.error();
  const RawEvent& a = one(*trace, "PP:0F0", EventSource::CpuAnnotation);
  const RawEvent& b = one(*modern, "PP:0F0", EventSource::CpuAnnotation);
  EXPECT_EQ(a.start_ns + *trace->wallClockOffsetNs, b.start_ns + *modern->wallClockOffsetNs);
  EXPECT_EQ(a.start_ns + *trace->wallClockOffsetNs, kBase + 1'000'000 + kSkew);
}

TEST(KinetoReaderTest, WithoutRankMetadataRankIsUnknownAndCopyPeerToo) {
  FixtureRank r = plantedRank();
  r.writeRankMetadata = false;
  auto trace = readText(testing::kinetoFixtureJson(r, stepsFrom3()));
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_FALSE(trace->rank.has_value());
  EXPECT_FALSE(trace->worldSize.has_value());
  EXPECT_EQ(one(*trace, kSendRecv, EventSource::NcclKernel).peer, 0);  // from Dst Rank
  EXPECT_EQ(one(*trace, "Memcpy PtoP (Device -> Device)", EventSource::Memcpy).peer, -1);
}

TEST(KinetoReaderTest, BareArrayWithStringPidsAndTids) {
  // PiPPy's visualizer: no "cat", string ids, µs with a float tail.
  const std::string json =
      R"([{"name": "F_0,0", "id": "F_0,0", "ph": "X", "ts": 1649317709410899.2, )"
      R"("dur": 1039966.1064147949, "pid": "0", "tid": "0"},
          {"name": "F_1,0", "id": "F_1,0", "ph": "X", "ts": 1649317710450935.2, "dur": 5.5,
           "pid": "0", "tid": "1"},
          {"name": "B_0,0", "id": "B_0,0", "ph": "X", "ts": 1649317717869423.8, "dur": 1,
           "pid": "0", "tid": "0"}])";
  auto trace = readText(json, "pipe_visualized.json");
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace->events.size(), 3U);
  const RawEvent& f00 = one(*trace, "F_0,0", EventSource::CpuAnnotation);
  EXPECT_EQ(f00.start_ns, 1'649'317'709'410'899'200);
  EXPECT_EQ(f00.end_ns, 1'649'317'709'410'899'200 + 1'039'966'106);
  const RawEvent& f10 = one(*trace, "F_1,0", EventSource::CpuAnnotation);
  const RawEvent& b00 = one(*trace, "B_0,0", EventSource::CpuAnnotation);
  EXPECT_EQ(f10.end_ns - f10.start_ns, 5'500);
  EXPECT_EQ(b00.track, f00.track);
  EXPECT_NE(f10.track, f00.track);
  EXPECT_FALSE(trace->rank.has_value());
  EXPECT_EQ(trace->wallClockOffsetNs, 0);  // absolute epoch µs
  EXPECT_TRUE(contains(trace->warnings, "no GPU kernels"));
}

TEST(KinetoReaderTest, IntegersAbove2To63DoNotFailTheImport) {
  const std::string json = R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 0, "ts": 100,
     "dur": 50, "args": {"device": 18446744073709551615, "In msg nelems": 99999999999999999999,
     "dtype": "Float", "Comms Id": 10159970886766084423}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD", "pid": 0, "tid": 0, "ts": 200,
     "dur": 5, "args": {"bytes": 18446744073709551615}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 0, "tid": 1, "ts": 200,
     "dur": 100, "args": {"Comms Id": 10159970886766084423}}]})";
  auto trace = readText(json);
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace->events.size(), 2U);
  const RawEvent& k = one(*trace, "ncclKernel_AllReduce", EventSource::NcclKernel);
  EXPECT_EQ(k.start_ns, 100'000);
  EXPECT_EQ(k.end_ns, 150'000);
  EXPECT_EQ(k.bytes, -1);
  EXPECT_EQ(one(*trace, "Memcpy DtoD", EventSource::Memcpy).bytes, -1);
  EXPECT_FALSE(trace->wallClockOffsetNs.has_value());  // neither base nor epoch-like times
}

TEST(KinetoReaderTest, FieldsInAnyOrderAndEscapedNames) {
  const std::string json = R"J({"traceEvents": [
    {"args": {"device": 3, "Collective name": "recv", "Src Rank": 5, "dtype": "BFloat16",
              "Out msg nelems": 10, "In msg nelems": 10},
     "ts": 5, "dur": 1, "name": "ncclDevKernel_SendRecv(x)", "tid": 9, "pid": 3,
     "cat": "kernel", "ph": "X"},
    {"ph": "X", "cat": "user_annotation", "name": "say \"hi\"\\\u00e9", "pid": 1, "tid": 1,
     "ts": 1, "dur": 1}]})J";
  auto trace = readText(json);
  ASSERT_TRUE(trace.ok()) << trace.error();
  const RawEvent& k = one(*trace, "ncclDevKernel_SendRecv(x)", EventSource::NcclKernel);
  EXPECT_EQ(k.peer, 5);
  EXPECT_EQ(k.bytes, 20);
  EXPECT_EQ(k.comm, CommOp::Recv);
  EXPECT_EQ(one(*trace, "say \"hi\"\\\xc3\xa9", EventSource::CpuAnnotation).start_ns, 1000);
}

TEST(KinetoReaderTest, BeginEndPairsAndCpuOpProfilerSteps) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#9", "pid": 5, "tid": 5, "ts": 0,
     "dur": 100},
    {"ph": "B", "cat": "user_annotation", "name": "PP:1B2", "pid": 5, "tid": 5, "ts": 10},
    {"ph": "B", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 5, "ts": 11},
    {"ph": "E", "pid": 5, "tid": 5, "ts": 12},
    {"ph": "B", "cat": "user_annotation", "name": "inner", "pid": 5, "tid": 5, "ts": 13},
    {"ph": "E", "pid": 5, "tid": 5, "ts": 14},
    {"ph": "E", "pid": 5, "tid": 5, "ts": 20.25},
    {"ph": "E", "pid": 6, "tid": 6, "ts": 30}]})";
  auto trace = readText(json);
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace->events.size(), 2U);
  const RawEvent& outer = one(*trace, "PP:1B2", EventSource::CpuAnnotation);
  EXPECT_EQ(outer.start_ns, 10'000);
  EXPECT_EQ(outer.end_ns, 20'250);
  EXPECT_EQ(outer.step, 9);
  EXPECT_EQ(outer.depth, 0);
  EXPECT_EQ(one(*trace, "inner", EventSource::CpuAnnotation).depth, 1);
  ASSERT_EQ(trace->steps.size(), 1U);
  EXPECT_EQ(trace->steps[0].number, 9);
  EXPECT_EQ(trace->steps[0].end_ns, 100'000);
  EXPECT_TRUE(contains(trace->warnings, "1 \"E\" events without a matching \"B\""));
}

TEST(KinetoReaderTest, NothingOfInterestIsAWarningNotAnError) {
  auto trace = readText(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
                           "pid": 1, "tid": 1, "ts": 1, "dur": 2}], "distributedInfo":
                           {"backend": "gloo", "world_size": 300}})");
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_TRUE(trace->events.empty());
  EXPECT_TRUE(contains(trace->warnings, "no annotations, kernels or memory events"));
  EXPECT_FALSE(trace->rank.has_value());
  EXPECT_EQ(trace->worldSize, 300);
  auto empty = readText(R"({"traceEvents": []})");
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(contains(empty->warnings, "no annotations, kernels or memory events"));
}

TEST(KinetoNumberTest, MicrosecondTextBecomesExactNanoseconds) {
  EXPECT_EQ(parseMicrosAsNanos("1694128201545123.456"), 1'694'128'201'545'123'456);
  EXPECT_EQ(parseMicrosAsNanos("4458676388068.751"), 4'458'676'388'068'751);
  EXPECT_EQ(parseMicrosAsNanos("1649317709410899.2"), 1'649'317'709'410'899'200);
  EXPECT_EQ(parseMicrosAsNanos("1039966.1064147949"), 1'039'966'106);
  EXPECT_EQ(parseMicrosAsNanos("0.0005"), 1);  // half away from zero
  EXPECT_EQ(parseMicrosAsNanos("-2.5004"), -2'500);
  EXPECT_EQ(parseMicrosAsNanos("1.5e3"), 1'500'000);
  EXPECT_EQ(parseMicrosAsNanos("\"12\""), 12'000);
  EXPECT_EQ(parseMicrosAsNanos(" 7 "), 7'000);
  EXPECT_EQ(parseInteger("10159970886766084423"), std::nullopt);
  EXPECT_EQ(parseInteger("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parseInteger("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parseMicrosAsNanos("9223372036854776"), std::nullopt);  // ns overflow
  EXPECT_EQ(parseInteger(""), std::nullopt);
  EXPECT_EQ(parseInteger("{"), std::nullopt);
  EXPECT_EQ(parseInteger("12x"), std::nullopt);
  EXPECT_EQ(parseInteger("-"), std::nullopt);
  EXPECT_EQ(parseInteger("1e"), std::nullopt);
}

// Threads as ranks orders the ranks by thread id: the reader says which tid each host track is.
TEST(KinetoReaderTest, HostTracksKnowTheirThreadIds) {
  const std::string json =
      "{\"traceEvents\": ["
      "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a\", \"pid\": 7, \"tid\": 300, "
      "\"ts\": 1, \"dur\": 1},"
      "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"b\", \"pid\": 7, \"tid\": \"12\", "
      "\"ts\": 1, \"dur\": 1},"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, "
      "\"dur\": 1}]}";
  auto trace = readKinetoBuffer(json, "threads.json");
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace->events.size(), 3U);
  EXPECT_EQ(trace->threadIds.size(), 2U);  // the GPU stream is no thread
  EXPECT_EQ(trace->threadIds.at(trace->events[0].track), 300);
  EXPECT_EQ(trace->threadIds.at(trace->events[1].track), 12);
}

}  // namespace
}  // namespace ps::trace::import
