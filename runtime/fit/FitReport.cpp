// The two outputs of a fit: the plan as a preset file and the text `fit` prints.

#include <cmath>
#include <sstream>

#include "runtime/cost/CostJson.h"
#include "runtime/fit/PlanFit.h"
#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::runtime::fit {
namespace {

std::string ns(double v) {
  return trace::formatDuration(std::llround(v));
}

std::string points(double measured, double predicted) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  out << (predicted - measured) * 100 << " points";
  return out.str();
}

std::string percent(double ratio) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  out << (ratio >= 0 ? "+" : "") << ratio * 100 << " %";
  return out.str();
}

std::string programLine(const FittedPlan& fit) {
  const RecordedProgram& p = fit.program;
  std::string line = "P " + std::to_string(p.ranks) + ", M " + std::to_string(p.microbatches) +
                     ", V " + std::to_string(p.chunks) + ", " + std::to_string(p.steps.size()) +
                     " complete steps (costs from " + std::to_string(p.fitSteps.size()) + ")";
  if (!fit.match.name.empty()) return "schedule: " + fit.match.name + " (" + line + ")";
  std::string out = "schedule: recorded order, no generator matches (" + line + ")";
  if (!fit.match.nearest.empty())
    out += "; nearest " + fit.match.nearest + ": " + std::to_string(fit.match.differing) + " of " +
           std::to_string(fit.match.actions) + " actions differ";
  return out;
}

}  // namespace

std::string fittedPresetJson(const FittedPlan& fit, const trace::RunTrace& run,
                             const std::string& source) {
  const std::string from = "run " + std::to_string(run.info.id) + " (" + run.info.name + ") of " +
                           source + ", source " + run.info.source;
  trace::JsonWriter j(true);
  j.beginObject();
  j.key("name").value("fit-run" + std::to_string(run.info.id));
  j.key("title").value("Plan fitted from " + from);
  j.key("reference").value("pipescope-cli fit " + source + " --run " + std::to_string(run.info.id));
  j.key("teaching")
      .value(
          "The program, stage costs (mean per stage and kind), link and memory of a recorded run, "
          "fitted so that simulating the plan replays it: change a knob to see what-ifs. " +
          programLine(fit) + ".");
  j.key("plan").beginObject();
  const PlanSpec& s = fit.spec;
  if (s.scheduleFile.empty()) {
    j.key("schedule").value(s.schedule);
    j.key("stages").value(*s.stages).key("microbatches").value(*s.microbatches);
    j.key("chunks").value(s.chunks);
  } else {
    j.key("schedule_file").value(s.scheduleFile);
  }
  j.key("layers").value(*s.layers);
  if (!s.boundaries.empty()) j.key("boundaries").value(s.boundaries);
  j.key("steps").value(s.steps);
  j.key("optimizer_sync").value(s.optimizerSync == OptimizerSync::Barrier ? "barrier" : "none");
  if (s.recompute) j.key("recompute").value(true);
  j.key("costs").raw(writeCostJson(*s.costs, "fitted from " + from));
  j.endObject();
  j.key("headline").beginObject();
  j.key("metric").value("step_time_ns");
  j.key("value").value(static_cast<double>(fit.quality.measuredStepNs));
  j.key("text").value(
      "the recorded run's mean step time, " + trace::formatDuration(fit.quality.measuredStepNs) +
      "; the fitted plan replays it in " + trace::formatDuration(fit.quality.predictedStepNs));
  j.endObject().endObject();
  return j.str() + "\n";
}

