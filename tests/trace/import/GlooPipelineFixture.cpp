#include "tests/trace/import/GlooPipelineFixture.h"

#include "trace/import/ImportReaders.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>

namespace ps::trace::import::testing {
namespace {

enum class Act { Compute, Send, Recv, SendRecv, Opt };

// One step of a rank's program. Send / Recv: `forward` is the direction of the transfer (F:
// activations towards the next rank, B: gradients towards the previous one). SendRecv (Megatron's
// batched pair): sends `mb` in direction `forward` and receives `recvMb` in the other one.
struct Action {
  Act act = Act::Compute;
  bool forward = true;
  int mb = 0;
  int recvMb = 0;
  std::string label;
};

struct Range {
  std::string cat, name;
  std::int64_t start = 0, end = 0;  // true ns
};

// (step, forward, sending rank, micro-batch): one transfer.
using TransferKey = std::tuple<int, bool, int, int>;

std::string torchLabel(int stage, const char* kind, int mb) {
  return "PP:" + std::to_string(stage) + kind + std::to_string(mb);
}

// torch pipelining's 1F1B lowered to actions: RECV before and SEND after each compute.
std::vector<Action> torchProgram(int r, int p, int m) {
  std::vector<Action> out;
  auto fwd = [&](int mb) {
    if (r > 0) out.push_back({Act::Recv, true, mb, mb, torchLabel(r, "RECV_F", mb)});
    out.push_back({Act::Compute, true, mb, mb, torchLabel(r, "F", mb)});
    if (r < p - 1) out.push_back({Act::Send, true, mb, mb, torchLabel(r, "SEND_F", mb)});
  };
  auto bwd = [&](int mb) {
    if (r < p - 1) out.push_back({Act::Recv, false, mb, mb, torchLabel(r, "RECV_B", mb)});
    out.push_back({Act::Compute, false, mb, mb, torchLabel(r, "B", mb)});
    if (r > 0) out.push_back({Act::Send, false, mb, mb, torchLabel(r, "SEND_B", mb)});
  };
  const int warm = std::min(p - 1 - r, m);
  for (int i = 0; i < warm; ++i)
    fwd(i);
  for (int i = 0; i < m - warm; ++i) {
    fwd(warm + i);
    bwd(i);
  }
  for (int i = m - warm; i < m; ++i)
    bwd(i);
  out.push_back({Act::Opt, true, 0, 0, "Optimizer.step#SGD.step"});
  return out;
}

// Megatron-LM's forward_backward_pipelining_without_interleaving, with its timer names as labels
// and its batched send+receive pairs; no-op communication on the first / last stage is left out.
std::vector<Action> megatronProgram(int r, int p, int m) {
  std::vector<Action> out;
  const bool first = r == 0, last = r == p - 1;
  const int warm = std::min(p - 1 - r, m), remaining = m - warm;
  for (int i = 0; i < warm; ++i) {
    if (!first) out.push_back({Act::Recv, true, i, i, "forward-recv"});
    out.push_back({Act::Compute, true, i, i, "forward-compute"});
    if (!last) out.push_back({Act::Send, true, i, i, "forward-send"});
  }
  if (remaining > 0 && !first) out.push_back({Act::Recv, true, warm, warm, "forward-recv"});
  for (int i = 0; i < remaining; ++i) {
    out.push_back({Act::Compute, true, warm + i, warm + i, "forward-compute"});
    if (!last) out.push_back({Act::SendRecv, true, warm + i, i, "forward-send-backward-recv"});
    out.push_back({Act::Compute, false, i, i, "backward-compute"});
    if (first) continue;
    if (i == remaining - 1)
      out.push_back({Act::Send, false, i, i, "backward-send"});
    else
      out.push_back({Act::SendRecv, false, i, warm + i + 1, "backward-send-forward-recv"});
  }
  for (int i = remaining; i < m; ++i) {
    if (!last) out.push_back({Act::Recv, false, i, i, "backward-recv"});
    out.push_back({Act::Compute, false, i, i, "backward-compute"});
    if (!first) out.push_back({Act::Send, false, i, i, "backward-send"});
  }
  out.push_back({Act::Opt, true, 0, 0, "optimizer"});
  return out;
}

class Simulation {
 public:
  explicit Simulation(const GlooRunSpec& spec) : spec_(spec), ranks_(spec.ranks) {}

