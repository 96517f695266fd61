#include "tests/trace/import/KinetoFixture.h"

#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "trace/import/RawTrace.h"

namespace ps::trace::import::testing {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// Nanoseconds as Kineto writes microseconds: "1234.567" (three decimals, the ns part), or a
// plain integer in legacy files when there is no fraction.
std::string micros(std::int64_t ns, bool legacy) {
  const bool negative = ns < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  char buf[48];
  if (legacy && magnitude % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%s%llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000),
                  static_cast<unsigned long long>(magnitude % 1000));
  }
  return buf;
}

class Writer {
 public:
  Writer(const FixtureRank& rank, const KinetoFixtureOptions& options)
      : rank_(rank),
        options_(options),
        device_(fixtureDevice(rank)),
        hostPid_(fixtureHostPid(rank)) {}

  std::string run() {
    header();
    out_ += "  \"traceEvents\": [\n";
    if (options_.noise) metadataEvents();
    for (std::size_t i = 0; i < rank_.profilerSteps.size(); ++i) {
      const auto& [start, end] = rank_.profilerSteps[i];
      complete(
          "user_annotation",
          "ProfilerStep#" + std::to_string(options_.firstStepNumber + static_cast<std::int64_t>(i)),
          host(), host(), start, end, "\"External id\": " + std::to_string(++externalId_));
    }
    for (const FixtureEvent& e : rank_.events)
      hostSide(e);
    memoryEvents();
    for (const FixtureEvent& e : rank_.events)
      gpuSide(e);
    if (options_.noise) {
      // An integer above 2^63, as record_param_comms writes "Comms Id" (HTA's large_integer
      // test file): readers must not fail on it.
      const std::int64_t t = firstTime();
      complete("cpu_op", "record_param_comms", host(), host(), t, t + 1000,
               "\"Comms Id\": 10159970886766084423, \"Rank\": " + std::to_string(rank_.rank));
      instantGlobal("Record Window End", t);
    }
    // Kineto's last element has no trailing comma; drop ours.
    if (out_.size() >= 2 && out_.compare(out_.size() - 2, 2, ",\n") == 0)
      out_.erase(out_.size() - 2, 1);
    out_ += "  ],\n";
    out_ += "  \"traceName\": \"rank" + std::to_string(rank_.rank) + ".pt.trace.json\"";
    if (!options_.legacyAbsoluteUs) {
      out_ += ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " +
              std::to_string(rank_.wallClockBaseNs);
    }
    out_ += "\n}\n";
    return std::move(out_);
  }

 private:
  std::string host() const { return std::to_string(hostPid_); }
  std::string gpuPid() const { return std::to_string(device_); }

  // A true time as written: skewed, and absolute in legacy files.
  std::string ts(std::int64_t trueNs) const {
    const std::int64_t local = trueNs + rank_.clockSkewNs;
    return micros(options_.legacyAbsoluteUs ? rank_.wallClockBaseNs + local : local,
                  options_.legacyAbsoluteUs);
  }
  std::string dur(std::int64_t ns) const { return micros(ns, options_.legacyAbsoluteUs); }

  std::int64_t firstTime() const {
    std::int64_t t = 0;
    bool any = false;
    for (const auto& e : rank_.events) {
      if (!any || e.startNs < t) t = e.startNs;
      any = true;
    }
    return t;
  }

  void header() {
    out_ += "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n";
    for (int id = 0; id < 8; ++id) {
      out_ += "    {\n      \"id\": " + std::to_string(id) + ", \"name\": \"" +
              escape(rank_.deviceName) +
              "\", \"totalGlobalMem\": " + std::to_string(rank_.memoryCapacityBytes) +
              ",\n      \"computeMajor\": 9, \"computeMinor\": 0,\n"
              "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
              "      \"regsPerBlock\": 65536, \"warpSize\": 32, \"numSms\": 132\n    }";
      out_ += id < 7 ? ",\n" : "\n";
    }
    out_ += "  ],\n";
    if (rank_.writeRankMetadata) {
      out_ +=
          "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank_.rank) +
          ", \"world_size\": " + std::to_string(rank_.worldSize) +
          ", \"pg_count\": 1, \"nccl_version\": \"2.21.5\"},\n";
    }
    out_ += "  \"record_shapes\": 1,\n";
  }

