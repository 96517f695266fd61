#include "trace/analysis/OrderFormat.h"

#include "trace/Units.h"

namespace ps::trace {

std::string orderFixesText(const RunExplanation& why) {
  if (why.orderFixes.empty()) return {};
  std::string out = "\norder waits: a rank waited while another of its ops was ready\n";
  for (const RunExplanation::OrderFix& f : why.orderFixes) {
    const OrderMove& m = f.move;
    out += "  rank " + std::to_string(m.rank) + "  order " + formatDuration(m.orderNs) + "  move " +
           f.moveLabel + " before " + f.beforeLabel + " (step " + std::to_string(m.step) + "): ";
    out += m.gainNs > 0 ? "-" + formatDuration(m.gainNs) + " a step"
                        : "gains nothing (" +
                              (m.gainNs < 0 ? "+" + formatDuration(-m.gainNs)
                                            : std::string("the same step")) +
                              ")";
    out += f.resimulated ? "  (re-simulated)\n" : "  (re-timed from the trace)\n";
  }
  return out;
}

void writeOrderFixes(JsonWriter& w, const RunExplanation& why) {
  w.key("order_moves").beginArray();
  for (const RunExplanation::OrderFix& f : why.orderFixes) {
    w.beginObject();
    w.key("rank").value(f.move.rank);
    w.key("step").value(f.move.step);
    w.key("move").value(f.moveLabel);
    w.key("before").value(f.beforeLabel);
    w.key("order_ns").value(f.move.orderNs);
    w.key("gain_ns").value(f.move.gainNs);
    w.key("gain_from").value(f.resimulated ? "simulation" : "retiming");
    w.endObject();
  }
  w.endArray();
}

}  // namespace ps::trace
