#include "trace/import/nsys/NsysFormat.h"

#include "trace/import/nsys/NsysReader.h"

namespace ps::trace::import {
namespace {

// Any SQLite file: a PipeScope trace is one too, which is why the window tries to open a
// dropped SQLite file before offering to import it.
bool guessNsys(std::string_view /*path*/, std::string_view head) {
  constexpr std::string_view kMagic("SQLite format 3\0", 16);
  return head.substr(0, kMagic.size()) == kMagic;
}

Result<std::vector<RawRankTrace>> readNsysFormat(const std::string& path,
                                                 const ReadControl& control) {
  auto traces = readNsysFile(path, control);
  if (!traces) return traces;
  if (traces->empty())
    return Error{path + ": nothing to import (no process with GPU work or NVTX ranges)"};
  return traces;
}

}  // namespace

const ImportFormat& nsysFormat() {
  static const ImportFormat format{
      .name = "nsys",
      .label = "Nsight Systems SQLite export",
      .noun = "an Nsight Systems export",
      .filter = "Nsight Systems (*.sqlite)",
      .kind = ImportKind::Profiles,
      .sqliteFiles = true,
      .guess = guessNsys,
      .read = readNsysFormat,
  };
  return format;
}

}  // namespace ps::trace::import