  Status run() {
    const int p = spec_.ranks;
    for (int r = 0; r < p; ++r) {
      Rank& rank = ranks_[r];
      rank.t = 1'000'000 + r * 11'000;
      for (int s = 0; s < spec_.steps; ++s)
        for (Action& a : spec_.labels == GlooLabels::TorchPipelining
                             ? torchProgram(r, p, spec_.microbatches)
                             : megatronProgram(r, p, spec_.microbatches))
          rank.program.push_back({s, std::move(a)});
    }
    for (bool progress = true; progress;) {
      progress = false;
      for (int r = 0; r < p; ++r)
        while (ranks_[r].next < ranks_[r].program.size() && advance(r))
          progress = true;
    }
    for (const Rank& rank : ranks_)
      if (rank.next < rank.program.size()) return makeError("gloo fixture: the program deadlocks");
    return {};
  }

  std::vector<Range> ranges(int r) const { return ranks_[r].ranges; }
  std::vector<GlooTransfer> transfers() const {
    std::vector<GlooTransfer> out;
    for (const auto& [key, t] : transfers_)
      out.push_back(t);
    return out;
  }

 private:
  struct Rank {
    std::vector<std::pair<int, Action>> program;  // (step, action)
    std::size_t next = 0;
    std::int64_t t = 0;
    std::map<int, std::pair<std::int64_t, std::int64_t>> steps;  // step -> true span
    std::vector<Range> ranges;
  };

  std::int64_t computeNs(bool forward, int r, int mb, int step) const {
    const std::int64_t jitter = ((r * 7 + mb * 13 + step * 5) % 9 - 4) * 20'000;
    const double scale =
        r < static_cast<int>(spec_.computeScale.size()) ? spec_.computeScale[r] : 1;
    const auto base = static_cast<std::int64_t>(
        static_cast<double>(forward ? spec_.fwdNs : spec_.bwdNs) * scale / 1000.0);
    return base * 1000 + jitter;  // whole microseconds, as legacy files write them
  }

  std::int64_t latencyNs(int mb, int step) const {
    return spec_.latencyNs + ((mb * 3 + step) % 5) * 20'000;
  }

  // Posts the send of `mb` in direction `forward` at `t`.
  void postSend(int r, int step, bool forward, int mb, std::int64_t t) {
    GlooTransfer& x = transfers_[{step, forward, r, mb}];
    x.src = r;
    x.dst = forward ? r + 1 : r - 1;
    x.forward = forward;
    x.step = step;
    x.microbatch = mb;
    x.sendStart = t;
  }

  void nestedSend(Rank& rank, std::int64_t s) {
    rank.ranges.push_back({"cpu_op", "c10d::send", s + 2'000, s + spec_.postNs - 2'000});
    rank.ranges.push_back({"user_annotation", "gloo:send", s + 4'000, s + spec_.postNs - 5'000});
  }
  void nestedRecv(Rank& rank, std::int64_t s, std::int64_t e) {
    rank.ranges.push_back({"cpu_op", "c10d::recv_", s + 2'000, e - 2'000});
    rank.ranges.push_back({"user_annotation", "gloo:recv", s + 4'000, e - 4'000});
  }

  // Runs rank r's next action when its inputs are there; false when it must wait.
  bool advance(int r) {
    Rank& rank = ranks_[r];
    const auto& [step, a] = rank.program[rank.next];
    const std::int64_t s = rank.t;
    std::int64_t e = s;
    const bool sends = a.act == Act::Send || a.act == Act::SendRecv;
    const bool receives = a.act == Act::Recv || a.act == Act::SendRecv;
    if (receives) {
      const bool recvForward = a.act == Act::Recv ? a.forward : !a.forward;
      const int recvMb = a.act == Act::Recv ? a.mb : a.recvMb;
      if (sends) postSend(r, step, a.forward, a.mb, s);  // posted before waiting
      auto it = transfers_.find({step, recvForward, recvForward ? r - 1 : r + 1, recvMb});
      if (it == transfers_.end()) return false;
      // A batched pair posts its send, then its receive, then waits.
      const std::int64_t posted = s + (sends ? 2 : 1) * spec_.postNs;
      e = std::max(posted, it->second.sendStart + latencyNs(recvMb, step));
      it->second.recvEnd = e;
      rank.ranges.push_back({"user_annotation", a.label, s, e});
      if (sends) nestedSend(rank, s);
      nestedRecv(rank, sends ? s + spec_.postNs : s, e);
    } else if (sends) {
      postSend(r, step, a.forward, a.mb, s);
      e = s + spec_.postNs;
      rank.ranges.push_back({"user_annotation", a.label, s, e});
      nestedSend(rank, s);
    } else {
      e = s + (a.act == Act::Opt ? spec_.optNs : computeNs(a.forward, r, a.mb, step));
      rank.ranges.push_back({"user_annotation", a.label, s, e});
      if (a.act == Act::Compute)
        rank.ranges.push_back(
            {"cpu_op", a.forward ? "aten::linear" : "aten::mm", s + 30'000, e - 30'000});
    }
    auto [span, fresh] = rank.steps.try_emplace(step, s, e);
    span->second.second = e;
    if (a.act == Act::Opt)
      rank.ranges.push_back({"user_annotation",
                             "ProfilerStep#" + std::to_string(spec_.firstStep + step),
                             span->second.first, e});
    rank.t = e + spec_.gapNs;
    ++rank.next;
    return true;
  }

