// libFuzzer target: the user label-mapping rules (trace/import/MappingRules) and the built-in
// label recognition on arbitrary bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trace/import/MappingRules.h"
#include "trace/import/OpRecognizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rules = ps::trace::import::MappingRules::parse(text, "fuzz.json");
  if (!rules.ok() && rules.error().empty()) __builtin_trap();
  // Rules that parse run on the same bytes as a label (RE2: linear time, whatever the pattern).
  if (rules.ok()) (void)rules->apply(text);
  // The same bytes as a label, through the built-in namings.
  const ps::trace::import::OpRecognizer recognizer;
  (void)recognizer.recognize(text.substr(0, 256));
  return 0;
}
