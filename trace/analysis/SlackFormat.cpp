#include "trace/analysis/SlackFormat.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::trace {

std::string slackText(const RunTrace& run, const OpSlackTable& slack) {
  // Per (stage, kind): every op's slack, sorted.
  std::map<std::pair<int, OpKind>, std::vector<std::int64_t>> of;
  for (std::size_t r = 0; r < run.ranks.size() && r < slack.compute.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c.stage[i] >= 0 && slack.compute[r][i] != kNoSlack)
        of[{c.stage[i], c.kind[i]}].push_back(slack.compute[r][i]);
  }
  std::string out =
      "\nslack: how much longer an op could take before its step ends later (0: on the critical "
      "path)\nstage  kind  ops   critical  least        median       most\n";
  for (auto& [key, list] : of) {
    std::sort(list.begin(), list.end());
    const auto critical = std::count(list.begin(), list.end(), 0);
    char line[64];
    std::snprintf(line, sizeof line, "%5d  %-4s  %-5zu %-8td  ", key.first,
                  std::string(opKindName(key.second)).c_str(), list.size(), critical);
    // The durations padded by columns: "µs" is two bytes in one column (%-12s counted three).
    out += line + padRight(formatDuration(list.front()), 12) + " " +
           padRight(formatDuration(list[list.size() / 2]), 12) + " " + formatDuration(list.back()) +
           "\n";
  }
  return out;
}

std::string slackJson(const RunTrace& run, const OpSlackTable& slack) {
  JsonWriter w;
  w.beginObject().key("by_stage_kind").beginArray();
  for (const auto& [key, ns] : slack.leastByStageKind)
    w.beginObject()
        .key("stage")
        .value(key.first)
        .key("kind")
        .value(opKindName(key.second))
        .key("least_slack_ns")
        .value(ns)
        .endObject();
  w.endArray().key("ops").beginArray();
  for (std::size_t r = 0; r < run.ranks.size() && r < slack.compute.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (slack.compute[r][i] == kNoSlack) continue;
      w.beginObject()
          .key("rank")
          .value(static_cast<int>(r))
          .key("kind")
          .value(opKindName(c.kind[i]));
      w.key("stage");
      if (c.stage[i] >= 0)
        w.value(c.stage[i]);
      else
        w.null();
      w.key("microbatch");
      if (c.microbatch[i] >= 0)
        w.value(c.microbatch[i]);
      else
        w.null();
      w.key("step")
          .value(c.step[i])
          .key("start_ns")
          .value(c.start[i])
          .key("end_ns")
          .value(c.end[i]);
      w.key("slack_ns").value(slack.compute[r][i]).endObject();
    }
  }
  w.endArray().endObject();
  return w.str();
}

}  // namespace ps::trace
