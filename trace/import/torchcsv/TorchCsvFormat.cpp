#include "trace/import/torchcsv/TorchCsvFormat.h"

#include <algorithm>
#include <cctype>

namespace ps::trace::import {
namespace {

// By the suffix: a CSV has no magic bytes.
bool guessTorchCsv(std::string_view path, std::string_view /*head*/) {
  constexpr std::string_view kSuffix = ".csv";
  if (path.size() < kSuffix.size()) return false;
  const auto tail = path.substr(path.size() - kSuffix.size());
  return std::equal(tail.begin(), tail.end(), kSuffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

}  // namespace

const ImportFormat& torchCsvFormat() {
  static const ImportFormat format{
      .name = "torch-csv",
      .label = "torch pipelining schedule CSV (simulated)",
      .noun = "a torch pipelining schedule",
      .filter = "torch CSV (*.csv)",
      .kind = ImportKind::Schedule,
      .guess = guessTorchCsv,
      .read = nullptr,
  };
  return format;
}

}  // namespace ps::trace::import
