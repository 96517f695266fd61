#pragma once
// Typed reading of a JSON object's fields for our hand-written files (cost models, presets):
// unknown keys are errors and every error names the file and the JSON path, e.g.
// "costs.json: layers[3].fwd_us: expected a non-negative number".

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "runtime/cost/JsonSyntax.h"
#include "trace/Result.h"

namespace ps::runtime::json {

using simdjson::dom::element;
using simdjson::dom::object;

// "layers[3]" + "fwd_us" → "layers[3].fwd_us"; the top level has an empty path.
inline std::string join(const std::string& path, std::string_view key) {
  if (key.empty()) return path;
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Reads typed fields of one JSON object; every error names the file and the JSON path.
class Fields {
 public:
  Fields(std::string_view source, std::string path, object obj)
      : source_(source), path_(std::move(path)), obj_(obj) {}

  Error error(std::string_view key, const std::string& what) const {
    return Error{std::string(source_) + ": " + join(path_, key) + ": " + what};
  }

  // Unknown keys are errors (typos such as "fwd_ns" would otherwise be silently ignored).
  Status onlyKeys(std::initializer_list<std::string_view> allowed) const {
    return onlyKeys(std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  Status onlyKeys(std::span<const std::string_view> allowed) const {
    for (auto [key, value] : obj_) {
      (void)value;
      if (!key.empty() && key.front() == '_') continue;
      bool known = false;
      for (auto k : allowed)
        known = known || k == key;
      if (known) continue;
      std::string list;
      for (auto k : allowed)
        list += (list.empty() ? "" : ", ") + std::string(k);
      return error(key, "unknown key (expected " + list + ")");
    }
    return {};
  }

  std::optional<element> find(std::string_view key) const {
    element e;
    if (obj_.at_key(key).get(e)) return std::nullopt;
    return e;
  }

  // A number >= 0 (or > 0 when `positive`); nullopt when absent.
  Result<std::optional<double>> number(std::string_view key, bool positive = false) const {
    auto e = find(key);
    if (!e) return std::optional<double>{};
    double v = 0;
    const bool ok = !e->get_double().get(v) && std::isfinite(v) && (positive ? v > 0 : v >= 0);
    if (!ok)
      return error(key, positive ? "expected a positive number" : "expected a non-negative number");
    return std::optional<double>{v};
  }

  // A whole number >= minimum; nullopt when absent. 1e6 is accepted as an integer.
  Result<std::optional<std::int64_t>> integer(std::string_view key, std::int64_t minimum) const {
    auto e = find(key);
    if (!e) return std::optional<std::int64_t>{};
    const std::string what =
        minimum > 0 ? "expected a positive integer" : "expected a non-negative integer";
    std::int64_t i = 0;
    if (e->get_int64().get(i)) {
      double d = 0;
      if (e->get_double().get(d) || d != std::floor(d) || !(std::fabs(d) < 9.2e18))
        return error(key, what);
      i = static_cast<std::int64_t>(d);
    }
    if (i < minimum) return error(key, what);
    return std::optional<std::int64_t>{i};
  }

  Result<std::optional<bool>> boolean(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<bool>{};
    bool b = false;
    if (e->get_bool().get(b)) return error(key, "expected true or false");
    return std::optional<bool>{b};
  }

  Result<std::optional<std::string>> text(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<std::string>{};
    std::string_view s;
    if (e->get_string().get(s)) return error(key, "expected a string");
    return std::optional<std::string>{std::string(s)};
  }

  // A nested object or array; nullopt when absent.
  Result<std::optional<Fields>> child(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<Fields>{};
    object o;
    if (e->get_object().get(o)) return error(key, "expected an object");
    return std::optional<Fields>{Fields(source_, join(path_, key), o)};
  }
  // A nested object as minified JSON text (to hand to another parser); nullopt when absent.
  Result<std::optional<std::string>> objectText(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<std::string>{};
    if (!e->is_object()) return error(key, "expected an object");
    return std::optional<std::string>{simdjson::minify(*e)};
  }
  Result<std::optional<simdjson::dom::array>> list(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<simdjson::dom::array>{};
    simdjson::dom::array a;
    if (e->get_array().get(a)) return error(key, "expected an array");
    return std::optional<simdjson::dom::array>{a};
  }

  // The i-th element of an array under `key`, which must be an object.
  Result<Fields> item(std::string_view key, std::size_t i, element e) const {
    object o;
    const std::string p = join(path_, key) + "[" + std::to_string(i) + "]";
    if (e.get_object().get(o))
      return Error{std::string(source_) + ": " + p + ": expected an object"};
    return Fields(source_, p, o);
  }

 private:
  std::string_view source_;
  std::string path_;
  object obj_;
};

// Unwraps a Result<T> into `var` or returns its error from the enclosing function.
#define PS_ASSIGN(var, expr)                                       \
  auto var##_result_ = (expr);                                     \
  if (!var##_result_) return std::move(var##_result_).takeError(); \
  auto var = std::move(*var##_result_)

// Parses `padded` (a copy of `json`) with `parser` and returns its top-level object; a syntax
// error names the line and column ("F:3:14: malformed JSON: expected ',' or '}'").
inline Result<object> parseTopObject(simdjson::dom::parser& parser,
                                     const simdjson::padded_string& padded, std::string_view json,
                                     const std::string& source) {
  element doc;
  if (const auto err = parser.parse(padded).get(doc)) {
    if (auto where = findJsonSyntaxError(json))
      return Error{source + ":" + std::to_string(where->line) + ":" +
                   std::to_string(where->column) + ": malformed JSON: expected " + where->expected};
    return Error{source + ": malformed JSON: " + simdjson::error_message(err)};
  }
  object top;
  if (doc.get_object().get(top)) return Error{source + ": expected a JSON object at the top level"};
  return top;
}

}  // namespace ps::runtime::json
