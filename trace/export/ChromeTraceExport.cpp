#include "trace/export/ChromeTraceExport.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <queue>
#include <tuple>
#include <vector>

#include "trace/JsonWriter.h"
#include "trace/analysis/Saturating.h"

namespace ps::trace {
namespace {

// Thread ids: lane·1000 + overflow row, so rows of one lane sort together.
constexpr int kRowsPerLane = 1000;

std::string micros(std::int64_t ns) {
  // Integer arithmetic keeps nanosecond precision for any realistic time.
  char buf[48];
  const std::int64_t whole = ns / 1000;
  const std::int64_t frac = std::llabs(ns % 1000);
  if (ns < 0 && whole == 0)
    std::snprintf(buf, sizeof buf, "-0.%03lld", static_cast<long long>(frac));
  else
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(whole),
                  static_cast<long long>(frac));
  return buf;
}

std::string opLabel(const RunTrace& run, const OpColumns& lane, std::size_t i) {
  if (const std::string* name = run.nameOf(lane.name[i])) return *name;
  std::string label;
  if (lane.stage[i] >= 0) label += std::to_string(lane.stage[i]);
  label += opKindName(lane.kind[i]);
  if (lane.microbatch[i] >= 0) label += std::to_string(lane.microbatch[i]);
  return label;
}

// Greedy interval packing: each op goes to the lowest-numbered row whose last op ended by its
// start. Rows free by then move from a heap ordered by end time to a heap of free row numbers,
// so it is O(n log n) however many ops overlap (scanning the rows per op was quadratic).
std::vector<int> packRows(const OpColumns& lane, int& rowCount) {
  std::vector<int> rows(lane.size());
  using Busy = std::pair<std::int64_t, std::size_t>;  // (end, row)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> free;
  std::size_t used = 0;
  for (std::size_t i = 0; i < lane.size(); ++i) {
    while (!busy.empty() && busy.top().first <= lane.start[i]) {
      free.push(busy.top().second);
      busy.pop();
    }
    std::size_t r = used;
    if (!free.empty()) {
      r = free.top();
      free.pop();
    } else {
      ++used;
    }
    busy.push({lane.end[i], r});
    rows[i] = static_cast<int>(std::min<std::size_t>(r, kRowsPerLane - 1));
  }
  rowCount = static_cast<int>(std::clamp<std::size_t>(used, 1, kRowsPerLane));
  return rows;
}

class EventStream {
 public:
  explicit EventStream(std::ostream& out) : out_(out) { buf_ = "{\"traceEvents\":[\n"; }
  void event(const std::string& json) {
    if (!first_) buf_ += ",\n";
    first_ = false;
    buf_ += json;
    if (buf_.size() > (1 << 20)) flush();
  }
  void finish() {
    buf_ += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"PipeScope\"}}\n";
    flush();
  }

 private:
  void flush() {
    out_ << buf_;
    buf_.clear();
  }
  std::ostream& out_;
  std::string buf_;
  bool first_ = true;
};

void metadata(EventStream& s, const char* what, int pid, int tid, const std::string& name,
              int sortIndex) {
  JsonWriter j;
  j.beginObject().key("ph").value("M").key("name").value(what).key("pid").value(pid);
  if (tid >= 0) j.key("tid").value(tid);
  j.key("args").beginObject().key("name").value(name).endObject().endObject();
  s.event(j.str());
  JsonWriter order;
  order.beginObject()
      .key("ph")
      .value("M")
      .key("name")
      .value(tid >= 0 ? "thread_sort_index" : "process_sort_index")
      .key("pid")
      .value(pid);
  if (tid >= 0) order.key("tid").value(tid);
  order.key("args").beginObject().key("sort_index").value(sortIndex).endObject().endObject();
  s.event(order.str());
}

struct OpRef {
  int rank;
  int lane;
  std::size_t index;
};

// One op as a complete ("X") event on its lane's row.
std::string opEvent(const RunTrace& run, const OpColumns& lane, std::size_t i, int pid, int tid) {
  JsonWriter j;
  j.beginObject();
  j.key("ph").value("X");
  j.key("name").value(opLabel(run, lane, i));
  j.key("cat").value(opKindName(lane.kind[i]));
  j.key("pid").value(pid);
  j.key("tid").value(tid);
  j.key("ts").raw(micros(lane.start[i]));
  j.key("dur").raw(micros(satSub(lane.end[i], lane.start[i])));
  j.key("args").beginObject();
  j.key("kind").value(opKindName(lane.kind[i]));
  if (lane.stage[i] >= 0) j.key("stage").value(lane.stage[i]);
  if (lane.microbatch[i] >= 0) j.key("microbatch").value(lane.microbatch[i]);
  j.key("step").value(lane.step[i]);
  if (lane.bytes[i] >= 0) j.key("bytes").value(lane.bytes[i]);
  if (lane.peer[i] >= 0) j.key("peer").value(lane.peer[i]);
  j.endObject().endObject();
  return j.str();
}

// One end of a flow arrow: "s" at the send, "f" (binding to the enclosing slice) at the receive.
std::string flowEvent(const char* phase, std::int64_t id, int pid, int tid, std::int64_t ts) {
  JsonWriter j;
  j.beginObject().key("ph").value(phase);
  if (phase[0] == 'f') j.key("bp").value("e");
  j.key("id").value(id).key("name").value("transfer").key("cat").value("p2p");
  j.key("pid").value(pid).key("tid").value(tid).key("ts").raw(micros(ts)).endObject();
  return j.str();
}

// The run as Chrome trace events: a process per rank, a thread per lane row, ops, memory
// counters, then flow arrows from each send to the receive it feeds.
class ChromeWriter {
 public:
  ChromeWriter(const RunTrace& run, std::ostream& out)
      : run_(run), s_(out), rowsOf_(run.ranks.size()) {}

