// pipescope-cli presets [NAME]: the presets of resources/presets (DESIGN §8), one line each; with a
// name, the whole preset: title, reference, teaching paragraph, formula, plan and headline.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/run/PresetHeadline.h"
#include "runtime/run/Presets.h"

namespace ps::cli {

namespace {

std::string planLine(const runtime::PlanSpec& s) {
  std::string out = "--schedule " + s.schedule;
  if (s.stages) out += " --stages " + std::to_string(*s.stages);
  if (s.microbatches) out += " --microbatches " + std::to_string(*s.microbatches);
  if (s.chunks != 1) out += " --chunks " + std::to_string(s.chunks);
  if (s.layers) out += " --layers " + std::to_string(*s.layers);
  if (s.steps != 1) out += " --steps " + std::to_string(s.steps);
  if (s.optimizerSync != runtime::OptimizerSync::Barrier)
    out += " --optimizer-sync " + runtime::optimizerSyncName(s.optimizerSync);
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  out += " --fwd-us " + num(s.uniform.fwdUs) + " --bwd-us " + num(s.uniform.bwdUs) +
         " --wgrad-us " + num(s.uniform.wgradUs);
  if (s.uniform.actMb > 0) out += " --act-mb " + num(s.uniform.actMb);
  if (s.uniform.linkGbps) out += " --link-gbps " + num(*s.uniform.linkGbps);
  if (s.splitBackward) out += " --split-backward";
  if (s.forwardOnly) out += " --forward-only";
  if (s.balanceActivations) out += " --balance-activations";
  if (!s.stageGraph.empty()) out += " --stage-graph " + s.stageGraph;
  if (s.dataParallel > 1) out += " --dp " + std::to_string(s.dataParallel);
  if (s.a2aMb > 0) out += " --a2a-mb " + num(s.a2aMb) + (s.a2a.empty() ? "" : " --a2a " + s.a2a);
  if (s.fetchMb > 0)
    out += " --fetch-mb " + num(s.fetchMb) + (s.fetch.empty() ? "" : " --fetch " + s.fetch) +
           " --fetch-ahead " + std::to_string(s.fetchAhead);
  if (!s.weightVersions.empty()) out += " --weight-versions " + s.weightVersions;
  if (s.frozenUs > 0)
    out += " --frozen-us " + num(s.frozenUs) + (s.fill.empty() ? "" : " --fill " + s.fill);
  if (!s.tokenSlices.empty() || !s.seqLengths.empty())
    out += " --seq-tokens " + std::to_string(s.seqTokens) + " --attention-share " +
           num(s.attentionShare);
  if (!s.tokenSlices.empty()) out += " --token-slices " + s.tokenSlices;
  if (!s.seqLengths.empty())
    out += " --seq-lengths " + s.seqLengths + " --microbatching " +
           (s.microbatching.empty() ? std::string("dp") : s.microbatching) +
           " --microbatch-tokens " + std::to_string(s.microbatchTokens);
  if (s.microbatchOverhead > 0) out += " --microbatch-overhead " + num(s.microbatchOverhead);
  for (const auto& [flag, values] : {std::pair{" --rank-speed ", &s.rankSpeed},
                                     std::pair{" --rank-memory-gb ", &s.rankMemoryGb}}) {
    if (values->empty()) continue;
    out += flag;
    for (std::size_t i = 0; i < values->size(); ++i)
      out += (i ? "," : "") + num((*values)[i]);
  }
  return out;
}

// Word-wraps a paragraph at `width` columns.
std::string wrap(const std::string& text, std::size_t width = 96) {
  std::string out, lineText;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!lineText.empty() && lineText.size() + 1 + word.size() > width) {
      out += lineText + "\n";
      lineText.clear();
    }
    lineText += (lineText.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + lineText;
}

}  // namespace

Action addPresetsCommand(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "presets", "List the presets (classic figures and papers' systems); with NAME, show one");
  cmd->add_option("NAME", *name, "A preset to show in full");
  auto headlines = std::make_shared<bool>(false);
  cmd->add_flag("--headlines", *headlines,
                "Simulate every papers' system and its NAME-baseline twin and print their "
                "headline metrics as a Markdown table (the README's)");
  return [name, headlines]() {
    const auto& list = runtime::builtinPresets();
    for (const auto& e : list.errors)
      std::cerr << "pipescope-cli: warning: " << e << '\n';
    if (*headlines) {
      if (!name->empty()) return fail("presets --headlines takes no NAME (got " + *name + ")");
      auto rows = runtime::presetHeadlines();
      if (!rows) return fail(rows.error());
      std::cout << runtime::headlineTableMarkdown(*rows);
      return kExitOk;
    }
    if (name->empty()) {
      for (const auto& p : list.presets)
        std::printf("%-16s %s\n", p.name.c_str(), p.title.c_str());
      return kExitOk;
    }
    auto p = runtime::findPreset(*name);
    if (!p) return fail(p.error());
    std::cout << p->name << ": " << p->title << "\n"
              << p->reference << "\n\n"
              << wrap(p->teaching) << "\n\n";
    if (!p->formula.empty()) std::cout << "formula   " << p->formula << "\n";
    std::cout << "headline  " << p->headline.text << "\n"
              << "plan      " << planLine(p->spec) << "\n";
    return kExitOk;
  };
}

}  // namespace ps::cli
