#include "app/cli/PlanOptions.h"

#include <CLI/CLI.hpp>

#include <type_traits>
#include <variant>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/CostModel.h"
#include "runtime/run/CostOverrides.h"
#include "runtime/run/PlanKnobs.h"
#include "runtime/run/Presets.h"
#include "runtime/schedules/CommaList.h"

namespace ps::cli {

namespace {

using Copy = std::function<void(runtime::PlanSpec&, const PlanOptions&)>;

// A list option: every value given, split and converted by `parse` (which throws CLI11's
// ValidationError, so the message comes out as any other usage error).
template <class T, class Parse>
CLI::Option* listOption(CLI::App& cmd, const std::string& name, std::vector<T>& into,
                        const std::string& help, Parse parse) {
  auto* option = cmd.add_option(
      name,
      [&into, name, parse](const CLI::results_t& values) {
        into.clear();
        for (const std::string& value : values) {
          auto items = parse(value, name);
          if (!items) throw CLI::ValidationError(items.error(), CLI::ExitCodes::ValidationError);
          into.insert(into.end(), items->begin(), items->end());
        }
        return true;
      },
      help);
  option->type_name("LIST")->expected(1, CLI::detail::expected_max_vector_size);
  return option;
}

// Records how the flag copies its value over a preset's spec (planSpec), and returns it.
CLI::Option* kept(PlanOptions& o, CLI::Option* option, Copy copy) {
  o.plans.emplace_back(option, std::move(copy));
  return option;
}

}  // namespace

CLI::Option* addNumberListOption(CLI::App& cmd, const std::string& name, std::vector<double>& into,
                                 const std::string& help) {
  return listOption(cmd, name, into, help, runtime::parseNumberList);
}

CLI::Option* addIntListOption(CLI::App& cmd, const std::string& name, std::vector<int>& into,
                              const std::string& help, int lo, int hi) {
  return listOption(
      cmd, name, into, help,
      [lo, hi](const std::string& text, const std::string& flag) -> Result<std::vector<int>> {
        auto items = runtime::parseIntList(text, flag);
        if (!items) return items;
        for (int v : *items)
          if (v < lo || v > hi)
            return Error{flag + " " + text + ": " + std::to_string(v) + " is outside " +
                         std::to_string(lo) + ".." + std::to_string(hi)};
        return items;
      });
}

CLI::Option* addTextListOption(CLI::App& cmd, const std::string& name,
                               std::vector<std::string>& into, const std::string& help) {
  return listOption(cmd, name, into, help, runtime::splitCommaList);
}

namespace {

// The flag of one table row (runtime/run/PlanKnobs.h) into its field of o.spec, with the row's
// range, words or file check, and the copy that applies it over a preset's spec.
void addKnobOption(CLI::App& cmd, PlanOptions& o, const runtime::PlanKnob& knob) {
  const std::string flag(knob.flag), help(knob.help);
  auto* row = &knob;
  const Copy copy = [row](runtime::PlanSpec& d, const PlanOptions& f) {
    std::visit(
        [&](auto get) {
          if constexpr (!std::is_same_v<decltype(get), std::monostate>)
            get(d) = get(const_cast<runtime::PlanSpec&>(f.spec));
        },
        row->field);
    // The two ways to name a schedule exclude each other: the flag replaces a preset's file.
    if (row->key == "schedule") d.scheduleFile.clear();
  };
  CLI::Option* option = std::visit(
      [&](auto get) -> CLI::Option* {
        if constexpr (std::is_same_v<decltype(get), std::monostate>) {
          return nullptr;
        } else {
          auto& into = get(o.spec);
          using T = std::decay_t<decltype(into)>;
          if constexpr (std::is_same_v<T, bool>)
            return cmd.add_flag(flag, into, help);
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            return addNumberListOption(cmd, flag, into, help);
          else
            return cmd.add_option(flag, into, help);
        }
      },
      knob.field);
  if (knob.key == "optimizer_sync")  // an enum in the spec: parsed by planSpec
    option = cmd.add_option(flag, o.optimizerSync, help);
  if (!option) return;
  if (knob.min < knob.max) option->check(CLI::Range(knob.min, knob.max));
  if (!knob.choices.empty())
    option->check(
        CLI::IsMember(std::vector<std::string>(knob.choices.begin(), knob.choices.end())));
  if (knob.format == runtime::KnobFormat::File) option->check(CLI::ExistingFile);
  if (knob.key == "optimizer_sync") {
    kept(o, option, [](runtime::PlanSpec& d, const PlanOptions& f) {
      d.optimizerSync =
          runtime::parseOptimizerSync(f.optimizerSync).value_or(runtime::OptimizerSync::Barrier);
    });
    return;
  }
  kept(o, option, copy);
}

void addKnobOptions(CLI::App& cmd, PlanOptions& o, runtime::KnobGroup group) {
  for (const runtime::PlanKnob& knob : runtime::planKnobs())
    if (knob.group == group && !knob.flag.empty()) addKnobOption(cmd, o, knob);
}

}  // namespace

// The cost, link and device flags (shared with `explore`).
void addCostOptions(CLI::App& cmd, PlanOptions& o) {
  addKnobOptions(cmd, o, runtime::KnobGroup::Cost);
}

// Each flag's own range; their product is bounded by buildPlan's size check (a plan past
// runtime::kMaxPlanActions actions is refused with the product named, runtime/run/PlanSize.h), and
// the cost flags' values by uniformCostModel (finite, and no op or transfer past kMaxOpNs).
void addPlanOptions(CLI::App& cmd, PlanOptions& o) {
  cmd.add_option("--preset", o.preset,
                 "A preset's plan (see `pipescope-cli presets`) or a preset .json file; flags "
                 "given with it override its values");
  addKnobOptions(cmd, o, runtime::KnobGroup::Plan);
  addCostOptions(cmd, o);
  CLI::Option* schedule = cmd.get_option("--schedule");
  CLI::Option* file = cmd.get_option("--schedule-file");
  schedule->excludes(file);
  file->excludes(schedule);
  cmd.add_option("--db", o.db, "Trace file to append the run to")->required();
  cmd.add_option("--name", o.name, "Run name (default: schedule and sizes)");
}

namespace {

bool given(const PlanOptions& o, const std::string& longName) {
  for (const auto& [option, copy] : o.plans)
    if (option->count() > 0 && option->check_lname(longName)) return true;
  return false;
}

// The uniform cost flags given on the command line, over a per-layer model (a preset's "costs"
// or a --costs file): each overrides its field of every layer (runtime/run/CostOverrides.h). A
// --costs file given with a preset replaces the preset's model. Without such a model the flags
// are the uniform model's already.
Result<runtime::PlanSpec> withCostFlags(runtime::PlanSpec spec, const PlanOptions& o) {
  if (!o.preset.empty() && given(o, "costs")) spec.costs.reset();
  const runtime::UniformCostFlags& u = o.spec.uniform;
  runtime::CostOverrides over;
  const auto take = [&](const char* name, double value, std::optional<double>& into) {
    if (given(o, name)) into = value;
  };
  take("fwd-us", u.fwdUs, over.fwdUs);
  take("bwd-us", u.bwdUs, over.bwdUs);
  take("wgrad-us", u.wgradUs, over.wgradUs);
  take("act-mb", u.actMb, over.actMb);
  take("param-mb", u.paramMb, over.paramMb);
  if (given(o, "link-gbps")) over.linkGbps = u.linkGbps;
  take("link-latency-us", u.linkLatencyUs, over.linkLatencyUs);
  if (!over.any() || (!spec.costs && spec.costsFile.empty())) return spec;
  runtime::CostModel model;
  if (spec.costs) {
    model = *spec.costs;
  } else {
    auto file = runtime::loadCostJson(spec.costsFile);
    if (!file) return std::move(file).takeError();
    model = std::move(*file);
  }
  auto overridden = runtime::overrideCosts(std::move(model), over);
  if (!overridden) return std::move(overridden).takeError();
  // The costs used, embedded in config_json; costs_file (when given) still names their source.
  spec.costs = std::make_shared<const runtime::CostModel>(std::move(*overridden));
  spec.uniform = runtime::UniformCostFlags{};
  return spec;
}

}  // namespace

Result<runtime::PlanSpec> planSpec(PlanOptions& o) {
  o.spec.optimizerSync =
      runtime::parseOptimizerSync(o.optimizerSync).value_or(runtime::OptimizerSync::Barrier);
  if (o.preset.empty()) return withCostFlags(o.spec, o);
  auto preset = runtime::findPreset(o.preset);
  if (!preset) return std::move(preset).takeError();
  runtime::PlanSpec spec = preset->spec;
  for (const auto& [option, copy] : o.plans)
    if (option->count() > 0) copy(spec, o);
  return withCostFlags(std::move(spec), o);
}

Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& o) {
  auto spec = planSpec(o);
  if (!spec) return std::move(spec).takeError();
  return runtime::buildPlan(*spec);
}

}  // namespace ps::cli
