#include "runtime/run/RunConfig.h"

#include <simdjson.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "kernels/ComputeDevice.h"
#include "runtime/cost/CostJson.h"
#include "runtime/run/PlanKnobs.h"

namespace ps::runtime {
namespace {

// The knobs of one JSON object. Absent knobs keep the request's defaults (older configs lack
// the newer keys); present ones must have the written type, or the error names them.
class Knobs {
 public:
  Knobs(simdjson::dom::object object, std::string where)
      : object_(object), where_(std::move(where)) {}

  bool has(std::string_view key) const {
    simdjson::dom::element e;
    return !object_.at_key(key).get(e);
  }

  Status read(std::string_view key, int& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    std::int64_t v = 0;
    if (e.get_int64().get(v) || v < std::numeric_limits<int>::min() ||
        v > std::numeric_limits<int>::max())
      return wrongType(key, "an integer", e);
    out = static_cast<int>(v);
    return {};
  }

  Status read(std::string_view key, std::optional<int>& out) const {
    if (!has(key)) return {};
    int v = 0;
    PS_TRY(read(key, v));
    out = v;
    return {};
  }

  Status read(std::string_view key, std::int64_t& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    if (e.get_int64().get(out)) return wrongType(key, "an integer", e);
    return {};
  }

  Status read(std::string_view key, double& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    if (!e.is_number() || e.get_double().get(out)) return wrongType(key, "a number", e);
    return {};
  }

  Status read(std::string_view key, float& out) const {
    double v = out;
    PS_TRY(read(key, v));
    out = static_cast<float>(v);
    return {};
  }

  // null (or absent) = none: a free link.
  Status read(std::string_view key, std::optional<double>& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    if (e.is_null()) {
      out.reset();
      return {};
    }
    double v = 0;
    PS_TRY(read(key, v));
    out = v;
    return {};
  }

  Status read(std::string_view key, bool& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    if (e.get_bool().get(out)) return wrongType(key, "true or false", e);
    return {};
  }

  Status read(std::string_view key, std::string& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    std::string_view v;
    if (e.get_string().get(v)) return wrongType(key, "a string", e);
    out = std::string(v);
    return {};
  }

  // The boundary list [i, j, k] as buildPlan takes it: "i,j,k".
  Status readBoundaries(std::string_view key, std::string& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    simdjson::dom::array items;
    if (e.get_array().get(items)) return wrongType(key, "an array of layer numbers", e);
    std::string text;
    for (simdjson::dom::element item : items) {
      std::int64_t v = 0;
      if (item.get_int64().get(v)) return wrongType(key, "an array of layer numbers", e);
      if (!text.empty()) text += ',';
      text += std::to_string(v);
    }
    out = std::move(text);
    return {};
  }

  // A list of numbers [a, b, c]; left as it is when absent.
  Status read(std::string_view key, std::vector<double>& out) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return {};
    simdjson::dom::array items;
    if (e.get_array().get(items)) return wrongType(key, "an array of numbers", e);
    std::vector<double> values;
    for (simdjson::dom::element item : items) {
      double v = 0;
      if (item.get_double().get(v)) return wrongType(key, "an array of numbers", e);
      values.push_back(v);
    }
    out = std::move(values);
    return {};
  }

  // An object knob, as JSON text; nullopt when absent.
  Result<std::optional<std::string>> objectText(std::string_view key) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return std::optional<std::string>();
    if (!e.is_object()) return wrongType(key, "an object", e);
    return std::optional<std::string>(simdjson::minify(e));
  }

  Error wrongType(std::string_view key, std::string_view expected,
                  simdjson::dom::element got) const {
    std::string text = simdjson::minify(got);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return Error{where_ + ": \"" + std::string(key) + "\" must be " + std::string(expected) +
                 " (got " + text + ")"};
  }

  const std::string& where() const { return where_; }

 private:
  simdjson::dom::object object_;
  std::string where_;
};

Result<std::shared_ptr<const CostModel>> embeddedCosts(const Knobs& knobs, std::string_view key) {
  auto text = knobs.objectText(key);
  if (!text) return std::move(text).takeError();
  if (!*text) return std::shared_ptr<const CostModel>();
  auto cost = parseCostJson(**text, knobs.where() + " \"" + std::string(key) + "\"");
  if (!cost) return std::move(cost).takeError();
  return std::make_shared<const CostModel>(std::move(*cost));
}

// The plan's knobs, as configJsonOf writes them (PlanBuilder.cpp).
Result<PlanSpec> planSpecOf(const Knobs& knobs) {
  PlanSpec spec;
  if (!knobs.has("schedule"))
    return Error{knobs.where() + " has no \"schedule\": not the config of a plan"};
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.key == "boundaries") {  // an array here, "i,j,k" in the spec
      PS_TRY(knobs.readBoundaries(knob.key, spec.boundaries));
    } else if (knob.key == "optimizer_sync") {
      std::string sync = optimizerSyncName(spec.optimizerSync);
      PS_TRY(knobs.read(knob.key, sync));
      const auto parsed = parseOptimizerSync(sync);
      if (!parsed)
        return Error{knobs.where() +
                     ": \"optimizer_sync\" must be \"barrier\" or \"none\" (got \"" + sync + "\")"};
      spec.optimizerSync = *parsed;
    } else {
      PS_TRY(std::visit(
          [&](auto get) -> Status {
            if constexpr (std::is_same_v<decltype(get), std::monostate>)
              return {};
            else
              return knobs.read(knob.key, get(spec));
          },
          knob.field));
    }
  }
  // The uniform flags rebuild uniform costs exactly; a cost file may be gone or changed, and
  // given costs have nothing else to come from: those take the copy the run embedded.
  bool embedded = false;
  PS_TRY(knobs.read("costs_embedded", embedded));
  if (!spec.costsFile.empty() || embedded) {
    auto costs = embeddedCosts(knobs, "costs");
    if (!costs) return std::move(costs).takeError();
    spec.costs = std::move(*costs);
  }
  return spec;
}

