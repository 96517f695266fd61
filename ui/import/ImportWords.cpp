#include "ui/import/ImportWords.h"

#include <QRegularExpression>

#include <vector>

#include "ui/PlanKnobWidgets.h"

namespace ps::ui {

namespace {

struct AlignEntry {
  const char* mode;
  const char* label;
  const char* why;
};

// The Clock alignment box's entries, in its order.
constexpr AlignEntry kAlignModes[] = {
    {"auto", "Automatic", "send/receive pairs, else collectives, else wall clock"},
    {"wall", "Wall clock", "trust the files' UTC times"},
    {"collective", "Ends of shared collectives", ""},
    {"p2p", "Send/receive pairs", "least squares"},
};

QString quoted(const QString& label) {
  return QString("'%1'").arg(label);
}

QString alignChoiceWords(const QString& mode) {
  const QString label = alignModeLabel(mode);
  return label.isEmpty() ? mode : QString("%1 %2").arg(importlabels::kAlign, quoted(label));
}

struct Rewrite {
  QRegularExpression pattern;
  // The replacement of one match.
  QString (*words)(const QRegularExpressionMatch& m);
};

// Longest phrases first: a sentence built round a flag reads as one about the control.
const std::vector<Rewrite>& rewrites() {
  using M = QRegularExpressionMatch;
  static const std::vector<Rewrite> table = {
      {QRegularExpression(R"(import with threads as ranks \(--threads-as-ranks\) to make each )"
                          R"(thread a rank)"),
       [](const M&) {
         return QString("import again with %1 ticked to make each thread a rank")
             .arg(quoted(importlabels::kThreadsAsRanks));
       }},
      {QRegularExpression(R"(threads as ranks \(--threads-as-ranks\))"),
       [](const M&) { return quoted(importlabels::kThreadsAsRanks); }},
      {QRegularExpression(R"(--threads-as-ranks(?![\w-]))"),
       [](const M&) { return quoted(importlabels::kThreadsAsRanks); }},
      {QRegularExpression(R"(the flag is for profiles)"),
       [](const M&) { return QString("it is for profiles"); }},
      {QRegularExpression(R"(\bthreads as ranks:)"),
       [](const M&) { return quoted(importlabels::kThreadsAsRanks) + ":"; }},
      {QRegularExpression(R"(--align mode\b)"),
       [](const M&) { return QString(importlabels::kAlign); }},
      {QRegularExpression(
           R"(--align (auto|wall|collective|p2p)(?: or (auto|wall|collective|p2p))?)"),
       [](const M& m) {
         QString out = alignChoiceWords(m.captured(1));
         if (m.hasCaptured(2) && !m.captured(2).isEmpty())
           out += " or " + quoted(alignModeLabel(m.captured(2)));
         return out;
       }},
      {QRegularExpression(R"(--align(?![\w-]))"),
       [](const M&) { return QString(importlabels::kAlign); }},
      {QRegularExpression(R"(pass --rank FILE=N)"),
       [](const M&) {
         return QString("give each file's rank under %1").arg(importlabels::kRanks);
       }},
      {QRegularExpression(R"(pass --rank \S.*?=N\b)"),
       [](const M&) { return QString("give its rank under %1").arg(importlabels::kRanks); }},
      {QRegularExpression(R"(--rank (\S.*?)=(-?\d+):)"),
       [](const M& m) {
         return QString("%1 (%2 for %3):").arg(importlabels::kRanks, m.captured(2), m.captured(1));
       }},
      {QRegularExpression(R"(--rank is for profiles)"),
       [](const M&) { return QString("%1 are for profiles").arg(importlabels::kRanks); }},
      {QRegularExpression(R"(--rank(?![\w-]))"),
       [](const M&) { return QString(importlabels::kRanks); }},
      {QRegularExpression(R"(--rules(?![\w-]))"),
       [](const M&) { return QString(importlabels::kRules); }},
      {QRegularExpression(R"(--name(?![\w-]))"),
       [](const M&) { return QString(importlabels::kName); }},
  };
  return table;
}

QString rewrite(const QString& text, const Rewrite& r) {
  QString out;
  qsizetype at = 0;
  for (auto it = r.pattern.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    out += text.mid(at, m.capturedStart() - at) + r.words(m);
    at = m.capturedEnd();
  }
  return out + text.mid(at);
}

}  // namespace

QString alignModeLabel(const QString& mode) {
  for (const AlignEntry& e : kAlignModes)
    if (mode == QLatin1String(e.mode)) return QString::fromUtf8(e.label);
  return {};
}

QString alignModeChoice(const QString& mode) {
  for (const AlignEntry& e : kAlignModes)
    if (mode == QLatin1String(e.mode))
      return *e.why ? QString("%1 (%2)").arg(QString::fromUtf8(e.label), QString::fromUtf8(e.why))
                    : QString::fromUtf8(e.label);
  return {};
}

QString importWords(const QString& message) {
  if (!message.contains("--") && !message.contains("threads as ranks")) return message;
  QString out = message;
  for (const Rewrite& r : rewrites())
    out = rewrite(out, r);
  return inPanelWords(out.toStdString());  // a schedule's simulation flags: the Plan panel's
}

bool advisesThreadsAsRanks(const QString& summary) {
  return summary.contains("(--threads-as-ranks) to make each thread a rank");
}

}  // namespace ps::ui