  ChromeExportStats write() {
    for (std::size_t r = 0; r < run_.ranks.size(); ++r)
      writeRank(static_cast<int>(r));
    writeFlows();
    s_.finish();
    return stats_;
  }

 private:
  void writeRank(int pid) {
    const RankTrace& rank = run_.ranks[static_cast<std::size_t>(pid)];
    std::string pname = "rank " + std::to_string(pid);
    if (rank.info.device) pname += " (" + *rank.info.device + ")";
    metadata(s_, "process_name", pid, -1, pname, pid);
    for (int l = 0; l < kLaneCount; ++l)
      if (!rank.lanes[l].empty()) writeLane(pid, l);
    for (std::size_t m = 0; m < rank.memory.size(); ++m) {
      JsonWriter j;
      j.beginObject().key("ph").value("C").key("name").value("memory in use").key("pid").value(pid);
      j.key("ts").raw(micros(rank.memory.t[m]));
      j.key("args").beginObject().key("bytes").value(rank.memory.bytes[m]).endObject().endObject();
      s_.event(j.str());
    }
  }

  void writeLane(int pid, int l) {
    const OpColumns& lane = run_.ranks[static_cast<std::size_t>(pid)].lanes[l];
    int rowCount = 1;
    auto& rows = rowsOf_[static_cast<std::size_t>(pid)][l];
    rows = packRows(lane, rowCount);
    for (int row = 0; row < rowCount; ++row) {
      std::string tname(laneName(static_cast<Lane>(l)));
      if (row > 0) tname += " #" + std::to_string(row + 1);
      metadata(s_, "thread_name", pid, l * kRowsPerLane + row, tname, l * kRowsPerLane + row);
      ++stats_.threads;
    }
    for (std::size_t i = 0; i < lane.size(); ++i) {
      s_.event(opEvent(run_, lane, i, pid, l * kRowsPerLane + rows[i]));
      ++stats_.events;
      const OpKind k = lane.kind[i];
      if (lane.peer[i] < 0 || !(isSend(k) || isRecv(k))) continue;
      const bool forward = k == OpKind::SEND_F || k == OpKind::RECV_F;
      if (isSend(k))
        sends_[{pid, lane.peer[i], forward}].push_back({pid, l, i});
      else
        recvs_[{lane.peer[i], pid, forward}].push_back({pid, l, i});
    }
  }

  // The k-th send from a to b in one direction feeds the k-th receive on b from a.
  void writeFlows() {
    std::int64_t flowId = 0;
    for (const auto& [key, sendList] : sends_) {
      auto it = recvs_.find(key);
      if (it == recvs_.end()) continue;
      const std::size_t n = std::min(sendList.size(), it->second.size());
      for (std::size_t k = 0; k < n; ++k) {
        const OpRef& a = sendList[k];
        const OpRef& b = it->second[k];
        const OpColumns& sl = run_.ranks[a.rank].lanes[a.lane];
        const OpColumns& rl = run_.ranks[b.rank].lanes[b.lane];
        // Bind points inside both slices: the send's start, the receive's end (or start when
        // the receive takes no time) — "f" with bp "e" binds to the enclosing slice.
        const std::int64_t recvTs =
            rl.end[b.index] > rl.start[b.index] ? rl.end[b.index] - 1 : rl.start[b.index];
        ++flowId;
        s_.event(flowEvent("s", flowId, a.rank, tidOf(a), sl.start[a.index]));
        s_.event(flowEvent("f", flowId, b.rank, tidOf(b), recvTs));
        ++stats_.flows;
      }
    }
  }

  int tidOf(const OpRef& op) const {
    return op.lane * kRowsPerLane + rowsOf_[op.rank][op.lane][op.index];
  }

  const RunTrace& run_;
  EventStream s_;
  ChromeExportStats stats_;
  // Sends and receives per (src, dst, direction), for the flow arrows.
  std::map<std::tuple<int, int, bool>, std::vector<OpRef>> sends_, recvs_;
  std::vector<std::array<std::vector<int>, kLaneCount>> rowsOf_;
};

}  // namespace

ChromeExportStats writeChromeTrace(const RunTrace& run, std::ostream& out) {
  return ChromeWriter(run, out).write();
}

Result<ChromeExportStats> writeChromeTraceFile(const RunTrace& run, const std::string& path) {
  const std::string tmp = path + ".tmp";
  ChromeExportStats stats;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{path + ": cannot write the Chrome trace (cannot create " + tmp + ")"};
    stats = writeChromeTrace(run, out);
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return Error{path + ": write failed (disk full?)"};
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Error{path + ": cannot write the Chrome trace: " + ec.message()};
  }
  return stats;
}

}  // namespace ps::trace