  const GlooRunSpec& spec_;
  std::vector<Rank> ranks_;
  std::map<TransferKey, GlooTransfer> transfers_;
};

// 2022-03-15 in epoch µs: legacy files count from the epoch.
constexpr std::int64_t kEpochBaseUs = 1'647'300'000'000'000;

// Kineto's layout before baseTimeNanoseconds: an object with traceEvents and metadata events.
std::string legacyJson(int r, const std::vector<Range>& ranges, std::int64_t skewNs) {
  const std::string pid = std::to_string(2'400'000 + r * 17);
  auto us = [&](std::int64_t trueNs) {
    return std::to_string(kEpochBaseUs + (trueNs + skewNs) / 1000);
  };
  std::string out = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n  ],\n";
  out += "  \"traceEvents\": [\n";
  std::int64_t externalId = 0;
  for (const Range& x : ranges)
    out += "  {\n    \"ph\": \"X\", \"cat\": \"" + x.cat + "\", \"name\": \"" + x.name +
           "\", \"pid\": " + pid + ", \"tid\": " + pid + ",\n    \"ts\": " + us(x.start) +
           ", \"dur\": " + std::to_string((x.end - x.start) / 1000) +
           ",\n    \"args\": {\n      \"External id\": " + std::to_string(++externalId) +
           "\n    }\n  },\n";
  const std::string t0 = us(ranges.empty() ? 0 : ranges.front().start);
  out += "  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": " + t0 + ", \"pid\": " + pid +
         ", \"tid\": 0,\n    \"args\": {\"name\": \"python\"}\n  },\n";
  out += "  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + t0 + ", \"pid\": " + pid +
         ", \"tid\": " + pid + ",\n    \"args\": {\"name\": \"thread " + pid +
         " (python)\"}\n  }\n";
  out += "  ],\n  \"traceName\": \"rank" + std::to_string(r) + ".json\"\n}\n";
  return out;
}

// The autograd profiler's own export_chrome_trace: a bare array of ranges without "cat", pid
// "CPU functions", empty args; every range (aten and c10d ops too) reads as a label.
std::string autogradJson(const std::vector<Range>& ranges, std::int64_t skewNs) {
  std::string out = "[";
  for (const Range& x : ranges)
    out +=
        std::string(out.size() > 1 ? ", " : "") + "{\"name\": \"" + x.name +
        "\", \"ph\": \"X\", \"ts\": " + std::to_string(kEpochBaseUs + (x.start + skewNs) / 1000) +
        ", \"dur\": " + std::to_string((x.end - x.start) / 1000) +
        ", \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}";
  return out + "]";
}

}  // namespace

ps::Result<GlooRun> writeGlooPipeline(const std::string& dir, const GlooRunSpec& spec) {
  if (static_cast<int>(spec.skewNs.size()) < spec.ranks)
    return makeError("gloo fixture: one skew per rank needed");
  Simulation sim(spec);
  PS_TRY(sim.run());
  GlooRun out;
  out.transfers = sim.transfers();
  for (int r = 0; r < spec.ranks; ++r) {
    const std::string path = dir + "/rank" + std::to_string(r) + ".json";
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << (spec.autogradExport ? autogradJson(sim.ranges(r), spec.skewNs[r])
                                 : legacyJson(r, sim.ranges(r), spec.skewNs[r]));
    file.close();
    if (!file) return makeError(path + ": cannot write the gloo fixture");
    out.files.push_back(path);
    out.trueOffsetNs.push_back(spec.skewNs[0] - spec.skewNs[r]);
  }
  return out;
}

ps::Result<ImportedGloo> importGlooPipeline(const std::string& dir, const GlooRunSpec& spec) {
  auto truth = writeGlooPipeline(dir, spec);
  if (!truth) return std::move(truth).takeError();
  auto raws = readTraceFiles("kineto", truth->files);
  if (!raws) return std::move(raws).takeError();
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(*raws), options);
  if (!run) return std::move(run).takeError();
  return ImportedGloo{std::move(*truth), std::move(*run)};
}

}  // namespace ps::trace::import::testing
