#include "trace/analysis/StepsFormat.h"

#include <cstdio>
#include <vector>

#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::trace {
namespace {

std::string stepsFmt(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Pads to `width` columns, counting characters, not bytes ("µs" is two bytes, one column).
std::string padTo(std::string s, std::size_t width) {
  std::size_t columns = 0;
  for (unsigned char ch : s)
    columns += (ch & 0xC0) != 0x80 ? 1 : 0;
  if (columns < width) s.append(width - columns, ' ');
  return s + " ";
}

// The causes any step has time in: a column each (the rest are zero in every row).
std::vector<IdleCause> causesShown(const StepTable& t) {
  std::vector<IdleCause> out;
  for (int c = 0; c < kIdleCauseCount; ++c)
    if (t.causeShare[static_cast<std::size_t>(c)].max > 0) out.push_back(static_cast<IdleCause>(c));
  return out;
}

std::string rankList(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks)
    out += (out.empty() ? "" : ",") + std::to_string(r);
  return out.empty() ? "-" : out;
}

std::int64_t meanOf(std::int64_t sum, int n) {
  return n > 0 ? sum / n : 0;
}

std::string spreadRow(const std::string& label, const Spread& s, bool duration) {
  const auto cell = [&](double v) {
    return duration ? formatDuration(static_cast<std::int64_t>(v)) : formatPercent(v);
  };
  return "  " + padTo(label, 12) + padTo(cell(s.median), 12) + padTo(cell(s.p90), 12) +
         cell(s.max) + "\n";
}

void writeSpread(JsonWriter& w, const Spread& s) {
  w.beginObject();
  w.key("median").value(s.median);
  w.key("p90").value(s.p90);
  w.key("max").value(s.max);
  w.endObject();
}

std::string shareKey(IdleCause c) {
  std::string key(idleCauseJsonKey(c));  // "warmup_ns"
  return key.substr(0, key.size() - 3) + "_share";
}

}  // namespace

std::string stepsText(const StepTable& t, const StragglerTable& st) {
  if (t.rows.empty()) return "\nsteps: none (no complete step with pipeline compute ops)\n";
  std::string out = stepsFmt(
      "\nsteps %zu   idle causes in %% of the step (idle ns over span x ranks): they add up to the "
      "bubble\n",
      t.rows.size());
  out += "  " + padTo("", 12) + padTo("median", 12) + padTo("p90", 12) + "max\n";
  out += spreadRow("step time", t.spanNs, true);
  out += spreadRow("bubble", t.bubble, false);
  const std::vector<IdleCause> shown = causesShown(t);
  for (IdleCause c : shown)
    out +=
        spreadRow("  " + std::string(idleCauseLabel(c)), t.causeShare[static_cast<int>(c)], false);

  out += "\n" + padTo("step", 6) + padTo("time", 12) + padTo("bubble", 9);
  for (IdleCause c : shown)
    out += padTo(std::string(idleCauseLabel(c)), 10);
  out += padTo("last (by)", 20) + "culprits\n";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const StepRow& row = t.rows[i];
    out += padTo(std::to_string(row.step), 6) + padTo(formatDuration(row.spanNs), 12) +
           padTo(formatPercent(row.bubbleRatio), 9);
    for (IdleCause c : shown)
      out += padTo(formatPercent(row.share(c)), 10);
    const StepStragglers* s =
        i < st.steps.size() && st.steps[i].step == row.step ? &st.steps[i] : nullptr;
    const std::string last = s && s->lastRank >= 0 ? std::to_string(s->lastRank) + " (+" +
                                                         formatDuration(s->lastByNs) + ")"
                                                   : "-";
    out += padTo(last, 20) + (s ? rankList(s->culprits()) : "-") + "\n";
  }

  const int n = static_cast<int>(st.steps.size());
  out += stepsFmt(
      "\nstragglers over %d steps: culprit = its ops ran >= %.2fx slower than its peers' in the "
      "step\n(median of op time over expected: the smaller of its stage's median and the run's "
      "median per layer, per kind);\nvictim = idle waiting on a chain of ops through a "
      "culprit\n",
      n, 1.0 + st.margin);
  out += padTo("rank", 5) + padTo("last", 5) + padTo("by (mean)", 12) + padTo("culprit", 15) +
         padTo("slower", 7) + padTo("victim", 15) + padTo("waited (mean)", 14) +
         "last as culprit/victim\n";
  for (const StragglerRow& r : st.ranks) {
    out += padTo(std::to_string(r.rank), 5) + padTo(std::to_string(r.finishedLast), 5) +
           padTo(r.finishedLast ? formatDuration(meanOf(r.lastBySumNs, r.finishedLast)) : "-", 12) +
           padTo(stepsFmt("%d (%.0f %%)", r.culpritSteps, 100 * r.culpritShare(n)), 15) +
           padTo(r.culpritSteps ? stepsFmt("%.2fx", r.slownessSum / r.culpritSteps) : "-", 7) +
           padTo(stepsFmt("%d (%.0f %%)", r.victimSteps, 100 * r.victimShare(n)), 15) +
           padTo(r.victimSteps ? formatDuration(meanOf(r.waitedSumNs, r.victimSteps)) : "-", 14) +
           stepsFmt("%d/%d", r.lastAsCulprit, r.lastAsVictim) +
           (r.flagged ? "   <- straggler" : "") + "\n";
  }
  return out;
}