  void complete(const std::string& cat, const std::string& name, const std::string& pid,
                const std::string& tid, std::int64_t start, std::int64_t end,
                const std::string& args) {
    out_ += "  {\n    \"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + escape(name) +
            "\", \"pid\": " + pid + ", \"tid\": " + tid + ",\n    \"ts\": " + ts(start) +
            ", \"dur\": " + dur(end - start) + ",\n    \"args\": {\n      " + args +
            "\n    }\n  },\n";
  }

  void instantGlobal(const std::string& name, std::int64_t t) {
    out_ += "  {\n    \"name\": \"" + name + "\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", " +
            "\"tid\": \"\",\n    \"ts\": " + ts(t) + "\n  },\n";
  }

  void metadataEvents() {
    const std::string t = ts(firstTime());
    auto meta = [&](const std::string& name, const std::string& pid, const std::string& tid,
                    const std::string& args) {
      out_ += "  {\n    \"name\": \"" + name + "\", \"ph\": \"M\", \"ts\": " + t +
              ", \"pid\": " + pid + ", \"tid\": " + tid + ",\n    \"args\": {" + args + "}\n  },\n";
    };
    meta("process_name", host(), "0", "\"name\": \"python3\"");
    meta("process_labels", host(), "0", "\"labels\": \"CPU\"");
    meta("thread_name", host(), host(), "\"name\": \"thread " + host() + " (python3)\"");
    meta("process_name", gpuPid(), "0", "\"name\": \"python3\"");
    meta("process_labels", gpuPid(), "0", "\"labels\": \"GPU " + gpuPid() + "\"");
    for (int stream : {kKinetoComputeStream, kKinetoCopyStream, kKinetoNcclStream})
      meta("thread_name", gpuPid(), std::to_string(stream),
           "\"name\": \"stream " + std::to_string(stream) + "\"");
    instantGlobal("Iteration Start: PyTorch Profiler", firstTime());
  }

  // What the host thread shows for an event: the annotation itself, or the launch of the work.
  void hostSide(const FixtureEvent& e) {
    if (e.kind == FixtureEventKind::Annotation) {
      complete("user_annotation", e.name, host(), host(), e.startNs, e.endNs,
               "\"External id\": " + std::to_string(++externalId_) + ", \"Ev Idx\": 7");
      return;
    }
    if (!options_.noise) return;
    // aten op around a cudaLaunchKernel a few µs before the kernel starts, as in real traces.
    const std::int64_t launch = e.startNs - 6000;
    complete("cpu_op", e.kind == FixtureEventKind::Memcpy ? "aten::copy_" : "aten::mm", host(),
             host(), launch - 2000, launch + 5000,
             "\"External id\": " + std::to_string(++externalId_) +
                 ", \"Sequence number\": 12, \"Fwd thread id\": 0");
    ++correlation_;
    complete("cuda_runtime",
             e.kind == FixtureEventKind::Memcpy ? "cudaMemcpyAsync" : "cudaLaunchKernel", host(),
             host(), launch, launch + 4000,
             "\"External id\": " + std::to_string(externalId_) + ", \"cbid\": 211, " +
                 "\"correlation\": " + std::to_string(correlation_));
    out_ += "  {\n    \"ph\": \"s\", \"id\": " + std::to_string(correlation_) +
            ", \"pid\": " + host() + ", \"tid\": " + host() + ", \"ts\": " + ts(launch) +
            ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n";
  }

  std::string streamOf(const FixtureEvent& e) const {
    switch (e.kind) {
      case FixtureEventKind::Nccl:
        return std::to_string(kKinetoNcclStream);
      case FixtureEventKind::Memcpy:
        return std::to_string(kKinetoCopyStream);
      default:
        return std::to_string(kKinetoComputeStream);
    }
  }

