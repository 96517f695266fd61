// libFuzzer target: the torch pipelining CSV reader on arbitrary text: its text parser
// (trace/import/torchcsv, in ps_trace) and the plan built from the rows (runtime/plan/TorchCsv).
// Any input must give a plan or an error message, never a crash, a hang or a sanitizer report.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/plan/TorchCsv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = ps::runtime::parseTorchCsv(text, "fuzz.csv");
  if (parsed.ok()) {
    // Writing back what was read exercises the writer on every plan the reader accepts.
    (void)ps::runtime::writeTorchCsvComputeOnly(parsed->plan);
  } else if (parsed.error().empty()) {
    __builtin_trap();  // every error must say something
  }
  return 0;
}
