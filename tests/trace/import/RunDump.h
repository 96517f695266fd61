#pragma once
// Golden diff tests of the importers: a run as stable text (header, ranks, stages, every op by
// rank, lane and start, memory samples, metrics), and a comparison with a file under
// tests/trace/import/golden/. Set PIPESCOPE_UPDATE_GOLDEN=1 to rewrite the golden files from
// what the importers make now (then read the diff before committing it).
//
// Header-only: import_tests and cli_tests (the torch-csv import runs through the CLI) both use it.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "trace/RunTrace.h"

namespace ps::test {

namespace rundump_detail {

inline std::string optionalText(const std::optional<int>& v) {
  return v ? std::to_string(*v) : "-";
}
inline std::string optionalText(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}
inline std::string optionalText(const std::optional<std::string>& v) {
  return v ? "\"" + *v + "\"" : "-";
}
inline std::string valueText(std::int32_t v) {
  return v == trace::kNoValue ? "-" : std::to_string(v);
}

inline std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  for (std::size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

}  // namespace rundump_detail

// `run` as text. Every occurrence of `tempDir` (the test's temporary directory, which is in
// file paths of the config) becomes "$DIR"; the creation time is left out.
inline std::string dumpRun(const trace::RunTrace& run, const std::string& tempDir = {}) {
  using namespace rundump_detail;
  std::ostringstream out;
  const auto& info = run.info;
  out << "run \"" << info.name << "\" source=" << info.source
      << " schedule=" << optionalText(info.schedule) << " ranks=" << info.num_ranks
      << " stages=" << optionalText(info.num_stages)
      << " microbatches=" << optionalText(info.num_microbatches)
      << " status=" << trace::runStatusName(info.status) << '\n';
  out << "config " << info.config_json << '\n';
  for (const auto& s : run.stages)
    out << "stage " << s.stage << ": rank " << s.rank << ", layers " << s.first_layer << ".."
        << s.last_layer << '\n';
  for (const auto& rank : run.ranks) {
    const auto& r = rank.info;
    out << "rank " << r.rank << ": host " << optionalText(r.host) << ", device "
        << optionalText(r.device) << ", memory " << optionalText(r.memory_capacity_bytes)
        << ", clock offset " << r.clock_offset_ns << " ns, " << rank.opCount() << " ops\n";
    for (int l = 0; l < trace::kLaneCount; ++l) {
      const auto& lane = rank.lanes[l];
      for (std::size_t i = 0; i < lane.size(); ++i) {
        const std::string* name = run.nameOf(lane.name[i]);
        out << "  " << trace::opKindName(lane.kind[i]) << " lane " << l << " [" << lane.start[i]
            << ", " << lane.end[i] << "] stage " << valueText(lane.stage[i]) << " mb "
            << valueText(lane.microbatch[i]) << " step " << valueText(lane.step[i]) << " peer "
            << valueText(lane.peer[i]) << " bytes "
            << (lane.bytes[i] == trace::kNoValue ? "-" : std::to_string(lane.bytes[i])) << " name "
            << (name ? "\"" + *name + "\"" : "-") << '\n';
      }
    }
    for (std::size_t i = 0; i < rank.memory.size(); ++i)
      out << "  memory t " << rank.memory.t[i] << " bytes " << rank.memory.bytes[i] << '\n';
  }
  for (const auto& m : run.metrics)
    out << "metric " << m.name << " step " << m.step << " rank " << optionalText(m.rank) << " = "
        << m.value << '\n';
  for (const auto& w : run.warnings)
    out << "warning " << w << '\n';
  std::string text = out.str();
  if (!tempDir.empty()) text = replaceAll(std::move(text), tempDir, "$DIR");
  return text;
}

// Compares `actual` with golden file `path`; with PIPESCOPE_UPDATE_GOLDEN=1 (re)writes it.
inline void expectGolden(const std::string& path, const std::string& actual) {
  const char* update = std::getenv("PIPESCOPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing: run with PIPESCOPE_UPDATE_GOLDEN=1 to write it";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "the import of " << path
      << " changed; if that is intended, rerun with PIPESCOPE_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace ps::test