std::string stepsJson(const StepTable& t, const StragglerTable& st) {
  JsonWriter w(true);
  w.beginObject();
  w.key("culprit_margin").value(st.margin);
  w.key("flag_share").value(kFlagShare);
  w.key("summary").beginObject();
  w.key("step_time_ns");
  writeSpread(w, t.spanNs);
  w.key("bubble_ratio");
  writeSpread(w, t.bubble);
  for (int c = 0; c < kIdleCauseCount; ++c) {
    w.key(shareKey(static_cast<IdleCause>(c)));
    writeSpread(w, t.causeShare[static_cast<std::size_t>(c)]);
  }
  w.endObject();
  w.key("steps").beginArray();
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const StepRow& row = t.rows[i];
    const StepStragglers* s =
        i < st.steps.size() && st.steps[i].step == row.step ? &st.steps[i] : nullptr;
    w.beginObject();
    w.key("step").value(row.step);
    w.key("span_ns").value(row.spanNs);
    w.key("bubble_ratio").value(row.bubbleRatio);
    w.key("idle").beginObject();
    for (int c = 0; c < kIdleCauseCount; ++c)
      w.key(std::string(idleCauseJsonKey(static_cast<IdleCause>(c)))).value(row.idle.ns[c]);
    w.endObject();
    w.key("last_rank")
        .value(s && s->lastRank >= 0 ? std::optional<int>(s->lastRank) : std::nullopt);
    w.key("last_by_ns").value(s ? s->lastByNs : 0);
    w.key("culprits").beginArray();
    if (s)
      for (const RankStepVerdict& v : s->ranks)
        if (v.culprit) w.value(v.rank);
    w.endArray();
    w.key("victims").beginArray();
    if (s)
      for (const RankStepVerdict& v : s->ranks)
        if (v.victim) w.value(v.rank);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  const int n = static_cast<int>(st.steps.size());
  w.key("stragglers").beginArray();
  for (const StragglerRow& r : st.ranks) {
    w.beginObject();
    w.key("rank").value(r.rank);
    w.key("steps").value(r.steps);
    w.key("finished_last").value(r.finishedLast);
    w.key("last_by_mean_ns").value(meanOf(r.lastBySumNs, r.finishedLast));
    w.key("last_as_culprit").value(r.lastAsCulprit);
    w.key("last_as_victim").value(r.lastAsVictim);
    w.key("culprit_steps").value(r.culpritSteps);
    w.key("culprit_share").value(r.culpritShare(n));
    w.key("culprit_slowness_mean")
        .value(r.culpritSteps ? std::optional<double>(r.slownessSum / r.culpritSteps)
                              : std::nullopt);
    w.key("culprit_excess_mean_ns").value(meanOf(r.excessSumNs, r.culpritSteps));
    w.key("victim_steps").value(r.victimSteps);
    w.key("victim_share").value(r.victimShare(n));
    w.key("victim_wait_mean_ns").value(meanOf(r.waitedSumNs, r.victimSteps));
    w.key("flagged").value(r.flagged);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

std::string flaggedStragglersLine(const StragglerTable& st) {
  std::string out;
  const int n = static_cast<int>(st.steps.size());
  for (const StragglerRow& r : st.ranks) {
    if (!r.flagged) continue;
    out += stepsFmt(
        "%srank %d was the culprit in %d of %d steps (its ops %.2fx slower than its peers')",
        out.empty() ? "stragglers: " : "; ", r.rank, r.culpritSteps, n,
        r.culpritSteps ? r.slownessSum / r.culpritSteps : 0.0);
  }
  return out.empty() ? out : out + "; see report --steps\n";
}

std::string withJsonMember(const std::string& object, const std::string& key,
                           const std::string& value) {
  const std::size_t close = object.find_last_of('}');
  if (close == std::string::npos) return object;
  std::string head = object.substr(0, close);
  while (!head.empty() && (head.back() == '\n' || head.back() == ' '))
    head.pop_back();
  std::string indented;
  for (char ch : value) {
    indented += ch;
    if (ch == '\n') indented += "  ";  // JSON strings hold no raw line breaks: only layout's
  }
  std::string quotedKey;
  JsonWriter::appendEscaped(quotedKey, key);
  const bool empty = !head.empty() && head.back() == '{';
  return head + (empty ? "" : ",") + "\n  " + quotedKey + ": " + indented + "\n" +
         object.substr(close);
}

}  // namespace ps::trace