  void gpuSide(const FixtureEvent& e) {
    const std::string stream = streamOf(e);
    const std::string common = "\"device\": " + gpuPid() + ", \"context\": 1,\n      " +
                               "\"stream\": " + stream +
                               ", \"correlation\": " + std::to_string(++gpuCorrelation_);
    switch (e.kind) {
      case FixtureEventKind::Annotation:
        if (options_.gpuAnnotations)
          complete("gpu_user_annotation", e.name, gpuPid(), stream, e.startNs, e.endNs,
                   "\"External id\": " + std::to_string(++externalId_));
        return;
      case FixtureEventKind::Kernel:
        complete("kernel", e.name, gpuPid(), stream, e.startNs, e.endNs,
                 "\"External id\": " + std::to_string(++externalId_) + ",\n      \"queued\": 0, " +
                     common + kernelShape());
        break;
      case FixtureEventKind::Nccl:
        complete("kernel", e.name, gpuPid(), stream, e.startNs, e.endNs,
                 "\"External id\": " + std::to_string(++externalId_) + ",\n      \"queued\": 0, " +
                     common + kernelShape() + ncclArgs(e));
        break;
      case FixtureEventKind::Memcpy:
        if (e.peer >= 0) {
          complete("gpu_memcpy", copyName(e, "Memcpy PtoP (Device -> Device)"), gpuPid(), stream,
                   e.startNs, e.endNs,
                   "\"fromDevice\": " + gpuPid() + ", \"inDevice\": " + gpuPid() +
                       ", \"toDevice\": " + std::to_string(e.peer % 8) +
                       ",\n      \"fromContext\": 1, \"inContext\": 1, \"toContext\": 1,\n"
                       "      \"stream\": " +
                       stream + ", \"correlation\": " + std::to_string(++gpuCorrelation_) +
                       ",\n      \"bytes\": " + std::to_string(e.bytes) +
                       ", \"memory bandwidth (GB/s)\": 181.3");
        } else {
          complete("gpu_memcpy", copyName(e, "Memcpy HtoD (Pinned -> Device)"), gpuPid(), stream,
                   e.startNs, e.endNs,
                   "\"External id\": " + std::to_string(++externalId_) + ", " + common +
                       ",\n      \"bytes\": " + std::to_string(e.bytes) +
                       ", \"memory bandwidth (GB/s)\": 20.1");
        }
        break;
    }
    if (options_.noise) {
      out_ += "  {\n    \"ph\": \"f\", \"id\": " + std::to_string(gpuCorrelation_) +
              ", \"pid\": " + gpuPid() + ", \"tid\": " + stream + ", \"ts\": " + ts(e.startNs) +
              ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n";
    }
  }

  // Kineto names copies by kind; a fixture name is kept only when it reads like one.
  static std::string copyName(const FixtureEvent& e, const char* kinetoName) {
    return e.name.rfind("Memcpy ", 0) == 0 ? e.name : kinetoName;
  }

  static std::string kernelShape() {
    return ",\n      \"registers per thread\": 96, \"shared memory\": 41760,\n"
           "      \"blocks per SM\": 0.1, \"warps per SM\": 2,\n"
           "      \"grid\": [8, 1, 1], \"block\": [640, 1, 1],\n"
           "      \"est. achieved occupancy %\": 3";
  }

