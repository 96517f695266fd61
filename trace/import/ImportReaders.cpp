#include "trace/import/ImportReaders.h"

#include <filesystem>

#include "trace/import/ImportFormats.h"

namespace ps::trace::import {

std::string traceFormats() {
  std::string out;
  for (const auto& f : importFormats()) {
    if (f.kind != ImportKind::Profiles) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control) {
  const ImportFormat* entry = findImportFormat(format);
  if (entry == nullptr)
    return Error{"unknown trace format \"" + std::string(format) + "\" (valid: " + traceFormats() +
                 ")"};
  if (entry->kind != ImportKind::Profiles || entry->read == nullptr)
    return Error{std::string(format) + " is a schedule to simulate, not a profile to read"};
  std::vector<std::uintmax_t> sizes;
  std::uintmax_t total = 0;
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(f, ec);
    if (ec) return Error{f + ": cannot read: " + ec.message()};
    sizes.push_back(size);
    total += size;
  }
  std::vector<RawRankTrace> out;
  std::uintmax_t done = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (control.cancelled()) return Error{files[i] + ": import cancelled"};
    ReadControl part;
    part.cancel = control.cancel;
    if (control.progress) {
      part.progress = [&, i](double fraction) {
        const double share = total ? static_cast<double>(sizes[i]) / static_cast<double>(total)
                                   : 1.0 / static_cast<double>(files.size());
        control.report(static_cast<double>(done) /
                           static_cast<double>(std::max<std::uintmax_t>(total, 1)) +
                       share * fraction);
      };
    }
    auto traces = entry->read(files[i], part);
    if (!traces) return std::move(traces).takeError();
    for (auto& t : *traces)
      out.push_back(std::move(t));
    done += sizes[i];
  }
  return out;
}

}  // namespace ps::trace::import
