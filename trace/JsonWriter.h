#pragma once
// A small streaming JSON writer for reports and exports: correct escaping, no DOM.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ps::trace {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = false) : pretty_(pretty) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(double v);  // non-finite values are written as null
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  // Inserts already-serialised JSON (e.g. a run's config_json) as a value.
  JsonWriter& raw(std::string_view json);

  const std::string& str() const { return out_; }

  // `text` quoted and escaped: controls as \n or \u00XX; bytes that are not UTF-8 (a name from a
  // file in another encoding) become U+FFFD, so the document stays valid JSON.
  static void appendEscaped(std::string& out, std::string_view text);

 private:
  void beforeValue();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element yet
  bool pretty_;
  bool afterKey_ = false;
};

}  // namespace ps::trace
