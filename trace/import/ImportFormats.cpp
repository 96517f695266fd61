#include "trace/import/ImportFormats.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "trace/import/kineto/KinetoFormat.h"
#include "trace/import/nsys/NsysFormat.h"
#include "trace/import/torchcsv/TorchCsvFormat.h"

namespace ps::trace::import {

std::span<const ImportFormat> importFormats() {
  // One line per format. Function-local, so the entries (defined in other files) are
  // initialised before they are copied.
  static const std::vector<ImportFormat> formats{
      nsysFormat(),
      kinetoFormat(),
      torchCsvFormat(),
  };
  return formats;
}

const ImportFormat* findImportFormat(std::string_view name) {
  for (const auto& f : importFormats())
    if (f.name == name) return &f;
  return nullptr;
}

std::string importFormatNames(std::string_view separator) {
  std::string out;
  for (const auto& f : importFormats()) {
    if (!out.empty()) out += separator;
    out += f.name;
  }
  return out;
}

const ImportFormat* guessImportFormat(const std::string& path) {
  // An unreadable file still has a name: the suffix guesses see an empty head.
  std::ifstream in(path, std::ios::binary);
  char head[kImportGuessBytes] = {};
  if (in) in.read(head, sizeof head);
  const std::string_view bytes(head, static_cast<std::size_t>(in.gcount()));
  for (const auto& f : importFormats())
    if (f.guess != nullptr && f.guess(path, bytes)) return &f;
  return nullptr;
}

std::string importFileFilter() {
  // The patterns of every filter ("Nsight Systems (*.sqlite)" -> "*.sqlite"), each once.
  std::vector<std::string> patterns;
  for (const auto& f : importFormats()) {
    const auto open = f.filter.rfind('(');
    const auto close = f.filter.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) continue;
    std::istringstream words(std::string(f.filter.substr(open + 1, close - open - 1)));
    std::string word;
    while (words >> word)
      if (std::find(patterns.begin(), patterns.end(), word) == patterns.end())
        patterns.push_back(word);
  }
  std::string out = "Profiles (";
  for (std::size_t i = 0; i < patterns.size(); ++i)
    out += (i ? " " : "") + patterns[i];
  out += ")";
  for (const auto& f : importFormats())
    out += ";;" + std::string(f.filter);
  out += ";;All files (*)";
  return out;
}

}  // namespace ps::trace::import
