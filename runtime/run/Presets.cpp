#include "runtime/run/Presets.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/JsonFields.h"
#include "runtime/run/PlanKnobs.h"
#include "trace/FileText.h"

namespace ps::runtime {
namespace {

using json::Fields;

// "a, b or c".
std::string wordList(std::span<const std::string_view> words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i)
    text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + std::string(words[i]);
  return text;
}

std::string limitText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Knobs a preset may not set: a cost file would be read relative to wherever the app runs (a
// preset embeds its "costs" instead).
bool presetKnob(const PlanKnob& knob) {
  return knob.key != "costs_file";
}

// One knob of a preset's plan into its field, in the preset's own (hand-written) forms: ranges
// and words as the CLI checks them.
Status readPresetKnob(const Fields& f, const PlanKnob& knob, PlanSpec& spec) {
  const auto inRange = [&](double v) -> Status {
    if (knob.min < knob.max && v > knob.max)
      return f.error(knob.key, "expected at most " + limitText(knob.max));
    return {};
  };
  return std::visit(
      [&](auto get) -> Status {
        using Get = decltype(get);
        if constexpr (std::is_same_v<Get, std::monostate>) {
          return {};
        } else {
          auto& into = get(spec);
          using T = std::decay_t<decltype(into)>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::optional<int>>) {
            PS_ASSIGN(v, f.integer(knob.key, knob.min > 0 ? 1 : 0));
            if (!v) return {};
            PS_TRY(inRange(static_cast<double>(*v)));
            into = static_cast<int>(*v);
          } else if constexpr (std::is_same_v<T, double> ||
                               std::is_same_v<T, std::optional<double>>) {
            PS_ASSIGN(v, f.number(knob.key, knob.positive));
            if (!v) return {};
            PS_TRY(inRange(*v));
            into = *v;
          } else if constexpr (std::is_same_v<T, bool>) {
            PS_ASSIGN(v, f.boolean(knob.key));
            if (v) into = *v;
          } else if constexpr (std::is_same_v<T, std::string>) {
            PS_ASSIGN(v, f.text(knob.key));
            if (!v) return {};
            if (!knob.choices.empty() &&
                std::find(knob.choices.begin(), knob.choices.end(), *v) == knob.choices.end())
              return f.error(knob.key, "expected " + wordList(knob.choices));
            into = *v;
          } else {  // a list of numbers
            PS_ASSIGN(list, f.list(knob.key));
            if (!list) return {};
            into.clear();
            for (simdjson::dom::element item : *list) {
              double v = 0;
              if (item.get_double().get(v))
                return f.error(knob.key, "expected an array of numbers");
              into.push_back(v);
            }
          }
          return {};
        }
      },
      knob.field);
}

Status readPlan(const Fields& f, PlanSpec& spec) {
  std::vector<std::string_view> keys;
  for (const PlanKnob& knob : planKnobs())
    if (presetKnob(knob)) keys.push_back(knob.key);
  keys.push_back("costs");
  PS_TRY(f.onlyKeys(keys));
  // A fitted plan of an order no generator makes (pipescope-cli fit) names its torch CSV
  // instead, relative to the preset file (findPreset resolves it).
  if (!f.find("schedule") && !f.find("schedule_file"))
    return f.error("schedule", "missing (a generator name, see `schedules`, or a schedule_file)");
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.key == "optimizer_sync") {
      PS_ASSIGN(sync, f.text(knob.key));
      if (!sync) continue;
      const auto parsed = parseOptimizerSync(*sync);
      if (!parsed) return f.error(knob.key, "expected \"barrier\" or \"none\"");
      spec.optimizerSync = *parsed;
    } else if (presetKnob(knob)) {
      PS_TRY(readPresetKnob(f, knob, spec));
    }
  }
  // A model of its own (a skewed layer-cost model), in the cost file's format.
  PS_ASSIGN(costs, f.objectText("costs"));
  if (costs) {
    auto model = parseCostJson(*costs, "plan.costs");
    if (!model) return f.error("costs", model.error());
    spec.costs = std::make_shared<const CostModel>(std::move(*model));
  }
  return {};
}

