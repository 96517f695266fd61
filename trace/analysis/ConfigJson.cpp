#include "trace/analysis/ConfigJson.h"

#include <simdjson.h>

namespace ps::trace {
namespace {
template <typename Fn>
auto withField(std::string_view json, std::string_view key, Fn&& fn)
    -> decltype(fn(std::declval<simdjson::dom::element>())) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json.data(), json.size()).get(doc)) return std::nullopt;
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) return std::nullopt;
  simdjson::dom::element field;
  if (obj.at_key(key).get(field)) return std::nullopt;
  return fn(field);
}
}  // namespace

std::optional<long long> jsonTopLevelInt(std::string_view json, std::string_view key) {
  return withField(json, key, [](simdjson::dom::element e) -> std::optional<long long> {
    int64_t v = 0;
    if (e.get_int64().get(v)) return std::nullopt;
    return v;
  });
}

std::optional<std::string> jsonTopLevelString(std::string_view json, std::string_view key) {
  return withField(json, key, [](simdjson::dom::element e) -> std::optional<std::string> {
    std::string_view v;
    if (e.get_string().get(v)) return std::nullopt;
    return std::string(v);
  });
}

std::optional<std::string> jsonTopLevelObject(std::string_view json, std::string_view key) {
  return withField(json, key, [](simdjson::dom::element e) -> std::optional<std::string> {
    if (!e.is_object()) return std::nullopt;
    return simdjson::minify(e);
  });
}

std::optional<int> chunksOf(const RunInfo& run) {
  if (auto v = jsonTopLevelInt(run.config_json, "chunks"); v && *v > 0) return static_cast<int>(*v);
  if (run.num_stages && run.num_ranks > 0 && *run.num_stages % run.num_ranks == 0)
    return *run.num_stages / run.num_ranks;
  return std::nullopt;
}

int dataParallelOf(const RunInfo& run) {
  auto v = jsonTopLevelInt(run.config_json, "dp");
  if (!v)
    if (auto plan = jsonTopLevelObject(run.config_json, "plan")) v = jsonTopLevelInt(*plan, "dp");
  return v && *v > 1 && *v <= 4096 ? static_cast<int>(*v) : 1;
}

}  // namespace ps::trace