Result<kernels::DType> dtypeOf(const std::string& name, const std::string& where) {
  for (auto type : {kernels::DType::Fp32, kernels::DType::Bf16})
    if (name == kernels::dtypeName(type)) return type;
  return Error{where + ": \"dtype\" must be \"fp32\" or \"bf16\" (got \"" + name + "\")"};
}

// The model, optimizer and device knobs of a cpu or cuda run (modelRunConfigJson, ModelRun.cpp).
Status readModelOptions(const Knobs& knobs, const PlanSpec& spec, CpuRunOptions& options) {
  ModelConfig& model = options.model;
  std::string block(blockTypeName(model.block));
  PS_TRY(knobs.read("model", block));
  auto type = parseBlockType(block);
  if (!type) return Error{knobs.where() + ": \"model\": " + type.error()};
  model.block = *type;
  PS_TRY(knobs.read("hidden", model.hidden));
  PS_TRY(knobs.read("seq", model.seq));
  PS_TRY(knobs.read("mb_size", model.microbatchSize));
  PS_TRY(knobs.read("heads", model.heads));
  PS_TRY(knobs.read("ffn_multiplier", model.ffnMultiplier));
  std::int64_t seed = static_cast<std::int64_t>(model.seed);
  PS_TRY(knobs.read("seed", seed));
  model.seed = static_cast<std::uint64_t>(seed);  // written as the same 64 bits
  if (spec.layers) model.layers = *spec.layers;   // runPlan takes the plan's anyway

  OptimizerConfig& opt = options.optimizer;
  std::string kind(optimizerName(opt.kind));
  PS_TRY(knobs.read("optimizer", kind));
  auto parsedKind = parseOptimizerKind(kind);
  if (!parsedKind) return Error{knobs.where() + ": \"optimizer\": " + parsedKind.error()};
  opt.kind = *parsedKind;
  PS_TRY(knobs.read("lr", opt.lr));
  PS_TRY(knobs.read("momentum", opt.momentum));
  PS_TRY(knobs.read("beta1", opt.beta1));
  PS_TRY(knobs.read("beta2", opt.beta2));
  PS_TRY(knobs.read("eps", opt.eps));

  std::string dtype(kernels::dtypeName(options.dtype));
  PS_TRY(knobs.read("dtype", dtype));
  auto parsedType = dtypeOf(dtype, knobs.where());
  if (!parsedType) return std::move(parsedType).takeError();
  options.dtype = *parsedType;
  PS_TRY(knobs.read("sm_split", options.smSplit));
  PS_TRY(knobs.read("event_timing", options.eventTiming));
  // Configs from before the emulated link was recorded: the plan's link, as the CLI sets it.
  options.linkGbps = spec.uniform.linkGbps;
  options.linkLatencyUs = spec.uniform.linkLatencyUs;
  PS_TRY(knobs.read("emulated_link_gbps", options.linkGbps));
  PS_TRY(knobs.read("emulated_link_latency_us", options.linkLatencyUs));
  return {};
}

std::string importFormat(simdjson::dom::element import) {
  std::string_view format;
  if (import["format"].get_string().get(format) || format.empty()) return "a profile";
  return std::string(format);
}

}  // namespace

Result<RunPlanRequest> requestFromConfigJson(std::string_view configJson) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(configJson.data(), configJson.size()).get(doc))
    return Error{std::string("config_json is not valid JSON: ") + simdjson::error_message(err)};
  simdjson::dom::object top;
  if (doc.get_object().get(top)) return Error{"config_json is not a JSON object"};

  simdjson::dom::element import;
  if (!top.at_key("import").get(import))
    return Error{"run was imported from " + importFormat(import) + ": it has no plan to rerun"};

  const Knobs outer(top, "config_json");
  RunPlanRequest request;
  request.backend = Backend::Sim;
  simdjson::dom::element planElement;
  if (top.at_key("plan").get(planElement)) {  // a sim run, a torch-csv import
    auto spec = planSpecOf(outer);
    if (!spec) return std::move(spec).takeError();
    request.spec = std::move(*spec);
    return request;
  }
  simdjson::dom::object planObject;
  if (planElement.get_object().get(planObject))
    return outer.wrongType("plan", "an object", planElement);
  auto spec = planSpecOf(Knobs(planObject, "config_json \"plan\""));
  if (!spec) return std::move(spec).takeError();
  request.spec = std::move(*spec);

  if (!outer.has("backend")) {
    // A prediction (pipescope-cli run --compare-sim): the plan simulated with calibrated costs.
    auto calibrated = embeddedCosts(outer, "calibrated_costs");
    if (!calibrated) return std::move(calibrated).takeError();
    if (!*calibrated) return Error{"config_json has a \"plan\" but no \"backend\" to run it on"};
    request.spec.costs = std::move(*calibrated);
    return request;
  }
  std::string backend;
  PS_TRY(outer.read("backend", backend));
  const auto parsed = parseBackend(backend);
  if (!parsed)
    return Error{"config_json: \"backend\" must be sim, cpu or cuda (got \"" + backend + "\")"};
  request.backend = *parsed;
  if (trainsModel(request.backend)) PS_TRY(readModelOptions(outer, request.spec, request.exec));
  return request;
}

}  // namespace ps::runtime