Status readHeadline(const Fields& f, Preset::Headline& h) {
  PS_TRY(f.onlyKeys({"metric", "value", "text"}));
  PS_ASSIGN(metric, f.text("metric"));
  PS_ASSIGN(value, f.number("value"));
  PS_ASSIGN(text, f.text("text"));
  if (!metric || !value || !text) return f.error("", "expected metric, value and text");
  if (*metric != "bubble_ratio" && *metric != "steady_bubble_ratio" && *metric != "step_time_ns" &&
      *metric != "peak_memory_bytes" && *metric != "peak_memory_spread_bytes" &&
      *metric != "link_bytes")
    return f.error("metric",
                   "expected bubble_ratio, steady_bubble_ratio, step_time_ns, peak_memory_bytes, "
                   "peak_memory_spread_bytes or link_bytes");
  h = {*metric, *value, *text};
  return {};
}

Result<std::string> required(const Fields& f, std::string_view key) {
  auto v = f.text(key);
  if (!v) return std::move(v).takeError();
  if (!*v || (*v)->empty()) return f.error(key, "missing (a non-empty string)");
  return **v;
}

}  // namespace

Result<Preset> parsePreset(std::string_view text, const std::string& source) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  PS_ASSIGN(top, json::parseTopObject(parser, padded, text, source));
  const Fields f(source, "", top);
  PS_TRY(f.onlyKeys({"name", "title", "reference", "teaching", "formula", "plan", "headline"}));
  Preset p;
  PS_ASSIGN(name, required(f, "name"));
  if (std::any_of(name.begin(), name.end(), [](char c) {
        return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
      }))
    return f.error("name", "expected lower-case letters, digits, '-' or '_'");
  p.name = name;
  PS_ASSIGN(title, required(f, "title"));
  PS_ASSIGN(reference, required(f, "reference"));
  PS_ASSIGN(teaching, required(f, "teaching"));
  p.title = title;
  p.reference = reference;
  p.teaching = teaching;
  PS_ASSIGN(formula, f.text("formula"));
  if (formula) p.formula = *formula;
  PS_ASSIGN(plan, f.child("plan"));
  if (!plan) return f.error("plan", "missing (the schedule, sizes and costs)");
  PS_TRY(readPlan(*plan, p.spec));
  PS_ASSIGN(headline, f.child("headline"));
  if (!headline) return f.error("headline", "missing (metric, value, text)");
  PS_TRY(readHeadline(*headline, p.headline));
  return p;
}

const PresetList& builtinPresets() {
  static const PresetList list = [] {
    PresetList l;
    for (const auto& file : embeddedPresetFiles()) {
      auto p = parsePreset(file.text, "resources/presets/" + file.fileName);
      if (p)
        l.presets.push_back(std::move(*p));
      else
        l.errors.push_back(p.error());
    }
    std::sort(l.presets.begin(), l.presets.end(),
              [](const Preset& a, const Preset& b) { return a.name < b.name; });
    return l;
  }();
  return list;
}

Result<Preset> findPreset(const std::string& nameOrPath) {
  if (nameOrPath.size() > 5 && nameOrPath.ends_with(".json")) {
    auto text = trace::readTextFile(nameOrPath, trace::kMaxFlagFileBytes, "preset file");
    if (!text) return std::move(text).takeError();
    auto preset = parsePreset(*text, nameOrPath);
    if (preset && !preset->spec.scheduleFile.empty() &&
        std::filesystem::path(preset->spec.scheduleFile).is_relative())
      preset->spec.scheduleFile =
          (std::filesystem::path(nameOrPath).parent_path() / preset->spec.scheduleFile).string();
    return preset;
  }
  std::string names;
  for (const Preset& p : builtinPresets().presets) {
    if (p.name == nameOrPath) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return Error{"--preset: unknown preset \"" + nameOrPath + "\" (there are: " + names +
               "; or give a preset .json file)"};
}

Result<RunPlanRequest> presetRequest(const std::string& nameOrPath) {
  auto preset = findPreset(nameOrPath);
  if (!preset) return std::move(preset).takeError();
  RunPlanRequest request;
  request.spec = preset->spec;
  request.backend = Backend::Sim;
  return request;
}

std::string presetRunName(const Preset& preset) {
  const auto colon = preset.title.find(':');
  return colon == std::string::npos ? preset.title : preset.title.substr(0, colon);
}

}  // namespace ps::runtime