std::string fitReportText(const FittedPlan& fit) {
  std::ostringstream out;
  out << programLine(fit) << "\n";
  out << "costs per stage and kind (mean; median, p10-p90 over " << fit.program.fitSteps.size()
      << " steps):\n";
  for (const KindCost& k : fit.costs.kinds)
    out << "  stage " << k.stage << " " << trace::opKindName(k.kind) << ": " << ns(k.meanNs)
        << " (median " << ns(k.medianNs) << ", " << ns(k.p10Ns) << " - " << ns(k.p90Ns) << ", "
        << k.count << " ops)\n";
  const LinkFit& link = fit.costs.link;
  out << "link: " << link.how << "\n";
  out << "  bandwidth "
      << (link.bytesPerNs > 0 ? trace::formatBytes(std::llround(link.bytesPerNs * 1e9)) + "/s"
                              : std::string("unlimited"))
      << ", latency " << ns(fit.measuredLatencyNs);
  if (std::llround(fit.fittedLatencyNs) != std::llround(fit.measuredLatencyNs))
    out << "; fitted to the step time: " << ns(fit.fittedLatencyNs)
        << " (waits the ops do not show: hand-offs, shared cores, launch gaps)";
  out << "\n";
  for (std::size_t r = 0; r < fit.memory.ranks.size(); ++r) {
    const RankMemoryFit& m = fit.memory.ranks[r];
    if (m.samples == 0) continue;
    out << "memory rank " << r << ": " << trace::formatBytes(std::llround(m.fixedBytes))
        << " fixed + " << trace::formatBytes(std::llround(m.perMicrobatchBytes))
        << " per micro-batch in flight (" << m.samples << " samples)\n";
  }
  for (const auto& note : fit.notes)
    out << "note: " << note << "\n";
  const FitQuality& q = fit.quality;
  out << "replay of the fitted plan vs the run:\n";
  out << "                 predicted     measured      error\n";
  out << "  step time      " << trace::formatDuration(q.predictedStepNs) << "     "
      << trace::formatDuration(q.measuredStepNs) << "     " << percent(q.stepError()) << "\n";
  out << "  bubble         " << trace::formatPercent(q.predictedBubble) << "       "
      << trace::formatPercent(q.measuredBubble) << "       "
      << points(q.measuredBubble, q.predictedBubble) << "\n";
  for (const RankQuality& r : q.ranks)
    out << "  rank " << r.rank << " bubble  " << trace::formatPercent(r.predictedBubble)
        << "       " << trace::formatPercent(r.measuredBubble) << "       "
        << points(r.measuredBubble, r.predictedBubble) << "\n";
  if (!q.worst.empty()) out << "largest residuals (op end from its step's start):\n";
  for (const OpResidual& o : q.worst)
    out << "  rank " << o.rank << " " << o.stage << trace::opKindName(o.kind) << o.microbatch
        << " step " << o.step << ": predicted " << trace::formatDuration(o.predictedEndNs)
        << ", measured " << trace::formatDuration(o.measuredEndNs) << "\n";
  return out.str();
}

std::string fitReportJson(const FittedPlan& fit) {
  const FitQuality& q = fit.quality;
  trace::JsonWriter j(true);
  j.beginObject();
  j.key("schedule").value(fit.match.name.empty() ? std::string() : fit.match.name);
  j.key("schedule_file").value(fit.spec.scheduleFile);
  j.key("nearest").value(fit.match.nearest);
  j.key("ranks").value(fit.program.ranks).key("microbatches").value(fit.program.microbatches);
  j.key("chunks").value(fit.program.chunks);
  j.key("steps").value(static_cast<int>(fit.program.steps.size()));
  j.key("link").beginObject();
  j.key("bytes_per_ns").value(fit.costs.link.bytesPerNs);
  j.key("measured_latency_ns").value(fit.measuredLatencyNs);
  j.key("fitted_latency_ns").value(fit.fittedLatencyNs);
  j.endObject();
  j.key("costs").beginArray();
  for (const KindCost& k : fit.costs.kinds) {
    j.beginObject().key("stage").value(k.stage).key("kind").value(trace::opKindName(k.kind));
    j.key("mean_ns").value(k.meanNs).key("median_ns").value(k.medianNs);
    j.key("p10_ns").value(k.p10Ns).key("p90_ns").value(k.p90Ns);
    j.key("count").value(static_cast<std::int64_t>(k.count)).endObject();
  }
  j.endArray();
  j.key("measured_step_ns")
      .value(q.measuredStepNs)
      .key("predicted_step_ns")
      .value(q.predictedStepNs);
  j.key("step_error").value(q.stepError());
  j.key("measured_bubble").value(q.measuredBubble).key("predicted_bubble").value(q.predictedBubble);
  j.key("notes").beginArray();
  for (const auto& n : fit.notes)
    j.value(n);
  j.endArray().endObject();
  return j.str() + "\n";
}

}  // namespace ps::runtime::fit
