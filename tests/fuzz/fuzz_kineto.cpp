// libFuzzer entry for the Kineto reader: any bytes (JSON, gzip, garbage) must give a trace or a
// one-line error, never a crash, hang or sanitizer report. Build with clang -fsanitize=fuzzer
// (wired by the top-level CMake); seeds: the files under $PIPESCOPE_EXTERNAL_TRACES/kineto and
// the test fixtures.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/import/kineto/KinetoReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto trace = ps::trace::import::readKinetoBuffer(bytes, "fuzz");
  if (trace.ok()) {
    // Touch what the later stages read, so bad indices would show up here.
    for (const auto& event : trace->events)
      if (trace->nameOf(event).size() > (std::size_t{1} << 40)) __builtin_trap();
  } else if (trace.error().find('\n') != std::string::npos) {
    __builtin_trap();  // errors are one line
  }
  return 0;
}
