// libFuzzer entry for the Nsight Systems reader: the input bytes are written to a file and read as
// an nsys SQLite export. Any error is fine; a crash, a sanitizer report or a hang is a bug.
// The reader takes a path (it opens the file read-only through SQLite), so the bytes go to a
// per-process file in /dev/shm (memory-backed) or the temp directory.
// Seeds: small exports written by tests/trace/import/NsysFixture (any NsysReaderTest file) and
// the real ones under $PIPESCOPE_EXTERNAL_TRACES/nsys; -max_len=1048576 lets them through.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "trace/import/nsys/NsysReader.h"

namespace {

std::string inputPath() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::is_directory("/dev/shm", ec)
                                        ? std::filesystem::path("/dev/shm")
                                        : std::filesystem::temp_directory_path();
  return (dir / ("pipescope-fuzz-nsys-" + std::to_string(::getpid()) + ".sqlite")).string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = inputPath();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (written) {
    auto traces = ps::trace::import::readNsysFile(path);
    if (traces.ok()) {
      // Touch what a consumer would: names of every event must be valid indexes.
      for (const auto& t : *traces)
        for (const auto& e : t.events)
          if (e.name < 0 || static_cast<std::size_t>(e.name) >= t.names.size()) __builtin_trap();
    }
  }
  std::remove(path.c_str());
  return 0;
}
