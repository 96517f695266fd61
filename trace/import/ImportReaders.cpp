#include "trace/import/ImportReaders.h"

#include <filesystem>
#include <fstream>

#include "trace/import/kineto/KinetoReader.h"
#include "trace/import/nsys/NsysReader.h"

namespace ps::trace::import {

std::string_view traceFormats() {
  return "kineto, nsys";
}

Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control) {
  if (format != "kineto" && format != "nsys")
    return Error{"unknown trace format \"" + std::string(format) +
                 "\" (valid: " + std::string(traceFormats()) + ")"};
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
    if (format == "kineto") {
      auto trace = readKinetoFile(files[i], part);
      if (!trace) return std::move(trace).takeError();
      out.push_back(std::move(*trace));
    } else {
      auto traces = readNsysFile(files[i], part);
      if (!traces) return std::move(traces).takeError();
      if (traces->empty())
        return Error{files[i] + ": nothing to import (no process with GPU work or NVTX ranges)"};
      for (auto& t : *traces)
        out.push_back(std::move(t));
    }
    done += sizes[i];
  }
  return out;
}

std::string guessTraceFormat(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  const std::string_view bytes(head, static_cast<std::size_t>(in.gcount()));
  if (bytes.substr(0, 15) == std::string_view("SQLite format 3", 15)) return "nsys";
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b)
    return "kineto";  // gzip: Kineto's .json.gz
  for (char c : bytes) {
    if (c == '{' || c == '[') return "kineto";
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
  }
  return "";
}

}  // namespace ps::trace::import