  // The args PyTorch attaches to NCCL kernels (record_param_comms): the collective, message
  // sizes in elements of `dtype`, and for point-to-point the other side's global rank.
  std::string ncclArgs(const FixtureEvent& e) const {
    const CommOp op = commOpFromKernelName(e.name);
    const bool recv = op == CommOp::Recv;
    const bool p2p = op == CommOp::Send || op == CommOp::Recv || op == CommOp::SendRecv;
    std::string collective = "allreduce";
    switch (op) {
      case CommOp::AllGather:
        collective = "_allgather_base";
        break;
      case CommOp::ReduceScatter:
        collective = "_reduce_scatter_base";
        break;
      case CommOp::Broadcast:
        collective = "broadcast";
        break;
      case CommOp::Reduce:
        collective = "reduce";
        break;
      case CommOp::AllToAll:
        collective = "all_to_allv";
        break;
      default:
        break;
    }
    // A SendRecv kernel serves both directions; the fixture has no direction, so it says
    // "send" (the peer is what matters).
    if (p2p) collective = recv ? "recv" : "send";
    std::string dtype = "Float";
    std::int64_t nelems = -1;
    if (e.bytes >= 0) {
      if (e.bytes % 4 == 0) {
        nelems = e.bytes / 4;
      } else {
        dtype = "Byte";
        nelems = e.bytes;
      }
    }
    std::string args = ",\n      \"Collective name\": \"" + collective +
                       "\", \"In msg nelems\": " + std::to_string(nelems) +
                       ", \"Out msg nelems\": " + std::to_string(nelems) +
                       ",\n      \"Group size\": " + std::to_string(rank_.worldSize) +
                       ", \"dtype\": \"" + dtype +
                       "\", \"In split size\": \"[]\", \"Out split size\": \"[]\",\n"
                       "      \"Process Group Name\": \"0\", \"Process Group Description\": "
                       "\"default_pg\", \"Process Group Ranks\": \"[0, 1]\"";
    if (p2p) {
      args += recv ? ",\n      \"Src Rank\": " + std::to_string(e.peer)
                   : ",\n      \"Dst Rank\": " + std::to_string(e.peer);
    }
    return args;
  }

  void memoryEvents() {
    std::int64_t previous = 0;
    std::int64_t addr = 139868209594368;
    for (const auto& [t, bytes] : rank_.memory) {
      const std::string common =
          "\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
          "\"name\": \"[memory]\",\n    \"pid\": " +
          host() + ", \"tid\": " + host() + ", \"ts\": " + ts(t);
      out_ += "  {\n    " + common + ",\n    \"args\": {\n      \"Total Reserved\": " +
              std::to_string(bytes + (64 << 20)) +
              ", \"Total Allocated\": " + std::to_string(bytes) +
              ", \"Bytes\": " + std::to_string(bytes - previous) +
              ", \"Addr\": " + std::to_string(addr += 512) +
              ", \"Device Type\": 1, \"Device Id\": " + gpuPid() + "\n    }\n  },\n";
      if (options_.noise) {
        // Host allocations interleave with the device's in real traces; they must be ignored.
        out_ += "  {\n    " + common +
                ",\n    \"args\": {\n      \"Total Reserved\": 0, \"Total Allocated\": 4096, "
                "\"Bytes\": 4096, \"Addr\": 94262290657280, \"Device Type\": 0, "
                "\"Device Id\": -1\n    }\n  },\n";
      }
      previous = bytes;
    }
  }

  const FixtureRank& rank_;
  const KinetoFixtureOptions& options_;
  int device_;
  std::int64_t hostPid_;
  std::string out_;
  std::int64_t externalId_ = 0;
  std::int64_t correlation_ = 1000;
  std::int64_t gpuCorrelation_ = 1000;
};

}  // namespace

std::string kinetoFixtureJson(const FixtureRank& rank, const KinetoFixtureOptions& options) {
  return Writer(rank, options).run();
}

std::string gzipBytes(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

ps::Status writeKinetoFixture(const std::string& path, const FixtureRank& rank,
                              const KinetoFixtureOptions& options) {
  std::string json = kinetoFixtureJson(rank, options);
  if (options.gzip) json = gzipBytes(json);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(json.data(), static_cast<std::streamsize>(json.size()));
  out.close();
  if (!out) return ps::makeError(path + ": cannot write the Kineto fixture");
  return {};
}

ps::Status writeKinetoFixture(const std::string& path, const FixtureRank& rank, bool gzip) {
  KinetoFixtureOptions options;
  options.gzip = gzip;
  return writeKinetoFixture(path, rank, options);
}

}  // namespace ps::trace::import::testing
