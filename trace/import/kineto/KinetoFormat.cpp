#include "trace/import/kineto/KinetoFormat.h"

#include "trace/import/GzipInput.h"
#include "trace/import/ProcessRanks.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

// Gzip (Kineto's .json.gz; told by the magic, not the name) or JSON opening with an object or
// an array after whitespace.
bool guessKineto(std::string_view /*path*/, std::string_view head) {
  if (isGzip(head)) return true;
  for (char c : head) {
    if (c == '{' || c == '[') return true;
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return false;
}

Result<std::vector<RawRankTrace>> readKinetoFormat(const std::string& path,
                                                   const ReadControl& control) {
  auto trace = readKinetoFile(path, control);
  if (!trace) return std::move(trace).takeError();
  // PipeScope's own Chrome export holds every rank, one process each.
  return splitProcessesAsRanks(std::move(*trace));
}

}  // namespace

const ImportFormat& kinetoFormat() {
  static const ImportFormat format{
      .name = "kineto",
      .label = "PyTorch profiler (Kineto JSON, .json.gz)",
      .noun = "a PyTorch profiler trace",
      .filter = "PyTorch profiler (*.json *.json.gz)",
      .kind = ImportKind::Profiles,
      .guess = guessKineto,
      .read = readKinetoFormat,
  };
  return format;
}

}  // namespace ps::trace::import
